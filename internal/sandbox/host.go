package sandbox

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aisdkgo/ai/internal/rawjson"
)

const (
	// toolExitGrace is how long Run waits, after cancelling them, for tool
	// calls still running to return.
	toolExitGrace = 200 * time.Millisecond
	// interruptGrace is how long a worker has to stop a program it was told
	// to interrupt before the host kills it. The engine stops at its next
	// checkpoint, within about a millisecond, unless a single built-in call
	// runs longer.
	interruptGrace = 100 * time.Millisecond
	// maxErrorNameBytes caps the name of an error Run returns.
	maxErrorNameBytes = 256
)

// errRunEnded is the cancellation cause tool calls see when the run ended
// without an error of its own.
var errRunEnded = errors.New("sandbox: the run ended")

// errWorkerGone is why reading a worker failed when its pipe ended at a
// frame boundary.
var errWorkerGone = fmt.Errorf("sandbox: the worker process ended: %w", io.ErrUnexpectedEOF)

var lastRunID atomic.Uint64

// hostRun is the host's side of one run: it hands the program to a worker
// process, runs the tool calls the worker passes on, collects console lines,
// and ends the run at its deadline or when the caller's context is done,
// killing the worker if it does not stop in time.
type hostRun struct {
	ctx      context.Context
	opts     Options
	limits   Limits
	key      [32]byte
	deadline time.Time

	w        *worker
	id       uint64
	maxFrame int

	runCtx    context.Context
	cancelRun context.CancelCauseFunc
	tools     sync.WaitGroup
	inFlight  atomic.Int32
	fatal     chan *Error

	mu       sync.Mutex
	rejected map[int]*Error // request id -> error its promise was rejected with

	console []ConsoleLine
	frames  int
	// received counts the frames of the attempt the readers read.
	received atomic.Int32
	// reader is the state of the reading of frames (readerReading ...).
	reader atomic.Int32
	// exited is closed when the worker ends while watchWorker watches;
	// watching is closed when that watch ends.
	exited   chan struct{}
	watching chan struct{}
	// stopping is set once the host ends the run; the reader then starts
	// no more tool calls.
	stopping atomic.Bool
}

// frameResult is a frame read from a worker, or why none could be.
type frameResult struct {
	f   frame
	d   *decoder
	err error
}

// maxAttempts bounds how often a run is handed to a worker: it is handed to
// another only when the one before ended before anything of the run came
// back from it (see attempt).
const maxAttempts = 3

func (h *hostRun) run(entry cacheEntry, cached bool) (*Result, error) {
	h.maxFrame = maxFrameSize(h.limits)
	for attempt := 1; ; attempt++ {
		w, err := workers.get()
		if err != nil {
			return nil, newError(CodeError, "The sandbox process could not be started.").withCause(err)
		}
		res, err, retry := h.attempt(w, entry, cached)
		if retry && attempt < maxAttempts {
			// The worker was gone before anything of the run came back,
			// for example ended while idle: nothing ran on the host's
			// side, so the run goes to another worker. The other idle
			// workers may have ended the same way.
			workers.pruneDead()
			continue
		}
		return res, err
	}
}

// maxFrameSize bounds a frame a worker sends for a run under l: the
// transformed program (at most eight times the source), or the largest of
// a result, a tool input, a console line or an error, with room for the
// rest of the frame.
func maxFrameSize(l Limits) int {
	return 8*l.MaxSourceBytes + max(l.MaxResultBytes, l.MaxToolInputBytes+maxToolNameBytes,
		l.MaxConsoleBytes, l.MaxErrorMessageBytes) + 1<<20
}

