package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs"
)

func codeCall(id, js string) provider.Content {
	input, _ := json.Marshal(map[string]string{"js": js})
	return aitest.ToolCall(id, "code", string(input))
}

func forecastTool(deferred bool) *ai.FunctionTool {
	return ai.NewTool(ai.ToolDef[weatherIn, weatherOut]{
		Description:  "Get the weather forecast for a city.",
		DeferLoading: deferred,
		Execute: func(_ context.Context, in weatherIn, _ ai.ToolExecutionOptions) (weatherOut, error) {
			return weatherOut{Forecast: "rain in " + in.City}, nil
		},
	})
}

func lastUserText(prompt []provider.Message) string {
	for i := len(prompt) - 1; i >= 0; i-- {
		if u, ok := prompt[i].(provider.UserMessage); ok {
			return u.Content[0].(provider.TextPart).Text
		}
	}
	return ""
}

func TestCodeModeConversationDiscovery(t *testing.T) {
	air := ai.NewTool(ai.ToolDef[weatherIn, string]{
		Description: "Get the air quality of a city.", DeferLoading: true,
		Execute: func(context.Context, weatherIn, ai.ToolExecutionOptions) (string, error) { return "good", nil },
	})
	model := aitest.NewModel(
		toolStep(codeCall("c1", `const found = await tools.search({query: "weather forecast"});
try { await tools.getForecast({city: "Oslo"}); } catch (e) { return {found, early: e.message}; }`)),
		toolStep(codeCall("c2", `const [a, b] = await Promise.all([
  tools.getForecast({city: "Oslo"}), tools.getForecast({city: "Lima"})]);
return a.forecast + " / " + b.forecast;`)),
		textStep("done"),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model,
		Tools: ai.Tools{
			{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{Discovery: ai.DiscoveryConversation})},
			{Name: "search", Tool: ai.ToolSearch()},
			{Name: "getForecast", Tool: forecastTool(true)},
			{Name: "getAirQuality", Tool: air},
		},
		ToolCallers: []ai.CallerRoute{
			{Tool: "search", Callers: []string{"code"}},
			{Tool: "getForecast", Callers: []string{"code"}},
			{Tool: "getAirQuality", Callers: []string{"code"}},
		},
		StopWhen: ai.StepCountIs(5),
		Prompt:   "Weather in Oslo and Lima?",
	})
	require.NoError(t, err)
	require.Equal(t, "done", res.Text)

	calls := model.Calls()
	require.Len(t, calls, 3)
	first, _ := json.Marshal(calls[0].Tools)
	for i, c := range calls {
		defs, _ := json.Marshal(c.Tools)
		assert.Equal(t, string(first), string(defs), "the code tool definition is byte-identical in step %d", i)
		assert.Equal(t, []string{"code"}, names(c.Tools))
	}
	// Step 0 announces only the search tool; step 1 adds the found tool.
	cat0, cat1 := lastUserText(calls[0].Prompt), lastUserText(calls[1].Prompt)
	assert.Contains(t, cat0, "search:")
	assert.NotContains(t, cat0, "getForecast")
	assert.Contains(t, cat1, "getForecast:")
	assert.NotContains(t, cat1, "getAirQuality", "undiscovered tools stay out of the catalog")
	// The prompt only grows: step 1 starts with step 0's messages.
	p0, _ := json.Marshal(calls[0].Prompt)
	p1, _ := json.Marshal(calls[1].Prompt[:len(calls[0].Prompt)])
	assert.Equal(t, string(p0), string(p1))
	// An unchanged catalog is not announced again.
	assert.Len(t, calls[2].Prompt, len(calls[1].Prompt)+2)
	// Catalogs stay out of the response messages.
	for _, m := range res.ResponseMessages {
		_, isUser := m.(ai.UserMessage)
		assert.False(t, isUser)
	}

	// The found tool was not callable in the program that found it.
	out0 := res.Steps[0].ToolResults()[0].Output.(json.RawMessage)
	assert.Contains(t, string(out0), "Unknown tool: getForecast")
	assert.Contains(t, string(out0), `"name":"getForecast"`)
	out1 := res.Steps[1].ToolResults()[0].Output.(json.RawMessage)
	assert.JSONEq(t, `"rain in Oslo / rain in Lima"`, string(out1))
}

func TestCodeModeDescriptionMode(t *testing.T) {
	model := aitest.NewModel(
		toolStep(codeCall("c1", `return (await tools.getForecast({city: "Rome"})).forecast`)),
		textStep("ok"),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:       model,
		Tools:       ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "getForecast", Tool: forecastTool(false)}},
		ToolCallers: []ai.CallerRoute{{Tool: "getForecast", Callers: []string{"code"}}},
		StopWhen:    ai.StepCountIs(3),
		Prompt:      "x",
	})
	require.NoError(t, err)
	def := model.Calls()[0].Tools[0].(*provider.FunctionTool)
	assert.Equal(t, "code", def.Name)
	assert.Contains(t, def.Description, "getForecast: (input: {")
	assert.Len(t, model.Calls()[0].Tools, 1, "the routed tool is not offered directly")
	assert.JSONEq(t, `"rain in Rome"`, string(res.Steps[0].ToolResults()[0].Output.(json.RawMessage)))
}

