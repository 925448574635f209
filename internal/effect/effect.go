// Package effect is the seam between the generation engine of package ai and
// the world: model calls, tool executions, concurrency, the clock and ids.
// The engine performs every effect through an [Effects] value, so that a
// runtime other than the current process (a durable workflow engine) can
// replace them without a second copy of the loop.
//
// The package is internal: the root package and this module's integrations
// are its only users.
package effect

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// Effects are what one generation does outside its own state.
type Effects interface {
	// Generate makes one non-streaming model call, retries included.
	Generate(ctx context.Context, model provider.LanguageModel, opts *provider.CallOptions, retry Retry) (*provider.GenerateResult, error)
	// Stream starts one streaming model call, retries of the start included.
	Stream(ctx context.Context, model provider.LanguageModel, opts *provider.CallOptions, retry Retry) (*provider.StreamResult, error)
	// Invoke runs a tool's own code for one call. local runs it in this
	// process: a runtime that executes tools elsewhere returns the output
	// those executions produce (as JSON) instead of calling local.
	Invoke(ctx context.Context, call Call, local func(context.Context) (any, error)) (any, error)
	// Parallel runs task for i = 0..n-1, at most limit at once (no bound
	// when limit <= 0). Task i+1 is launched only after task i has called
	// started (or returned), so that tasks start in order; no task is
	// launched once ctx is done. Parallel returns when every launched task
	// has returned.
	Parallel(ctx context.Context, n, limit int, task func(ctx context.Context, i int, started func()))
	// Now returns the current time.
	Now() time.Time
	// NewID returns a fresh id for responses and approvals.
	NewID() string
}

// Call identifies one tool execution.
type Call struct {
	ToolName   string
	ToolCallID string
	// Input is the call's validated input.
	Input json.RawMessage
	// Step is the number of the step the call belongs to.
	Step int
}

// Retry says how often a failed model call is retried and reports each
// retry.
type Retry struct {
	// Max is the number of retries after the first attempt.
	Max int
	// Notify, when set, is called before each retry with the number of the
	// attempt that failed (from 1), the wait before the next attempt and
	// the failure.
	Notify func(attempt int, delay time.Duration, err error)
}

type key struct{}

// With returns a context whose generations perform their effects through e.
func With(ctx context.Context, e Effects) context.Context {
	return context.WithValue(ctx, key{}, e)
}

// From returns the effects set on ctx by [With], or nil.
func From(ctx context.Context) Effects {
	e, _ := ctx.Value(key{}).(Effects)
	return e
}

// RunTool runs the code of one tool in this process, as a generation does:
// it decodes the call's validated input, runs the tool with panics turned
// into errors, and returns the output encoded as JSON (a string output as a
// JSON string). tool is an ai.Tool. A runtime that executes tools outside
// the generation's process (for example in a durable worker) calls it
// there. Package ai sets it.
var RunTool func(ctx context.Context, tool any, call Call) (json.RawMessage, error)

// Programs is implemented by effects that run the programs of code mode
// tools outside the generation (a durable runtime). A code mode tool whose
// execution finds such effects on its context hands its program to
// RunProgram instead of running it with its engine; the program's tool
// calls still go through the generation (validation, approval policy,
// execution through these effects) by way of [Program.CallTool].
type Programs interface {
	// RunProgram runs a program to its end and returns its value as JSON.
	// A failed program returns the error the engine reports (an
	// *ai.CodeModeError).
	RunProgram(ctx context.Context, p Program) (json.RawMessage, error)
	// ApproveProgramCall decides a tool call of a program that the
	// approval policy leaves to a person, when the code mode tool has no
	// Approve function of its own: it returns once a person answered.
	ApproveProgramCall(ctx context.Context, call Call) (approved bool, reason string, err error)
}

// Program is one run of a code mode program.
type Program struct {
	// Source is the program.
	Source string
	// ToolCallID is the id of the code mode tool's call that runs it.
	ToolCallID string
	// Seed seeds Math.random and Time is what the program's clock reports
	// for the whole run (see ai.CodeProgram); set by the runtime for
	// [RunProgram].
	Seed uint64
	Time time.Time
	// CallTool runs the program's tool call number seq (from 1) and
	// returns what the program sees, as ai.CodeProgram's CallTool does.
	CallTool func(ctx context.Context, seq int, name string, input json.RawMessage) (json.RawMessage, error)
}

// RunProgram runs a program of a code mode tool in this process with the
// tool's engine, limits and console, its tool calls answered by p.CallTool,
// and returns the program's value as JSON ("null" when it returned
// nothing). tool is the ai.Tool that ai.CodeMode returned. A runtime that
// runs programs outside the generation's process calls it there. Package
// ai sets it.
var RunProgram func(ctx context.Context, tool any, p Program) (json.RawMessage, error)
