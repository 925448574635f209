package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city name"`
	Days int    `json:"days,omitempty"`
}

type weatherOut struct {
	Forecast string `json:"forecast"`
}

func weatherTool(calls *[]weatherIn) *ai.FunctionTool {
	return ai.NewTool(ai.ToolDef[weatherIn, weatherOut]{
		Description: "Get the weather forecast for a city.",
		Execute: func(_ context.Context, in weatherIn, _ ai.ToolExecutionOptions) (weatherOut, error) {
			if calls != nil {
				*calls = append(*calls, in)
			}
			return weatherOut{Forecast: "rain in " + in.City}, nil
		},
	})
}

func tc(id, name string, input any) provider.Content { return aitest.ToolCall(id, name, input) }

func toolStep(calls ...provider.Content) aitest.Response {
	return aitest.Response{Content: calls, FinishReason: aitest.ToolCalls}
}

func textStep(text string) aitest.Response {
	return aitest.Response{Content: []provider.Content{aitest.Text(text)}}
}

func TestNewToolInfersSchemaOnce(t *testing.T) {
	tool := weatherTool(nil)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(tool.InputSchema(), &schema))
	assert.Equal(t, "object", schema["type"])
	assert.Equal(t, []any{"city"}, schema["required"])
	assert.Equal(t, false, schema["additionalProperties"])
	props := schema["properties"].(map[string]any)
	assert.Equal(t, "the city name", props["city"].(map[string]any)["description"])
	assert.Equal(t, "integer", props["days"].(map[string]any)["type"])
	assert.NotNil(t, tool.OutputSchema())
	assert.Equal(t, ai.FunctionKind, tool.Kind())
}

func TestNewToolPanicsOnTypesWithoutSchema(t *testing.T) {
	assert.Panics(t, func() {
		ai.NewTool(ai.ToolDef[struct{ C chan int }, string]{})
	})
}

func TestNewDynamicToolRejectsBadSchema(t *testing.T) {
	_, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		InputSchema: &jsonschema.Schema{Ref: "#/nowhere"},
	})
	assert.Error(t, err)
	tool, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{})
	require.NoError(t, err)
	assert.Equal(t, ai.DynamicKind, tool.Kind())
}

func TestToolCallsAreValidatedAndExecuted(t *testing.T) {
	var got []weatherIn
	model := aitest.NewModel(
		toolStep(
			tc("c1", "weather", `{"city":"Oslo","days":2}`),
			tc("c2", "weather", `{"town":"Oslo"}`),
			tc("c3", "weather", `{bad json`),
			tc("c4", "nope", `{}`),
		),
		textStep("done"),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    model,
		Tools:    ai.Tools{{Name: "weather", Tool: weatherTool(&got)}},
		StopWhen: ai.StepCountIs(3),
		Prompt:   "weather?",
	})
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text)
	assert.Equal(t, []weatherIn{{City: "Oslo", Days: 2}}, got, "only the valid call runs")

	step := res.Steps[0]
	calls := step.ToolCalls()
	require.Len(t, calls, 4)
	assert.False(t, calls[0].Invalid)
	for _, c := range calls[1:] {
		assert.True(t, c.Invalid, c.ToolCallID)
		assert.True(t, c.Dynamic, c.ToolCallID)
	}
	var inputErr *ai.InvalidToolInputError
	require.ErrorAs(t, calls[1].Error, &inputErr)
	var typeErr *ai.TypeValidationError
	assert.ErrorAs(t, calls[1].Error, &typeErr)
	require.ErrorAs(t, calls[2].Error, &inputErr)
	var parseErr *ai.JSONParseError
	assert.ErrorAs(t, calls[2].Error, &parseErr)
	var noTool *ai.NoSuchToolError
	require.ErrorAs(t, calls[3].Error, &noTool)
	assert.Equal(t, []string{"weather"}, noTool.AvailableTools)

	// Three tool errors and one result; the model sees the errors as text.
	assert.Len(t, step.ToolErrors(), 3)
	assert.Len(t, step.ToolResults(), 1)
	toolMsg := step.Response.Messages[1].(ai.ToolMessage)
	require.Len(t, toolMsg.Content, 4)
	for i, id := range []string{"c1", "c2", "c3", "c4"} {
		assert.Equal(t, id, toolMsg.Content[i].(ai.ToolResultPart).ToolCallID, "results in call order")
	}
	_, isErr := toolMsg.Content[3].(ai.ToolResultPart).Output.(ai.ErrorTextOutput)
	assert.True(t, isErr)
	// The unparsable input is recorded as {} in the assistant message.
	assistant := step.Response.Messages[0].(ai.AssistantMessage)
	assert.JSONEq(t, `{}`, string(assistant.Content[2].(ai.ToolCallPart).Input))

	// The second model call received the results.
	prompt := model.Calls()[1].Prompt
	require.Len(t, prompt, 3)
}

