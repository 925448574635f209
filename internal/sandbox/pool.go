package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Process-wide limits of worker processes.
const (
	// maxDefaultConcurrentRuns caps the default of MaxConcurrentRuns.
	maxDefaultConcurrentRuns = 32
	// runMemoryOverhead is what a run costs beyond its engine heap when the
	// default of MaxConcurrentRuns is derived from the available memory:
	// the worker process, the transform and the buffers of the run.
	runMemoryOverhead = 48 << 20
)

var (
	defaultRunsOnce sync.Once
	defaultRuns     int
)

// DefaultMaxConcurrentRuns returns the default of [MaxConcurrentRuns]: the
// memory available to the process (on Linux the smaller of MemAvailable and
// the cgroup's limit; elsewhere 4 GiB is assumed) divided by the default
// engine heap plus 48 MiB, at least 1 and at most 32.
func DefaultMaxConcurrentRuns() int {
	defaultRunsOnce.Do(func() {
		avail := availableMemory()
		if avail <= 0 {
			avail = 4 << 30
		}
		defaultRuns = int(min(max(avail/int64(DefaultLimits().MemoryBytes+runMemoryOverhead), 1), maxDefaultConcurrentRuns))
	})
	return defaultRuns
}

// SetMaxConcurrentRuns sets how many runs may be in progress at once in this
// process; a run over the limit fails at once with
// CODE_MODE_CONCURRENCY_LIMIT. n <= 0 restores the default,
// [DefaultMaxConcurrentRuns]. It returns the previous limit. Runs already in
// progress are not affected.
func SetMaxConcurrentRuns(n int) (previous int) {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	previous = workers.maxRunsLocked()
	if n <= 0 {
		n = 0
	}
	workers.maxRuns = n
	return previous
}

// MaxConcurrentRuns returns how many runs may be in progress at once in this
// process (see [SetMaxConcurrentRuns]).
func MaxConcurrentRuns() int {
	workers.mu.Lock()
	defer workers.mu.Unlock()
	return workers.maxRunsLocked()
}

// workers is the process's pool of worker processes.
var workers workerPool

// allWorkers holds every live worker process, idle or busy.
var allWorkers sync.Map // *worker -> struct{}

// workerPool admits runs and keeps idle worker processes, each with a realm
// prepared for its next run. Idle workers cost no goroutine in this process.
type workerPool struct {
	mu       sync.Mutex
	maxRuns  int // 0 for the default
	running  int // admitted runs
	live     int // worker processes started and not yet discarded
	starting int // spares being started
	idle     []*worker
}

func (p *workerPool) maxRunsLocked() int {
	if p.maxRuns > 0 {
		return p.maxRuns
	}
	return DefaultMaxConcurrentRuns()
}

// maxIdle is how many idle workers the pool keeps.
func (p *workerPool) maxIdleLocked() int {
	return min(max(2, runtime.GOMAXPROCS(0)), p.maxRunsLocked())
}

// admit counts a new run in, unless the limit is reached; it returns the
// limit.
func (p *workerPool) admit() (bool, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	limit := p.maxRunsLocked()
	if p.running >= limit {
		return false, limit
	}
	p.running++
	return true, limit
}

func (p *workerPool) release() {
	p.mu.Lock()
	p.running--
	p.mu.Unlock()
}

// get returns a worker for a run: the one idle the longest, whose realm had
// the most time to be prepared, or a new one. When it takes the last idle
// worker, and no spare is being started already, it starts a spare, so that
// the next run finds one ready. A run that has to start its own worker
// starts no spare beside it: the two processes would share the processors
// while the run waits for its own, and its worker is idle again afterwards.
func (p *workerPool) get() (*worker, error) {
	p.mu.Lock()
	var w *worker
	if len(p.idle) > 0 {
		w = p.idle[0]
		copy(p.idle, p.idle[1:])
		p.idle[len(p.idle)-1] = nil
		p.idle = p.idle[:len(p.idle)-1]
	} else {
		p.live++
	}
	spare := w != nil && len(p.idle) == 0 && p.starting == 0 && p.live < p.maxRunsLocked()
	if spare {
		p.live++
		p.starting++
	}
	p.mu.Unlock()

	if spare {
		// The next run's worker starts beside this run, not before it.
		go func() {
			s, err := startWorker()
			p.mu.Lock()
			p.starting--
			if err == nil && len(p.idle) < p.maxIdleLocked() {
				p.idle = append(p.idle, s)
				s = nil
			} else {
				p.live--
			}
			p.mu.Unlock()
			if s != nil {
				s.kill()
			}
		}()
	}
	if w != nil {
		return w, nil
	}
	w, err := startWorker()
	if err != nil {
		p.mu.Lock()
		p.live--
		p.mu.Unlock()
		return nil, err
	}
	return w, nil
}

