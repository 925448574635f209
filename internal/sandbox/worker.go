package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// workerEnv marks a process started as a sandbox worker. Its value names the
// protocol version, so that a worker never serves a host of another build.
const (
	workerEnv      = "AISDKGO_SANDBOX_WORKER"
	workerEnvValue = "1"
	// workerFilesEnv tells a worker how many descriptors after standard
	// error the host passed it.
	workerFilesEnv = "AISDKGO_SANDBOX_FILES"
)

// workerGoMemory is the soft limit of the Go heap of a worker process. The
// engine's heap is not part of it: the engine allocates outside the Go heap,
// bounded by Limits.MemoryBytes.
const workerGoMemory = 96 << 20

// flushDelay is how long frames a worker queued may wait while the program
// runs on; the engine's interrupt poll, about every millisecond, checks.
const flushDelay = int64(time.Millisecond)

// workerSpin is how long a worker waiting for a settlement watches its
// doorbell before it sleeps: a tool that answers at once answers sooner.
const workerSpin = 100 * time.Microsecond

// maxQueued is the size of the queued frames beyond which a worker writes
// them at once.
const maxQueued = 64 << 10

// maxHostFrame bounds a frame a worker accepts from its host.
const maxHostFrame = 1 << 30

// controlPipe reports whether workers get a pipe for interrupts besides
// their standard input; exec cannot pass one on Windows.
const controlPipe = runtime.GOOS != "windows"

// A process started with workerEnv set serves runs for the process that
// started it and never returns to its main function. This happens in the
// package's initialisation, before the packages that import it (and the
// program's main package) are initialised.
func init() {
	if os.Getenv(workerEnv) != workerEnvValue {
		return
	}
	keep, _ := strconv.Atoi(os.Getenv(workerFilesEnv))
	closeInheritedFiles(min(max(keep, 0), 2))
	_ = os.Unsetenv(workerFilesEnv)
	os.Exit(serveWorker(os.Stdin, os.Stdout))
}

// serveWorker runs programs for the host on the other end of in and out
// until the host closes in. Between runs it restores the realm of the next
// one from its template, so that a run does not wait for the prelude.
//
// The goroutine running the program reads in itself when the program waits
// for a tool call, rather than a reader goroutine handing frames over: a
// program awaiting many calls one by one would wait for each hand-over.
// While the program runs, interrupts come through a control socket (file
// descriptor 3) that a goroutine watches; where there is none (Windows) an
// interrupt takes effect when the program next waits, or the host ends the
// process. File descriptor 4, when the host says so, is the doorbell.
func serveWorker(in, out *os.File) int {
	_ = os.Unsetenv(workerEnv)
	// Anything printed from now on goes to standard error, never into the
	// protocol.
	os.Stdout = os.Stderr
	// Blocking mode: a read wakes the reading thread directly instead of
	// going through the network poller, which halves a round trip.
	_, _ = in.Fd(), out.Fd()
	debug.SetMemoryLimit(workerGoMemory)

	c := &workerConn{in: in, out: out, inCount: &countingReader{f: in}}
	c.r = bufio.NewReaderSize(c.inCount, 64<<10)
	if _, err := out.Write([]byte(helloMagic)); err != nil {
		return 1
	}
	// The host compiled the prelude already; compiling it again in every
	// worker process would delay its first run.
	if f, d, _ := c.read(); f.typ == framePrelude {
		if bc := d.str(); d.err == nil {
			storeBytecode(preludeJS, []byte(bc))
		}
		if d.uint() == 1 && d.err == nil {
			f := os.NewFile(4, "doorbell")
			c.bell, _ = mapDoorbell(f)
			_ = f.Close()
		}
	}
	if controlPipe {
		ctrl := os.NewFile(3, "control")
		_ = ctrl.Fd()
		go c.watchControl(bufio.NewReader(ctrl))
	}
	// Runs start from copies of one realm with the prelude; should that
	// realm fail to build, each run builds its own. The realm is built
	// while the first run's program is transformed.
	var (
		tmpl  realmTemplate
		terr  error
		built = make(chan struct{})
	)
	go func() {
		defer close(built)
		tmpl, terr = newPreludeTemplate(defaultEngine)
	}()
	newSessionFor := func() *session {
		<-built
		if terr == nil {
			return newTemplateSession(tmpl, c)
		}
		return newSession(defaultEngine, c)
	}
	// s is the session of the next run, made while the worker waits for
	// it, except for the first run.
	var s *session
	for {
		run := c.nextRun()
		c.cur.Store(run)
		if t, ok := c.prepare(run); ok {
			if s == nil {
				s = newSessionFor()
			}
			c.serve(s, run, t)
			s.close()
			if s.broken() {
				return 3
			}
			s = nil
		}
		c.cur.Store(nil)
		if s == nil {
			s = newSessionFor()
		}
	}
}

