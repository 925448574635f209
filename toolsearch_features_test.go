package ai_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
)

// described registers deferred tools with the given names and
// descriptions, in order, behind a search tool.
func described(search ai.Tool, groups map[string]string, pairs ...string) ai.Tools {
	tools := ai.Tools{{Name: "search", Tool: search}}
	for i := 0; i+1 < len(pairs); i += 2 {
		name := pairs[i]
		tools = append(tools, ai.NamedTool{Name: name, Tool: ai.NewTool(ai.ToolDef[struct{}, string]{
			Description:  pairs[i+1],
			DeferLoading: true,
			Group:        groups[name],
			Execute:      func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) { return name, nil },
		})})
	}
	return tools
}

func TestAutoDeferral(t *testing.T) {
	pairs := []string{
		"getWeather", "Current weather and the forecast for a city.",
		"sendEmail", "Send an email message to one or more recipients.",
		"bookHotel", "Book a hotel room in a city for given dates.",
	}
	tools := described(ai.ToolSearch(), nil, pairs...)
	size, err := ai.DefinitionTokens(tools)
	require.NoError(t, err)
	require.Greater(t, size, 10)

	run := func(budget ai.DeferralBudget) []string {
		t.Helper()
		search, err := ai.NewToolSearch(ai.ToolSearchOptions{DeferOver: &budget})
		require.NoError(t, err)
		model := aitest.NewModel(textStep("done"))
		_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: model, Tools: described(search, nil, pairs...), Prompt: "go",
		})
		require.NoError(t, err)
		return names(model.Calls()[0].Tools)
	}
	all := []string{"getWeather", "sendEmail", "bookHotel"}
	// At or below the budget: every tool is sent, the search tool is not.
	assert.Equal(t, all, run(ai.DeferralBudget{Tokens: size}))
	assert.Equal(t, all, run(ai.DeferralBudget{Tools: 3}))
	// Above it: the tools are deferred behind the search tool.
	assert.Equal(t, []string{"search"}, run(ai.DeferralBudget{Tokens: size - 1}))
	assert.Equal(t, []string{"search"}, run(ai.DeferralBudget{Tools: 2}))
	assert.Equal(t, []string{"search"}, run(ai.DeferralBudget{Tokens: 1000, Tools: 2}), "either limit defers")

	// Above the budget, search and discovery work as without one.
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{DeferOver: &ai.DeferralBudget{Tools: 1}})
	require.NoError(t, err)
	model := aitest.NewModel(
		toolStep(tc("c1", "search", `{"query":"hotel"}`)),
		toolStep(tc("c2", "bookHotel", `{}`)),
		textStep("done"),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: described(search, nil, pairs...), StopWhen: ai.StepCountIs(5), Prompt: "go",
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"search", "bookHotel"}, names(model.Calls()[1].Tools))
	assert.Equal(t, "bookHotel", res.Steps[1].ToolResults()[0].Output)

	// Below the budget, tools sent are not reported as discovered.
	steps := &stepLog{}
	search, err = ai.NewToolSearch(ai.ToolSearchOptions{DeferOver: &ai.DeferralBudget{Tools: 5}})
	require.NoError(t, err)
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(textStep("done")), Tools: described(search, nil, pairs...), Prompt: "go", Observer: steps,
	})
	require.NoError(t, err)
	require.Len(t, steps.infos, 1)
	assert.Equal(t, all, steps.infos[0].Tools)
	assert.Empty(t, steps.infos[0].Discovered)

	// An active-tools filter shrinks what is counted.
	search, err = ai.NewToolSearch(ai.ToolSearchOptions{DeferOver: &ai.DeferralBudget{Tools: 2}})
	require.NoError(t, err)
	model = aitest.NewModel(textStep("done"))
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: described(search, nil, pairs...), Prompt: "go",
		ActiveTools: []string{"search", "getWeather", "sendEmail"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"getWeather", "sendEmail"}, names(model.Calls()[0].Tools))

	for _, b := range []ai.DeferralBudget{{}, {Tokens: -1, Tools: 3}, {Tools: -1}} {
		_, err := ai.NewToolSearch(ai.ToolSearchOptions{DeferOver: &b})
		var ia *ai.InvalidArgumentError
		assert.ErrorAs(t, err, &ia, "%+v", b)
	}
}

// searchLog is an Observer that also records searches.
type searchLog struct {
	nopObserver
	mu       sync.Mutex
	searches []ai.SearchRecord
}

func (l *searchLog) ObserveSearch(_ context.Context, rec ai.SearchRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.searches = append(l.searches, rec)
}

type nopObserver struct{}

