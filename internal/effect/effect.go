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
