package aitemporal_test

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/testsuite"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
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
