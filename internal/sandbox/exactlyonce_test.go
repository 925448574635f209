package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// repetitions is how often the exactly-once tests repeat their program: 100,
// 10 with -short, 3 under the race detector, which slows the engine about
// tenfold.
func repetitions() int {
	switch {
	case raceEnabled:
		return 3
	case testing.Short():
		return 10
	}
	return 100
}

// poolSettled waits until no spare worker is being started and returns the
// number of idle workers and of all worker processes.
func poolSettled(t *testing.T) (idle, all int) {
	t.Helper()
	deadline := time.Now().Add(promptly(20 * time.Second))
	for {
		workers.mu.Lock()
		starting, idle := workers.starting, len(workers.idle)
		workers.mu.Unlock()
		if starting == 0 {
			all := 0
			allWorkers.Range(func(any, any) bool { all++; return true })
			if all == idle {
				return idle, all
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pool did not settle: %d starting, %d idle", starting, idle)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// activeWorker returns the worker serving a run; the tests using it run one
// program at a time.
func activeWorker() *worker {
	var found *worker
	allWorkers.Range(func(k, _ any) bool {
		if w := k.(*worker); w.active.Load() != 0 {
			found = w
			return false
		}
		return true
	})
	return found
}

// A tool name the host would not accept in a frame is refused in the worker:
// the calls before it ran once, and the run is never handed to another
// worker, whether the program was cached or not.
func TestOversizedToolNameRunsEachCallOnce(t *testing.T) {
	var transfers atomic.Int32
	tool := func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "transfer" {
			transfers.Add(1)
			return json.RawMessage(`"done"`), nil
		}
		t.Errorf("tool %d bytes long reached the host", len(c.Name))
		return nil, nil
	}
	src := `await tools.transfer({amount: 100}); await tools["x".repeat(5e6)]({}); return 1`
	n := repetitions()
	for i := range n {
		e := runErr(t, src, Options{CallTool: tool})
		require.Equal(t, CodeSerialization, e.Code, "run %d: %s", i, e.Message)
		assert.Contains(t, e.Message, "more than the limit of 1024 bytes")
		assert.Less(t, len(e.Message), 1024)
		require.Equal(t, int32(i+1), transfers.Load(), "transfer ran again in run %d", i)
	}
	// A caught refusal leaves the program running.
	assert.Equal(t, `"CODE_MODE_SERIALIZATION_ERROR"`, mustRun(t,
		`try { await tools["y".repeat(2000)]({}) } catch (e) { return e.code }`, Options{CallTool: tool}))
	idle, all := poolSettled(t)
	assert.Equal(t, idle, all)
}

// A worker that ends after the program made tool calls fails the run; the
// program never starts again on another worker.
func TestWorkerKilledAfterCallsIsNotRerun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var calls atomic.Int32
	var killedAt atomic.Int64
	tool := func(_ context.Context, c ToolCall) (json.RawMessage, error) {
		if calls.Add(1)%2 == 0 {
			if w := activeWorker(); w != nil {
				// Killed once the second call was answered, or about
				// then: either way the program must not run again.
				time.AfterFunc(time.Millisecond, func() {
					killedAt.Store(time.Now().UnixNano())
					_ = w.cmd.Process.Kill()
				})
			}
		}
		return json.RawMessage(`1`), nil
	}
	src := `await tools.c({}); await tools.c({}); while (true) {}`
	// Cached: a run of a known program sends no transformed program back,
	// so the tool calls are the only frames of the run.
	e := runErr(t, src, Options{CallTool: tool, Limits: Limits{Timeout: time.Minute}})
	require.Equal(t, CodeError, e.Code, e.Message)
	n := repetitions()
	for i := range n {
		calls.Store(0)
		killedAt.Store(0)
		e := runErr(t, src, Options{CallTool: tool, Limits: Limits{Timeout: time.Minute}})
		returned := time.Now()
		require.Equal(t, CodeError, e.Code, "run %d: %s", i, e.Message)
		assert.Contains(t, e.Message, "ended unexpectedly")
		require.Equal(t, int32(2), calls.Load(), "run %d: the tool ran %d times", i, calls.Load())
		require.NotZero(t, killedAt.Load())
		assert.Less(t, returned.Sub(time.Unix(0, killedAt.Load())), promptly(2*time.Second))
	}
	idle, all := poolSettled(t)
	assert.Equal(t, idle, all)
}

// Idle workers killed from outside are replaced on the next run.
func TestDeadPoolRecovers(t *testing.T) {
	if !controlPipe {
		t.Skip("an idle worker's end cannot be told without a control socket")
	}
	for i := range 5 {
		mustRun(t, "return 1", Options{})
		mustRun(t, "return 1", Options{})
		idle, _ := poolSettled(t)
		require.NotZero(t, idle)
		workers.mu.Lock()
		dead := append([]*worker(nil), workers.idle...)
		workers.mu.Unlock()
		for _, w := range dead {
			_ = w.cmd.Process.Kill()
		}
		deadline := time.Now().Add(promptly(10 * time.Second))
		for _, w := range dead {
			for w.alive() {
				require.True(t, time.Now().Before(deadline), "a killed worker still looks alive")
				time.Sleep(time.Millisecond)
			}
		}
		assert.Equal(t, "7", mustRun(t, "return 7", Options{}), "round %d", i)
	}
	idle, all := poolSettled(t)
	assert.Equal(t, idle, all)
}

// A program that stops reading while large results queue up for it is still
// stopped at its deadline: the queued results are dropped.
func TestHardStopDropsQueuedResults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	base := runtime.NumGoroutine()
	big := json.RawMessage(`"` + strings.Repeat("x", 4<<20-16) + `"`)
	var calls atomic.Int32
	tool := func(context.Context, ToolCall) (json.RawMessage, error) {
		calls.Add(1)
		return big, nil
	}
	src := `for (let i = 0; i < 32; i++) tools.big({}).then(() => {}); while (true) {}`
	limits := Limits{Timeout: 500 * time.Millisecond}
	for range 3 {
		start := time.Now()
		e := runErr(t, src, Options{CallTool: tool, Limits: limits})
		elapsed := time.Since(start)
		assert.Equal(t, CodeTimeout, e.Code)
		assert.Less(t, elapsed, limits.Timeout+promptly(hardStopBound))
	}
	assert.NotZero(t, calls.Load())
	idle, all := poolSettled(t)
	assert.Equal(t, idle, all)
	// The runs ended without waiting for their tool calls; the calls that
	// were still checking their 4 MiB results end on their own, as soon as
	// the (loaded) machine lets them.
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// A descriptor the host opened without close-on-exec does not reach a
// worker.
func TestWorkerInheritsOnlyItsPipes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	path := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(path, []byte("secret"), 0o600))
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0) // no O_CLOEXEC
	require.NoError(t, err)
	defer syscall.Close(fd)

	// Workers started from now on are started with the descriptor open.
	workers.mu.Lock()
	old := workers.idle
	workers.idle = nil
	workers.live -= len(old)
	workers.mu.Unlock()
	for _, w := range old {
		w.kill()
	}
	var seen []string
	tool := func(context.Context, ToolCall) (json.RawMessage, error) {
		w := activeWorker()
		require.NotNil(t, w)
		dir := fmt.Sprintf("/proc/%d/fd", w.cmd.Process.Pid)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			target, _ := os.Readlink(filepath.Join(dir, e.Name()))
			seen = append(seen, e.Name()+" -> "+target)
		}
		return nil, nil
	}
	mustRun(t, "await tools.look({})", Options{CallTool: tool})
	require.NotEmpty(t, seen)
	for _, s := range seen {
		assert.NotContains(t, s, path, "the worker holds %s", s)
	}
	poolSettled(t)
}