func TestCodeModeErrorsReachTheModel(t *testing.T) {
	secret := ai.NewTool(ai.ToolDef[struct{}, string]{Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
		return "", errors.New("database password is hunter2")
	}})
	run := func(js string, limits ai.CodeModeLimits) ai.ToolError {
		t.Helper()
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model:       aitest.NewModel(toolStep(codeCall("c1", js))),
			Tools:       ai.Tools{{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{Limits: limits})}, {Name: "secret", Tool: secret}},
			ToolCallers: []ai.CallerRoute{{Tool: "secret", Callers: []string{"code"}}},
			Prompt:      "x",
		})
		require.NoError(t, err)
		errs := res.ToolErrors()
		require.Len(t, errs, 1)
		return errs[0]
	}
	e := run(`await tools.secret({})`, ai.CodeModeLimits{})
	assert.NotContains(t, e.Error.Error(), "hunter2", "tool failures are redacted")
	var cm *ai.CodeModeError
	require.ErrorAs(t, e.Error, &cm)
	assert.Equal(t, ai.CodeModeHostToolError, cm.Code)

	began := time.Now()
	e = run(`while (true) {}`, ai.CodeModeLimits{Timeout: 150 * time.Millisecond})
	require.ErrorAs(t, e.Error, &cm)
	assert.Equal(t, ai.CodeModeTimeout, cm.Code)
	assert.Less(t, time.Since(began), 10*time.Second)

	e = run(`throw new TypeError("bad thing")`, ai.CodeModeLimits{})
	assert.Equal(t, "TypeError: bad thing", e.Error.Error())

	e = run(`tools.secret({}); return 1`, ai.CodeModeLimits{})
	require.ErrorAs(t, e.Error, &cm)
	assert.Equal(t, ai.CodeModeDetachedBridgeRequest, cm.Code)

	e = run(`return typeof eval === "undefined" ? Function("return 1")() : "eval exists"`, ai.CodeModeLimits{})
	assert.Contains(t, e.Error.Error(), "TypeError")

	e = run(`const a = []; while (true) a.push(new Array(100000).fill(1));`, ai.CodeModeLimits{MemoryBytes: 8 << 20, Timeout: 10 * time.Second})
	require.ErrorAs(t, e.Error, &cm)
	assert.Equal(t, ai.CodeModeMemoryLimit, cm.Code)
}

func TestRunCodeMode(t *testing.T) {
	var ids []string
	var calls atomic.Int32
	inventory := ai.NewTool(ai.ToolDef[struct {
		ProductID string `json:"productId"`
	}, map[string]any]{
		Execute: func(_ context.Context, in struct {
			ProductID string `json:"productId"`
		}, o ai.ToolExecutionOptions) (map[string]any, error) {
			calls.Add(1)
			ids = append(ids, o.ToolCallID)
			return map[string]any{"productId": in.ProductID, "availableUnits": 42}, nil
		},
	})
	res, err := ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{
		JS: `let s = 0;
for (let k = 0; k < 3; k++) { const r = await tools.getInventory({productId: "p" + k}); s += r.availableUnits; }
console.log("total", s);
return s;`,
		Tools:      ai.Tools{{Name: "getInventory", Tool: inventory}},
		ToolCallID: "outer",
	})
	require.NoError(t, err)
	assert.JSONEq(t, `126`, string(res.Value))
	assert.Equal(t, []string{"outer:tool-1", "outer:tool-2", "outer:tool-3"}, ids)
	require.Len(t, res.Console, 1)
	assert.Equal(t, "total 126", res.Console[0].Text)

	_, err = ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: `return await tools.getInventory({productId: 5})`,
		Tools: ai.Tools{{Name: "getInventory", Tool: inventory}}})
	var cm *ai.CodeModeError
	require.ErrorAs(t, err, &cm)
	assert.Equal(t, ai.CodeModeToolError, cm.Code)
	assert.True(t, strings.HasPrefix(cm.Message, "Invalid input for tool \"getInventory\""), cm.Message)
}

func TestCodeModeApproval(t *testing.T) {
	ran := 0
	send := ai.NewTool(ai.ToolDef[mailIn, string]{
		NeedsApproval: func(context.Context, mailIn, ai.ApprovalOptions) (bool, error) { return true, nil },
		Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
			ran++
			return "sent to " + in.To, nil
		},
	})
	tools := ai.Tools{{Name: "send", Tool: send}}
	_, err := ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: `return await tools.send({to: "a"})`, Tools: tools})
	var cm *ai.CodeModeError
	require.ErrorAs(t, err, &cm)
	assert.Equal(t, ai.CodeModeToolApprovalRequired, cm.Code)
	assert.Equal(t, 0, ran)

	approve := func(_ context.Context, name string, in json.RawMessage) (ai.ApprovalStatus, error) {
		if strings.Contains(string(in), "boss") {
			return ai.Denied.WithReason("not the boss"), nil
		}
		return ai.Approved, nil
	}
	res, err := ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: `return await tools.send({to: "a"})`, Tools: tools, Approve: approve})
	require.NoError(t, err)
	assert.JSONEq(t, `"sent to a"`, string(res.Value))
	_, err = ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: `return await tools.send({to: "boss"})`, Tools: tools, Approve: approve})
	require.ErrorAs(t, err, &cm)
	assert.Equal(t, ai.CodeModeToolApprovalDenied, cm.Code)
	assert.Contains(t, cm.Message, "not the boss")
	assert.Equal(t, 1, ran)
}

func TestCodeModeWithDescriptionDiscoveryRejectsDeferredTools(t *testing.T) {
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:       aitest.NewModel(textStep("x")),
		Tools:       ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "getForecast", Tool: forecastTool(true)}},
		ToolCallers: []ai.CallerRoute{{Tool: "getForecast", Callers: []string{"code"}}},
		Prompt:      "x",
	})
	var ia *ai.InvalidArgumentError
	require.ErrorAs(t, err, &ia)
	assert.Contains(t, ia.Message, "getForecast")
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:       aitest.NewModel(textStep("x")),
		Tools:       ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}},
		ToolCallers: []ai.CallerRoute{{Tool: "nope", Callers: []string{"code"}}},
		Prompt:      "x",
	})
	require.ErrorAs(t, err, &ia)
}