// attempt runs the program on w. retry reports that w ended before anything
// of the run came back from it.
//
// Only then may the run go to another worker. A program reaches the world
// only through the host: its tool calls and console lines are frames the
// host reads, and the host acts on a frame only once it read all of it. A
// worker whose pipe ended at a frame boundary before the host read any
// frame of the run, or that could not be handed the run at all, has made
// the host do nothing, whatever it ran. Any other end (a frame read, an
// oversized or malformed frame, a pipe cut inside a frame) fails the run:
// running the program again could repeat what it did.
func (h *hostRun) attempt(w *worker, entry cacheEntry, cached bool) (res *Result, rerr error, retry bool) {
	h.w = w
	h.id = lastRunID.Add(1)
	h.frames = 0
	h.received.Store(0)
	h.console = nil
	h.stopping.Store(false)
	h.fatal = make(chan *Error, 1)
	h.rejected = nil
	h.runCtx, h.cancelRun = context.WithCancelCause(h.ctx)
	w.setActive(h.id)

	var flags uint64
	if h.opts.CallTool != nil {
		flags |= runFlagTools
	}
	text := h.opts.Source
	if cached {
		flags |= runFlagScript
		text = entry.script
	}
	l := h.limits
	e := newFrame(frameRun).uint(h.id).uint(uint64(max(time.Until(h.deadline), 0)))
	for _, v := range []int{l.MemoryBytes, l.StackBytes, l.MaxResultBytes, l.MaxToolInputBytes,
		l.MaxConsoleBytes, l.MaxToolCalls, l.MaxConcurrentToolCalls, l.MaxErrorMessageBytes, l.MaxNestingDepth, h.maxFrame} {
		e.int(v)
	}
	if h.opts.Seed != 0 {
		flags |= runFlagSeed
	}
	if !h.opts.Time.IsZero() {
		flags |= runFlagTime
	}
	e.uint(flags)
	if h.opts.Seed != 0 {
		e.uint(h.opts.Seed)
	}
	if !h.opts.Time.IsZero() {
		e.uint(uint64(max(h.opts.Time.UnixMilli(), 0)))
	}
	e.int(entry.shift).str(text)
	if stopErr, err := h.sendRun(w, e); err != nil || stopErr != nil {
		w.setActive(0)
		workers.discard(w)
		if stopErr != nil {
			// The program was not handed over before the run's deadline
			// or its cancellation: the worker was killed.
			h.cancelRun(stopErr)
			return nil, stopErr, false
		}
		h.cancelRun(errRunEnded)
		return nil, newError(CodeError, "The sandbox process could not be reached.").withCause(err), true
	}

	frames := make(chan frameResult, 16)
	readerDone := make(chan struct{})
	h.reader.Store(readerReading)
	h.exited = make(chan struct{})
	h.watching = nil
	go h.readLoop(frames, readerDone, true)

	timer := time.NewTimer(time.Until(h.deadline))
	defer timer.Stop()
	ctxDone := h.ctx.Done()
	exited := h.exited
	var (
		stopErr  *Error // why the host ended the run
		stopped  time.Time
		grace    <-chan time.Time
		killed   bool
		died     error // the worker ended without reporting
		finished bool  // the worker reported the end of the run
	)
	stop := func(e *Error) {
		if stopErr != nil {
			return
		}
		stopErr = e
		stopped = time.Now()
		h.stopping.Store(true)
		h.cancelRun(e)
		ctxDone = nil
		w.interrupt(h.id)
		// Results still queued for the program are dropped, and one
		// being written stops at its next part.
		w.setActive(0)
		grace = time.After(interruptGrace)
		// The worker answers at once; a tool call holding the reading
		// goroutine must not delay that.
		h.takeOverReading(frames, readerDone)
	}
	for !finished && died == nil {
		select {
		case fr := <-frames:
			if fr.err != nil {
				died = fr.err
				break
			}
			h.frames++
			switch fr.f.typ {
			case frameTransformed:
				t := transformed{script: fr.d.str(), shift: fr.d.int()}
				depth := fr.d.int()
				if fr.d.err == nil {
					transforms.put(h.key, cacheEntry{transformed: t, depth: depth})
				}
			case frameConsole:
				if e := h.consoleLine(fr.d); e != nil {
					stop(e)
				}
			case frameDone:
				finished = true
				if stopErr == nil {
					res, rerr = h.finish(fr.d)
				}
			default:
				died = errProtocol
			}
		case e := <-h.fatal:
			stop(e)
		case <-ctxDone:
			stop(abortedError(h.ctx))
		case <-exited:
			// The worker ended while a tool call held the reading
			// goroutine: read what it left, up to the end of its pipe.
			exited = nil
			h.takeOverReading(frames, readerDone)
		case <-timer.C:
			stop(h.timeoutError())
		case <-grace:
			// The program is stuck in a built-in that never checks for
			// interrupts: end the process.
			killed = true
			grace = nil
			_ = w.cmd.Process.Kill()
		}
	}
	if stopped.IsZero() {
		stopped = time.Now()
	}
	w.setActive(0)
	if died != nil && !killed {
		_ = w.cmd.Process.Kill()
	}
	<-readerDone
	h.stopWatching()
	switch {
	case stopErr != nil:
		res, rerr = nil, stopErr
	case died != nil:
		retry = errors.Is(died, errWorkerGone) && h.received.Load() == 0
		res, rerr = nil, nil
	}
	var cause error = errRunEnded
	if rerr != nil {
		cause = rerr
	}
	h.cancelRun(cause)
	if finished && !killed && w.reusable(interruptGrace) {
		workers.put(w)
	} else {
		workers.discard(w)
	}
	if died != nil && stopErr == nil {
		if errors.Is(died, errProtocol) {
			rerr = newError(CodeError, "The sandbox process sent a message the host does not accept; the run was ended.").
				withCause(died)
		} else {
			rerr = newError(CodeError, fmt.Sprintf("The sandbox process running the program ended unexpectedly (%s).", w.cmd.ProcessState)).
				withCause(died)
		}
	}
	h.waitTools(stopped.Add(toolExitGrace))
	if rerr != nil {
		var e *Error
		if errors.As(rerr, &e) {
			rerr = capError(e, h.limits.MaxErrorMessageBytes)
		}
	}
	return res, rerr, retry
}