// After a burst of runs, the pool keeps at most its documented number of
// idle workers.
func TestIdlePoolBoundAfterBurst(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const runs = 24
	prev := SetMaxConcurrentRuns(32)
	defer SetMaxConcurrentRuns(prev)
	poolSettled(t)
	workers.mu.Lock()
	maxIdle := workers.maxIdleLocked()
	workers.mu.Unlock()

	var started sync.WaitGroup
	started.Add(runs)
	release := make(chan struct{})
	tool := func(ctx context.Context, _ ToolCall) (json.RawMessage, error) {
		started.Done()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}
	var done sync.WaitGroup
	errs := make(chan error, runs)
	for range runs {
		done.Add(1)
		go func() {
			defer done.Done()
			_, err := Run(context.Background(), Options{Source: "await tools.hold({}); return 1", CallTool: tool, Limits: quick})
			errs <- err
		}()
	}
	started.Wait()
	peak := 0
	allWorkers.Range(func(any, any) bool { peak++; return true })
	close(release)
	done.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	idle, all := poolSettled(t)
	assert.LessOrEqual(t, peak, runs+maxIdle+1, "worker processes while %d runs were held", runs)
	assert.LessOrEqual(t, idle, maxIdle)
	assert.Equal(t, idle, all)
}

// Decorators and using declarations do not count as nesting.
func TestNestingCountsNestingNotDecorators(t *testing.T) {
	for name, src := range map[string]string{
		"decorated classes": "function d(c) { return c }\n" + strings.Repeat("@d class C {}\n", 600) + "return 1",
		"decorated members": "function d(v) { return v }\nclass K {\n" + strings.Repeat("@d m() {}\n", 600) + "}\nreturn 1",
		"using blocks": "const r = () => ({ [Symbol.dispose]() {} });\n" +
			strings.Repeat("{ using a = r(); }\n", 300) + strings.Repeat("{\n  using b = r()\n}\n", 300) + "return 1",
	} {
		depth, e := checkNesting(src, 1000)
		assert.Nil(t, e, name)
		assert.Less(t, depth, 20, name)
		res, err := runJS(t, src, Options{Limits: Limits{Timeout: 30 * time.Second}})
		if err != nil {
			assert.NotContains(t, err.Error(), "levels deep", name)
		} else {
			assert.Equal(t, "1", string(res.Value), name)
		}
	}
	// Real nesting still counts.
	_, e := checkNesting(strings.Repeat("@d(", 1001)+strings.Repeat(")", 1001)+" class C {}", 1000)
	assert.NotNil(t, e)
}

