package ai_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
)

// A program whose tool name is too large to cross runs each call it made
// once, however often the model sends it: no call is repeated and no tool
// call id starts twice.
func TestCodeModeOversizedNameRunsCallsOnce(t *testing.T) {
	var transfers atomic.Int32
	transfer := ai.NewTool(ai.ToolDef[struct {
		Amount int `json:"amount"`
	}, string]{Execute: func(context.Context, struct {
		Amount int `json:"amount"`
	}, ai.ToolExecutionOptions) (string, error) {
		transfers.Add(1)
		return "done", nil
	}})
	js := `await tools.transfer({amount: 100}); await tools["x".repeat(5e6)]({}); return 1`
	var mu sync.Mutex
	started := map[string]int{}
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:       aitest.NewModel(toolStep(codeCall("c1", js)), toolStep(codeCall("c2", js)), textStep("ok")),
		Tools:       ai.Tools{{Name: "code", Tool: ai.CodeMode(nil)}, {Name: "transfer", Tool: transfer}},
		ToolCallers: []ai.CallerRoute{{Tool: "transfer", Callers: []string{"code"}}},
		StopWhen:    ai.StepCountIs(5),
		Prompt:      "x",
		OnToolExecutionStart: func(e ai.ToolExecutionStartEvent) {
			mu.Lock()
			started[e.ToolCall.ToolCallID]++
			mu.Unlock()
		},
	})
	require.NoError(t, err)
	assert.Equal(t, int32(2), transfers.Load(), "transfer runs once per program run")
	for id, n := range started {
		assert.Equal(t, 1, n, "tool call %s started %d times", id, n)
	}
	assert.Equal(t, 1, started["c1:tool-1"])
	assert.Equal(t, 1, started["c2:tool-1"])
	errs := 0
	for _, s := range res.Steps {
		errs += len(s.ToolErrors())
	}
	assert.Equal(t, 2, errs)
}
