package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// hardStopBound is how much later than its timeout, or than the
// cancellation of its context, a run may return.
const hardStopBound = 250 * time.Millisecond

// runaways are programs that never end on their own, each in a different
// way of keeping the engine busy.
var runaways = []struct {
	name, src string
}{
	{"promise executors", "for (;;) new Promise(() => { for (;;) {} })"},
	{"async functions", "async function f() { for (;;) {} } for (;;) f()"},
	{"empty executors", "for (let i = 0; ; i++) new Promise(() => {})"},
	{"typed array indexOf", "const a = new Float64Array(7e6); for (;;) a.indexOf(1)"},
	{"string indexOf", `const s = "x".repeat(5e7); for (;;) s.indexOf("y")`},
	{"then callback", "Promise.resolve().then(() => { for (;;) {} }); await new Promise(() => {})"},
	{"then chain", "for (;;) await Promise.resolve().then(() => { let i = 0; while (i >= 0) i++ })"},
	{"generator", "function* g() { for (;;) yield 1 } for (const x of g()) {}"},
	{"generator finally", "function* g() { try { yield 1 } finally { for (;;) {} } } const it = g(); it.next(); it.return()"},
	{"finally", "try { for (;;) {} } finally { for (;;) {} }"},
	{"catch", "for (;;) { try { for (;;) {} } catch (e) {} }"},
	{"getter in JSON.stringify", "JSON.stringify({ get a() { for (;;) {} } })"},
	{"sort comparator", "[3, 2, 1].sort(() => { for (;;) {} })"},
	{"replace callback", "'aaa'.replace(/a/g, () => { for (;;) {} })"},
	{"regex backtracking", "for (;;) /(a+)+b/.test('a'.repeat(40))"},
	{"regex on a huge string", "const s = 'ab'.repeat(1e7); for (;;) s.replace(/b/g, 'c')"},
	{"one long sort", `const a = new Float64Array(7e6);
for (let i = 0; i < 7000; i++) a[i] = (i * 7919) % 7001;
for (let n = 7000; n < a.length; n *= 2) a.copyWithin(n, 0, n);
a.sort(); for (;;) {}`},
	{"stalled tool and a loop", "tools.wait({}).catch(() => {}); for (;;) {}"},
	{"large output while running", "tools.big({}).then(() => {}); for (;;) {}"},
}

func TestHardStop(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", 3<<20) + `"`)
	waiting := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "big" {
			// More than the pipe holds: the write waits for a worker
			// that does not read while the program runs.
			return big, nil
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for _, mode := range []string{"timeout", "cancel"} {
		for _, p := range runaways {
			t.Run(mode+"/"+p.name, func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				const limit = 300 * time.Millisecond
				ctx := context.Background()
				opts := Options{Source: p.src, CallTool: waiting}
				var stopAt time.Time
				start := time.Now()
				if mode == "timeout" {
					opts.Limits = Limits{Timeout: limit}
					stopAt = start.Add(limit)
				} else {
					opts.Limits = Limits{Timeout: time.Minute}
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					defer cancel()
					stopAt = start.Add(limit)
					time.AfterFunc(limit, cancel)
				}
				_, err := Run(ctx, opts)
				late := time.Since(stopAt)
				var e *Error
				require.ErrorAs(t, err, &e)
				want := CodeTimeout
				if mode == "cancel" {
					want = CodeAborted
				}
				assert.Equal(t, want, e.Code, "%v", e)
				assert.Less(t, late, promptly(hardStopBound), "the run returned %v after it should have stopped", late)
			})
		}
	}
	// The pool recovers from the workers it had to end.
	assert.Equal(t, "2", mustRun(t, "return 1 + 1", Options{}))
}

func TestTransformObeysTimeoutAndCancellation(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// More than the default source limit, so that the transform alone
	// takes several times longer than the run may.
	src := strings.Repeat("x = [1, 2, 3].map(v => v * 2);\n", 50_000)
	limits := Limits{Timeout: 200 * time.Millisecond, MaxSourceBytes: len(src)}
	start := time.Now()
	e := runErr(t, src, Options{Limits: limits})
	assert.Equal(t, CodeTimeout, e.Code)
	assert.Less(t, time.Since(start), limits.Timeout+promptly(hardStopBound))

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err := Run(ctx, Options{Source: src, Limits: Limits{Timeout: time.Minute, MaxSourceBytes: len(src)}})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeAborted, e.Code)
	assert.Less(t, time.Since(start), 100*time.Millisecond+promptly(hardStopBound))
}

func TestWorkerKilledFromOutside(t *testing.T) {
	started := make(chan struct{})
	tool := func(ctx context.Context, _ ToolCall) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Options{Source: "await tools.x({})", CallTool: tool, Limits: quick})
		done <- err
	}()
	waitClosed(t, started, promptly(5*time.Second), "the tool call")
	// The only busy worker is the one running the program.
	killBusyWorkers(t)
	var e *Error
	select {
	case err := <-done:
		require.ErrorAs(t, err, &e)
	case <-time.After(promptly(5 * time.Second)):
		t.Fatal("Run did not return after its worker ended")
	}
	assert.Equal(t, CodeError, e.Code)
	assert.Contains(t, e.Message, "ended unexpectedly")
	assert.Equal(t, "2", mustRun(t, "return 1 + 1", Options{}))
}

// killBusyWorkers kills the worker processes that are not idle.
func killBusyWorkers(t *testing.T) {
	t.Helper()
	workers.mu.Lock()
	idle := map[*worker]bool{}
	for _, w := range workers.idle {
		idle[w] = true
	}
	workers.mu.Unlock()
	allWorkers.Range(func(k, _ any) bool {
		if w := k.(*worker); !idle[w] {
			_ = w.cmd.Process.Kill()
		}
		return true
	})
}