func TestFailingAndPanickingToolsBecomeToolErrors(t *testing.T) {
	boom := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			return "", errors.New("kaput")
		},
	})
	panicky := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			panic("oh no")
		},
	})
	model := aitest.NewModel(toolStep(tc("c1", "boom", `{}`), tc("c2", "panicky", ``)), textStep("recovered"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    model,
		Tools:    ai.Tools{{Name: "boom", Tool: boom}, {Name: "panicky", Tool: panicky}},
		StopWhen: ai.StepCountIs(3),
		Prompt:   "go",
	})
	require.NoError(t, err)
	assert.Equal(t, "recovered", res.Text)
	errs := res.Steps[0].ToolErrors()
	require.Len(t, errs, 2)
	assert.EqualError(t, errs[0].Error, "kaput")
	var pe *ai.ToolExecutionError
	require.ErrorAs(t, errs[1].Error, &pe)
	assert.Equal(t, "oh no", pe.Panic)
	toolMsg := res.Steps[0].Response.Messages[1].(ai.ToolMessage)
	assert.Equal(t, ai.ErrorTextOutput{Value: "kaput"}, toolMsg.Content[0].(ai.ToolResultPart).Output)
}

func TestStreamingExecuteFinalResultInGenerate(t *testing.T) {
	progress := ai.NewTool(ai.ToolDef[struct{}, string]{
		ExecuteStream: func(context.Context, struct{}, ai.ToolExecutionOptions) iter.Seq2[string, error] {
			return func(yield func(string, error) bool) {
				for _, s := range []string{"p1", "p2", "final"} {
					if !yield(s, nil) {
						return
					}
				}
			}
		},
	})
	model := aitest.NewModel(toolStep(tc("c1", "progress", `{}`)))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "progress", Tool: progress}}, Prompt: "go",
	})
	require.NoError(t, err)
	results := res.ToolResults()
	require.Len(t, results, 1)
	assert.Equal(t, "final", results[0].Output)
	assert.False(t, results[0].Preliminary)
}

func TestToolFieldsReachProviderAndParts(t *testing.T) {
	type q struct {
		Q string `json:"q"`
	}
	tool := ai.NewTool(ai.ToolDef[q, string]{
		Description:     "Search the docs.",
		Title:           "Docs",
		Strict:          new(true),
		InputExamples:   []q{{Q: "install"}},
		ProviderOptions: ai.ProviderOptions{"openai": {"x": 1}},
		Metadata:        map[string]any{"source": "mcp"},
		Execute: func(_ context.Context, in q, _ ai.ToolExecutionOptions) (string, error) {
			return "found " + in.Q, nil
		},
		ToModelOutput: func(_ context.Context, o ai.ModelOutputOptions[q, string]) (ai.ToolResultOutput, error) {
			return ai.ContentOutput{Value: []provider.ContentOutputPart{ai.TextPart{Text: o.ToolCallID + ":" + o.Input.Q + ":" + o.Output}}}, nil
		},
	})
	model := aitest.NewModel(toolStep(tc("c1", "docs", `{"q":"go"}`)))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "docs", Tool: tool}}, Prompt: "go",
	})
	require.NoError(t, err)
	def := model.Calls()[0].Tools[0].(*provider.FunctionTool)
	assert.Equal(t, "docs", def.Name)
	assert.Equal(t, "Search the docs.", def.Description)
	assert.True(t, *def.Strict)
	require.Len(t, def.InputExamples, 1)
	assert.JSONEq(t, `{"q":"install"}`, string(def.InputExamples[0]))
	assert.Equal(t, ai.ProviderOptions{"openai": {"x": 1}}, def.ProviderOptions)

	call := res.ToolCalls()[0]
	assert.Equal(t, "Docs", call.Title)
	assert.Equal(t, map[string]any{"source": "mcp"}, call.ToolMetadata)
	result := res.ToolResults()[0]
	assert.Equal(t, map[string]any{"source": "mcp"}, result.ToolMetadata)
	out := res.Steps[0].Response.Messages[1].(ai.ToolMessage).Content[0].(ai.ToolResultPart).Output
	assert.Equal(t, ai.ContentOutput{Value: []provider.ContentOutputPart{ai.TextPart{Text: "c1:go:found go"}}}, out)
}

