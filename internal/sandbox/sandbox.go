// Package sandbox runs one JavaScript or TypeScript program in an isolated,
// resource-limited JavaScript engine inside the Go process. It is the
// execution half of code mode: the program calls host tools through a global
// `tools` object, and every such call is handed to a host callback.
//
// # Program
//
// The source is the body of an async function: top-level `await` and
// `return` work, `import` and `export` declarations do not (dynamic
// `import()` finds no modules). TypeScript is accepted and nothing is
// type-checked: esbuild's TypeScript transform removes the types. Because
// that transform compiles rather than only strips, `enum` declarations and
// other runtime TypeScript constructs that can live inside a function body
// work; `namespace` and `module` declarations cannot appear inside a function
// and are syntax errors. Syntax newer than ES2023 (what the engine
// implements) is lowered where esbuild can, such as `using` declarations and
// decorators. Syntax errors fail the run with CODE_MODE_USER_ERROR, name
// SyntaxError, and the line and column in the program. The output of the
// transform is kept in a small process-wide cache keyed by the SHA-256 of
// the source, so a program run again is not transformed again.
//
// The return value crosses into Go as JSON, with JSON.stringify semantics in
// the guest: NaN and Infinity become null, functions and undefined members
// are dropped, BigInt and circular values fail with
// CODE_MODE_SERIALIZATION_ERROR, and a program returning undefined yields a
// nil Result.Value. An exception the program does not catch fails the run
// with CODE_MODE_USER_ERROR and the exception's own name and message. A
// program left waiting for a promise that nothing can settle any more fails
// at once with CODE_MODE_ERROR instead of running into its timeout.
//
// # Isolation
//
// Every run gets a new engine instance that is closed when the run ends, so
// nothing persists between runs. Before the program runs, a prelude removes
// eval, SharedArrayBuffer, Atomics, WeakRef and FinalizationRegistry, turns
// every route to the Function constructor (including the generator and async
// variants reached through `.constructor`) into a function that throws
// TypeError, and freezes the built-in constructors, prototypes and namespace
// objects, including intrinsics only reachable from instances (iterator and
// generator prototypes). Built-in global bindings become read-only, and
// assignments to frozen objects fail silently in sloppy code (TypeError in
// strict code). There are no timers, no module loader, no I/O and no host
// objects other than `tools` and `console`; Date and Math.random are the
// real ones. So that common code keeps working on frozen prototypes,
// assigning `name`, `message`, `toString`, `constructor` and similar
// properties that a frozen prototype would otherwise shadow creates an own
// property, as on an unfrozen prototype.
//
// # Tools
//
// `tools` is a proxy with no prototype: every string property is a function
// of one argument returning a promise (`then` and symbol keys are undefined,
// so `await tools` is harmless). A call is dispatched to the host only once
// the program observes its promise (`await`, `.then`, `.catch`, `.finally`,
// `Promise.all` and friends). The argument is serialized with JSON.stringify
// when the call is made; undefined is sent as `{}`, and a value that cannot
// be serialized or is over Limits.MaxToolInputBytes rejects the call with
// CODE_MODE_SERIALIZATION_ERROR without reaching the host. Observed calls
// run concurrently, each on its own goroutine, and their results re-enter
// the engine on the goroutine that called Run. A failed call rejects its
// promise with an Error carrying `name`, `message`, `code` and, when the
// host gave some, `details`; if the program does not catch it, Run returns
// the host's *Error itself (or the redacted CODE_MODE_HOST_TOOL_ERROR).
//
// When the program returns, a call it never observed fails the run with
// CODE_MODE_DETACHED_BRIDGE_REQUEST (the host never ran it), and so does an
// observed call still running, whose context is then cancelled. More calls
// than Limits.MaxToolCalls, or more in flight at once than
// Limits.MaxConcurrentToolCalls, fail the run with CODE_MODE_BRIDGE_LIMIT;
// the program cannot catch that.
//
// # Limits
//
// Limits.Timeout is wall-clock time including tool waits; tight loops are
// interrupted and the run fails with CODE_MODE_TIMEOUT. Cancelling the
// context passed to Run fails it with CODE_MODE_ABORTED. Either way the
// contexts of pending tool calls are cancelled. Running out of
// Limits.MemoryBytes throws inside the program, which may catch it; uncaught,
// the run fails with CODE_MODE_MEMORY_LIMIT. The engine has no lasting
// out-of-memory flag, so that failure is recognised by the engine's own
// error object (an InternalError from the realm's intrinsics, or the null
// the engine throws when it cannot even allocate one); a program throwing
// null itself is reported the same way. Going deeper than Limits.StackBytes
// throws a catchable InternalError "stack overflow".
//
// # Console
//
// console.log, info, debug, dir and table write to "stdout"; console.error,
// warn, trace and failed assert calls to "stderr". Each call makes one line,
// formatted roughly as Node.js does, on a single line: printf-style %s %d %i
// %f %j %o %O %c %% in a leading string, other values inspected (strings
// quoted when nested, objects to a depth of two, at most 100 items per
// container, getters not invoked). Lines are collected in Result.Console and
// passed to Options.Console while the combined size of both streams (each
// line counted with a trailing newline) stays within Limits.MaxConsoleBytes;
// the first line that does not fit and every later one are dropped
// silently.
package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Limits bounds one run. A zero field takes its default from
// [DefaultLimits]; a negative field is an error.
type Limits struct {
	// Timeout is the wall-clock limit of the run, tool waits included.
	Timeout time.Duration
	// MemoryBytes caps the engine heap.
	MemoryBytes int
	// StackBytes bounds the call depth of the program; going deeper throws
	// a catchable InternalError. The engine counts its stack in frames, not
	// bytes, so StackBytes is converted at 400 bytes per frame and clamped
	// to 128..20000 frames: the default allows about 5200 nested calls.
	StackBytes int
	// MaxSourceBytes caps the UTF-8 size of Options.Source.
	MaxSourceBytes int
	// MaxResultBytes caps the JSON size of the return value.
	MaxResultBytes int
	// MaxConsoleBytes caps the console output kept, both streams together.
	MaxConsoleBytes int
	// MaxToolInputBytes caps the JSON size of each tool input.
	MaxToolInputBytes int
	// MaxToolOutputBytes caps the JSON size of each tool output.
	MaxToolOutputBytes int
	// MaxToolCalls caps the number of tool calls dispatched to the host.
	MaxToolCalls int
	// MaxConcurrentToolCalls caps the tool calls in flight at once. A call
	// over the cap fails the run; calls are never queued.
	MaxConcurrentToolCalls int
	// MaxErrorMessageBytes caps the message of an error Run returns or a
	// program sees for a failed tool call; a longer one is cut and says
	// how long it was. Error names are cut at 256 bytes.
	MaxErrorMessageBytes int
	// MaxNestingDepth bounds how deeply the program nests, estimated from
	// its tokens before it is compiled: brackets, template substitutions
	// and chains of operators, keywords and calls that the compiler
	// handles recursively each count. A deeper program fails with
	// CODE_MODE_USER_ERROR, name SyntaxError.
	MaxNestingDepth int
}

