package sandbox

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	hostMemoryName  = "__sandbox_memory"
)

// prewarmLimits are the limits a realm is created and its prelude evaluated
// under, before the run that uses it is known.
var prewarmLimits = realmConfig{memoryBytes: 64 << 20, stackBytes: 2 << 20}

// hostLink is how a session reaches the host: it hands over tool calls and
// console lines and waits for settlements. In a worker process it is the
// connection to the host process.
type hostLink interface {
	// sendCall hands a tool call to the host, which answers it with a
	// settlement of the same id.
	sendCall(id, seq int, name, input string)
	// sendConsole hands over one console line kept within the budget.
	sendConsole(stream, text string)
	// next blocks until a settlement arrives and returns it; inFlight
	// calls handed to the host are not settled yet. It returns false once
	// the run is interrupted or its deadline passed.
	next(deadline time.Time, inFlight int) (settlement, bool)
}

// runRequest is what a session needs to know about one run.
type runRequest struct {
	script   string // the transformed program
	shift    int    // columns the wrapper adds to the program's first line
	limits   Limits
	deadline time.Time
	hasTools bool // when false every tool call fails as an unknown tool
	// seed, when not zero, seeds Math.random; timeMs, when hasTime, is the
	// run's fixed clock in Unix milliseconds.
	seed    uint64
	timeMs  int64
	hasTime bool
}

// Report kinds: how a run ended, as the host learns it.
const (
	reportValue       = 'v' // value holds the JSON of the return value, "" for undefined
	reportError       = 'e' // err holds the failure
	reportBridge      = 'b' // the program did not catch the rejection of tool call bridgeID
	reportInterrupted = 'i' // interrupted by the host or the deadline
)

// report is the outcome of a run as a session sees it.
type report struct {
	kind     byte
	value    string
	err      *Error
	bridgeID int
}

// session runs programs in one realm whose prelude is already evaluated. It
// runs on the goroutine that created it.
type session struct {
	realm  realm
	driver jsValue
	link   hostLink
	// setupErr is set when the realm or its prelude failed.
	setupErr error

	req runRequest

	// Bridge state.
	nextID  int           // last request id handed to the guest
	seq     int           // last dispatch number handed to the host
	running int           // dispatched calls not yet settled in the guest
	calls   map[int]*call // request id -> call not yet settled in the guest
	ready   []settlement  // settlements waiting to be delivered
	// rejected holds the errors of calls settled here, not by the host.
	rejected map[int]*Error

	// Outcome.
	fatal   *Error   // set by host functions; ends the run
	outcome *outcome // set when the guest reports completion

	consoleBytes int
	consoleFull  bool
}

// call is one bridge request of the program.
type call struct {
	name       string
	dispatched bool // handed to the host
}

// settlement is the result of a bridge request, ready for the driver:
// kind "ok" with JSON, "none" for undefined, "error" with a guestError.
type settlement struct {
	id      int
	kind    string
	payload string
	// raw is the JSON of an "ok" settlement on the host, sent as it is.
	raw []byte
}

// outcome is what the guest reported when the program completed.
type outcome struct {
	kind       string
	payload    string
	unobserved string
}

// hostNames are the names of the host functions, in the order of
// session.hostFuncs.
var hostNames = []string{hostCallName, hostConsoleName, hostDoneName, hostMemoryName}

// hostFuncs returns the session's host functions, in the order of
// hostNames.
func (s *session) hostFuncs() []hostFunc {
	return []hostFunc{s.hostCall, s.hostConsole, s.hostDone, s.hostMemory}
}

// newSession creates a realm, installs the host functions and evaluates the
// prelude. A failure is kept and reported by the run.
func newSession(eng engine, link hostLink) *session {
	s := &session{link: link, calls: map[int]*call{}}
	rlm, err := eng.newRealm(prewarmLimits)
	if err != nil {
		s.setupErr = err
		return s
	}
	s.realm = rlm
	for i, fn := range s.hostFuncs() {
		if err := rlm.define(hostNames[i], fn); err != nil {
			s.setupErr = err
			return s
		}
	}
	s.driver, s.setupErr = rlm.evalFunction(preludeJS, preludeFile, true)
	return s
}