func TestDescriptionFunctionAndContext(t *testing.T) {
	type ctxValue struct {
		Region string `json:"region"`
	}
	var seen []any
	tool := ai.NewTool(ai.ToolDef[struct{}, string]{
		DescriptionFunc: func(o ai.DescriptionOptions) string {
			if c, ok := o.Context.(ctxValue); ok {
				return "Orders in " + c.Region
			}
			return "Orders"
		},
		ContextSchema: &jsonschema.Schema{Type: "object", Required: []string{"region"}},
		Execute: func(_ context.Context, _ struct{}, o ai.ToolExecutionOptions) (string, error) {
			seen = append(seen, o.Context)
			return "ok", nil
		},
	})
	model := aitest.NewModel(toolStep(tc("c1", "orders", `{}`)))
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:        model,
		Tools:        ai.Tools{{Name: "orders", Tool: tool}},
		ToolsContext: map[string]any{"orders": ctxValue{Region: "Lima"}},
		Prompt:       "go",
	})
	require.NoError(t, err)
	assert.Equal(t, "Orders in Lima", model.Calls()[0].Tools[0].(*provider.FunctionTool).Description)
	assert.Equal(t, []any{ctxValue{Region: "Lima"}}, seen)

	// A context that fails the schema fails the generation.
	model = aitest.NewModel(toolStep(tc("c1", "orders", `{}`)))
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:        model,
		Tools:        ai.Tools{{Name: "orders", Tool: tool}},
		ToolsContext: map[string]any{"orders": map[string]any{"other": 1}},
		Prompt:       "go",
	})
	var tve *ai.TypeValidationError
	require.ErrorAs(t, err, &tve)
	assert.Contains(t, tve.Context, "orders")
}

func TestInputCallbacksRunBeforeExecution(t *testing.T) {
	var events []string
	tool := ai.NewTool(ai.ToolDef[weatherIn, string]{
		OnInputStart: func(_ context.Context, o ai.ToolExecutionOptions) error {
			events = append(events, "start "+o.ToolCallID)
			return nil
		},
		OnInputAvailable: func(_ context.Context, in weatherIn, o ai.ToolExecutionOptions) error {
			events = append(events, "available "+o.ToolCallID+" "+in.City)
			return nil
		},
		Execute: func(_ context.Context, in weatherIn, o ai.ToolExecutionOptions) (string, error) {
			return in.City, nil
		},
	})
	model := aitest.NewModel(toolStep(tc("c1", "w", `{"city":"A"}`), tc("c2", "w", `{"city":"B"}`)))
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "w", Tool: tool}}, Prompt: "go",
		ToolCallConcurrency: 1,
		OnToolExecutionStart: func(e ai.ToolExecutionStartEvent) {
			events = append(events, "exec "+e.ToolCall.ToolCallID)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"start c1", "available c1 A", "start c2", "available c2 B", "exec c1", "exec c2"}, events)

	failing := ai.NewTool(ai.ToolDef[weatherIn, string]{
		OnInputAvailable: func(context.Context, weatherIn, ai.ToolExecutionOptions) error { return errors.New("hook failed") },
		Execute:          func(context.Context, weatherIn, ai.ToolExecutionOptions) (string, error) { return "", nil },
	})
	_, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "w", `{"city":"A"}`))), Tools: ai.Tools{{Name: "w", Tool: failing}}, Prompt: "go",
	})
	assert.EqualError(t, err, "hook failed")
}

