package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/ratelimit"
)

// fakeClock is a clock the test advances; timers fire in Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock and runs the timers that became due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			t.stopped = true
			due = append(due, t.f)
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// call is a model call the test answers.
type call struct {
	prompt string
	reply  chan reply
}

type reply struct {
	headers provider.Header
	err     error
}

// handModel hands each call to the test and answers what the test says.
type handModel struct {
	calls   chan call
	arrived atomic.Int64
}

func (m *handModel) Provider() string { return "hand" }
func (m *handModel) ModelID() string  { return "hand" }
func (m *handModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	c := call{reply: make(chan reply, 1)}
	if u, ok := opts.Prompt[len(opts.Prompt)-1].(provider.UserMessage); ok {
		c.prompt = u.Content[0].(provider.TextPart).Text
	}
	m.arrived.Add(1)
	m.calls <- c
	r := <-c.reply
	if r.err != nil {
		return nil, r.err
	}
	return &provider.GenerateResult{
		Content:      []provider.Content{provider.Text{Text: "ok"}},
		FinishReason: provider.FinishReason{Unified: provider.FinishStop},
		Response:     &provider.ResponseInfo{Headers: r.headers},
	}, nil
}
func (m *handModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	return nil, errors.New("not used")
}

// waits records the waits reported to the observer.
type waits struct {
	ai.Observer
	mu  sync.Mutex
	got []ai.WaitInfo
}

func (w *waits) ModelCallWait(_ context.Context, info ai.WaitInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got = append(w.got, info)
}

func (w *waits) reasons() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var r []string
	for _, g := range w.got {
		r = append(r, g.Reason)
	}
	return r
}

// nopObserver implements ai.Observer doing nothing.
type nopObserver struct{}

func (nopObserver) StartGeneration(ctx context.Context, _ ai.GenerationInfo) (context.Context, func(ai.GenerationOutcome)) {
	return ctx, func(ai.GenerationOutcome) {}
}
func (nopObserver) StartStep(ctx context.Context, _ ai.StepInfo) (context.Context, func(ai.StepOutcome)) {
	return ctx, func(ai.StepOutcome) {}
}
func (nopObserver) StartModelCall(ctx context.Context, _ ai.ModelCallInfo) (context.Context, func(ai.ModelCallOutcome)) {
	return ctx, func(ai.ModelCallOutcome) {}
}
func (nopObserver) StartToolCall(ctx context.Context, _ ai.ToolCallInfo) (context.Context, func(ai.ToolCallOutcome)) {
	return ctx, func(ai.ToolCallOutcome) {}
}
func (nopObserver) Retry(context.Context, ai.RetryInfo) {}

// until waits for cond, yielding to the goroutines that make it true.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 30_000 {
			t.Fatalf("never happened: %s", what)
		}
		runtime.Gosched()
		if i > 1000 {
			time.Sleep(time.Millisecond)
		}
	}
}