// newPreludeTemplate builds the template sessions start from: a realm with
// the host functions and the prelude.
func newPreludeTemplate(eng engine) (realmTemplate, error) {
	return eng.newTemplate(prewarmLimits, hostNames, preludeJS, preludeFile)
}

// newTemplateSession starts a session from a realm of t, made by
// newPreludeTemplate: the same as newSession makes, at a fraction of the
// cost. A failure is kept and reported by the run.
func newTemplateSession(t realmTemplate, link hostLink) *session {
	s := &session{link: link, calls: map[int]*call{}}
	s.realm, s.driver, s.setupErr = t.instantiate(s.hostFuncs())
	return s
}

// broken reports whether the session's realm can no longer be trusted, so
// that the process running it should end.
func (s *session) broken() bool {
	if qr, ok := s.realm.(*qjsRealm); ok {
		return qr.broken
	}
	return false
}

func (s *session) close() {
	if s.realm != nil {
		s.realm.close()
	}
}

// run runs one program and reports how it ended.
func (s *session) run(req runRequest) report {
	s.req = req
	if s.setupErr != nil {
		return s.errorReport(s.engineError(s.setupErr))
	}
	s.realm.setLimits(realmConfig{memoryBytes: req.limits.MemoryBytes, stackBytes: req.limits.StackBytes})
	s.realm.setDeadline(req.deadline)
	rep := s.execute()
	if rep.kind == reportError && rep.err != nil && rep.err.Code == CodeUserError {
		rep.err = withStack(rep.err, req.shift)
	}
	return rep
}

func (s *session) errorReport(e *Error) report {
	if e == nil {
		return report{kind: reportInterrupted}
	}
	return report{kind: reportError, err: e}
}

func (s *session) execute() report {
	if s.realm.interrupted() {
		return report{kind: reportInterrupted}
	}
	main, err := s.realm.evalFunction(s.req.script, programFile, false)
	if err != nil {
		// Code at the top level of the script, which only exists when the
		// program closed the wrapper function early, threw, or the engine
		// rejected the syntax esbuild let through.
		var se *scriptError
		if errors.As(err, &se) && !se.outOfMemory && !s.realm.interrupted() {
			return s.errorReport(&Error{Code: CodeUserError, Name: se.name, Message: se.message})
		}
		if r, stop := s.check(err); stop {
			return r
		}
		return s.errorReport(s.engineError(err))
	}

	l := s.req.limits
	limits := fmt.Sprintf(`{"maxResultBytes":%d,"maxToolInputBytes":%d,"maxConsoleBytes":%d,"maxErrorChars":%d`,
		l.MaxResultBytes, l.MaxToolInputBytes, l.MaxConsoleBytes, l.MaxErrorMessageBytes)
	if s.req.seed != 0 {
		// Two 32-bit halves: JSON numbers hold 53 bits.
		limits += fmt.Sprintf(`,"seed":[%d,%d]`, uint32(s.req.seed>>32), uint32(s.req.seed))
	}
	if s.req.hasTime {
		limits += fmt.Sprintf(`,"time":%d`, s.req.timeMs)
	}
	limits += "}"
	if r, stop := s.callDriver("start", main, limits); stop {
		return r
	}
	if r, stop := s.runJobs(); stop {
		return r
	}
	for {
		if s.outcome != nil {
			return s.finish()
		}
		if len(s.ready) == 0 {
			if len(s.calls) == 0 {
				// Nothing can resume the program any more.
				if r, stop := s.callDriver("stalled"); stop {
					return r
				}
				if s.outcome == nil {
					return s.errorReport(newError(CodeError, "The program stopped without completing."))
				}
				continue
			}
			st, ok := s.link.next(s.req.deadline, s.running)
			if !ok {
				s.realm.interrupt()
				return report{kind: reportInterrupted}
			}
			s.ready = append(s.ready, st)
		}
		if r, stop := s.deliver(); stop {
			return r
		}
		if r, stop := s.runJobs(); stop {
			return r
		}
	}
}

