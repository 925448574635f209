package aitemporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitemporal"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// valueModel is a model of a type that cannot be compared.
type valueModel struct {
	*aitest.Model
	_ []string // makes the type incomparable
}

func TestRegisterRejectsWhatCannotRunDurably(t *testing.T) {
	for name, tc := range map[string]struct {
		set  func(*aitemporal.Config, *aitemporal.Agent)
		want string
	}{
		"unregistered model":  {func(c *aitemporal.Config, _ *aitemporal.Agent) { c.Models = nil }, "is not one of Config.Models"},
		"prompt":              {func(_ *aitemporal.Config, a *aitemporal.Agent) { a.Options.Prompt = "hi" }, "Prompt and Options.Messages must be empty"},
		"step timeout":        {func(_ *aitemporal.Config, a *aitemporal.Agent) { a.Options.Timeout.Step = time.Second }, "Timeout.Step"},
		"ids":                 {func(_ *aitemporal.Config, a *aitemporal.Agent) { a.Options.GenerateID = func() string { return "x" } }, "GenerateID"},
		"unknown routed tool": {func(_ *aitemporal.Config, a *aitemporal.Agent) { a.Options.ToolCallers = []ai.CallerRoute{{Tool: "x"}} }, `ToolCallers names "x"`},
		"unknown caller": {func(_ *aitemporal.Config, a *aitemporal.Agent) {
			a.Options.ToolCallers = []ai.CallerRoute{{Tool: "getWeather", Callers: []string{"code"}}}
		}, `ToolCallers names "code"`},
		"unknown tool": {func(_ *aitemporal.Config, a *aitemporal.Agent) {
			a.ToolActivities = map[string]workflow.ActivityOptions{"nope": {}}
		}, `"nope"`},
		"nil agent":           {func(c *aitemporal.Config, _ *aitemporal.Agent) { c.Agents["other"] = nil }, "nil agent"},
		"negative size bound": {func(c *aitemporal.Config, _ *aitemporal.Agent) { c.MaxOutputBytes = -1 }, "MaxOutputBytes"},
		"incomparable model": {func(c *aitemporal.Config, _ *aitemporal.Agent) {
			c.Models["value"] = valueModel{Model: aitest.NewModel()}
		}, "cannot be compared"},
	} {
		t.Run(name, func(t *testing.T) {
			var runs counter
			cfg := config(aitest.NewModel(), travelTools(&runs, nil), nil)
			tc.set(cfg, cfg.Agents["travel"])
			err := aitemporal.Register(newRegistry(), cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	assert.Error(t, aitemporal.Register(newRegistry(), nil))
}

// A run that names no registered agent fails.
func TestUnknownAgent(t *testing.T) {
	var runs counter
	env := newEnv(t, config(aitest.NewModel(), travelTools(&runs, nil), nil))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "nobody", Prompt: "hi"})
	assert.ErrorContains(t, env.GetWorkflowError(), `no agent "nobody"`)
}

// memStore is an in-memory OutputStore.
type memStore struct {
	mu   sync.Mutex
	data map[string]json.RawMessage
}

func (s *memStore) Put(_ context.Context, c aitemporal.StoredCall, out json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := fmt.Sprintf("%s/%s", c.WorkflowID, c.ToolCallID)
	s.data[key] = out
	return key, nil
}

func (s *memStore) Get(_ context.Context, key string) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, ok := s.data[key]
	if !ok {
		return nil, fmt.Errorf("no output %q", key)
	}
	return out, nil
}

func bigOutputRun(t *testing.T, store aitemporal.OutputStore) (*aitest.Model, *aitemporal.Result) {
	t.Helper()
	big := strings.Repeat("x", 200)
	report := ai.NewTool(ai.ToolDef[struct{}, string]{
		Description: "A long report.",
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) {
			return big, nil
		},
	})
	model := aitest.NewModel(toolStep(call("c1", "report", `{}`)), textStep("Read it."))
	cfg := config(model, ai.Tools{{Name: "report", Tool: report}}, nil)
	cfg.Store, cfg.MaxOutputBytes = store, 100
	env := newEnv(t, cfg)
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Report."})
	return model, result(t, env)
}

