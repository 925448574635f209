package sandbox

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

//go:embed prelude.js
var preludeJS string

// Names under which the host functions are installed for the prelude, which
// removes them from the global object before the program runs.
const (
	hostCallName    = "__sandbox_call"
	hostConsoleName = "__sandbox_console"
	hostDoneName    = "__sandbox_done"
)

const (
	// toolExitGrace is how long Run waits, after cancelling them, for tool
	// calls still running to return.
	toolExitGrace = 200 * time.Millisecond
	// interruptRepeat is how often an aborted run re-sends its interrupt,
	// so that one arriving between two calls into the engine is not lost.
	interruptRepeat = 2 * time.Millisecond
	// maxResultBuffer caps the buffer of the channel finished tool calls
	// report on.
	maxResultBuffer = 64
)

// errRunEnded is the cancellation cause tool calls see when the run ended
// without an error of its own.
var errRunEnded = errors.New("sandbox: the run ended")

// runner holds the state of one run. Everything except the channels and the
// tool goroutines belongs to the goroutine that called Run.
type runner struct {
	ctx    context.Context
	opts   Options
	limits Limits
	eng    engine

	realm    realm
	driver   jsFunction
	deadline time.Time
	timer    *time.Timer

	// Bridge state.
	nextID   int            // last request id handed to the guest
	seq      int            // last dispatch number handed to the host
	running  int            // dispatched calls not yet settled in the guest
	calls    map[int]*call  // request id -> call not yet settled in the guest
	ready    []settlement   // settlements waiting to be delivered
	rejected map[int]*Error // request id -> error its promise was rejected with

	// Outcome.
	fatal   *Error   // set by host functions; ends the run
	outcome *outcome // set when the guest reports completion

	console      []ConsoleLine
	consoleBytes int
	consoleFull  bool

	// Tool goroutines.
	runCtx    context.Context
	cancelRun context.CancelCauseFunc
	results   chan settlement
	stop      chan struct{}
	tools     sync.WaitGroup
	watchDone chan struct{}
}

// call is one bridge request of the program.
type call struct {
	name       string
	dispatched bool // handed to CallTool
}

// settlement is the result of a bridge request.
type settlement struct {
	id       int
	output   json.RawMessage
	err      error
	panicked bool
	panicVal any
}

// outcome is what the guest reported when the program completed.
type outcome struct {
	kind       string
	payload    string
	unobserved string
}

func newRunner(ctx context.Context, opts Options, limits Limits, eng engine) *runner {
	return &runner{
		ctx:    ctx,
		opts:   opts,
		limits: limits,
		eng:    eng,
		calls:  map[int]*call{},
	}
}

func (r *runner) run(script string) (res *Result, err error) {
	r.deadline = time.Now().Add(r.limits.Timeout)
	rlm, rerr := r.eng.newRealm(realmConfig{memoryBytes: r.limits.MemoryBytes, stackBytes: r.limits.StackBytes})
	if rerr != nil {
		return nil, newError(CodeError, "The JavaScript engine could not be started.").withCause(rerr)
	}
	r.realm = rlm
	r.runCtx, r.cancelRun = context.WithCancelCause(r.ctx)
	r.stop = make(chan struct{})
	r.results = make(chan settlement, min(r.limits.MaxConcurrentToolCalls, maxResultBuffer))
	r.timer = time.NewTimer(time.Until(r.deadline))
	r.watch()
	defer func() {
		var cause error = errRunEnded
		if err != nil {
			cause = err
		}
		r.shutdown(cause)
	}()
	return r.execute(script)
}