// check inspects the state after a call into the engine and reports whether
// the run ends, and how. A completed program is handled by the main loop,
// even when the engine call reports the interrupt that stopped the guest
// after completion.
func (s *session) check(err error) (report, bool) {
	switch {
	case s.fatal != nil:
		return s.errorReport(s.fatal), true
	case s.outcome != nil:
		return report{}, false
	case s.realm.interrupted():
		return report{kind: reportInterrupted}, true
	case err != nil:
		return s.errorReport(s.engineError(err)), true
	}
	return report{}, false
}

// engineError describes an unexpected failure of the engine.
func (s *session) engineError(err error) *Error {
	var se *scriptError
	if errors.As(err, &se) && se.outOfMemory {
		return s.memoryError()
	}
	if s.realm != nil && s.realm.memoryExhausted() && errors.As(err, &se) && se.name == "Error" && se.message == "null" {
		return s.memoryError()
	}
	var pe *panicError
	if errors.As(err, &pe) {
		return newError(CodeError, "A host callback panicked.").withCause(err)
	}
	return newError(CodeError, "The JavaScript engine failed: "+err.Error()).withCause(err)
}

func (s *session) callDriver(op string, args ...any) (report, bool) {
	if s.realm.interrupted() && s.outcome == nil {
		return s.check(nil)
	}
	return s.check(s.realm.call(s.driver, append([]any{op}, args...)...))
}

func (s *session) runJobs() (report, bool) {
	return s.check(s.realm.runJobs())
}

// deliver settles the ready bridge requests in the guest.
func (s *session) deliver() (report, bool) {
	for i := range s.ready {
		st := s.ready[i]
		s.ready[i] = settlement{}
		c := s.calls[st.id]
		if c == nil {
			continue
		}
		delete(s.calls, st.id)
		if c.dispatched {
			s.running--
		}
		r, stop := s.settle(st)
		if stop {
			s.ready = s.ready[:0]
			return r, true
		}
	}
	s.ready = s.ready[:0]
	return report{}, false
}

// settle settles one bridge request in the guest. The value of a tool's
// output is built from its JSON here when the realm can, else by the
// driver's JSON.parse.
func (s *session) settle(st settlement) (report, bool) {
	id := strconv.Itoa(st.id)
	if st.kind == "ok" {
		if v, ok := s.realm.buildJSON(st.payload); ok {
			defer v.release()
			return s.callDriver("settle", id, "value", v)
		}
	}
	return s.callDriver("settle", id, st.kind, st.payload)
}