// largeRunFrame is the size above which handing a program to the worker
// may take long enough to matter (a pipe holds 64 KiB).
const largeRunFrame = 64 << 10

// sendRun hands the run's frame to the worker. A large frame is written
// while the run's deadline and context are watched: when either ends
// first, the worker is killed, which ends the write, and stopErr says why;
// err is the write's own failure.
func (h *hostRun) sendRun(w *worker, e *encoder) (stopErr *Error, err error) {
	if len(e.bytes()) <= largeRunFrame {
		return nil, w.send(h.id, nil, e)
	}
	sent := make(chan error, 1)
	go func() { sent <- w.send(h.id, nil, e) }()
	timer := time.NewTimer(time.Until(h.deadline))
	defer timer.Stop()
	select {
	case err := <-sent:
		return nil, err
	case <-timer.C:
		stopErr = h.timeoutError()
	case <-h.ctx.Done():
		stopErr = abortedError(h.ctx)
	}
	_ = w.cmd.Process.Kill()
	<-sent
	return stopErr, nil
}

// readLoop reads the frames of the run until its end or the worker's, and
// then closes done. A tool call is run by the reading goroutine itself, so
// that it starts without a hand-over to another goroutine, which matters
// for a program that awaits its calls one by one. When the worker waits for
// that call alone, the goroutine goes on reading once the call returns (see
// runInline); otherwise it first starts another readLoop to go on reading.
// first is set for the first readLoop of an attempt, which reads the
// worker's greeting if it was not read yet.
func (h *hostRun) readLoop(frames chan<- frameResult, done chan<- struct{}, first bool) {
	w := h.w
	if first && !w.greeted {
		if err := skipToHello(w.r, 1<<20); err != nil {
			if err == io.EOF {
				err = errWorkerGone
			}
			frames <- frameResult{err: err}
			close(done)
			return
		}
		w.greeted = true
	}
	// expecting is set when the host just sent the worker the settlement
	// of the call it waits for: a program awaiting its calls one by one
	// makes the next within microseconds.
	expecting := false
	for {
		if expecting && w.bell != nil && w.r.Buffered() == 0 {
			awaitWorker(w)
		}
		expecting = false
		f, err := readFrame(w.r, h.maxFrame)
		if err != nil {
			if err == io.EOF {
				// At a frame boundary.
				err = errWorkerGone
			}
			frames <- frameResult{err: err}
			close(done)
			return
		}
		h.received.Add(1)
		d := &decoder{b: f.payload}
		if d.uint() != h.id || d.err != nil {
			frames <- frameResult{err: errProtocol}
			close(done)
			return
		}
		switch f.typ {
		case frameWaiting:
			continue
		case frameCall:
			tc, id, ok := h.decodeCall(d)
			if !ok || h.stopping.Load() {
				continue
			}
			h.tools.Add(1)
			if h.inFlight.Add(1) == 1 && h.waitsForOneCall() {
				if !h.runInline(tc, id) {
					return
				}
				expecting = true
				continue
			}
			go h.readLoop(frames, done, false)
			h.runTool(tc, id)
			return
		}
		frames <- frameResult{f: f, d: d}
		if f.typ == frameDone {
			close(done)
			return
		}
	}
}

