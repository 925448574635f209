// Package quickjs runs code mode programs: it is the JavaScript engine
// behind [ai.CodeMode] and [ai.RunCodeMode].
//
// Importing the package registers its engine with [ai.RegisterCodeEngine],
// so that code mode tools without an explicit engine use it:
//
//	import _ "github.com/aisdkgo/ai/quickjs"
//
// Programs run in QuickJS compiled to Go (modernc.org/libquickjs, no cgo),
// after esbuild has removed their TypeScript types, each in a fresh,
// isolated context without eval, timers, network or file system, under the
// limits of [ai.CodeModeLimits]. A worker prepares one context with the
// sandbox's prelude and starts every run from a byte-for-byte copy of its
// memory, which it restores when the run ends, so that no run sees anything
// an earlier one did. The core package ai links none of this unless a
// program imports this package.
//
// # Worker processes
//
// Programs run in worker processes: the program's own binary, started
// again and recognised when this package initialises, kept warm in a small
// pool (at most max(2, GOMAXPROCS) idle workers of 3 to 7 MiB each). A run
// that outlives its timeout or its context is interrupted wherever it is,
// and its worker is killed if it has not stopped 100 ms later, so a run
// always returns within its timeout plus 250 ms, even when it is stuck in a
// single long built-in call. Workers start with an empty environment, in a
// process group of their own, and on Linux with a memory cap of the run's
// limit plus 256 MiB. Packages initialised before this one also initialise
// in workers; a worker's standard input and output are its own, its
// standard error is the host's. The costs: the first run of a process waits
// for a worker to start (a few milliseconds), and each tool call of a
// program crosses between processes twice (about 50 microseconds a call in
// all on a two-core virtual machine, which matters only for tools that
// answer at once; a side expecting an answer that soon watches for it for
// up to 100 microseconds before sleeping).
//
// # Limits
//
// Every limit, its default and what happens when a program exceeds it:
//
//	Limit                    Default            Exceeded
//	Timeout                  30 s               CODE_MODE_TIMEOUT
//	(cancelled context)      -                  CODE_MODE_ABORTED
//	MemoryBytes              64 MiB             catchable InternalError; uncaught CODE_MODE_MEMORY_LIMIT
//	StackBytes               2 MiB (~5200       catchable InternalError "stack overflow";
//	                         nested calls)      uncaught CODE_MODE_USER_ERROR
//	MaxSourceBytes           256 KiB            CODE_MODE_SOURCE_TOO_LARGE, before anything runs
//	MaxNestingDepth          1000               CODE_MODE_USER_ERROR (SyntaxError), before the transform
//	MaxResultBytes           1 MiB              CODE_MODE_SERIALIZATION_ERROR
//	MaxConsoleBytes          64 KiB             the line and every later one dropped silently
//	MaxToolInputBytes        1 MiB              the call rejects with CODE_MODE_SERIALIZATION_ERROR
//	MaxToolOutputBytes       4 MiB              the call rejects with CODE_MODE_SERIALIZATION_ERROR
//	MaxToolCalls             256                CODE_MODE_BRIDGE_LIMIT (uncatchable)
//	MaxConcurrentToolCalls   32                 CODE_MODE_BRIDGE_LIMIT (uncatchable)
//	MaxErrorMessageBytes     8 KiB              the message is cut and says how long it was
//	error names              256 bytes          cut
//	exception stacks         32 frames of       cut
//	                         512 bytes
//	console formatting       100 items per      "... N more items"; deeper values shown
//	                         container, depth   as [Object] or [Array]; longer strings
//	                         2, 10000 chars     cut
//	concurrent runs (per     min(32, memory /   CODE_MODE_CONCURRENCY_LIMIT, at once
//	process, see             112 MiB), at
//	SetMaxConcurrentRuns)    least 1
//	worker memory (Linux)    MemoryBytes +      the worker ends: CODE_MODE_ERROR
//	                         256 MiB
//	stuck built-in call      100 ms after the   the worker is killed; the code stays
//	                         deadline           CODE_MODE_TIMEOUT or CODE_MODE_ABORTED
//	tools ignoring their     200 ms after the   the run returns without them
//	context                  run ends
//	tool name                1 KiB              the call rejects with CODE_MODE_SERIALIZATION_ERROR
//	idle worker processes    max(2, GOMAXPROCS) more are ended when they finish
//	record of a paused       8 MiB              the run fails with CODE_MODE_ERROR instead of
//	program (interrupt mode)                    pausing
//	ContinuationMaxAge       1 h                resuming fails with InvalidCodeModeContinuationError;
//	                                            nothing runs
//
// A limit above its maximum is lowered to it: Timeout 24 h, MemoryBytes
// 64 GiB (1 GiB on 32-bit systems), StackBytes 1 GiB, MaxSourceBytes 64 MiB,
// MaxResultBytes, MaxConsoleBytes, MaxToolInputBytes and MaxToolOutputBytes
// 512 MiB, MaxErrorMessageBytes 16 MiB, MaxToolCalls 2^24,
// MaxConcurrentToolCalls 2^16, MaxNestingDepth 100000. A negative limit fails
// the run with an [*ai.InvalidArgumentError] naming it.
//
// Each tool call a program makes runs at most once: a worker that is lost
// after anything of the run came back from it fails the run with
// CODE_MODE_ERROR and the program is not run again.
package quickjs

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/sandbox"
)

