package ai_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func TestTokenize(t *testing.T) {
	cases := map[string][]string{
		"getHTTPResponse":          {"get", "httpresponse"},
		"HTTPServer":               {"httpserver"},
		"XMLParser":                {"xmlparser"},
		"get2Items":                {"get2", "items"},
		"a1B2c3D":                  {"a1", "b2c3", "d"},
		"aB":                       {"a", "b"},
		"déjàVu":                   {"déjàvu"},
		"snake_case-kebab.dot":     {"snake", "case", "kebab", "dot"},
		"ΟΔΟΣ ΟΔΟΣ":                {"οδος", "οδος"},
		"İstanbul":                 {"i", "stanbul"},
		"cafe\u0301 bar":           {"cafe", "bar"},
		"नमस्ते दुनिया":            {"नमस", "त", "द", "न", "य"},
		"x²y ½ Ⅻ":                  {"x²y", "½", "ⅻ"},
		"emoji😀word":               {"emoji", "word"},
		"don't":                    {"don", "t"},
		"straße STRASSE":           {"straße", "strasse"},
		"東京":                       {"東京"},
		"":                         nil,
		"   \t":                    nil,
		"sendEmail to the CRM now": {"send", "email", "to", "the", "crm", "now"},
	}
	for in, want := range cases {
		assert.Equal(t, want, ai.Tokenize(in), "%q", in)
	}
}

func TestRanking(t *testing.T) {
	cands := []ai.SearchCandidate{
		{Name: "sendEmail", Description: "Deliver a message."},
		{Name: "emailArchive", Description: "Old messages."},
		{Name: "notifier", Description: "Send an email or a text."},
		{Name: "weatherNow"},
	}
	assert.Equal(t, []string{"sendEmail", "emailArchive", "notifier"}, ai.Ranking("send email", cands))
	assert.Equal(t, []string{"sendEmail", "emailArchive", "notifier"}, ai.Ranking("SEND   EMAIL email", cands))
	assert.Empty(t, ai.Ranking("emails", cands), "no stemming")
	assert.Empty(t, ai.Ranking("zzz", cands))
	assert.Empty(t, ai.Ranking("!!!", cands))

	ties := []ai.SearchCandidate{{Name: "w1", Description: "weather"}, {Name: "weatherNow"}, {Name: "w3", Description: "weather weather weather"}}
	assert.Equal(t, []string{"weatherNow", "w1", "w3"}, ai.Ranking("weather", ties))
}

func TestNewToolSearchOptions(t *testing.T) {
	for _, n := range []int{0, -1} {
		_, err := ai.NewToolSearch(ai.ToolSearchOptions{MaxResults: &n})
		var ia *ai.InvalidArgumentError
		assert.ErrorAs(t, err, &ia, "MaxResults %d", n)
	}
	tool, err := ai.NewToolSearch(ai.ToolSearchOptions{MaxResults: new(1)})
	require.NoError(t, err)
	assert.Contains(t, tool.Description(), "at most 1 tools")
	assert.Contains(t, ai.ToolSearch().Description(), "at most five")
	assert.True(t, ai.IsToolSearch(tool))
	assert.JSONEq(t, `{"type":"object","properties":{"query":{"type":"string","minLength":1}},"required":["query"],"additionalProperties":false}`,
		string(tool.InputSchema()))
}

// deferredTools registers n deferred tools named tool0..tool(n-1), all
// described as "alpha", behind a search tool.
func deferredTools(search ai.Tool, n int) ai.Tools {
	tools := ai.Tools{{Name: "search", Tool: search}}
	for i := range n {
		tools = append(tools, ai.NamedTool{Name: fmt.Sprintf("tool%d", i), Tool: ai.NewTool(ai.ToolDef[struct{}, int]{
			Description:  "alpha",
			DeferLoading: true,
			Execute:      func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) { return i, nil },
		})})
	}
	return tools
}

func names(defs []provider.Tool) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.ToolName())
	}
	return out
}

func TestDiscoveryTakesEffectNextStep(t *testing.T) {
	model := aitest.NewModel(
		toolStep(tc("c1", "search", `{"query":"alpha"}`), tc("c2", "tool1", `{}`)),
		toolStep(tc("c3", "tool1", `{}`)),
		textStep("done"),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: deferredTools(ai.ToolSearch(), 7), StopWhen: ai.StepCountIs(5), Prompt: "go",
	})
	require.NoError(t, err)
	calls := model.Calls()
	assert.Equal(t, []string{"search"}, names(calls[0].Tools))
	assert.Equal(t, []string{"search", "tool0", "tool1", "tool2", "tool3", "tool4"}, names(calls[1].Tools), "five found, in registration order")

	first := res.Steps[0]
	same := first.ToolCalls()[1]
	assert.True(t, same.Invalid, "a call in the same step as the search is not available yet")
	var nst *ai.NoSuchToolError
	require.ErrorAs(t, same.Error, &nst)
	assert.Equal(t, []string{"search"}, nst.AvailableTools)
	found := first.ToolResults()[0].Output.(ai.ToolSearchResult)
	assert.Len(t, found.Tools, 5)
	assert.Equal(t, 1, res.Steps[1].ToolResults()[0].Output)
}