// put returns a worker that finished a run cleanly.
func (p *workerPool) put(w *worker) {
	p.mu.Lock()
	if len(p.idle) < p.maxIdleLocked() {
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		return
	}
	p.live--
	p.mu.Unlock()
	w.kill()
}

// discard ends a worker that must not serve another run.
func (p *workerPool) discard(w *worker) {
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
	w.kill()
}

// pruneDead discards the idle workers whose process ended, for example
// killed from outside while idle.
func (p *workerPool) pruneDead() {
	p.mu.Lock()
	var dead []*worker
	kept := p.idle[:0]
	for _, w := range p.idle {
		if w.alive() {
			kept = append(kept, w)
		} else {
			dead = append(dead, w)
		}
	}
	clear(p.idle[len(kept):])
	p.idle = kept
	p.live -= len(dead)
	p.mu.Unlock()
	for _, w := range dead {
		w.kill()
	}
}

// worker is a worker process seen from the host.
type worker struct {
	cmd *exec.Cmd
	in  *os.File // to the worker
	// bell, when not nil, is the doorbell shared with the worker, and
	// outCount counts what the host read from out.
	bell     *doorbell
	outCount *countingReader
	// ctrl is the host's end of the control socket: the host writes
	// interrupts to it, and reads it to learn that the worker ended (see
	// hostRun.watchWorker). It is nil without controlPipe.
	ctrl    *os.File
	out     *os.File // from the worker
	r       *bufio.Reader
	greeted bool // its greeting was read

	// wlock, a channel of one slot, is held while a frame is written to
	// in: a run's tool calls wait for it together with the end of the run,
	// so that results still queued are dropped when the run ends.
	wlock chan struct{}
	// active is the run whose frames may be written, 0 for none. A frame
	// being written in parts stops between parts once its run is no longer
	// active.
	active atomic.Uint64
	dead   bool // guarded by wlock
	// torn, guarded by wlock, is set when a frame was written only in
	// part: the worker must not serve another run.
	torn bool
	cmu  sync.Mutex // guards ctrl
}

var errStale = errors.New("sandbox: the run is over")

// lock takes wlock, unless stop is closed first.
func (w *worker) lock(stop <-chan struct{}) bool {
	select {
	case w.wlock <- struct{}{}:
		return true
	default:
	}
	select {
	case w.wlock <- struct{}{}:
		return true
	case <-stop:
		return false
	}
}

func (w *worker) unlock() { <-w.wlock }

// send writes a frame of run id, unless the run is over or stop is closed
// before the frame can be written.
func (w *worker) send(id uint64, stop <-chan struct{}, e *encoder) error {
	return w.sendParts(id, stop, e.bytes(), nil)
}

// writePart is the size of the parts a large frame is written in.
const writePart = 64 << 10

// sendParts writes a frame of run id made of head, whose length field
// counts body too, and body. A large frame is written in parts; when the
// run ends in between, the rest is dropped and the worker marked torn.
func (w *worker) sendParts(id uint64, stop <-chan struct{}, head, body []byte) error {
	if w.active.Load() != id || !w.lock(stop) {
		return errStale
	}
	defer w.unlock()
	if w.dead || w.active.Load() != id {
		return errStale
	}
	if body == nil {
		return w.write(head)
	}
	if err := w.write(head); err != nil {
		w.torn = true
		return err
	}
	for len(body) > 0 {
		if w.active.Load() != id {
			w.torn = true
			return errStale
		}
		n := min(len(body), writePart)
		if err := w.write(body[:n]); err != nil {
			w.torn = true
			return err
		}
		body = body[n:]
	}
	return nil
}

// write writes b to the worker and counts it in the doorbell. The caller
// holds wlock.
func (w *worker) write(b []byte) error {
	n, err := w.in.Write(b)
	if w.bell != nil {
		w.bell.count(doorbellHost).Add(uint64(max(n, 0)))
	}
	return err
}

// interrupt asks the worker to stop run id, without ever waiting for a
// settlement being written: a large one blocks while the program runs and
// the worker does not read its standard input. The control socket, which the
// worker always reads, interrupts a running program; the interrupt on the
// standard input wakes a worker waiting for a settlement, and is left out
// when a settlement is being written, which wakes it as well.
func (w *worker) interrupt(id uint64) {
	b := newFrame(frameInterrupt).uint(id).bytes()
	if w.ctrl != nil {
		w.cmu.Lock()
		_, _ = w.ctrl.Write(b)
		w.cmu.Unlock()
	}
	select {
	case w.wlock <- struct{}{}:
		if !w.dead && w.active.Load() == id {
			_ = w.write(b)
		}
		w.unlock()
	default:
	}
}

