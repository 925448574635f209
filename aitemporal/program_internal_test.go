package aitemporal

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs"
)

// runProgramOnce runs the program activity once with the given ledger.
func runProgramOnce(t *testing.T, js string, calls []programCall) programOutput {
	t.Helper()
	v, err := runProgramActivity(t, nil, js, calls)
	require.NoError(t, err)
	var out programOutput
	require.NoError(t, v.Get(&out))
	return out
}

// runProgramActivity runs the program activity once, with eng as the code
// tool's engine when it is not nil.
func runProgramActivity(t *testing.T, eng ai.CodeEngine, js string, calls []programCall) (converter.EncodedValue, error) {
	t.Helper()
	model := aitest.NewModel()
	echo := ai.NewTool(ai.ToolDef[map[string]any, map[string]any]{
		Execute: func(_ context.Context, in map[string]any, _ ai.ToolExecutionOptions) (map[string]any, error) {
			t.Error("the program activity never runs a tool")
			return in, nil
		},
	})
	rt, err := newRuntime(&Config{
		Models: map[string]provider.LanguageModel{"m": model},
		Agents: map[string]*Agent{"a": {Options: ai.GenerateTextOptions{
			Model:       model,
			Tools:       ai.Tools{{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{Engine: eng})}, {Name: "echo", Tool: echo}},
			ToolCallers: []ai.CallerRoute{{Tool: "echo", Callers: []string{"code"}}},
		}}},
	})
	require.NoError(t, err)
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(rt.runProgram, activity.RegisterOptions{Name: ProgramActivity})
	return env.ExecuteActivity(ProgramActivity, programInput{Agent: "a", ToolName: "code", ToolCallID: "c1", Source: js,
		Seed: "12345", Time: 1_700_000_000_000, Calls: calls})
}

// busyEngine refuses every run as a busy engine does.
type busyEngine struct{}

func (busyEngine) Run(context.Context, ai.CodeProgram) (*ai.CodeModeResult, error) {
	return nil, &ai.CodeModeError{Code: ai.CodeModeConcurrencyLimit, Name: "CodeModeConcurrencyLimitError", Message: "busy"}
}

// A run refused because the worker's engine was busy is retried, not
// reported as the program's failure.
func TestProgramActivityRetriesABusyEngine(t *testing.T) {
	_, err := runProgramActivity(t, busyEngine{}, "return 1", nil)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.False(t, app.NonRetryable())
	assert.Equal(t, ai.CodeModeConcurrencyLimit, app.Type())
}

func TestProgramActivity(t *testing.T) {
	const js = `const a = await tools.echo({ n: 1 });
const [b, c] = await Promise.all([tools.echo({ n: 2 }), tools.echo({ n: a.n + 2 })]);
return { a, b, c, t: Date.now() };`
	rec := func(seq int, in, out string) programCall {
		return programCall{Seq: seq, Name: "echo", Input: json.RawMessage(in), Output: json.RawMessage(out)}
	}

	// A call the ledger lacks stops the program and is reported.
	out := runProgramOnce(t, js, nil)
	require.Len(t, out.Calls, 1)
	assert.Equal(t, 1, out.Calls[0].Seq)
	assert.JSONEq(t, `{"n":1}`, string(out.Calls[0].Input))
	assert.Nil(t, out.Error)

	// Recorded calls are answered from the ledger; the calls dispatched
	// together are reported together, or the first of them.
	out = runProgramOnce(t, js, []programCall{rec(1, `{"n":1}`, `{"n":1}`)})
	require.NotEmpty(t, out.Calls)
	assert.Equal(t, 2, out.Calls[0].Seq)

	// With every call recorded, the program finishes, on the fixed clock.
	done := []programCall{rec(1, `{"n":1}`, `{"n":1}`), rec(2, `{"n":2}`, `{"n":20}`), rec(3, `{"n":3}`, `{"n":30}`)}
	out = runProgramOnce(t, js, done)
	require.Nil(t, out.Error)
	assert.JSONEq(t, `{"a":{"n":1},"b":{"n":20},"c":{"n":30},"t":1700000000000}`, string(out.Value))

	// A recorded failure is what the program sees.
	failed := append([]programCall{}, done...)
	failed[0] = programCall{Seq: 1, Name: "echo", Input: json.RawMessage(`{"n":1}`), Error: &programError{
		Code: ai.CodeModeToolApprovalDenied, Name: "CodeModeToolApprovalDeniedError", Message: "no"}}
	out = runProgramOnce(t, `try { await tools.echo({ n: 1 }) } catch (e) { return e.code }`, failed[:1])
	assert.JSONEq(t, `"CODE_MODE_TOOL_APPROVAL_DENIED"`, string(out.Value))

	// A run that makes another call than the recorded one fails.
	out = runProgramOnce(t, js, []programCall{rec(1, `{"n":7}`, `{"n":7}`)})
	require.NotNil(t, out.Error)
	assert.Equal(t, ai.CodeModeProtocolError, out.Error.Code)
	assert.Empty(t, out.Calls)

	// So does one that returns without making every recorded call.
	out = runProgramOnce(t, `return 1`, []programCall{rec(1, `{"n":1}`, `{"n":1}`)})
	require.NotNil(t, out.Error)
	assert.Equal(t, ai.CodeModeProtocolError, out.Error.Code)

	// A program's own failure is its result.
	out = runProgramOnce(t, `throw new Error("boom")`, nil)
	require.NotNil(t, out.Error)
	assert.Equal(t, ai.CodeModeUserError, out.Error.Code)
}

// The seed of Math.random is the same on every run of a program.
func TestProgramSeedIsFixed(t *testing.T) {
	out1 := runProgramOnce(t, `return Math.random()`, nil)
	out2 := runProgramOnce(t, `return Math.random()`, nil)
	require.Nil(t, out1.Error)
	assert.Equal(t, string(out1.Value), string(out2.Value))
}