func (nopObserver) StartGeneration(ctx context.Context, _ ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	return ctx, func(ai.GenerationOutcome) {}
}
func (nopObserver) StartStep(ctx context.Context, _ ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	return ctx, func(ai.StepOutcome) {}
}
func (nopObserver) StartModelCall(ctx context.Context, _ ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	return ctx, func(ai.ModelCallOutcome) {}
}
func (nopObserver) StartToolCall(ctx context.Context, _ ai.ToolCallInfo) (context.Context, func(ai.ToolCallOutcome)) {
	return ctx, func(ai.ToolCallOutcome) {}
}
func (nopObserver) Retry(context.Context, ai.RetryInfo) {}

func TestSearchTelemetry(t *testing.T) {
	tools := described(ai.ToolSearch(), nil,
		"getWeather", "Current weather and the forecast for a city.",
		"sendEmail", "Send an email message.",
		"emailArchive", "Old email messages.",
		"bookHotel", "Book a hotel room.",
	)
	model := aitest.NewModel(
		// A search with no result, then one that finds two tools.
		toolStep(tc("c1", "search", `{"query":"zebra"}`), tc("c2", "search", `{"query":"email"}`)),
		// Found and used (rank 2); used but never found.
		toolStep(tc("c3", "emailArchive", `{}`), tc("c4", "bookHotel", `{}`)),
		textStep("done"),
	)
	log := &searchLog{}
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: tools, StopWhen: ai.StepCountIs(5), Prompt: "go",
		Observer: ai.MultiObserver(log),
	})
	require.NoError(t, err)

	sum := res.ToolSearch
	require.NotNil(t, sum)
	require.Len(t, sum.Searches, 2)
	assert.Equal(t, ai.SearchRecord{StepNumber: 0, ToolCallID: "c1", ToolName: "search", Query: "zebra", Results: []string{}}, sum.Searches[0])
	assert.Equal(t, ai.SearchRecord{StepNumber: 0, ToolCallID: "c2", ToolName: "search", Query: "email", Results: []string{"sendEmail", "emailArchive"}}, sum.Searches[1])
	assert.Equal(t, 1, sum.NoResult)
	assert.Equal(t, 0, sum.Failed)
	assert.Equal(t, []ai.DeferredToolCall{
		{StepNumber: 1, ToolCallID: "c3", ToolName: "emailArchive", Found: true, Rank: 2, Search: 1},
		{StepNumber: 1, ToolCallID: "c4", ToolName: "bookHotel", Search: -1},
	}, sum.Calls)
	assert.Equal(t, 1, sum.FoundAndCalled)
	assert.Equal(t, 1, sum.CalledNotFound)
	assert.True(t, res.Steps[1].ToolCalls()[1].Invalid, "a tool never found is unavailable")

	// The observer saw both searches, as they ended.
	log.mu.Lock()
	defer log.mu.Unlock()
	assert.ElementsMatch(t, sum.Searches, log.searches)

	// A generation without a search tool has no summary.
	res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(textStep("hi")), Tools: ai.Tools{{Name: "x", Tool: ai.NewTool(ai.ToolDef[struct{}, int]{
			Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (int, error) { return 1, nil }})}},
		Prompt: "go",
	})
	require.NoError(t, err)
	assert.Nil(t, res.ToolSearch)
}

func TestSearchGroups(t *testing.T) {
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{Groups: true})
	require.NoError(t, err)
	assert.Contains(t, string(search.InputSchema()), `"group"`)
	assert.NotContains(t, string(ai.ToolSearch().InputSchema()), `"group"`, "the default input is the reference's")
	groups := map[string]string{"githubIssues": "github", "jiraIssues": "jira", "githubPulls": "github"}
	tools := described(search, groups,
		"githubIssues", "List issues.",
		"jiraIssues", "List issues.",
		"githubPulls", "List pull requests.",
		"notes", "Issues of a notebook.",
	)
	model := aitest.NewModel(
		toolStep(tc("c1", "search", `{"query":"issues","group":"jira"}`), tc("c2", "search", `{"query":"issues","group":"gitlab"}`),
			tc("c3", "search", `{"query":"issues"}`)),
		textStep("done"),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: tools, StopWhen: ai.StepCountIs(3), Prompt: "go",
	})
	require.NoError(t, err)
	out := res.Steps[0].ToolResults()
	require.Len(t, out, 2)
	assert.Equal(t, ai.ToolSearchResult{Tools: []ai.SearchCandidate{{Name: "jiraIssues", Description: "List issues.", Group: "jira"}}}, out[0].Output)
	assert.Len(t, out[1].Output.(ai.ToolSearchResult).Tools, 3, "without a group, every group")
	errs := res.Steps[0].ToolErrors()
	require.Len(t, errs, 1)
	var ge *ai.SearchGroupError
	require.ErrorAs(t, errs[0].Error, &ge)
	assert.Equal(t, []string{"github", "jira"}, ge.Groups)
	assert.Equal(t, "gitlab", res.ToolSearch.Searches[1].Group)
	assert.Equal(t, 1, res.ToolSearch.Failed)

	// The model sees the group of each tool found.
	b, err := json.Marshal(out[0].Output)
	require.NoError(t, err)
	assert.JSONEq(t, `{"tools":[{"name":"jiraIssues","description":"List issues.","group":"jira"}]}`, string(b))

	// A search tool without Groups rejects the field like any unknown one.
	model = aitest.NewModel(toolStep(tc("c1", "search", `{"query":"issues","group":"jira"}`)), textStep("done"))
	res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: described(ai.ToolSearch(), groups, "jiraIssues", "List issues."), StopWhen: ai.StepCountIs(3), Prompt: "go",
	})
	require.NoError(t, err)
	assert.True(t, res.Steps[0].ToolCalls()[0].Invalid)

	// WithGroup and GroupOf.
	tool := ai.WithGroup(ai.ToolSearch(), "g")
	assert.Equal(t, "g", ai.GroupOf(tool))
	assert.Equal(t, "", ai.GroupOf(nil))
}