// An output over the bound goes to the store; the history holds its key
// and the model reads the whole output.
func TestLargeOutputsGoToTheStore(t *testing.T) {
	store := &memStore{data: map[string]json.RawMessage{}}
	model, res := bigOutputRun(t, store)
	require.Len(t, store.data, 1)
	assert.JSONEq(t, `{"aitemporalStoredOutput":{"key":"default-test-workflow-id/c1","size":202}}`, string(res.Steps[0].ToolCalls[0].Output))
	assert.Equal(t, provider.TextOutput{Value: strings.Repeat("x", 200)}, toolResults(model.Calls()[1])["c1"])
}

// Without a store, an output over the bound is a tool error for the model,
// never a history the server refuses.
func TestLargeOutputWithoutStoreIsAToolError(t *testing.T) {
	model, res := bigOutputRun(t, nil)
	assert.Contains(t, res.Steps[0].ToolCalls[0].Error, "202 bytes, more than the 100")
	out, ok := toolResults(model.Calls()[1])["c1"].(provider.ErrorTextOutput)
	require.True(t, ok)
	assert.Contains(t, out.Value, "configure an output store")
}

// Timeout.Total ends a run that waits too long, here for an approval.
func TestTotalTimeout(t *testing.T) {
	var runs counter
	model := aitest.NewModel(
		toolStep(call("c1", "search", `{"query":"email"}`)),
		toolStep(call("c2", "sendEmail", `{"to":"bob"}`)),
	)
	env := newEnv(t, config(model, travelTools(&runs, nil), func(a *aitemporal.Agent) {
		a.Options.Timeout.Total = 24 * time.Hour
	}))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Prompt: "Mail bob."})
	err := env.GetWorkflowError()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "total timeout of 24h0m0s expired")
	assert.Equal(t, 0, runs.get("sendEmail"))
}

// Inputs and results carry their conversations as JSON.
func TestInputAndResultJSON(t *testing.T) {
	in := aitemporal.Input{Agent: "travel", Messages: []ai.Message{
		ai.UserText("hi"),
		ai.AssistantMessage{Content: []ai.AssistantPart{ai.TextPart{Text: "hello"}}},
		ai.UserText("weather?"),
	}}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	var gotIn aitemporal.Input
	require.NoError(t, json.Unmarshal(data, &gotIn))
	assert.Equal(t, in, gotIn)

	res := aitemporal.Result{Text: "ok", FinishReason: ai.FinishStop, Steps: []aitemporal.Step{{Number: 0, Text: "ok"}},
		ResponseMessages: []ai.Message{ai.AssistantMessage{Content: []ai.AssistantPart{ai.TextPart{Text: "ok"}}}}}
	data, err = json.Marshal(res)
	require.NoError(t, err)
	var gotRes aitemporal.Result
	require.NoError(t, json.Unmarshal(data, &gotRes))
	assert.Equal(t, res, gotRes)
}

// A run can continue a conversation given as messages.
func TestRunFromMessages(t *testing.T) {
	var runs counter
	model := aitest.NewModel(textStep("Still sunny."))
	env := newEnv(t, config(model, travelTools(&runs, nil), nil))
	env.ExecuteWorkflow(aitemporal.WorkflowName, aitemporal.Input{Agent: "travel", Messages: []ai.Message{
		ai.UserText("Weather?"),
		ai.AssistantMessage{Content: []ai.AssistantPart{ai.TextPart{Text: "Sunny."}}},
		ai.UserText("And now?"),
	}})
	res := result(t, env)
	assert.Equal(t, "Still sunny.", res.Text)
	require.Len(t, model.Calls(), 1)
	assert.Len(t, model.Calls()[0].Prompt, 4, "the instructions and the three messages")
}

// An agent with code mode registers; its routes name its own tools.
func TestRegisterAcceptsCodeMode(t *testing.T) {
	cfg := config(aitest.NewModel(), ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "x", Tool: ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(context.Context, struct{}, ai.ToolExecutionOptions) (string, error) { return "", nil },
	})}}, func(a *aitemporal.Agent) {
		a.Options.ToolCallers = []ai.CallerRoute{{Tool: "x", Callers: []string{"code", ai.DirectCall}}}
	})
	assert.NoError(t, aitemporal.Register(newRegistry(), cfg))
}
