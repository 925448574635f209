// Package sandbox runs one JavaScript or TypeScript program in an isolated,
// resource-limited JavaScript engine. It is the execution half of code mode:
// the program calls host tools through a global `tools` object, and every
// such call is handed to a host callback.
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
// SyntaxError, and the line and column in the program. The transformed
// script keeps the program's line numbers, and its columns wherever the
// transform leaves room, so positions the engine reports are the program's
// own. The output of the transform is kept in a small process-wide cache
// keyed by the SHA-256 of the source, so a program run again is not
// transformed again.
//
// The return value crosses into Go as JSON, with JSON.stringify semantics in
// the guest: NaN and Infinity become null, functions and undefined members
// are dropped, BigInt and circular values fail with
// CODE_MODE_SERIALIZATION_ERROR, and a program returning undefined yields a
// nil Result.Value. An exception the program does not catch fails the run
// with CODE_MODE_USER_ERROR and the exception's own name and message; when it
// has a stack, Details["stack"] holds the program's frames, one
// "    at <function> (code-mode.js:<line>:<column>)" (or "(native)" for a
// built-in the program called) per line, without the sandbox's own frames.
// Inside the program, stack traces name the program's lines too, in
// code-mode.js; frames of the sandbox's prelude name <sandbox>. A program
// left waiting for a promise that nothing can settle any more fails at once
// with CODE_MODE_ERROR instead of running into its timeout.
//
// # Isolation
//
// Every run gets an engine instance of its own, so nothing persists between
// runs. A worker process builds one instance, with the prelude below
// evaluated, in a block of memory of its own and keeps a copy of that block;
// each run starts from it, and when the run ends every block of memory the
// engine allocated since is freed and the copy is written back, so that the
// next run finds the engine's memory exactly as it was before any program
// ran (only the seed of Math.random is new). Before the program runs, a
// prelude removes eval, SharedArrayBuffer, Atomics, WeakRef and
// FinalizationRegistry, turns every route to the Function constructor
// (including the generator and async variants reached through
// `.constructor`) into a function that throws TypeError, and freezes the
// built-in constructors, prototypes and namespace objects, including
// intrinsics only reachable from instances (iterator and generator
// prototypes). Built-in global bindings become read-only, and assignments to
// frozen objects fail silently in sloppy code (TypeError in strict code).
// There are no timers, no module loader, no I/O and no host objects other
// than `tools` and `console`; Date and Math.random are the real ones. So
// that common code keeps working on frozen prototypes, assigning `name`,
// `message`, `toString`, `constructor` and similar properties that a frozen
// prototype would otherwise shadow creates an own property, as on an
// unfrozen prototype; assigning them on the prototype itself is ignored, in
// strict code too.
//
// # Worker processes
//
// Programs run in worker processes, not in the calling process: a built-in
// call such as sorting a typed array of millions of numbers or a replace
// over a long string runs for seconds without ever giving the engine a
// chance to stop it, and only ending its process bounds it. A worker is the
// program's own executable started again with a marker in its environment,
// which this package's initialisation detects: it then serves runs over
// pipes and never returns to the program's main function. Its environment
// holds only that marker and the variables the Go runtime, the race
// detector, coverage and time zones read (GODEBUG, GORACE, GOTRACEBACK,
// GOCOVERDIR, GOMAXPROCS, TZ, SYSTEMROOT), so no credentials of the host
// reach it, and it sits in a process group of its own; its standard error
// is the host's, where a crash of the engine shows up. It keeps no other
// descriptor than its pipes: one the host opened without close-on-exec,
// which every child of the host inherits, is closed when the worker
// starts. On Linux its private
// memory is capped at what it had mapped plus the run's memory limit plus
// 256 MiB, so that even a source built to blow up the transform costs that
// worker only. A worker ends when its host process does.
//
// Workers are kept in a pool: a finished worker restores the engine's memory
// for its next run while it waits, and when a run takes the last idle worker
// another is started, so that a run does not wait for either. The costs:
//
//   - Every idle worker is a process of about 3 to 7 MiB of private memory
//     (the realm its runs start from and the copy of it included) plus the
//     pages of the executable, which it shares with the host; the pool
//     keeps at most max(2, GOMAXPROCS) of them (never more than
//     MaxConcurrentRuns), however many ran at once before, besides one per
//     run in progress and at most one spare being started.
//   - The first run of a process waits for a worker to start, a few
//     milliseconds (more under the race detector).
//   - Every tool call crosses between the processes twice. Measured on a
//     shared two-core virtual machine, a program awaiting 100 tool calls
//     that answer at once, one after the other, takes about 5 to 6 ms,
//     some 50 us a call, less than half of it the program's own
//     JavaScript; a trivial run takes about 0.2 ms. To keep a crossing
//     short, a side that expects an answer within microseconds watches
//     memory shared with the other for up to 100 us (the worker, waiting
//     for a settlement) or 50 us (the host, after settling the call a
//     program waits for alone) before its thread sleeps, so a run waiting
//     for a slow tool keeps a processor busy no longer than that.
//   - A program stopped by ending its worker costs a new process.
//   - Every call a program makes runs at most once. A worker that ends, or
//     sends what the host does not accept, once anything of the run came
//     back from it fails the run with CODE_MODE_ERROR: the program is
//     never run again. Only a worker that ended before the host read
//     anything of the run, such as one killed while idle, is replaced and
//     the run handed to another, at most three times.
//   - When a run ends, results of tool calls not yet written to its worker
//     are dropped, and one being written stops at its next 64 KiB (the
//     worker then serves no other run): the end of a run never waits for a
//     program that does not read its results.
//   - A program that imports this package runs the initialisation of the
//     packages initialised before it in every worker too, and must not
//     expect standard input and output in a worker to be its own.
//   - On Windows an interrupt reaches a worker only when the program waits
//     for a tool call; a program still running 100 ms after its deadline
//     ends with its process.
//
// # Tools
//
// `tools` is a proxy with no prototype: every string property is a function
// of one argument returning a promise (`then` and symbol keys are undefined,
// so `await tools` is harmless). A call is dispatched to the host only once
// the program observes its promise (`await`, `.then`, `.catch`, `.finally`,
// `Promise.all` and friends). The argument is serialized with JSON.stringify
// when the call is made; undefined is sent as `{}`, and a value that cannot
// be serialized (a cycle, a BigInt, a getter or toJSON that throws anything)
// or is over Limits.MaxToolInputBytes rejects the call with
// CODE_MODE_SERIALIZATION_ERROR without reaching the host, and so does a
// tool name over 1 KiB; the call itself never throws. Observed calls
// run concurrently, each on a goroutine of the calling process. A call
// resolves to the value JSON.parse makes of the tool's output, which the
// worker builds from the JSON directly; output the engine cannot hold (too
// deep for the stack limit, too large for the memory left) rejects the call
// with CODE_MODE_SERIALIZATION_ERROR or the engine's out-of-memory error, as
// JSON.parse would throw them. A failed call rejects its promise with an
// Error carrying `name`, `message`, `code` and, when the host gave some,
// `details`; if the program does not catch it, Run returns the host's *Error
// itself (or the redacted CODE_MODE_HOST_TOOL_ERROR).
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
// Limits.Timeout is wall-clock time from the call of Run, the transform and
// tool waits included. When it runs out, or when the context passed to Run
// is cancelled, the engine is interrupted: it stops within about a
// millisecond wherever the program is, including promise executors, async
// functions, catch and finally blocks, callbacks of built-ins and regular
// expressions, and the program cannot catch that. A program stuck inside a
// single built-in call is ended with its worker 100 ms later. Run returns
// within 250 ms of the deadline or the cancellation either way, with
// CODE_MODE_TIMEOUT or CODE_MODE_ABORTED, and the contexts of pending tool
// calls are cancelled.
//
// Running out of Limits.MemoryBytes throws inside the program, which may
// catch it; uncaught, the run fails with CODE_MODE_MEMORY_LIMIT. The engine
// records when it refuses an allocation for the limit, and only then is an
// uncaught InternalError "out of memory" (or the null the engine throws
// when it cannot even allocate that) reported as CODE_MODE_MEMORY_LIMIT; the
// same thrown by a program that did not run out of memory is an ordinary
// CODE_MODE_USER_ERROR. Going deeper than Limits.StackBytes throws a
// catchable InternalError "stack overflow".
//
// Every limit, its default and what happens when it is exceeded:
//
//	Limit                    Default            Exceeded
//	Timeout                  30 s               CODE_MODE_TIMEOUT
//	(cancelled context)      -                  CODE_MODE_ABORTED
//	MemoryBytes              64 MiB             catchable InternalError; uncaught CODE_MODE_MEMORY_LIMIT
//	StackBytes               2 MiB              catchable InternalError "stack overflow"
//	                         (~5200 calls)      (uncaught: CODE_MODE_USER_ERROR)
//	MaxSourceBytes           256 KiB            CODE_MODE_SOURCE_TOO_LARGE, before anything runs
//	MaxNestingDepth          1000               CODE_MODE_USER_ERROR, name SyntaxError, before the transform
//	MaxResultBytes           1 MiB              CODE_MODE_SERIALIZATION_ERROR
//	MaxConsoleBytes          64 KiB             the line and every later one dropped silently
//	MaxToolInputBytes        1 MiB              the call rejects with CODE_MODE_SERIALIZATION_ERROR
//	MaxToolOutputBytes       4 MiB              the call rejects with CODE_MODE_SERIALIZATION_ERROR
//	MaxToolCalls             256                CODE_MODE_BRIDGE_LIMIT (uncatchable)
//	MaxConcurrentToolCalls   32                 CODE_MODE_BRIDGE_LIMIT (uncatchable)
//	MaxErrorMessageBytes     8 KiB              the message is cut and says how long it was
//	tool name                1 KiB              the call rejects with CODE_MODE_SERIALIZATION_ERROR
//	error names              256 bytes          cut
//	stack of an exception    32 frames of       cut
//	                         512 bytes each
//	console formatting       100 items per      "... N more items"; nested deeper
//	                         container, depth   shown as [Object], [Array] ...;
//	                         2, 10000 chars     longer strings cut
//	                         per string
//	MaxConcurrentRuns        min(32, memory /   CODE_MODE_CONCURRENCY_LIMIT, at once
//	(per process, see        (64 MiB + 48 MiB))
//	SetMaxConcurrentRuns)    at least 1
//	worker memory (Linux)    its memory at the  the worker ends: CODE_MODE_ERROR
//	                         start of the run
//	                         + MemoryBytes
//	                         + 256 MiB
//	stuck built-in call      100 ms after the   the worker is ended; the run's code
//	                         deadline           stays CODE_MODE_TIMEOUT / ABORTED
//	tool calls ignoring      200 ms after the   Run returns without them
//	their context            run ends
//	idle worker processes    max(2, GOMAXPROCS) ended when returned to a full pool
//
// Each field of Limits has a maximum ([MaxLimits]); a larger value is
// lowered to it: Timeout 24 h, MemoryBytes 64 GiB (1 GiB on 32-bit
// systems), StackBytes 1 GiB, MaxSourceBytes 64 MiB, MaxResultBytes,
// MaxConsoleBytes, MaxToolInputBytes and MaxToolOutputBytes 512 MiB,
// MaxErrorMessageBytes 16 MiB, MaxToolCalls 2^24, MaxConcurrentToolCalls
// 2^16, MaxNestingDepth 100000. A negative field fails the run with
// CODE_MODE_ERROR naming the field.
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
	"math"
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