func TestProviderTools(t *testing.T) {
	web, err := ai.NewProviderTool(ai.ProviderToolDef{ID: "acme.web_search", Args: map[string]any{"max": 3}, ProviderExecuted: true})
	require.NoError(t, err)
	shellRuns := 0
	shell, err := ai.NewProviderTool(ai.ProviderToolDef{
		ID: "acme.shell",
		Execute: func(_ context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
			shellRuns++
			return "ran " + string(in), nil
		},
	})
	require.NoError(t, err)
	model := aitest.NewModel(aitest.Response{
		Content: []provider.Content{
			provider.ToolCall{ToolCallID: "w1", ToolName: "web", Input: `{"q":"go"}`, ProviderExecuted: true},
			provider.ToolResult{ToolCallID: "w1", ToolName: "web", Result: json.RawMessage(`{"hits":1}`)},
			tc("s1", "shell", `{"cmd":"ls"}`),
		},
		FinishReason: aitest.ToolCalls,
	})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "web", Tool: web}, {Name: "shell", Tool: shell}}, Prompt: "go",
	})
	require.NoError(t, err)
	defs := model.Calls()[0].Tools
	assert.Equal(t, &provider.ProviderTool{ID: "acme.web_search", Name: "web", Args: map[string]any{"max": 3}}, defs[0])
	assert.Equal(t, 1, shellRuns)
	results := res.ToolResults()
	require.Len(t, results, 2)
	assert.True(t, results[0].ProviderExecuted)
	assert.Equal(t, "ran {\"cmd\":\"ls\"}", results[1].Output)
	// The provider's result lives in the assistant message.
	assistant := res.Steps[0].Response.Messages[0].(ai.AssistantMessage)
	assert.IsType(t, ai.ToolResultPart{}, assistant.Content[1])
	_, err = ai.NewProviderTool(ai.ProviderToolDef{})
	assert.Error(t, err)
}

func TestProviderDefinedTools(t *testing.T) {
	web := ai.ProviderDefined(provider.ToolSpec{ID: "acme.web_search", Args: map[string]any{"max": 3}, ProviderExecuted: true})
	assert.Equal(t, ai.ProviderExecutedKind, web.Kind())
	var got []string
	shell := ai.ProviderDefined(provider.ToolSpec{
		ID:          "acme.shell",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`),
		Execute: func(_ context.Context, in json.RawMessage) (any, error) {
			got = append(got, string(in))
			return "ok", nil
		},
	})
	assert.Equal(t, ai.ProviderDefinedKind, shell.Kind())
	model := aitest.NewModel(aitest.Response{
		Content:      []provider.Content{tc("s1", "shell", `{"cmd":"ls"}`), tc("s2", "shell", `{"command":"ls"}`)},
		FinishReason: aitest.ToolCalls,
	})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "web", Tool: web}, {Name: "shell", Tool: shell}}, Prompt: "go",
	})
	require.NoError(t, err)
	assert.Equal(t, &provider.ProviderTool{ID: "acme.web_search", Name: "web", Args: map[string]any{"max": 3}}, model.Calls()[0].Tools[0])
	// The schema is checked before Execute sees the input.
	assert.Equal(t, []string{`{"cmd":"ls"}`}, got)
	require.Len(t, res.ToolErrors(), 1)
	var iti *ai.InvalidToolInputError
	assert.ErrorAs(t, res.ToolErrors()[0].Error, &iti)
	assert.Panics(t, func() { ai.ProviderDefined(provider.ToolSpec{}) })
	assert.Panics(t, func() { ai.ProviderDefined(provider.ToolSpec{ID: "x.y", InputSchema: json.RawMessage("{")}) })
}

func TestRawInputSchemaIsSentAsGivenAndCompiledLazily(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"email":{"type":"string","pattern":"^(?!x)"}},"required":["email"]}`)
	tool, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		RawInputSchema: raw,
		Execute: func(_ context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
			return string(in), nil
		},
	})
	require.NoError(t, err)
	assert.Equal(t, raw, tool.InputSchema())
	// The pattern uses a look-ahead Go cannot compile: it is left out of the
	// local check rather than the tool failing.
	model := aitest.NewModel(toolStep(tc("c1", "mail", `{"email":"xyz"}`)))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Tools: ai.Tools{{Name: "mail", Tool: tool}}, Prompt: "go",
	})
	require.NoError(t, err)
	require.Len(t, res.ToolResults(), 1)
	assert.JSONEq(t, string(raw), string(model.Calls()[0].Tools[0].(*provider.FunctionTool).InputSchema))

	// A schema that compiles is enforced.
	strict, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		RawInputSchema: json.RawMessage(`{"type":"object","required":["email"]}`),
		Execute:        func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) { return "ok", nil },
	})
	require.NoError(t, err)
	res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "mail", `{"other":1}`))), Tools: ai.Tools{{Name: "mail", Tool: strict}}, Prompt: "go",
	})
	require.NoError(t, err)
	assert.Len(t, res.ToolErrors(), 1)

	_, err = ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{RawInputSchema: json.RawMessage(`{oops`)})
	assert.Error(t, err)
}