// DefaultLimits returns the limits used for zero fields of [Limits].
func DefaultLimits() Limits {
	return Limits{
		Timeout:                30 * time.Second,
		MemoryBytes:            64 << 20,
		StackBytes:             2 << 20,
		MaxSourceBytes:         256 << 10,
		MaxResultBytes:         1 << 20,
		MaxConsoleBytes:        64 << 10,
		MaxToolInputBytes:      1 << 20,
		MaxToolOutputBytes:     4 << 20,
		MaxToolCalls:           256,
		MaxConcurrentToolCalls: 32,
		MaxErrorMessageBytes:   8 << 10,
		MaxNestingDepth:        1000,
	}
}

// Resolve returns l with every zero field set to its default. It fails with
// a CODE_MODE_ERROR *Error naming the first negative field.
func (l Limits) Resolve() (Limits, error) {
	d := DefaultLimits()
	if l.Timeout < 0 {
		return l, negativeLimit("Timeout", int64(l.Timeout))
	}
	if l.Timeout == 0 {
		l.Timeout = d.Timeout
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"MemoryBytes", &l.MemoryBytes, d.MemoryBytes},
		{"StackBytes", &l.StackBytes, d.StackBytes},
		{"MaxSourceBytes", &l.MaxSourceBytes, d.MaxSourceBytes},
		{"MaxResultBytes", &l.MaxResultBytes, d.MaxResultBytes},
		{"MaxConsoleBytes", &l.MaxConsoleBytes, d.MaxConsoleBytes},
		{"MaxToolInputBytes", &l.MaxToolInputBytes, d.MaxToolInputBytes},
		{"MaxToolOutputBytes", &l.MaxToolOutputBytes, d.MaxToolOutputBytes},
		{"MaxToolCalls", &l.MaxToolCalls, d.MaxToolCalls},
		{"MaxConcurrentToolCalls", &l.MaxConcurrentToolCalls, d.MaxConcurrentToolCalls},
		{"MaxErrorMessageBytes", &l.MaxErrorMessageBytes, d.MaxErrorMessageBytes},
		{"MaxNestingDepth", &l.MaxNestingDepth, d.MaxNestingDepth},
	} {
		switch {
		case *f.v < 0:
			return l, negativeLimit(f.name, int64(*f.v))
		case *f.v == 0:
			*f.v = f.def
		}
	}
	return l, nil
}

