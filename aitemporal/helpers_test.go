package aitemporal_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

type cityIn struct {
	City string `json:"city"`
}

type forecast struct {
	City string `json:"city"`
	Temp int    `json:"temp"`
}

type mailIn struct {
	To string `json:"to"`
}

// counter counts executions per tool.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
	return c.n[name]
}

func (c *counter) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// travelTools are a search tool and two deferred tools: getWeather and
// sendEmail, which needs approval. weather, when set, replaces getWeather's
// body.
func travelTools(runs *counter, weather func(ctx context.Context, in cityIn, attempt int) (forecast, error)) ai.Tools {
	get := ai.NewTool(ai.ToolDef[cityIn, forecast]{
		Description:  "Get the weather forecast for a city.",
		DeferLoading: true,
		Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (forecast, error) {
			n := runs.add("getWeather")
			if weather != nil {
				return weather(ctx, in, n)
			}
			return forecast{City: in.City, Temp: 21}, nil
		},
	})
	send := ai.NewTool(ai.ToolDef[mailIn, string]{
		Description:  "Send an email.",
		DeferLoading: true,
		NeedsApproval: func(context.Context, mailIn, ai.ApprovalOptions) (bool, error) {
			return true, nil
		},
		Execute: func(_ context.Context, in mailIn, _ ai.ToolExecutionOptions) (string, error) {
			runs.add("sendEmail")
			return "sent to " + in.To, nil
		},
	})
	return ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "getWeather", Tool: get}, {Name: "sendEmail", Tool: send}}
}

func toolStep(calls ...provider.Content) aitest.Response {
	return aitest.Response{Content: calls, FinishReason: aitest.ToolCalls}
}

func textStep(text string) aitest.Response {
	return aitest.Response{Content: []provider.Content{aitest.Text(text)}}
}

func call(id, name, input string) provider.Content { return aitest.ToolCall(id, name, input) }

// config is one agent, "travel", on the scripted model.
func config(model provider.LanguageModel, tools ai.Tools, set func(*aitemporal.Agent)) *aitemporal.Config {
	agent := &aitemporal.Agent{
		Options: ai.GenerateTextOptions{
			Model:        model,
			Instructions: "You plan trips.",
			Tools:        tools,
			StopWhen:     ai.StepCountIs(10),
		},
		ToolActivity: workflowActivityOptions(),
	}
	if set != nil {
		set(agent)
	}
	return &aitemporal.Config{
		Models: map[string]provider.LanguageModel{"scripted": model},
		Agents: map[string]*aitemporal.Agent{"travel": agent},
	}
}

// newEnv returns a test environment with cfg registered.
func newEnv(t *testing.T, cfg *aitemporal.Config) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger())
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	require.NoError(t, aitemporal.Register(env, cfg))
	return env
}

func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) *aitemporal.Result {
	t.Helper()
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res aitemporal.Result
	require.NoError(t, env.GetWorkflowResult(&res))
	return &res
}

// toolNames lists the names of a call's tool definitions.
func toolNames(o provider.CallOptions) []string {
	var names []string
	for _, t := range o.Tools {
		names = append(names, t.ToolName())
	}
	return names
}

// toolResults returns the tool results of a call's prompt, by call id.
func toolResults(o provider.CallOptions) map[string]provider.ToolResultOutput {
	out := map[string]provider.ToolResultOutput{}
	for _, m := range o.Prompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if tr, ok := p.(provider.ToolResultPart); ok {
					out[tr.ToolCallID] = tr.Output
				}
			}
		}
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func workflowActivityOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Millisecond, MaximumAttempts: 3}}
}

// quietLogger drops the SDK's logs.
func quietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.DiscardHandler))
}

// registry records registrations and runs nothing.
type registry struct{ worker.Registry }

func (registry) RegisterWorkflowWithOptions(any, workflow.RegisterOptions) {}
func (registry) RegisterActivityWithOptions(any, activity.RegisterOptions) {}

func newRegistry() worker.Registry { return registry{} }