// guestError is the description of a failed tool call sent to the guest.
type guestError struct {
	Code    string         `json:"code"`
	Name    string         `json:"name"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// errorSettlement makes the settlement rejecting a call with e.
func errorSettlement(id int, e *Error) settlement {
	ge := guestError{Code: e.Code, Name: e.DisplayName(), Message: e.Message, Details: e.Details}
	if ge.Code == "" {
		ge.Code = CodeToolError
	}
	b, err := json.Marshal(ge)
	if err != nil {
		ge.Details = nil
		b, _ = json.Marshal(ge)
	}
	return settlement{id: id, kind: "error", payload: string(b)}
}

// hostCall receives an observed tool call from the guest and returns the
// request id the result will be delivered under.
func (s *session) hostCall(args []string) (ret string) {
	defer s.recoverHost(&ret, "0")
	if len(args) != 2 {
		s.setFatal(newError(CodeError, "Malformed tool call request."))
		return "0"
	}
	if s.fatal != nil || s.outcome != nil {
		s.realm.interrupt()
		return "0"
	}
	l := s.req.limits
	name, input := args[0], args[1]
	s.nextID++
	id := s.nextID
	c := &call{name: name}
	s.calls[id] = c
	if n := len(name); n > maxToolNameBytes {
		shown := truncateUTF8(name, 64) + "..."
		s.reject(id, newError(CodeSerialization, fmt.Sprintf(
			"The name of tool %q is %d bytes long, more than the limit of %d bytes.", shown, n, maxToolNameBytes)).
			withDetails(map[string]any{"toolName": shown, "bytes": n, "maxBytes": maxToolNameBytes}))
		return strconv.Itoa(id)
	}
	if n := len(input); n > l.MaxToolInputBytes {
		s.reject(id, newError(CodeSerialization, fmt.Sprintf(
			"The input of tool %q is %d bytes of JSON, more than the limit of %d bytes.",
			name, n, l.MaxToolInputBytes)).
			withDetails(map[string]any{"toolName": name, "bytes": n, "maxBytes": l.MaxToolInputBytes}))
		return strconv.Itoa(id)
	}
	if s.seq >= l.MaxToolCalls {
		s.setFatal(newError(CodeBridgeLimit, fmt.Sprintf(
			"Too many tool calls: a program may make at most %d (call of %q).", l.MaxToolCalls, name)).
			withDetails(map[string]any{"limit": "MaxToolCalls", "max": l.MaxToolCalls, "toolName": name}))
		return "0"
	}
	if s.running >= l.MaxConcurrentToolCalls {
		s.setFatal(newError(CodeBridgeLimit, fmt.Sprintf(
			"Too many tool calls at once: at most %d may be in flight (call of %q).", l.MaxConcurrentToolCalls, name)).
			withDetails(map[string]any{"limit": "MaxConcurrentToolCalls", "max": l.MaxConcurrentToolCalls, "toolName": name}))
		return "0"
	}
	s.seq++
	if !s.req.hasTools {
		s.reject(id, newError(CodeToolError, "Unknown tool: "+name).
			withDetails(map[string]any{"toolName": name, "availableTools": []string{}}))
		return strconv.Itoa(id)
	}
	c.dispatched = true
	s.running++
	s.link.sendCall(id, s.seq, name, input)
	return strconv.Itoa(id)
}

// reject settles call id with e here, without the host.
func (s *session) reject(id int, e *Error) {
	if s.rejected == nil {
		s.rejected = map[int]*Error{}
	}
	s.rejected[id] = e
	s.ready = append(s.ready, errorSettlement(id, e))
}

// hostConsole receives one console line and reports whether more are
// wanted.
func (s *session) hostConsole(args []string) (ret string) {
	defer s.recoverHost(&ret, "0")
	if len(args) != 2 || s.consoleFull {
		return "0"
	}
	stream, text := args[0], args[1]
	n := len(text) + 1
	if s.consoleBytes+n > s.req.limits.MaxConsoleBytes {
		s.consoleFull = true
		return "0"
	}
	s.consoleBytes += n
	s.link.sendConsole(stream, text)
	return "1"
}

// hostMemory reports whether the engine refused an allocation for going
// over the memory limit in this run: only then is an error that looks like
// running out of memory the engine's own.
func (s *session) hostMemory(args []string) string {
	if s.realm.memoryExhausted() {
		return "1"
	}
	return "0"
}

// hostDone records how the program completed and stops the guest.
func (s *session) hostDone(args []string) (ret string) {
	defer s.recoverHost(&ret, "")
	if s.outcome == nil && len(args) == 3 {
		s.outcome = &outcome{kind: args[0], payload: args[1], unobserved: args[2]}
	}
	s.realm.interrupt()
	return ""
}

// recoverHost keeps a panic in a host function from reaching the engine: it
// fails the run instead.
func (s *session) recoverHost(ret *string, value string) {
	if p := recover(); p != nil {
		s.setFatal(newError(CodeError, "A host callback panicked.").withCause(&panicError{value: p}))
		*ret = value
	}
}

// setFatal records the error that ends the run and stops the guest.
func (s *session) setFatal(e *Error) {
	if s.fatal == nil {
		s.fatal = e
	}
	s.realm.interrupt()
}

// finish turns the guest's completion report into the report of the run.
func (s *session) finish() report {
	o := s.outcome
	l := s.req.limits
	switch o.kind {
	case "value", "undefined":
		if e := s.detachedError(o.unobserved); e != nil {
			return s.errorReport(e)
		}
		if o.kind == "undefined" {
			return report{kind: reportValue}
		}
		if n := len(o.payload); n > l.MaxResultBytes {
			return s.errorReport(resultTooLarge(n, l.MaxResultBytes, false))
		}
		return report{kind: reportValue, value: o.payload}
	case "too-large":
		n, _ := strconv.Atoi(o.payload)
		return s.errorReport(resultTooLarge(n, l.MaxResultBytes, true))
	case "serialization":
		return s.errorReport(newError(CodeSerialization, "The return value cannot be converted to JSON: "+o.payload))
	case "oom":
		return s.errorReport(s.memoryError())
	case "bridge":
		id, _ := strconv.Atoi(o.payload)
		if e := s.rejected[id]; e != nil {
			return s.errorReport(e)
		}
		return report{kind: reportBridge, bridgeID: id}
	case "local":
		var ge guestError
		if json.Unmarshal([]byte(o.payload), &ge) == nil {
			return s.errorReport(&Error{Code: ge.Code, Name: ge.Name, Message: ge.Message, Details: ge.Details})
		}
	case "error":
		var ge struct {
			Name    string `json:"name"`
			Message string `json:"message"`
			Stack   string `json:"stack"`
		}
		if json.Unmarshal([]byte(o.payload), &ge) == nil {
			e := &Error{Code: CodeUserError, Name: ge.Name, Message: ge.Message}
			if ge.Stack != "" {
				e.Details = map[string]any{"stack": ge.Stack}
			}
			return s.errorReport(e)
		}
	case "stalled":
		if e := s.detachedError(o.unobserved); e != nil {
			return s.errorReport(e)
		}
		return s.errorReport(newError(CodeError, "The program is waiting for a promise that can never settle: no tool call is in flight."))
	}
	return s.errorReport(newError(CodeError, "The program completed with an unreadable report."))
}

func resultTooLarge(n, limit int, atLeast bool) *Error {
	at := ""
	if atLeast {
		at = "at least "
	}
	return newError(CodeSerialization, fmt.Sprintf(
		"The return value is %s%d bytes of JSON, more than the limit of %d bytes.", at, n, limit)).
		withDetails(map[string]any{"bytes": n, "maxBytes": limit})
}

// detachedError reports a tool call the program did not wait for: one it
// never observed (named in unobserved, a JSON array), else one still in
// flight.
func (s *session) detachedError(unobserved string) *Error {
	if unobserved != "" {
		var names []string
		if json.Unmarshal([]byte(unobserved), &names) == nil && len(names) > 0 {
			return newError(CodeDetachedBridgeRequest, fmt.Sprintf(
				"The program returned without awaiting tool call %q; it was never run. Await every tool call (or combine them with Promise.all).", names[0])).
				withDetails(map[string]any{"toolName": names[0], "reason": "never-awaited"})
		}
	}
	if len(s.calls) == 0 {
		return nil
	}
	first := 0
	for id := range s.calls {
		if first == 0 || id < first {
			first = id
		}
	}
	name := s.calls[first].name
	return newError(CodeDetachedBridgeRequest, fmt.Sprintf(
		"The program returned while tool call %q was still running; it was cancelled. Await every tool call before returning.", name)).
		withDetails(map[string]any{"toolName": name, "reason": "still-running"})
}

func (s *session) memoryError() *Error {
	return memoryError(s.req.limits.MemoryBytes)
}

func memoryError(limit int) *Error {
	return newError(CodeMemoryLimit, fmt.Sprintf("The program ran out of memory (limit %d bytes).", limit)).
		withDetails(map[string]any{"memoryBytes": limit})
}

// withStack rewrites the stack of an uncaught exception, kept in
// Details["stack"], to the frames of the program itself: prelude frames and
// the built-ins they called are dropped, the wrapper's columns on the first
// line are taken off, and at most maxStackFrames frames are kept.
func withStack(e *Error, shift int) *Error {
	raw, _ := e.Details["stack"].(string)
	if raw == "" {
		return e
	}
	frames := normalizeStack(raw, shift)
	if len(frames) == 0 {
		delete(e.Details, "stack")
		if len(e.Details) == 0 {
			e.Details = nil
		}
		return e
	}
	e.Details["stack"] = strings.Join(frames, "\n")
	return e
}