// hostSpin is how long the host watches a worker's doorbell for a frame it
// expects within microseconds before its thread sleeps. Only a few threads
// of the process watch at once, so that waiting runs never keep the
// processors busy.
const hostSpin = 50 * time.Microsecond

var watchers atomic.Int32

// awaitWorker watches w's doorbell for up to hostSpin, unless enough
// threads watch already.
func awaitWorker(w *worker) {
	if watchers.Add(1) <= int32(max(1, runtime.GOMAXPROCS(0)/2)) {
		w.bell.await(doorbellWorker, w.outCount.n.Load(), hostSpin)
	}
	watchers.Add(-1)
}

// States of the reading of a run's frames.
const (
	readerReading    = iota // a readLoop reads
	readerInline            // the reading goroutine runs a tool call
	readerHandedOver        // another readLoop took over from it
)

// waitsForOneCall reports whether the frame after the tool call just read
// says that the worker now waits for that call alone, and consumes it. The
// worker then sends nothing until the call is settled, unless the host
// interrupts the run or the worker ends; the host watches for both (see
// takeOverReading), so the call may hold the reading goroutine.
func (h *hostRun) waitsForOneCall() bool {
	w := h.w
	if w.ctrl == nil || w.r.Buffered() < 5 {
		return false
	}
	head, _ := w.r.Peek(5)
	n := int(binary.LittleEndian.Uint32(head[1:]))
	if head[0] != frameWaiting || n > 32 || w.r.Buffered() < 5+n {
		return false
	}
	b, _ := w.r.Peek(5 + n)
	d := &decoder{b: b[5:]}
	if d.uint() != h.id || d.int() != 1 || d.err != nil {
		return false
	}
	_, _ = w.r.Discard(5 + n)
	h.watchWorker()
	return true
}

// runInline runs a tool call on the reading goroutine and reports whether
// that goroutine is still the reader when the call returns.
func (h *hostRun) runInline(tc ToolCall, id int) bool {
	h.reader.Store(readerInline)
	h.runTool(tc, id)
	return h.reader.CompareAndSwap(readerInline, readerReading)
}

// takeOverReading starts another readLoop if a tool call holds the reading
// goroutine.
func (h *hostRun) takeOverReading(frames chan<- frameResult, done chan<- struct{}) {
	if h.reader.CompareAndSwap(readerInline, readerHandedOver) {
		go h.readLoop(frames, done, false)
	}
}

// watchWorker makes sure that h.exited is closed when the worker ends
// during the run, by reading the host's end of the control socket, which
// the worker never writes to, until it is closed.
func (h *hostRun) watchWorker() {
	if h.watching != nil {
		return
	}
	done := make(chan struct{})
	h.watching = done
	ctrl, exited := h.w.ctrl, h.exited
	go func() {
		defer close(done)
		var b [16]byte
		for {
			_, err := ctrl.Read(b[:])
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
			if err != nil {
				close(exited)
				return
			}
		}
	}()
}