func headers(kv ...string) provider.Header {
	h := provider.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestRateLimiterPaces(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	lim := ratelimit.New(ratelimit.Options{
		Clock: clock,
		// A call costs 100 tokens, or 600 for a prompt starting "big".
		EstimateTokens: func(o *provider.CallOptions) int {
			if u := o.Prompt[len(o.Prompt)-1].(provider.UserMessage); strings.HasPrefix(u.Content[0].(provider.TextPart).Text, "big") {
				return 600
			}
			return 100
		},
	})
	m := &handModel{calls: make(chan call)}
	model := middleware.Wrap(m, lim.Middleware())
	obs := &waits{Observer: nopObserver{}}

	type done struct {
		prompt string
		err    error
	}
	results := make(chan done, 16)
	start := func(ctx context.Context, prompt string) {
		before := int64(lim.Waiting()) + m.arrived.Load()
		go func() {
			_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Prompt: prompt, Observer: obs, MaxRetries: new(0)})
			results <- done{prompt, err}
		}()
		// Wait until it queued or reached the model, so that the
		// calls enter the queue in the order they were started.
		until(t, prompt+" queued", func() bool {
			if len(results) > 0 {
				r := <-results
				t.Fatalf("%q finished early: %v", r.prompt, r.err)
			}
			return int64(lim.Waiting())+m.arrived.Load() > before
		})
	}
	// next returns the calls of the prompts, which reach the model in
	// any order.
	nextAll := func(want ...string) map[string]call {
		t.Helper()
		got := map[string]call{}
		for range want {
			c := <-m.calls
			if !slices.Contains(want, c.prompt) {
				t.Fatalf("the model got %q, want one of %q", c.prompt, want)
			}
			got[c.prompt] = c
		}
		return got
	}
	next := func(want string) call { t.Helper(); return nextAll(want)[want] }
	// finish waits for the generations of the prompts to end without
	// an error, in any order.
	finish := func(want ...string) {
		t.Helper()
		for range want {
			r := <-results
			if !slices.Contains(want, r.prompt) || r.err != nil {
				t.Fatalf("finished %q (err %v), want %q to finish", r.prompt, r.err, want)
			}
		}
	}
	window := func(requests, tokens int) provider.Header {
		return headers(
			"x-ratelimit-limit-requests", "3", "x-ratelimit-remaining-requests", fmt.Sprint(requests), "x-ratelimit-reset-requests", "1s",
			"x-ratelimit-limit-tokens", "1000", "x-ratelimit-remaining-tokens", fmt.Sprint(tokens), "x-ratelimit-reset-tokens", "1s")
	}

	// The budget is unknown: the first call goes alone and its response
	// tells it (3 requests and 1000 tokens a second, 2 and 900 left).
	for _, p := range []string{"a1", "a2", "a3", "a4", "a5"} {
		ctx := context.Background()
		start(ctx, p)
	}
	c := next("a1")
	if n := lim.Waiting(); n != 4 {
		t.Fatalf("%d calls wait behind the first one, want 4", n)
	}
	c.reply <- reply{headers: window(2, 900)}
	finish("a1")

	// Two fit the window, in the order they came; the others wait for the
	// reset.
	cs := nextAll("a2", "a3")
	c2, c3 := cs["a2"], cs["a3"]
	until(t, "a4 and a5 wait", func() bool { return lim.Waiting() == 2 })
	c2.reply <- reply{headers: window(1, 800)}
	c3.reply <- reply{headers: window(0, 700)}
	finish("a2", "a3")
	select {
	case c := <-m.calls:
		t.Fatalf("%q was sent beyond the budget", c.prompt)
	default:
	}
	if n := lim.Waiting(); n != 2 {
		t.Fatalf("%d calls wait, want 2", n)
	}

	// A second later the window resets to its limit: a4 and a5 go.
	clock.Advance(time.Second)
	cs = nextAll("a4", "a5")
	c4, c5 := cs["a4"], cs["a5"]
	c4.reply <- reply{headers: window(2, 900)}
	c5.reply <- reply{headers: window(1, 800)}
	finish("a4", "a5")
	if got := obs.reasons(); len(got) != 2 || got[0] != "requests" || got[1] != "requests" {
		t.Fatalf("waits reported to the observer: %v, want two waits for requests", got)
	}

	// Tokens: in the next window, two requests and 300 tokens are left
	// after a6. A 600-token call
	// waits for the token budget although a request is left, and a small
	// call behind it, which would fit, does not overtake it.
	clock.Advance(time.Second)
	start(context.Background(), "a6")
	next("a6").reply <- reply{headers: window(2, 300)}
	finish("a6")
	start(context.Background(), "big1")
	start(context.Background(), "a7")
	select {
	case c := <-m.calls:
		t.Fatalf("%q was sent beyond the token budget", c.prompt)
	default:
	}
	clock.Advance(time.Second)
	cs = nextAll("big1", "a7")
	c6, c7 := cs["big1"], cs["a7"]
	c6.reply <- reply{headers: window(2, 400)}
	c7.reply <- reply{headers: window(1, 300)}
	finish("big1", "a7")
	if got := obs.reasons(); len(got) != 4 || got[2] != "tokens" || got[3] != "tokens" {
		t.Fatalf("waits reported to the observer: %v, want two more waits for tokens", got)
	}

	// A 429 with retry-after blocks every call for that long.
	start(context.Background(), "r1")
	next("r1").reply <- reply{err: &provider.APICallError{
		StatusCode: 429, Retryable: true, Message: "slow down",
		ResponseHeaders: headers("retry-after", "5"),
	}}
	if r := <-results; r.prompt != "r1" || r.err == nil {
		t.Fatalf("r1 finished with %v, want the 429", r.err)
	}
	start(context.Background(), "r2")
	clock.Advance(4 * time.Second)
	if n := lim.Waiting(); n != 1 {
		t.Fatalf("%d calls wait during the retry-after, want 1", n)
	}
	clock.Advance(time.Second)
	next("r2").reply <- reply{headers: window(2, 900)}
	finish("r2")

	// The queue time counts against the context: a call whose context
	// ends while it waits fails with a WaitError that wraps the cause.
	start(context.Background(), "c1")
	next("c1").reply <- reply{headers: window(0, 900)}
	finish("c1")
	cause := errors.New("the user left")
	ctx, cancel := context.WithCancelCause(context.Background())
	start(ctx, "c2")
	cancel(cause)
	r := <-results
	var werr *ratelimit.WaitError
	if r.prompt != "c2" || !errors.As(r.err, &werr) || !errors.Is(r.err, cause) || werr.Reason != "requests" {
		t.Fatalf("c2 finished with %v, want a WaitError for requests wrapping the cause", r.err)
	}
	if n := lim.Waiting(); n != 0 {
		t.Fatalf("%d calls wait after the cancellation, want 0", n)
	}
}

// TestRateLimiterWithoutHeaders: a provider that reports no limits is not
// limited once its first response arrived.
func TestRateLimiterWithoutHeaders(t *testing.T) {
	lim := ratelimit.New(ratelimit.Options{Clock: &fakeClock{now: time.Unix(0, 0)}})
	m := &handModel{calls: make(chan call)}
	model := middleware.Wrap(m, lim.Middleware())
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: fmt.Sprint("p", i)})
			errs <- err
		}()
	}
	first := <-m.calls
	until(t, "three calls queue", func() bool { return lim.Waiting() == 3 })
	first.reply <- reply{}
	// The other three are all in flight at once.
	var rest []call
	for range 3 {
		rest = append(rest, <-m.calls)
	}
	for _, c := range rest {
		c.reply <- reply{}
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