func negativeLimit(field string, v int64) *Error {
	return newError(CodeError, fmt.Sprintf("Limits.%s must not be negative (got %d).", field, v)).
		withDetails(map[string]any{"field": "Limits." + field, "value": v})
}

// ToolCall is one tool call made by the program.
type ToolCall struct {
	// Seq is the 1-based dispatch number of the call in this run. The host
	// derives nested call ids from it ("<outer>:tool-<Seq>").
	Seq int
	// Name is the property used on `tools`.
	Name string
	// Input is the JSON of the argument, already checked against
	// Limits.MaxToolInputBytes.
	Input json.RawMessage
}

// CallTool runs one tool call on the host. It is called on a goroutine of
// its own, concurrently with other calls of the same run. ctx is cancelled
// when the run ends (normally, by timeout, failure or abort) or when the
// program returns without waiting for the call; CallTool should then return
// promptly. Run waits a short grace period for calls to return after
// cancelling them and then returns regardless, so a CallTool that ignores
// ctx can outlive Run.
//
// CallTool returns a JSON value (nil or empty means undefined in the
// program) or an error. An *Error, found with errors.As, is shown to the
// program with its code, name and message unchanged (unknown tool, invalid
// input, approval ...). Any other error is redacted: the program sees the
// message "Host tool failed." with code CODE_MODE_HOST_TOOL_ERROR. Output
// that is not valid JSON is treated as such an error. A panic in CallTool
// fails the run.
type CallTool func(ctx context.Context, call ToolCall) (json.RawMessage, error)

// Options describes one run.
type Options struct {
	// Source is the program, JavaScript or TypeScript: the body of an async
	// function.
	Source string
	// Limits bound the run; zero fields take their defaults.
	Limits Limits
	// CallTool runs the program's tool calls. When nil, every tool call
	// fails as an unknown tool.
	CallTool CallTool
	// Console, when not nil, receives each console line kept within the
	// budget, synchronously, with stream "stdout" or "stderr". It must not
	// block for long: the program waits while it runs.
	Console func(stream string, line string)
}

// ConsoleLine is one line of console output.
type ConsoleLine struct {
	Stream string // "stdout" or "stderr"
	Text   string
}

// Result is the outcome of a successful run.
type Result struct {
	// Value is the program's return value as JSON, nil when it returned
	// undefined (or something JSON.stringify turns into undefined, such as
	// a function).
	Value json.RawMessage
	// Console holds the console lines kept within the budget.
	Console []ConsoleLine
}

// Run runs one program and returns its result. Every failure is an *Error.
// Run returns within Limits.Timeout plus 250 ms, and within 250 ms of the
// cancellation of ctx, whatever the program does; by then every goroutine it
// started has ended, except tool calls that ignore the cancellation of their
// context (see [CallTool]).
func Run(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	limits, err := opts.Limits.Resolve()
	if err != nil {
		return nil, err
	}
	if n := len(opts.Source); n > limits.MaxSourceBytes {
		return nil, newError(CodeSourceTooLarge,
			fmt.Sprintf("The program is %d bytes long, more than the limit of %d bytes.", n, limits.MaxSourceBytes)).
			withDetails(map[string]any{"bytes": n, "maxBytes": limits.MaxSourceBytes})
	}
	if ctx.Err() != nil {
		return nil, abortedError(ctx)
	}
	key := sourceKey(opts.Source)
	entry, cached := transforms.get(key)
	if cached && entry.depth > limits.MaxNestingDepth {
		// Compiled before under a higher limit: the worker checks again.
		cached = false
	}
	ok, limit := workers.admit()
	if !ok {
		return nil, newError(CodeConcurrencyLimit, fmt.Sprintf(
			"Too many programs are running at once: at most %d may run at the same time in this process.", limit)).
			withDetails(map[string]any{"maxConcurrentRuns": limit})
	}
	defer workers.release()
	h := &hostRun{ctx: ctx, opts: opts, limits: limits, key: key, deadline: start.Add(limits.Timeout)}
	return h.run(entry, cached)
}

func abortedError(ctx context.Context) *Error {
	return newError(CodeAborted, "Code execution was aborted.").withCause(context.Cause(ctx))
}
