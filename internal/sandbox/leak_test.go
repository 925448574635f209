package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestNoGoroutineOutlivesRun runs programs that end in every way a run can
// end, with tool calls in flight, and checks that no goroutine is left.
func TestNoGoroutineOutlivesRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	waiting := func(ctx context.Context, c ToolCall) (json.RawMessage, error) {
		if c.Name == "fast" {
			return c.Input, nil
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for _, tc := range []struct {
		src    string
		limits Limits
		cancel bool
	}{
		{src: "return (await Promise.all([tools.fast({}), tools.fast({})])).length"},
		{src: "await tools.wait({})", limits: Limits{Timeout: 100 * time.Millisecond}},
		{src: "await Promise.all([tools.wait({}), tools.wait({})])", cancel: true},
		{src: "tools.wait({}).then(() => {}); return 1"},
		{src: "await Promise.all([tools.wait({}), tools.wait({}), tools.wait({})])", limits: Limits{Timeout: 5 * time.Second, MaxConcurrentToolCalls: 2}},
		{src: "await Promise.all([tools.wait({}), tools.fast({}).then(() => { throw new Error('x') })])"},
		{src: "tools.wait({}).catch(() => {}); while (true) {}", limits: Limits{Timeout: 100 * time.Millisecond}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		if tc.cancel {
			time.AfterFunc(50*time.Millisecond, cancel)
		}
		limits := tc.limits
		if limits == (Limits{}) {
			limits = quick
		}
		_, _ = Run(ctx, Options{Source: tc.src, CallTool: waiting, Limits: limits})
		cancel()
	}
	// A panicking tool.
	_, _ = Run(context.Background(), Options{Source: "await tools.x({})", Limits: quick,
		CallTool: func(context.Context, ToolCall) (json.RawMessage, error) { panic("boom") }})
}