func (w *worker) setActive(id uint64) { w.active.Store(id) }

// reusable reports, once its run is no longer active, whether the worker
// may serve another run: no frame was left written in part. A frame still
// being written stops at its next part, which a worker that finished its
// run reads at once; one not stopped within wait makes the worker
// unusable.
func (w *worker) reusable(wait time.Duration) bool {
	select {
	case w.wlock <- struct{}{}:
	default:
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case w.wlock <- struct{}{}:
		case <-t.C:
			return false
		}
	}
	ok := !w.torn && !w.dead
	w.unlock()
	return ok
}

// kill ends the worker process and waits for it.
func (w *worker) kill() {
	_ = w.cmd.Process.Kill()
	// A frame being written fails once the process is gone.
	w.wlock <- struct{}{}
	w.dead = true
	_ = w.in.Close()
	w.unlock()
	if w.ctrl != nil {
		w.cmu.Lock()
		_ = w.ctrl.Close()
		w.cmu.Unlock()
	}
	_ = w.cmd.Wait()
	_ = w.out.Close()
	if w.bell != nil {
		w.bell.close()
	}
	allWorkers.Delete(w)
}

var (
	preludeOnce sync.Once
	preludeCode []byte
	preludeErr  error
)

// startWorker starts a worker process: this program's own executable, which
// serves runs instead of running its main function (see serveWorker).
func startWorker() (_ *worker, err error) {
	exe, err := executable()
	if err != nil {
		return nil, err
	}
	inR, inW, err := newPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := newPipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, err
	}
	var ctrlR, ctrlW *os.File
	if controlPipe {
		if ctrlR, ctrlW, err = newControl(); err != nil {
			_, _, _, _ = inR.Close(), inW.Close(), outR.Close(), outW.Close()
			return nil, err
		}
	}
	// A doorbell where there is a control socket; without, both sides
	// sleep in their reads.
	var bell *doorbell
	var bellFile *os.File
	if ctrlR != nil {
		if f, err := newDoorbellFile(); err == nil {
			if b, err := mapDoorbell(f); err == nil {
				bell, bellFile = b, f
			} else {
				_ = f.Close()
			}
		}
	}
	cmd := exec.Command(exe)
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = os.Stderr
	if ctrlR != nil {
		cmd.ExtraFiles = []*os.File{ctrlR}
		if bellFile != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, bellFile)
		}
	}
	cmd.Env = append(workerEnviron(), fmt.Sprintf("%s=%d", workerFilesEnv, len(cmd.ExtraFiles)))
	setWorkerAttrs(cmd)
	err = cmd.Start()
	_ = inR.Close()
	_ = outW.Close()
	if ctrlR != nil {
		_ = ctrlR.Close()
	}
	if bellFile != nil {
		_ = bellFile.Close()
	}
	if err != nil {
		if bell != nil {
			bell.close()
		}
		_ = inW.Close()
		_ = outR.Close()
		if ctrlW != nil {
			_ = ctrlW.Close()
		}
		return nil, err
	}
	growPipe(inW)
	// Blocking mode, as in the worker (see serveWorker).
	_, _ = inW.Fd(), outR.Fd()
	w := &worker{cmd: cmd, in: inW, ctrl: ctrlW, out: outR, bell: bell, outCount: &countingReader{f: outR},
		wlock: make(chan struct{}, 1)}
	w.r = bufio.NewReaderSize(w.outCount, 64<<10)
	allWorkers.Store(w, struct{}{})
	// The prelude is compiled once per process, while the first worker
	// starts.
	preludeOnce.Do(func() { preludeCode, preludeErr = preludeBytecode() })
	if preludeErr != nil {
		w.kill()
		return nil, preludeErr
	}
	hasBell := uint64(0)
	if bell != nil {
		hasBell = 1
	}
	w.wlock <- struct{}{}
	err = w.write(newFrame(framePrelude).uint(0).str(string(preludeCode)).uint(hasBell).bytes())
	w.unlock()
	if err != nil {
		w.kill()
		return nil, err
	}
	return w, nil
}

// executable returns the path of this program's executable.
func executable() (string, error) {
	if runtime.GOOS == "linux" {
		// Still this program after its file was replaced or removed.
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}

// workerEnviron is the environment of a worker process: the marker and the
// few variables the runtime, the race detector, coverage and the engine's
// Date read. Nothing else of the host's environment (credentials in
// particular) reaches a worker.
func workerEnviron() []string {
	env := []string{workerEnv + "=" + workerEnvValue}
	for _, k := range []string{"GODEBUG", "GORACE", "GOTRACEBACK", "GOCOVERDIR", "GOMAXPROCS", "TZ", "SYSTEMROOT"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