// stopWatching ends the watching of watchWorker.
func (h *hostRun) stopWatching() {
	if h.watching == nil {
		return
	}
	_ = h.w.ctrl.SetReadDeadline(time.Unix(1, 0))
	<-h.watching
	_ = h.w.ctrl.SetReadDeadline(time.Time{})
	h.watching = nil
}

// waitTools waits until the tool calls of the run have returned, or until
// by.
func (h *hostRun) waitTools(by time.Time) {
	if h.inFlight.Load() == 0 {
		h.tools.Wait()
		return
	}
	done := make(chan struct{})
	go func() {
		h.tools.Wait()
		close(done)
	}()
	t := time.NewTimer(max(time.Until(by), 0))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// decodeCall decodes a tool call the worker passed on.
func (h *hostRun) decodeCall(d *decoder) (ToolCall, int, bool) {
	id, seq, name, input := d.int(), d.int(), d.str(), d.str()
	return ToolCall{Seq: seq, Name: name, Input: json.RawMessage(input)}, id, d.err == nil
}

// runTool runs one tool call and sends its settlement to the worker.
func (h *hostRun) runTool(tc ToolCall, id int) {
	defer h.tools.Done()
	defer h.inFlight.Add(-1)
	ctx, cancel := context.WithCancel(h.runCtx)
	defer cancel()
	var (
		out      json.RawMessage
		err      error
		panicked bool
		pv       any
	)
	func() {
		defer func() {
			if p := recover(); p != nil {
				panicked, pv = true, p
			}
		}()
		out, err = h.opts.CallTool(ctx, tc)
	}()
	if panicked {
		select {
		case h.fatal <- newError(CodeError, fmt.Sprintf("Host tool %q panicked.", tc.Name)).
			withCause(&panicError{value: pv}).
			withDetails(map[string]any{"toolName": tc.Name}):
		default:
		}
		return
	}
	if h.runCtx.Err() != nil {
		return // the run has ended: its queued results are dropped unread
	}
	st := h.settlement(id, tc.Name, out, err)
	body := st.raw
	if body == nil {
		body = []byte(st.payload)
	}
	if len(body) <= writePart {
		e := newFrameCap(frameSettle, 32+len(st.kind)+len(body)).uint(h.id).int(st.id).str(st.kind).uint(uint64(len(body)))
		e.b = append(e.b, body...)
		_ = h.w.send(h.id, h.runCtx.Done(), e)
		return
	}
	// A large output is written as it is, after a head whose length
	// counts it, not copied into a frame.
	e := newFrame(frameSettle).uint(h.id).int(st.id).str(st.kind).uint(uint64(len(body)))
	_ = h.w.sendParts(h.id, h.runCtx.Done(), e.bytesWith(len(body)), body)
}

// settlement turns the result of a tool call into what the guest sees.
func (h *hostRun) settlement(id int, name string, out json.RawMessage, err error) settlement {
	if err == nil {
		switch {
		case len(out) == 0:
			return settlement{id: id, kind: "none"}
		case len(out) > h.limits.MaxToolOutputBytes:
			err = newError(CodeSerialization, fmt.Sprintf(
				"The output of tool %q is %d bytes of JSON, more than the limit of %d bytes.",
				name, len(out), h.limits.MaxToolOutputBytes)).
				withDetails(map[string]any{"toolName": name, "bytes": len(out), "maxBytes": h.limits.MaxToolOutputBytes})
		case !rawjson.Valid(out):
			err = fmt.Errorf("sandbox: tool %q returned invalid JSON", name)
		default:
			return settlement{id: id, kind: "ok", raw: out}
		}
	}
	var shown *Error
	if !errors.As(err, &shown) {
		shown = &Error{
			Code:    CodeHostToolError,
			Name:    defaultName(CodeHostToolError),
			Message: "Host tool failed.",
			Details: map[string]any{"toolName": name},
			Cause:   err,
		}
	}
	h.mu.Lock()
	if h.rejected == nil {
		h.rejected = map[int]*Error{}
	}
	h.rejected[id] = shown
	h.mu.Unlock()
	return errorSettlement(id, capError(shown, h.limits.MaxErrorMessageBytes))
}

// consoleLine records a console line and passes it to Options.Console. A
// panic there fails the run.
func (h *hostRun) consoleLine(d *decoder) (failure *Error) {
	stream, text := "stdout", ""
	if d.uint() == 1 {
		stream = "stderr"
	}
	text = d.str()
	if d.err != nil {
		return nil
	}
	h.console = append(h.console, ConsoleLine{Stream: stream, Text: text})
	if h.opts.Console == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			failure = newError(CodeError, "A host callback panicked.").withCause(&panicError{value: p})
		}
	}()
	h.opts.Console(stream, text)
	return nil
}