// workerConn is a worker's side of the connection to its host. Only the
// goroutine running the session reads r and writes to out.
type workerConn struct {
	in  *os.File
	r   *bufio.Reader
	out *os.File
	cur atomic.Pointer[workerRun]
	// inCount counts what the worker read from in; bell, when not nil, is
	// the doorbell shared with the host.
	inCount *countingReader
	bell    *doorbell
	// queued holds frames not written yet (see proto.go); queuedAt is when
	// the first of them was queued, on the monotonic clock.
	queued   []byte
	queuedAt int64
}

// workerRun is the run a worker is serving.
type workerRun struct {
	id       uint64
	text     string
	isScript bool
	shift    int
	limits   Limits
	deadline time.Time
	hasTools bool
	// seed and timeMs (when hasTime) replay Math.random and the clock.
	seed    uint64
	timeMs  int64
	hasTime bool
	// maxFrame bounds the frames the host accepts for the run.
	maxFrame int

	stopped atomic.Bool
	mu      sync.Mutex
	realm   realm
}

func (r *workerRun) interrupt() {
	r.stopped.Store(true)
	r.mu.Lock()
	if r.realm != nil {
		r.realm.interrupt()
	}
	r.mu.Unlock()
}

func (r *workerRun) setRealm(rl realm) {
	r.mu.Lock()
	r.realm = rl
	r.mu.Unlock()
	if r.stopped.Load() && rl != nil {
		rl.interrupt()
	}
}

// read returns the next frame from the host. When the host goes away the
// worker ends.
func (c *workerConn) read() (frame, *decoder, uint64) {
	f, err := readFrame(c.r, maxHostFrame)
	if err != nil {
		os.Exit(0)
	}
	d := &decoder{b: f.payload}
	return f, d, d.uint()
}

// nextRun waits for the host's next run request, skipping frames left over
// from an earlier run.
func (c *workerConn) nextRun() *workerRun {
	for {
		f, d, id := c.read()
		if f.typ != frameRun {
			continue
		}
		run := decodeRun(id, d)
		if d.err != nil {
			os.Exit(2)
		}
		return run
	}
}

// watchControl applies the interrupts the host sends on the control socket.
// When the host goes away the worker ends at once, even while a program
// runs.
func (c *workerConn) watchControl(r *bufio.Reader) {
	for {
		f, err := readFrame(r, 64)
		if err != nil {
			os.Exit(0)
		}
		d := &decoder{b: f.payload}
		id := d.uint()
		if run := c.cur.Load(); f.typ == frameInterrupt && run != nil && run.id == id {
			run.interrupt()
		}
	}
}

func decodeRun(id uint64, d *decoder) *workerRun {
	run := &workerRun{id: id}
	remaining := time.Duration(d.uint())
	run.deadline = time.Now().Add(remaining)
	l := &run.limits
	for _, p := range []*int{&l.MemoryBytes, &l.StackBytes, &l.MaxResultBytes, &l.MaxToolInputBytes,
		&l.MaxConsoleBytes, &l.MaxToolCalls, &l.MaxConcurrentToolCalls, &l.MaxErrorMessageBytes, &l.MaxNestingDepth, &run.maxFrame} {
		*p = d.int()
	}
	flags := d.uint()
	run.hasTools = flags&runFlagTools != 0
	run.isScript = flags&runFlagScript != 0
	if flags&runFlagSeed != 0 {
		run.seed = d.uint()
	}
	if flags&runFlagTime != 0 {
		run.timeMs = int64(d.uint())
		run.hasTime = true
	}
	run.shift = d.int()
	run.text = d.str()
	return run
}

// prepare transforms the program of run, unless the host sent it
// transformed, and reports whether it is to run; when not, it reported the
// end of the run to the host.
func (c *workerConn) prepare(run *workerRun) (transformed, bool) {
	limitWorkerMemory(run.limits.MemoryBytes)
	t := transformed{script: run.text, shift: run.shift}
	if !run.isScript {
		depth, serr := checkNesting(run.text, run.limits.MaxNestingDepth)
		if serr == nil {
			t, serr = transformSource(run.text)
		}
		if serr != nil {
			c.sendDone(run.id, report{kind: reportError, err: serr})
			return transformed{}, false
		}
		// The host caches the transformed program; one too large for a
		// frame is not cached.
		if len(t.script)+64 <= run.maxFrame {
			c.write(newFrame(frameTransformed).uint(run.id).str(t.script).int(t.shift).int(depth))
		}
	}
	return t, true
}

