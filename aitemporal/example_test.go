package aitemporal_test

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/testsuite"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/uistream"
)

// A worker registers its models and agents by name; a run names the agent.
// Here the SDK's test environment stands in for a worker and a server.
func ExampleRegister() {
	weather := ai.NewTool(ai.ToolDef[cityIn, string]{
		Description: "Get the weather for a city.",
		Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (string, error) {
			return "sunny in " + in.City, nil
		},
	})
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "weather", `{"city":"Lisbon"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("It is sunny in Lisbon.")}},
	)
	cfg := &aitemporal.Config{
		Models: map[string]provider.LanguageModel{"main": model},
		Agents: map[string]*aitemporal.Agent{"assistant": {Options: ai.GenerateTextOptions{
			Model: model, Tools: ai.Tools{{Name: "weather", Tool: weather}}, StopWhen: ai.StepCountIs(5),
		}}},
	}

	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger())
	env := suite.NewTestWorkflowEnvironment()
	if err := aitemporal.Register(env, cfg); err != nil {
		panic(err)
	}
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "assistant", Prompt: "Weather in Lisbon?"})
	var res aitemporal.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	fmt.Println(string(res.Steps[0].ToolCalls[0].Output))
	// Output:
	// It is sunny in Lisbon.
	// "sunny in Lisbon"
}

// A stored stream holds a model call cut off by a crash, its retry and the
// recorded step, each group behind its marker; the client gets the step
// once, reset where the retry and the record take over.
func ExampleNormalizeStream() {
	mark := func(kind string, step, attempt int) uistream.Chunk {
		return uistream.Data{Name: aitemporal.MarkerName, Data: aitemporal.Marker{Kind: kind, Step: step, Attempt: attempt}, Transient: true}
	}
	stored := []uistream.Chunk{
		mark(aitemporal.MarkModel, 0, 1), uistream.TextStart{ID: "s0.1-t"}, uistream.TextDelta{ID: "s0.1-t", Delta: "Hel"},
		mark(aitemporal.MarkModel, 0, 2), uistream.TextStart{ID: "s0.2-t"}, uistream.TextDelta{ID: "s0.2-t", Delta: "Hello"}, uistream.TextEnd{ID: "s0.2-t"},
		mark(aitemporal.MarkStep, 0, 0), uistream.TextStart{ID: "s0-0"}, uistream.TextDelta{ID: "s0-0", Delta: "Hello"}, uistream.TextEnd{ID: "s0-0"}, uistream.FinishStep{},
		mark(aitemporal.MarkFinish, 1, 0), uistream.Finish{FinishReason: ai.FinishStop},
	}
	chunks := func(yield func([]byte, error) bool) {
		for _, c := range stored {
			b, _ := uistream.Marshal(c)
			if !yield(b, nil) {
				return
			}
		}
	}
	var types []string
	for c := range aitemporal.NormalizeStream(chunks) {
		types = append(types, c.ChunkType())
	}
	fmt.Println(strings.Join(types, " "))
	fmt.Println(aitemporal.DefaultStreamID(aitemporal.StreamKey{WorkflowID: "chat-42/m1", After: "approval-7"}))
	// Output:
	// start-step text-start text-delta reset-step text-start text-delta text-end reset-step text-start text-delta text-end finish-step finish
	// chat-42/m1/approval-7
}