// Whatever the conversion of a tool's input throws rejects the call with
// CODE_MODE_SERIALIZATION_ERROR; the call does not throw.
func TestThrowingGetterRejectsCall(t *testing.T) {
	rec := &recorder{}
	for _, thrown := range []string{`new RangeError("no")`, `new Error("no")`, `"no"`, `42`} {
		src := `const obj = { get a() { throw ` + thrown + ` } };
let p;
try { p = tools.x(obj) } catch (e) { return "threw at once" }
try { await p } catch (e) { return e.code + " " + e.message }
return "resolved"`
		got := mustRun(t, src, Options{CallTool: rec.call})
		assert.Contains(t, got, "CODE_MODE_SERIALIZATION_ERROR", thrown)
	}
	assert.Empty(t, rec.snapshot())
}

// Limits over their maximum are lowered to it; the run works.
func TestLimitsOverMaximumAreClamped(t *testing.T) {
	huge := Limits{Timeout: math.MaxInt64, MemoryBytes: math.MaxInt, StackBytes: math.MaxInt, MaxSourceBytes: math.MaxInt,
		MaxResultBytes: math.MaxInt, MaxConsoleBytes: math.MaxInt, MaxToolInputBytes: math.MaxInt,
		MaxToolOutputBytes: math.MaxInt, MaxToolCalls: math.MaxInt, MaxConcurrentToolCalls: math.MaxInt,
		MaxErrorMessageBytes: math.MaxInt, MaxNestingDepth: math.MaxInt}
	l, err := huge.Resolve()
	require.NoError(t, err)
	assert.Equal(t, MaxLimits(), l)
	assert.Less(t, maxFrameSize(l), math.MaxUint32)

	assert.Equal(t, "7", mustRun(t, "return 7", Options{Limits: Limits{MemoryBytes: math.MaxInt}}))
	assert.Equal(t, "[1,2]", mustRun(t, "return [await tools.a(1), await tools.b(2)]", Options{Limits: huge, CallTool: echo}))
	_, err = Limits{MemoryBytes: -1}.Resolve()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "Limits.MemoryBytes", e.Details["field"])
}