// finish turns the worker's report into the result of the run.
func (h *hostRun) finish(d *decoder) (*Result, error) {
	kind := byte(d.uint())
	switch kind {
	case reportValue:
		v := d.view()
		if d.err != nil {
			break
		}
		res := &Result{Console: h.console}
		if v != "" {
			if n := len(v); n > h.limits.MaxResultBytes {
				return nil, resultTooLarge(n, h.limits.MaxResultBytes, false)
			}
			res.Value = json.RawMessage(v)
		}
		return res, nil
	case reportError:
		s := d.str()
		if d.err != nil {
			break
		}
		e, err := decodeWireError(s)
		if err != nil {
			break
		}
		return nil, e
	case reportBridge:
		id := d.int()
		h.mu.Lock()
		e := h.rejected[id]
		h.mu.Unlock()
		if e != nil {
			return nil, e
		}
	case reportInterrupted:
		// The worker stopped at its own deadline, a moment before the host's.
		return nil, h.timeoutError()
	}
	return nil, newError(CodeError, "The program completed with an unreadable report.")
}

// decodeWireError decodes an *Error a worker reported. Integral numbers in
// Details become ints and arrays of strings []string, as the worker made
// them.
func decodeWireError(s string) (*Error, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var we wireError
	if err := dec.Decode(&we); err != nil {
		return nil, err
	}
	e := &Error{Code: we.Code, Name: we.Name, Message: we.Message}
	if len(we.Details) > 0 {
		e.Details = map[string]any{}
		for k, v := range we.Details {
			e.Details[k] = restoreTypes(v)
		}
	}
	return e, nil
}

func restoreTypes(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return int(i)
		}
		f, _ := v.Float64()
		return f
	case []any:
		strs := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				for i := range v {
					v[i] = restoreTypes(v[i])
				}
				return v
			}
			strs = append(strs, s)
		}
		return strs
	case map[string]any:
		for k := range v {
			v[k] = restoreTypes(v[k])
		}
	}
	return v
}

func (h *hostRun) timeoutError() *Error {
	return newError(CodeTimeout, fmt.Sprintf("Code execution timed out after %s.", h.limits.Timeout)).
		withDetails(map[string]any{"timeoutMs": h.limits.Timeout.Milliseconds()})
}

// capError returns e with its name and message cut to their limits, as a
// copy when anything had to be cut.
func capError(e *Error, maxMessage int) *Error {
	if len(e.Name) <= maxErrorNameBytes && len(e.Message) <= maxMessage {
		return e
	}
	c := *e
	if len(c.Name) > maxErrorNameBytes {
		c.Name = truncateUTF8(c.Name, maxErrorNameBytes)
	}
	if n := len(c.Message); n > maxMessage {
		const more = "... (%d bytes in all)"
		suffix := fmt.Sprintf(more, n)
		c.Message = truncateUTF8(c.Message, max(maxMessage-len(suffix), 0)) + suffix
	}
	return &c
}