// serve runs the program t of run in s and reports its end to the host.
func (c *workerConn) serve(s *session, run *workerRun, t transformed) {
	run.setRealm(s.realm)
	defer run.setRealm(nil)
	if s.realm != nil {
		s.realm.setPoll(c.poll)
	}
	if run.stopped.Load() || !time.Now().Before(run.deadline) {
		c.sendDone(run.id, report{kind: reportInterrupted})
		return
	}
	rep := s.run(runRequest{script: t.script, shift: t.shift, limits: run.limits, deadline: run.deadline, hasTools: run.hasTools,
		seed: run.seed, timeMs: run.timeMs, hasTime: run.hasTime})
	c.sendDone(run.id, rep)
}

// write writes the queued frames and e.
func (c *workerConn) write(e *encoder) {
	c.queue(e)
	c.flush()
}

// queue queues the frame e.
func (c *workerConn) queue(e *encoder) {
	if len(c.queued) == 0 {
		c.queuedAt = monotonic()
	}
	c.queued = append(c.queued, e.bytes()...)
	if len(c.queued) >= maxQueued {
		c.flush()
	}
}

// flush writes the queued frames.
func (c *workerConn) flush() {
	if len(c.queued) == 0 {
		return
	}
	n, err := c.out.Write(c.queued)
	if c.bell != nil {
		c.bell.count(doorbellWorker).Add(uint64(max(n, 0)))
	}
	if err != nil {
		os.Exit(0)
	}
	if cap(c.queued) > maxQueued {
		c.queued = nil
	} else {
		c.queued = c.queued[:0]
	}
}

// poll writes the queued frames once they waited flushDelay. The engine
// calls it while the program runs.
func (c *workerConn) poll() {
	if len(c.queued) > 0 && monotonic()-c.queuedAt >= flushDelay {
		c.flush()
	}
}

func (c *workerConn) sendDone(id uint64, rep report) {
	e := newFrame(frameDone).uint(id).uint(uint64(rep.kind))
	switch rep.kind {
	case reportValue:
		e.str(rep.value)
	case reportError:
		b, err := json.Marshal(wireError{Code: rep.err.Code, Name: rep.err.Name, Message: rep.err.Message, Details: rep.err.Details})
		if err != nil {
			b, _ = json.Marshal(wireError{Code: rep.err.Code, Name: rep.err.Name, Message: rep.err.Message})
		}
		e.str(string(b))
	case reportBridge:
		e.int(rep.bridgeID)
	}
	if run := c.cur.Load(); run != nil && len(e.b)-5 > run.maxFrame {
		// More than the host accepts, which would end the run as a
		// protocol error: the limits keep reports smaller.
		n := len(e.b) - 5
		e = newFrame(frameDone).uint(id).uint(reportError)
		b, _ := json.Marshal(wireError{Code: CodeError, Name: defaultName(CodeError),
			Message: fmt.Sprintf("The report of the run is %d bytes, more than the %d bytes a report may have.", n, run.maxFrame)})
		e.str(string(b))
	}
	c.write(e)
}

// wireError is an *Error as a worker reports it.
type wireError struct {
	Code    string         `json:"code"`
	Name    string         `json:"name"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (c *workerConn) sendCall(id, seq int, name, input string) {
	run := c.cur.Load()
	c.queue(newFrame(frameCall).uint(run.id).int(id).int(seq).str(name).str(input))
}

func (c *workerConn) sendConsole(stream, text string) {
	run := c.cur.Load()
	s := uint64(0)
	if stream == "stderr" {
		s = 1
	}
	c.queue(newFrame(frameConsole).uint(run.id).uint(s).str(text))
}

// next reads the host's frames until a settlement of the run arrives. The
// host interrupts a run at its deadline, so the worker needs no timer of its
// own here.
func (c *workerConn) next(deadline time.Time, inFlight int) (settlement, bool) {
	run := c.cur.Load()
	c.write(newFrame(frameWaiting).uint(run.id).int(inFlight))
	for {
		if run.stopped.Load() {
			return settlement{}, false
		}
		if c.bell != nil && c.r.Buffered() == 0 {
			c.bell.await(doorbellHost, c.inCount.n.Load(), workerSpin)
		}
		f, d, id := c.read()
		if id != run.id {
			continue
		}
		switch f.typ {
		case frameSettle:
			st := settlement{id: d.int(), kind: d.str(), payload: d.view()}
			if d.err == nil {
				return st, true
			}
		case frameInterrupt:
			run.interrupt()
		}
	}
}