// maxToolNameBytes bounds the name of a tool a program calls; a call of a
// longer name rejects with CODE_MODE_SERIALIZATION_ERROR without reaching
// the host.
const maxToolNameBytes = 1 << 10

// maxMemoryBytes is the largest MemoryBytes: 64 GiB, or a quarter of the
// address space of a 32-bit system.
var maxMemoryBytes = int(min(uint64(math.MaxInt)>>1, 64<<30))

// MaxLimits returns the largest value of each field of [Limits]; a larger
// value is lowered to it. The byte sizes are bounded so that every message
// between the host and a worker stays below 4 GiB.
func MaxLimits() Limits {
	return Limits{
		Timeout:                24 * time.Hour,
		MemoryBytes:            maxMemoryBytes,
		StackBytes:             1 << 30,
		MaxSourceBytes:         64 << 20,
		MaxResultBytes:         512 << 20,
		MaxConsoleBytes:        512 << 20,
		MaxToolInputBytes:      512 << 20,
		MaxToolOutputBytes:     512 << 20,
		MaxToolCalls:           1 << 24,
		MaxConcurrentToolCalls: 1 << 16,
		MaxErrorMessageBytes:   16 << 20,
		MaxNestingDepth:        100_000,
	}
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

// Resolve returns l with every zero field set to its default and every
// field over its maximum ([MaxLimits]) lowered to it. It fails with a
// CODE_MODE_ERROR *Error naming the first negative field.
func (l Limits) Resolve() (Limits, error) {
	d, m := DefaultLimits(), MaxLimits()
	switch {
	case l.Timeout < 0:
		return l, negativeLimit("Timeout", int64(l.Timeout))
	case l.Timeout == 0:
		l.Timeout = d.Timeout
	case l.Timeout > m.Timeout:
		l.Timeout = m.Timeout
	}
	for _, f := range []struct {
		name     string
		v        *int
		def, max int
	}{
		{"MemoryBytes", &l.MemoryBytes, d.MemoryBytes, m.MemoryBytes},
		{"StackBytes", &l.StackBytes, d.StackBytes, m.StackBytes},
		{"MaxSourceBytes", &l.MaxSourceBytes, d.MaxSourceBytes, m.MaxSourceBytes},
		{"MaxResultBytes", &l.MaxResultBytes, d.MaxResultBytes, m.MaxResultBytes},
		{"MaxConsoleBytes", &l.MaxConsoleBytes, d.MaxConsoleBytes, m.MaxConsoleBytes},
		{"MaxToolInputBytes", &l.MaxToolInputBytes, d.MaxToolInputBytes, m.MaxToolInputBytes},
		{"MaxToolOutputBytes", &l.MaxToolOutputBytes, d.MaxToolOutputBytes, m.MaxToolOutputBytes},
		{"MaxToolCalls", &l.MaxToolCalls, d.MaxToolCalls, m.MaxToolCalls},
		{"MaxConcurrentToolCalls", &l.MaxConcurrentToolCalls, d.MaxConcurrentToolCalls, m.MaxConcurrentToolCalls},
		{"MaxErrorMessageBytes", &l.MaxErrorMessageBytes, d.MaxErrorMessageBytes, m.MaxErrorMessageBytes},
		{"MaxNestingDepth", &l.MaxNestingDepth, d.MaxNestingDepth, m.MaxNestingDepth},
	} {
		switch {
		case *f.v < 0:
			return l, negativeLimit(f.name, int64(*f.v))
		case *f.v == 0:
			*f.v = f.def
		case *f.v > f.max:
			*f.v = f.max
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
	// budget, in order, with stream "stdout" or "stderr", on the goroutine
	// that called Run and before Run returns. The program does not wait
	// for it, but a Console that blocks delays the end of the run.
	Console func(stream string, line string)
	// Seed, when not zero, seeds Math.random: runs with the same seed draw
	// the same numbers. Zero draws a fresh seed.
	Seed uint64
	// Time, when not zero, is what Date.now() and new Date() report for
	// the whole run, so that a program run again with the same Time sees
	// the same clock. Zero keeps the real clock.
	Time time.Time
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