func TestRawInputSchemaKeepsWhatGoCanCheck(t *testing.T) {
	tool, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{
			"email":{"type":"string","pattern":"^(?!\\.)[a-z.]+@[a-z]+$"},
			"code":{"type":"string","pattern":"^[A-Z]{3}$"}},"required":["email","code"]}`),
		Execute: func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) { return "ok", nil },
	})
	require.NoError(t, err)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(toolStep(tc("c1", "signup", `{"email":"a@b","code":"abc"}`), tc("c2", "signup", `{"email":"a@b","code":"ABC"}`))),
		Tools: ai.Tools{{Name: "signup", Tool: tool}}, Prompt: "go",
	})
	require.NoError(t, err)
	calls := res.ToolCalls()
	assert.True(t, calls[0].Invalid, "the pattern Go understands is checked")
	assert.False(t, calls[1].Invalid, "the look-ahead pattern is left to the tool")
}

// A result kept as JSON converts for the model through the tool's own
// ToModelOutput, on the decoded values.
func TestModelOutputOfStoredResults(t *testing.T) {
	tool := ai.NewTool(ai.ToolDef[weatherIn, weatherOut]{
		Execute: func(context.Context, weatherIn, ai.ToolExecutionOptions) (weatherOut, error) {
			return weatherOut{}, nil
		},
		ToModelOutput: func(_ context.Context, o ai.ModelOutputOptions[weatherIn, weatherOut]) (ai.ToolResultOutput, error) {
			return ai.TextOutput{Value: o.Input.City + ": " + o.Output.Forecast + " (" + o.ToolCallID + ")"}, nil
		},
	})
	out, err := ai.ModelOutput(context.Background(), tool, "c1", json.RawMessage(`{"city":"Oslo"}`), json.RawMessage(`{"forecast":"rain"}`))
	require.NoError(t, err)
	assert.Equal(t, ai.TextOutput{Value: "Oslo: rain (c1)"}, out)

	plain := weatherTool(nil)
	out, err = ai.ModelOutput(context.Background(), plain, "c2", nil, json.RawMessage(`"just text"`))
	require.NoError(t, err)
	assert.Equal(t, ai.TextOutput{Value: "just text"}, out)
	out, err = ai.ModelOutput(context.Background(), plain, "c3", nil, json.RawMessage(`{"a":1}`))
	require.NoError(t, err)
	assert.Equal(t, ai.JSONOutput{Value: json.RawMessage(`{"a":1}`)}, out)
	_, err = ai.ModelOutput(context.Background(), tool, "c4", json.RawMessage(`{"city":"Oslo"}`), json.RawMessage(`[1]`))
	var tve *ai.TypeValidationError
	assert.ErrorAs(t, err, &tve)
}

// TestPrototypeKeysAreInvalidInput: an input with a "__proto__" key, or a
// "constructor" key holding a "prototype", is invalid however its key is
// escaped; the same words as values are fine.
func TestPrototypeKeysAreInvalidInput(t *testing.T) {
	tool, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		Description: "Echo.",
		Execute: func(_ context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
			return "ok", nil
		},
	})
	require.NoError(t, err)
	for input, invalid := range map[string]bool{
		`{"__proto__":{"admin":true}}`:              true,
		`{"\u005f_proto__":{"admin":true}}`:         true,
		`{"a":[{"__pr\u006fto__":1}]}`:              true,
		`{"constructor":{"prototype":{"admin":1}}}`: true,
		`{"constructor":{"prot\u006ftype":1}}`:      true,
		`{"note":"__proto__","by":"constructor"}`:   false,
		`{"constructor":"plain"}`:                   false,
		`{"text":"caf\u00e9"}`:                      false,
	} {
		model := aitest.NewModel(toolStep(provider.ToolCall{ToolCallID: "c1", ToolName: "echo", Input: input}), textStep("done"))
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
			Model: model, Tools: ai.Tools{{Name: "echo", Tool: tool}}, StopWhen: ai.StepCountIs(2), Prompt: "go",
		})
		require.NoError(t, err, input)
		calls := res.Steps[0].ToolCalls()
		require.Len(t, calls, 1, input)
		assert.Equal(t, invalid, calls[0].Invalid, input)
	}
}