func init() { ai.RegisterCodeEngine(Engine()) }

// SetMaxConcurrentRuns sets how many programs may run at once in this
// process; a run over the limit fails at once with
// [ai.CodeModeConcurrencyLimit]. n <= 0 restores the default,
// min(32, available memory / 112 MiB), at least 1. It returns the previous
// limit.
func SetMaxConcurrentRuns(n int) (previous int) { return sandbox.SetMaxConcurrentRuns(n) }

// MaxConcurrentRuns returns how many programs may run at once in this
// process.
func MaxConcurrentRuns() int { return sandbox.MaxConcurrentRuns() }

// Engine returns the QuickJS engine.
func Engine() ai.CodeEngine { return engine{} }

type engine struct{}

// Run runs one program in a fresh QuickJS context.
func (engine) Run(ctx context.Context, p ai.CodeProgram) (*ai.CodeModeResult, error) {
	l := p.Limits
	opts := sandbox.Options{
		Source: p.Source,
		Limits: sandbox.Limits{
			Timeout: l.Timeout, MemoryBytes: l.MemoryBytes, StackBytes: l.StackBytes,
			MaxSourceBytes: l.MaxSourceBytes, MaxResultBytes: l.MaxResultBytes, MaxConsoleBytes: l.MaxConsoleBytes,
			MaxToolInputBytes: l.MaxToolInputBytes, MaxToolOutputBytes: l.MaxToolOutputBytes,
			MaxToolCalls: l.MaxToolCalls, MaxConcurrentToolCalls: l.MaxConcurrentToolCalls,
			MaxErrorMessageBytes: l.MaxErrorMessageBytes, MaxNestingDepth: l.MaxNestingDepth,
		},
		Console: p.Console,
		Seed:    p.Seed,
		Time:    p.Time,
	}
	if p.CallTool != nil {
		opts.CallTool = func(ctx context.Context, call sandbox.ToolCall) (json.RawMessage, error) {
			out, err := p.CallTool(ctx, ai.CodeToolCall{Seq: call.Seq, Name: call.Name, Input: call.Input})
			var ce *ai.CodeModeError
			if errors.As(err, &ce) {
				// The library's own refusals keep their code and message in
				// the program; other errors are redacted by the sandbox.
				return nil, &sandbox.Error{Code: ce.Code, Name: ce.Name, Message: ce.Message, Details: ce.Details, Cause: ce.Cause}
			}
			return out, err
		}
	}
	if _, err := opts.Limits.Resolve(); err != nil {
		return nil, invalidLimit(err)
	}
	res, err := sandbox.Run(ctx, opts)
	if err != nil {
		return nil, codeModeError(err)
	}
	out := &ai.CodeModeResult{Value: res.Value}
	for _, line := range res.Console {
		out.Console = append(out.Console, ai.ConsoleLine{Stream: line.Stream, Text: line.Text})
	}
	return out, nil
}

// invalidLimit describes a limit the sandbox refused (a negative one) as an
// invalid argument.
func invalidLimit(err error) error {
	param := "Limits"
	var se *sandbox.Error
	if errors.As(err, &se) {
		if f, ok := se.Details["field"].(string); ok {
			param = f
		}
		return &ai.InvalidArgumentError{Parameter: param, Message: se.Message}
	}
	return &ai.InvalidArgumentError{Parameter: param, Message: err.Error()}
}

// codeModeError converts a sandbox failure.
func codeModeError(err error) error {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return &ai.CodeModeError{Code: ai.CodeModeErrorCode, Name: "CodeModeError", Message: err.Error(), Cause: err}
	}
	return &ai.CodeModeError{Code: se.Code, Name: se.DisplayName(), Message: se.Message, Details: se.Details, Cause: se.Cause}
}
