package quickjs_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/quickjs"
)

func run(t *testing.T, js string, limits ai.CodeModeLimits) (*ai.CodeModeResult, error) {
	t.Helper()
	return ai.RunCodeMode(context.Background(), ai.RunCodeModeOptions{JS: js, Limits: limits})
}

func codeOf(err error) string {
	var ce *ai.CodeModeError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

// The limits of CodeModeLimits reach the engine.
func TestLimitsReachTheEngine(t *testing.T) {
	res, err := run(t, "return 1 + 1", ai.CodeModeLimits{})
	if err != nil || string(res.Value) != "2" {
		t.Fatalf("got %v, %v", res, err)
	}
	_, err = run(t, "return "+strings.Repeat("[", 20)+strings.Repeat("]", 20), ai.CodeModeLimits{MaxNestingDepth: 10})
	if codeOf(err) != ai.CodeModeUserError {
		t.Errorf("a program nested too deeply: %v", err)
	}
	_, err = run(t, `throw new Error("x".repeat(10000))`, ai.CodeModeLimits{MaxErrorMessageBytes: 100})
	var ce *ai.CodeModeError
	if !errors.As(err, &ce) || len(ce.Message) > 200 {
		t.Errorf("a long error message was not cut: %d bytes", len(ce.Message))
	}
}

// Runs over the process-wide limit fail at once.
func TestConcurrentRunsAreBounded(t *testing.T) {
	quickjs.SetMaxConcurrentRuns(1)
	defer quickjs.SetMaxConcurrentRuns(0)
	if quickjs.MaxConcurrentRuns() != 1 {
		t.Fatal("the limit was not set")
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	block := ai.NewTool(ai.ToolDef[struct{}, string]{
		Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := ai.RunCodeMode(ctx, ai.RunCodeModeOptions{JS: "await tools.block({})", Tools: ai.Tools{{Name: "block", Tool: block}}})
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the first run did not start")
	}
	_, err := run(t, "return 1", ai.CodeModeLimits{})
	if codeOf(err) != ai.CodeModeConcurrencyLimit {
		t.Errorf("a second run: %v, want %s", err, ai.CodeModeConcurrencyLimit)
	}
	cancel()
	if err := <-done; codeOf(err) != ai.CodeModeAborted {
		t.Errorf("the first run: %v", err)
	}
}

// A limit over its maximum is lowered to it; a negative one is an invalid
// argument.
func TestLimitsOutOfRange(t *testing.T) {
	res, err := run(t, "return 7", ai.CodeModeLimits{MemoryBytes: math.MaxInt, MaxSourceBytes: math.MaxInt, Timeout: math.MaxInt64})
	if err != nil || string(res.Value) != "7" {
		t.Fatalf("got %v, %v", res, err)
	}
	_, err = run(t, "return 7", ai.CodeModeLimits{MaxToolCalls: -1})
	var ia *ai.InvalidArgumentError
	if !errors.As(err, &ia) || ia.Parameter != "Limits.MaxToolCalls" {
		t.Fatalf("got %v", err)
	}
}