// watch interrupts the engine once the caller's context is done. The
// interrupt is repeated until the run ends, because the engine clears a
// pending interrupt when the next call into it starts.
func (r *runner) watch() {
	done := r.ctx.Done()
	if done == nil {
		return
	}
	r.watchDone = make(chan struct{})
	go func() {
		defer close(r.watchDone)
		select {
		case <-r.stop:
			return
		case <-done:
		}
		t := time.NewTicker(interruptRepeat)
		defer t.Stop()
		for {
			r.realm.interrupt()
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// shutdown cancels the tool calls, waits for the goroutines of the run and
// closes the engine.
func (r *runner) shutdown(cause error) {
	r.cancelRun(cause)
	close(r.stop)
	r.timer.Stop()
	if r.watchDone != nil {
		<-r.watchDone
	}
	switch {
	case r.running == 0:
		// Every call handed to a goroutine has reported back; the
		// goroutines are returning.
		r.tools.Wait()
	default:
		done := make(chan struct{})
		go func() {
			r.tools.Wait()
			close(done)
		}()
		t := time.NewTimer(toolExitGrace)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	r.realm.close()
}

func (r *runner) execute(script string) (*Result, error) {
	for _, h := range []struct {
		name string
		fn   hostFunc
	}{
		{hostCallName, r.hostCall},
		{hostConsoleName, r.hostConsole},
		{hostDoneName, r.hostDone},
	} {
		if err := r.realm.define(h.name, h.fn); err != nil {
			return nil, r.engineError(err)
		}
	}

	if e := r.enter(); e != nil {
		return nil, e
	}
	driver, err := r.realm.evalFunction(preludeJS, true)
	if e := r.check(err); e != nil {
		return nil, e
	}
	r.driver = driver

	if e := r.enter(); e != nil {
		return nil, e
	}
	main, err := r.realm.evalFunction(script, false)
	if err != nil {
		// Code at the top level of the script, which only exists when the
		// program closed the wrapper function early, threw, or the engine
		// rejected the syntax esbuild let through.
		var se *scriptError
		if errors.As(err, &se) && !se.outOfMemory && r.fatal == nil && r.ctx.Err() == nil && time.Now().Before(r.deadline) {
			return nil, &Error{Code: CodeUserError, Name: se.name, Message: se.message}
		}
		if e := r.check(err); e != nil {
			return nil, e
		}
		return nil, r.engineError(err)
	}

	limits := fmt.Sprintf(`{"maxResultBytes":%d,"maxToolInputBytes":%d,"maxConsoleBytes":%d}`,
		r.limits.MaxResultBytes, r.limits.MaxToolInputBytes, r.limits.MaxConsoleBytes)
	if e := r.callDriver("start", main, limits); e != nil {
		return nil, e
	}
	if e := r.runJobs(); e != nil {
		return nil, e
	}
	for {
		if r.outcome != nil {
			return r.finish()
		}
		if len(r.ready) == 0 {
			if len(r.calls) == 0 {
				// Nothing can resume the program any more.
				if e := r.callDriver("stalled"); e != nil {
					return nil, e
				}
				if r.outcome == nil {
					return nil, newError(CodeError, "The program stopped without completing.")
				}
				continue
			}
			if e := r.wait(); e != nil {
				return nil, e
			}
		}
		r.collect()
		if e := r.deliver(); e != nil {
			return nil, e
		}
		if e := r.runJobs(); e != nil {
			return nil, e
		}
	}
}

// enter prepares a call into the engine: it fails when the run was aborted
// or its time is up, and otherwise gives the engine the time left.
func (r *runner) enter() *Error {
	if r.ctx.Err() != nil {
		return abortedError(r.ctx)
	}
	d := time.Until(r.deadline)
	if d <= 0 {
		return r.timeoutError()
	}
	r.realm.setTimeLimit(d)
	return nil
}

// check inspects the state after a call into the engine and returns the
// error that ends the run, if any. A completed program is handled by the
// main loop, even when the engine call reports the interrupt that stopped
// the guest after completion.
func (r *runner) check(err error) *Error {
	switch {
	case r.fatal != nil:
		return r.fatal
	case r.outcome != nil:
		return nil
	case r.ctx.Err() != nil:
		return abortedError(r.ctx)
	case !time.Now().Before(r.deadline):
		return r.timeoutError()
	case err != nil:
		return r.engineError(err)
	}
	return nil
}

// engineError describes an unexpected failure of the engine.
func (r *runner) engineError(err error) *Error {
	var se *scriptError
	if errors.As(err, &se) && se.outOfMemory {
		return r.memoryError()
	}
	var pe *panicError
	if errors.As(err, &pe) {
		return newError(CodeError, "A host callback panicked.").withCause(err)
	}
	return newError(CodeError, "The JavaScript engine failed: "+err.Error()).withCause(err)
}

func (r *runner) callDriver(op string, args ...any) *Error {
	if e := r.enter(); e != nil {
		return e
	}
	return r.check(r.realm.call(r.driver, append([]any{op}, args...)...))
}

func (r *runner) runJobs() *Error {
	if e := r.enter(); e != nil {
		return e
	}
	return r.check(r.realm.runJobs())
}

// wait blocks until a tool call finishes, the caller aborts or time is up.
func (r *runner) wait() *Error {
	select {
	case s := <-r.results:
		r.ready = append(r.ready, s)
		return nil
	case <-r.ctx.Done():
		return abortedError(r.ctx)
	case <-r.timer.C:
		return r.timeoutError()
	}
}

// collect takes the tool calls that finished meanwhile without blocking.
func (r *runner) collect() {
	for {
		select {
		case s := <-r.results:
			r.ready = append(r.ready, s)
		default:
			return
		}
	}
}

// deliver settles the ready bridge requests in the guest.
func (r *runner) deliver() *Error {
	for i := range r.ready {
		s := r.ready[i]
		r.ready[i] = settlement{}
		c := r.calls[s.id]
		if c == nil {
			continue
		}
		if s.panicked {
			r.ready = r.ready[:0]
			return newError(CodeError, fmt.Sprintf("Host tool %q panicked.", c.name)).
				withCause(&panicError{value: s.panicVal}).
				withDetails(map[string]any{"toolName": c.name})
		}
		delete(r.calls, s.id)
		if c.dispatched {
			r.running--
		}
		kind, payload := r.settlementPayload(s.id, c, s)
		if e := r.callDriver("settle", strconv.Itoa(s.id), kind, payload); e != nil {
			r.ready = r.ready[:0]
			return e
		}
	}
	r.ready = r.ready[:0]
	return nil
}

// guestError is the description of a failed tool call sent to the guest.
type guestError struct {
	Code    string         `json:"code"`
	Name    string         `json:"name"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// settlementPayload turns a settlement into the kind and payload the driver
// expects: "ok" with JSON, "none" for undefined, "error" with a guestError.
func (r *runner) settlementPayload(id int, c *call, s settlement) (kind, payload string) {
	err := s.err
	if err == nil {
		switch {
		case len(s.output) == 0:
			return "none", ""
		case len(s.output) > r.limits.MaxToolOutputBytes:
			err = newError(CodeSerialization, fmt.Sprintf(
				"The output of tool %q is %d bytes of JSON, more than the limit of %d bytes.",
				c.name, len(s.output), r.limits.MaxToolOutputBytes)).
				withDetails(map[string]any{"toolName": c.name, "bytes": len(s.output), "maxBytes": r.limits.MaxToolOutputBytes})
		case !json.Valid(s.output):
			err = fmt.Errorf("sandbox: tool %q returned invalid JSON", c.name)
		default:
			return "ok", string(s.output)
		}
	}
	var shown *Error
	if !errors.As(err, &shown) {
		shown = &Error{
			Code:    CodeHostToolError,
			Name:    defaultName(CodeHostToolError),
			Message: "Host tool failed.",
			Details: map[string]any{"toolName": c.name},
			Cause:   err,
		}
	}
	if r.rejected == nil {
		r.rejected = map[int]*Error{}
	}
	r.rejected[id] = shown
	ge := guestError{Code: shown.Code, Name: shown.DisplayName(), Message: shown.Message, Details: shown.Details}
	if ge.Code == "" {
		ge.Code = CodeToolError
	}
	b, merr := json.Marshal(ge)
	if merr != nil {
		ge.Details = nil
		b, _ = json.Marshal(ge)
	}
	return "error", string(b)
}

// hostCall receives an observed tool call from the guest and returns the
// request id the result will be delivered under.
func (r *runner) hostCall(args []string) (ret string) {
	defer r.recoverHost(&ret, "0")
	if len(args) != 2 {
		r.setFatal(newError(CodeError, "Malformed tool call request."))
		return "0"
	}
	if r.fatal != nil || r.outcome != nil {
		r.realm.interrupt()
		return "0"
	}
	name, input := args[0], args[1]
	r.nextID++
	id := r.nextID
	c := &call{name: name}
	r.calls[id] = c
	if n := len(input); n > r.limits.MaxToolInputBytes {
		r.ready = append(r.ready, settlement{id: id, err: newError(CodeSerialization, fmt.Sprintf(
			"The input of tool %q is %d bytes of JSON, more than the limit of %d bytes.",
			name, n, r.limits.MaxToolInputBytes)).
			withDetails(map[string]any{"toolName": name, "bytes": n, "maxBytes": r.limits.MaxToolInputBytes})})
		return strconv.Itoa(id)
	}
	if r.seq >= r.limits.MaxToolCalls {
		r.setFatal(newError(CodeBridgeLimit, fmt.Sprintf(
			"Too many tool calls: a program may make at most %d (call of %q).", r.limits.MaxToolCalls, name)).
			withDetails(map[string]any{"limit": "MaxToolCalls", "max": r.limits.MaxToolCalls, "toolName": name}))
		return "0"
	}
	if r.running >= r.limits.MaxConcurrentToolCalls {
		r.setFatal(newError(CodeBridgeLimit, fmt.Sprintf(
			"Too many tool calls at once: at most %d may be in flight (call of %q).", r.limits.MaxConcurrentToolCalls, name)).
			withDetails(map[string]any{"limit": "MaxConcurrentToolCalls", "max": r.limits.MaxConcurrentToolCalls, "toolName": name}))
		return "0"
	}
	r.seq++
	if r.opts.CallTool == nil {
		r.ready = append(r.ready, settlement{id: id, err: newError(CodeToolError, "Unknown tool: "+name).
			withDetails(map[string]any{"toolName": name, "availableTools": []string{}})})
		return strconv.Itoa(id)
	}
	c.dispatched = true
	r.running++
	tc := ToolCall{Seq: r.seq, Name: name, Input: json.RawMessage(input)}
	r.tools.Add(1)
	go r.runTool(tc, id)
	return strconv.Itoa(id)
}

// runTool runs one tool call on its own goroutine.
func (r *runner) runTool(tc ToolCall, id int) {
	defer r.tools.Done()
	ctx, cancel := context.WithCancel(r.runCtx)
	defer cancel()
	s := settlement{id: id}
	func() {
		defer func() {
			if p := recover(); p != nil {
				s.panicked, s.panicVal = true, p
			}
		}()
		s.output, s.err = r.opts.CallTool(ctx, tc)
	}()
	select {
	case r.results <- s:
	case <-r.stop:
	}
}

// hostConsole receives one console line and reports whether more are
// wanted.
func (r *runner) hostConsole(args []string) (ret string) {
	defer r.recoverHost(&ret, "0")
	if len(args) != 2 || r.consoleFull {
		return "0"
	}
	stream, text := args[0], args[1]
	n := len(text) + 1
	if r.consoleBytes+n > r.limits.MaxConsoleBytes {
		r.consoleFull = true
		return "0"
	}
	r.consoleBytes += n
	r.console = append(r.console, ConsoleLine{Stream: stream, Text: text})
	if r.opts.Console != nil {
		r.opts.Console(stream, text)
	}
	return "1"
}

// hostDone records how the program completed and stops the guest.
func (r *runner) hostDone(args []string) (ret string) {
	defer r.recoverHost(&ret, "")
	if r.outcome == nil && len(args) == 3 {
		r.outcome = &outcome{kind: args[0], payload: args[1], unobserved: args[2]}
	}
	r.realm.interrupt()
	return ""
}

// recoverHost keeps a panic in a host function from reaching the engine: it
// fails the run instead.
func (r *runner) recoverHost(ret *string, value string) {
	if p := recover(); p != nil {
		r.setFatal(newError(CodeError, "A host callback panicked.").withCause(&panicError{value: p}))
		*ret = value
	}
}

// setFatal records the error that ends the run and stops the guest.
func (r *runner) setFatal(e *Error) {
	if r.fatal == nil {
		r.fatal = e
	}
	r.realm.interrupt()
}

// finish turns the guest's completion report into the result of the run.
func (r *runner) finish() (*Result, error) {
	o := r.outcome
	switch o.kind {
	case "value", "undefined":
		if e := r.detachedError(o.unobserved); e != nil {
			return nil, e
		}
		res := &Result{Console: r.console}
		if o.kind == "value" {
			if n := len(o.payload); n > r.limits.MaxResultBytes {
				return nil, newError(CodeSerialization, fmt.Sprintf(
					"The return value is %d bytes of JSON, more than the limit of %d bytes.", n, r.limits.MaxResultBytes)).
					withDetails(map[string]any{"bytes": n, "maxBytes": r.limits.MaxResultBytes})
			}
			res.Value = json.RawMessage(o.payload)
		}
		return res, nil
	case "too-large":
		n, _ := strconv.Atoi(o.payload)
		return nil, newError(CodeSerialization, fmt.Sprintf(
			"The return value is at least %d bytes of JSON, more than the limit of %d bytes.", n, r.limits.MaxResultBytes)).
			withDetails(map[string]any{"bytes": n, "maxBytes": r.limits.MaxResultBytes})
	case "serialization":
		return nil, newError(CodeSerialization, "The return value cannot be converted to JSON: "+o.payload)
	case "oom":
		return nil, r.memoryError()
	case "bridge":
		id, _ := strconv.Atoi(o.payload)
		if e := r.rejected[id]; e != nil {
			return nil, e
		}
	case "local":
		var ge guestError
		if json.Unmarshal([]byte(o.payload), &ge) == nil {
			return nil, &Error{Code: ge.Code, Name: ge.Name, Message: ge.Message, Details: ge.Details}
		}
	case "error":
		var ge guestError
		if json.Unmarshal([]byte(o.payload), &ge) == nil {
			return nil, &Error{Code: CodeUserError, Name: ge.Name, Message: ge.Message}
		}
	case "stalled":
		if e := r.detachedError(o.unobserved); e != nil {
			return nil, e
		}
		return nil, newError(CodeError, "The program is waiting for a promise that can never settle: no tool call is in flight.")
	}
	return nil, newError(CodeError, "The program completed with an unreadable report.")
}

// detachedError reports a tool call the program did not wait for: one it
// never observed (named in unobserved, a JSON array), else one still in
// flight.
func (r *runner) detachedError(unobserved string) *Error {
	if unobserved != "" {
		var names []string
		if json.Unmarshal([]byte(unobserved), &names) == nil && len(names) > 0 {
			return newError(CodeDetachedBridgeRequest, fmt.Sprintf(
				"The program returned without awaiting tool call %q; it was never run. Await every tool call (or combine them with Promise.all).", names[0])).
				withDetails(map[string]any{"toolName": names[0], "reason": "never-awaited"})
		}
	}
	if len(r.calls) == 0 {
		return nil
	}
	first := 0
	for id := range r.calls {
		if first == 0 || id < first {
			first = id
		}
	}
	name := r.calls[first].name
	return newError(CodeDetachedBridgeRequest, fmt.Sprintf(
		"The program returned while tool call %q was still running; it was cancelled. Await every tool call before returning.", name)).
		withDetails(map[string]any{"toolName": name, "reason": "still-running"})
}

func (r *runner) timeoutError() *Error {
	return newError(CodeTimeout, fmt.Sprintf("Code execution timed out after %s.", r.limits.Timeout)).
		withDetails(map[string]any{"timeoutMs": r.limits.Timeout.Milliseconds()})
}

func (r *runner) memoryError() *Error {
	return newError(CodeMemoryLimit, fmt.Sprintf("The program ran out of memory (limit %d bytes).", r.limits.MemoryBytes)).
		withDetails(map[string]any{"memoryBytes": r.limits.MemoryBytes})
}
