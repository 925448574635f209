package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// quick are limits that keep a failing test from hanging.
var quick = Limits{Timeout: 30 * time.Second}

// promptly is how soon a run must end once it should stop. The race
// detector slows the engine about tenfold, and a machine with more runnable
// processes than processors makes every process wait its turn, so the
// bound grows with both.
func promptly(d time.Duration) time.Duration {
	if raceEnabled {
		d *= 5
	}
	return time.Duration(float64(d) * loadFactor())
}

// loadFactor is the system's load average over the number of processors,
// at least 1 (1 where the system does not tell).
func loadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	return max(1, load/float64(runtime.NumCPU()))
}

// run runs src with opts (Source replaced) and quick limits unless opts
// sets its own.
func runJS(t *testing.T, src string, opts Options) (*Result, error) {
	t.Helper()
	opts.Source = src
	if opts.Limits == (Limits{}) {
		opts.Limits = quick
	}
	return Run(context.Background(), opts)
}

// mustRun runs src and returns the JSON of its result as a string.
func mustRun(t *testing.T, src string, opts Options) string {
	t.Helper()
	res, err := runJS(t, src, opts)
	require.NoError(t, err)
	return string(res.Value)
}

// runErr runs src, which must fail, and returns the *Error.
func runErr(t *testing.T, src string, opts Options) *Error {
	t.Helper()
	res, err := runJS(t, src, opts)
	require.Error(t, err)
	require.Nil(t, res)
	var e *Error
	require.True(t, errors.As(err, &e), "error %T is not a *sandbox.Error", err)
	return e
}

// echo is a CallTool returning each call's input.
func echo(_ context.Context, c ToolCall) (json.RawMessage, error) {
	return c.Input, nil
}

// recorder is a CallTool that records every call and answers with fn.
type recorder struct {
	mu    sync.Mutex
	calls []ToolCall
	fn    func(ctx context.Context, c ToolCall) (json.RawMessage, error)
}

func (r *recorder) call(ctx context.Context, c ToolCall) (json.RawMessage, error) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	if r.fn == nil {
		return c.Input, nil
	}
	return r.fn(ctx, c)
}

func (r *recorder) snapshot() []ToolCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ToolCall(nil), r.calls...)
}

// waitClosed fails the test unless ch is closed within d.
func waitClosed(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("timed out waiting for %s", what)
	}
}