func TestCustomSearch(t *testing.T) {
	var got []ai.SearchCandidate
	var gotQuery string
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{
		MaxResults: new(3),
		Search: func(ctx context.Context, q string, c []ai.SearchCandidate) ([]string, error) {
			gotQuery, got = q, c
			return []string{"zzz", "tool2", "tool0", "tool2", "search", "tool1", "tool3"}, nil
		},
	})
	require.NoError(t, err)
	model := aitest.NewModel(toolStep(tc("c1", "search", `{"query":"anything"}`)))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: deferredTools(search, 4), Prompt: "go",
	})
	require.NoError(t, err)
	assert.Equal(t, "anything", gotQuery)
	assert.Len(t, got, 4)
	assert.Equal(t, ai.SearchCandidate{Name: "tool0", Description: "alpha"}, got[0])
	found := res.ToolResults()[0].Output.(ai.ToolSearchResult)
	var foundNames []string
	for _, f := range found.Tools {
		foundNames = append(foundNames, f.Name)
	}
	assert.Equal(t, []string{"tool2", "tool0", "tool1"}, foundNames, "unknown names and duplicates dropped, capped at 3")

	failing, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: func(context.Context, string, []ai.SearchCandidate) ([]string, error) {
		return nil, errors.New("index offline")
	}})
	require.NoError(t, err)
	res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "search", `{"query":"x"}`))), Tools: deferredTools(failing, 2), Prompt: "go",
	})
	require.NoError(t, err)
	require.Len(t, res.ToolErrors(), 1)
	assert.EqualError(t, res.ToolErrors()[0].Error, "index offline")
}

func TestSearchInputIsValidated(t *testing.T) {
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "search", `{"query":""}`), tc("c2", "search", `{}`))),
		Tools: deferredTools(ai.ToolSearch(), 2), Prompt: "go",
	})
	require.NoError(t, err)
	for _, c := range res.ToolCalls() {
		assert.True(t, c.Invalid, c.ToolCallID)
	}
}

func TestDeferredSearchToolIsRejected(t *testing.T) {
	model := aitest.NewModel(textStep("never"))
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "search", Tool: ai.WithDeferLoading(ai.ToolSearch(), true)}}, Prompt: "go",
	})
	var ia *ai.InvalidArgumentError
	require.ErrorAs(t, err, &ia)
	assert.Empty(t, model.Calls(), "rejected before any model call")
	_, err = ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: model, Tools: ai.Tools{{Name: "search", Tool: ai.WithDeferLoading(ai.ToolSearch(), true)}}, Prompt: "go",
	})
	require.ErrorAs(t, err, &ia)
}

func TestActiveToolsLimitSearch(t *testing.T) {
	model := aitest.NewModel(toolStep(tc("c1", "search", `{"query":"alpha"}`)), textStep("x"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: deferredTools(ai.ToolSearch(), 4), ActiveTools: []string{"search", "tool1", "tool3"},
		StopWhen: ai.StepCountIs(3), Prompt: "go",
	})
	require.NoError(t, err)
	found := res.ToolResults()[0].Output.(ai.ToolSearchResult)
	assert.Len(t, found.Tools, 2)
	assert.Equal(t, []string{"search", "tool1", "tool3"}, names(model.Calls()[1].Tools))
}

func TestSearchCacheIsSafeAcrossConcurrentCatalogs(t *testing.T) {
	search := ai.ToolSearch()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 2 + i%5
			tools := deferredTools(search, n)
			res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
				Model: aitest.NewModel(toolStep(tc("c1", "search", `{"query":"alpha"}`))), Tools: tools, Prompt: "go",
			})
			if assert.NoError(t, err) {
				found := res.ToolResults()[0].Output.(ai.ToolSearchResult)
				assert.Len(t, found.Tools, min(n, 5))
			}
		}()
	}
	wg.Wait()
}

func TestDescriptionFunctionsAreSearched(t *testing.T) {
	tool := ai.NewTool(ai.ToolDef[struct{}, int]{
		DeferLoading: true,
		DescriptionFunc: func(o ai.DescriptionOptions) string {
			return "orders in " + strings.ToLower(fmt.Sprint(o.Context))
		},
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) { return 1, nil },
	})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:        aitest.NewModel(toolStep(tc("c1", "search", `{"query":"rotterdam"}`))),
		Tools:        ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "lookup", Tool: tool}},
		ToolsContext: map[string]any{"lookup": "Rotterdam"},
		Prompt:       "go",
	})
	require.NoError(t, err)
	found := res.ToolResults()[0].Output.(ai.ToolSearchResult)
	require.Len(t, found.Tools, 1)
	assert.Equal(t, "orders in rotterdam", found.Tools[0].Description)
}