func TestSearchSelectByName(t *testing.T) {
	pairs := []string{
		"getWeather", "Weather.",
		"sendEmail", "Send email.",
		"bookHotel", "Book a hotel.",
		"select", "Select rows.",
	}
	run := func(search ai.Tool, query string) []string {
		t.Helper()
		model := aitest.NewModel(toolStep(tc("c1", "search", `{"query":`+strings.ReplaceAll(`"Q"`, "Q", query)+`}`)), textStep("done"))
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: model, Tools: described(search, nil, pairs...), StopWhen: ai.StepCountIs(3), Prompt: "go",
		})
		require.NoError(t, err)
		rs := res.Steps[0].ToolResults()
		require.Len(t, rs, 1, "%v", res.Steps[0].ToolErrors())
		var got []string
		for _, c := range rs[0].Output.(ai.ToolSearchResult).Tools {
			got = append(got, c.Name)
		}
		return got
	}
	selecting, err := ai.NewToolSearch(ai.ToolSearchOptions{SelectByName: true, MaxResults: new(1)})
	require.NoError(t, err)
	assert.Contains(t, selecting.Description(), `"select:"`)
	// Exact names, in the order asked, unknown and repeated ones left
	// out, not capped by MaxResults.
	assert.Equal(t, []string{"bookHotel", "getWeather"}, run(selecting, "select: bookHotel, nothere,getWeather,bookHotel"))
	assert.Equal(t, []string{"sendEmail"}, run(selecting, "SELECT:sendEmail"))
	assert.Nil(t, run(selecting, "select:"))
	// Other queries are ranked.
	assert.Equal(t, []string{"bookHotel"}, run(selecting, "hotel"))
	// By default the select form is a keyword query, as in the reference.
	assert.Equal(t, []string{"sendEmail", "select"}, run(ai.ToolSearch(), "select:sendEmail"))
}

// A custom search gets each tool's parameters; the model's result does not.
func TestSearchCandidatesCarryParameters(t *testing.T) {
	type in struct {
		City string `json:"city" jsonschema:"the city to look up"`
		Days int    `json:"days"`
	}
	var got []ai.SearchCandidate
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: func(_ context.Context, _ string, cands []ai.SearchCandidate) ([]string, error) {
		got = cands
		return []string{"forecast"}, nil
	}})
	require.NoError(t, err)
	forecast := ai.NewTool(ai.ToolDef[in, string]{
		Description:  "Weather.",
		DeferLoading: true,
		Execute:      func(context.Context, in, ai.ToolExecutionOptions) (string, error) { return "rain", nil },
	})
	model := aitest.NewModel(toolStep(tc("c1", "search", `{"query":"rain"}`)), textStep("done"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "search", Tool: search}, {Name: "forecast", Tool: forecast}}, StopWhen: ai.StepCountIs(3), Prompt: "go",
	})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "city: the city to look up\ndays", got[0].Parameters)
	b, err := json.Marshal(res.Steps[0].ToolResults()[0].Output)
	require.NoError(t, err)
	assert.JSONEq(t, `{"tools":[{"name":"forecast","description":"Weather."}]}`, string(b))
}

// stepLog is an Observer that keeps what each step started with.
type stepLog struct {
	nopObserver
	infos []ai.StepInfo
}

func (l *stepLog) StartStep(ctx context.Context, s ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	l.infos = append(l.infos, s)
	return ctx, func(ai.StepOutcome) {}
}
