// Package ratelimit paces model calls to stay within a provider's rate
// limits. A [Limiter] is shared by every call that spends the same budget
// (one API key of one provider, say), from any number of generations: its
// [Limiter.Middleware] wraps the models with package middleware.
//
//	limiter := ratelimit.New(ratelimit.Options{})
//	model := middleware.Wrap(openai.New(...).Chat("gpt-5"), limiter.Middleware())
//
// The limiter learns the budget from the responses' rate-limit headers
// (OpenAI's x-ratelimit-remaining-requests, -tokens and x-ratelimit-reset-*,
// Anthropic's anthropic-ratelimit-*, and retry-after on a 429): a call is
// sent only when the remaining requests and the remaining tokens, less what
// the calls already sent will spend, cover it; otherwise it waits until the
// budget resets. Calls wait in one first-in, first-out queue, so a large
// call is not overtaken forever by small ones. Until the first response
// tells the budget, one call is sent at a time; a provider that sends no
// rate-limit headers is not limited.
//
// The wait counts against the call's context: when the context ends in the
// queue, the call fails with a [*WaitError] that wraps the context's cause.
// A call that waited is reported to the generation's observer when it is an
// [ai.WaitObserver], as the observers of packages aiotel (a span event) and
// aislog (a record) are.
//
// The token cost of a call is estimated before it is sent (see
// [Options.EstimateTokens]); the provider's headers correct the estimate
// as responses arrive.
package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/seq"
	"github.com/aisdkgo/ai/middleware"
	"github.com/aisdkgo/ai/provider"
)

// Clock is the limiter's time source. Tests use a clock they advance
// themselves.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed, unless
	// the returned stop function is called first.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Options configure a [Limiter].
type Options struct {
	// Clock is the time source; nil means the system clock.
	Clock Clock
	// EstimateTokens returns the tokens a call will spend, as the
	// provider counts them against its token budget. Nil means
	// [EstimateTokens].
	EstimateTokens func(opts *provider.CallOptions) int
}

// Limiter paces calls to a provider's rate limits. It is safe for
// concurrent use; create it with [New].
type Limiter struct {
	clock    Clock
	estimate func(*provider.CallOptions) int

	mu       sync.Mutex
	requests budget
	tokens   budget
	// blockedUntil is when a retry-after the server asked for ends.
	blockedUntil time.Time
	// informed is set once a response arrived: until then one call is
	// sent at a time, to learn the budget.
	informed bool
	queue    []*waiter
	// inflight and inflightTokens count the calls sent whose response
	// has not arrived, and their estimated tokens.
	inflight       int64
	inflightTokens int64
	// lastReason is why the head of the queue waited last.
	lastReason string
	timerAt    time.Time
	stopTimer  func() bool
}

// budget is what the limiter knows of one budget.
type budget struct {
	// known says remaining holds the budget left (less the calls sent
	// since); when false, the budget is unknown or not limited.
	known     bool
	limit     int64 // 0 when not reported
	remaining int64
	reset     time.Time // zero when unknown
}

type waiter struct {
	tokens   int64
	enqueued time.Time
	ready    chan struct{}
	admitted bool
	waited   time.Duration
	reason   string
}

// New returns a limiter that knows nothing of the budget yet.
func New(opts Options) *Limiter {
	l := &Limiter{clock: opts.Clock, estimate: opts.EstimateTokens}
	if l.clock == nil {
		l.clock = realClock{}
	}
	if l.estimate == nil {
		l.estimate = EstimateTokens
	}
	return l
}

// WaitError is the error of a call whose context ended while it waited in
// the limiter's queue.
type WaitError struct {
	// Waited is how long the call waited.
	Waited time.Duration
	// Reason is what it waited for (see [ai.WaitInfo]).
	Reason string
	// Cause is the context's cause.
	Cause error
}

// Error implements the error interface.
func (e *WaitError) Error() string {
	return fmt.Sprintf("ratelimit: the call ended after waiting %s for %s: %v", e.Waited, e.Reason, e.Cause)
}

// Unwrap returns e.Cause.
func (e *WaitError) Unwrap() error { return e.Cause }

// Waiting returns the number of calls waiting in the queue.
func (l *Limiter) Waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue)
}

// Middleware returns the middleware that sends a model's calls through the
// limiter. Wrap every model that spends the budget with the same limiter.
func (l *Limiter) Middleware() middleware.Middleware {
	return middleware.New(middleware.Hooks{
		WrapGenerate: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.GenerateResult, error) {
			tokens, err := l.Acquire(ctx, l.estimate(opts))
			if err != nil {
				return nil, err
			}
			res, err := next.Generate(ctx, opts)
			var info *provider.ResponseInfo
			if res != nil {
				info = res.Response
			}
			l.Done(tokens, info, err)
			return res, err
		},
		WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
			tokens, err := l.Acquire(ctx, l.estimate(opts))
			if err != nil {
				return nil, err
			}
			res, err := next.Stream(ctx, opts)
			var info *provider.ResponseInfo
			if res != nil {
				info = res.Response
			}
			if err != nil || res == nil || res.Stream == nil {
				l.Done(tokens, info, err)
				return res, err
			}
			l.Done(tokens, info, nil)
			// A stream that fails before its first part may carry a rate
			// limit error; learn from it too.
			out := *res
			out.Stream = func(yield func(provider.StreamPart, error) bool) {
				first := true
				seq.Each(res.Stream, func(p provider.StreamPart, err error) bool {
					if first && err != nil {
						l.learn(err)
					}
					first = false
					return yield(p, err)
				})
			}
			return &out, nil
		},
	})
}

// Acquire waits until a call that spends the given tokens fits the budget,
// or ctx ends (then it returns a [*WaitError]). It returns the tokens it
// reserved, to hand to [Limiter.Done] once the call's response (or error)
// arrived. The middleware calls both; call them directly to pace other
// requests that spend the same budget.
func (l *Limiter) Acquire(ctx context.Context, tokens int) (int64, error) {
	w := &waiter{tokens: int64(max(tokens, 0)), ready: make(chan struct{})}
	l.mu.Lock()
	w.enqueued = l.clock.Now()
	l.queue = append(l.queue, w)
	l.dispatch()
	l.mu.Unlock()
	select {
	case <-w.ready:
	case <-ctx.Done():
		l.mu.Lock()
		if w.admitted {
			// Sent nowhere: the reservation stays spent (the budget is
			// only ever underestimated), the call no longer flies.
			l.inflight--
			l.inflightTokens -= w.tokens
		} else {
			w.waited = l.clock.Now().Sub(w.enqueued)
			w.reason = l.lastReason
			for i, q := range l.queue {
				if q == w {
					l.queue = append(l.queue[:i], l.queue[i+1:]...)
					break
				}
			}
		}
		l.dispatch()
		l.mu.Unlock()
		return 0, &WaitError{Waited: w.waited, Reason: w.reason, Cause: context.Cause(ctx)}
	}
	if w.waited > 0 {
		ai.ReportWait(ctx, ai.WaitInfo{Reason: w.reason, Duration: w.waited, Tokens: int(w.tokens)})
	}
	return w.tokens, nil
}

// Done records the response of a call that [Limiter.Acquire] let through:
// info holds its headers (nil when none arrived), err its error, whose
// headers are read when it is a *provider.APICallError.
func (l *Limiter) Done(tokens int64, info *provider.ResponseInfo, err error) {
	var h provider.Header
	responded := err == nil
	if info != nil {
		h = info.Headers
	}
	if api, ok := apiError(err); ok {
		if api.ResponseHeaders != nil {
			h = api.ResponseHeaders
		}
		responded = api.StatusCode != 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	l.inflightTokens -= tokens
	if responded {
		l.observe(h, tokens)
	}
	l.dispatch()
}

// learn reads the headers of an error that arrived in a stream.
func (l *Limiter) learn(err error) {
	if api, ok := apiError(err); ok && api.ResponseHeaders != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.observe(api.ResponseHeaders, 0)
		l.dispatch()
	}
}

func apiError(err error) (*provider.APICallError, bool) {
	var api *provider.APICallError
	return api, errors.As(err, &api)
}

// observe takes in what a response's headers say; l.mu is held. tokens is
// the estimate of the call that got the response, which no longer counts
// as in flight.
func (l *Limiter) observe(h provider.Header, tokens int64) {
	now := l.clock.Now()
	r := parseHeaders(h, now)
	l.informed = true
	l.requests.take(r.requests, now, l.inflight)
	l.tokens.take(r.tokens, now, l.inflightTokens)
	if r.hasRetryAfter {
		if until := now.Add(r.retryAfter); until.After(l.blockedUntil) {
			l.blockedUntil = until
		}
	}
}

// take updates a budget with what one response says; inflight is what the
// other calls in flight will spend, which the response may not count yet.
func (b *budget) take(d dimension, now time.Time, inflight int64) {
	if d.hasLimit {
		b.limit = d.limit
	}
	if !d.hasRemaining {
		return
	}
	if !d.reset.IsZero() && !d.reset.After(now) {
		return // the window it describes is over
	}
	if b.known {
		b.remaining = min(b.remaining, d.remaining)
	} else {
		b.known = true
		b.remaining = d.remaining - inflight
	}
	if d.reset.After(b.reset) {
		b.reset = d.reset
	}
}

// roll starts a new window for a budget whose reset passed.
func (b *budget) roll(now time.Time) {
	if !b.known || b.reset.IsZero() || now.Before(b.reset) {
		return
	}
	b.reset = time.Time{}
	if b.limit > 0 {
		b.remaining = b.limit
	} else {
		b.known = false
	}
}

// blocked reports whether a call costing cost does not fit the budget now,
// and until when it waits (zero: until a response arrives).
func (b *budget) blocked(cost int64) (bool, time.Time) {
	if !b.known {
		return false, time.Time{}
	}
	if b.limit > 0 {
		cost = min(cost, b.limit) // a call above the limit goes with a full budget
	}
	if b.remaining >= cost {
		return false, time.Time{}
	}
	return true, b.reset
}

// dispatch lets through the calls at the head of the queue that fit the
// budget, and arms the timer for the head that does not; l.mu is held.
func (l *Limiter) dispatch() {
	now := l.clock.Now()
	l.requests.roll(now)
	l.tokens.roll(now)
	var until time.Time
	for len(l.queue) > 0 {
		w := l.queue[0]
		reason, at := l.wait(w, now)
		if reason != "" {
			l.lastReason = reason
			until = at
			break
		}
		l.queue[0] = nil
		l.queue = l.queue[1:]
		if l.requests.known {
			l.requests.remaining--
		}
		if l.tokens.known {
			l.tokens.remaining -= w.tokens
		}
		l.inflight++
		l.inflightTokens += w.tokens
		w.admitted = true
		if w.waited = now.Sub(w.enqueued); w.waited > 0 {
			w.reason = l.lastReason
		}
		close(w.ready)
	}
	if len(l.queue) == 0 {
		l.queue = nil
	}
	l.arm(until, now)
}

// wait says why w cannot go now ("" when it can) and until when.
func (l *Limiter) wait(w *waiter, now time.Time) (string, time.Time) {
	if now.Before(l.blockedUntil) {
		return "retry-after", l.blockedUntil
	}
	if !l.informed && l.inflight > 0 {
		return "queue", time.Time{}
	}
	if b, at := l.requests.blocked(1); b && (!at.IsZero() || l.inflight > 0) {
		return "requests", at
	}
	if b, at := l.tokens.blocked(w.tokens); b && (!at.IsZero() || l.inflight > 0) {
		return "tokens", at
	}
	return "", time.Time{}
}

// arm makes the limiter dispatch again at until (nothing when zero).
func (l *Limiter) arm(until, now time.Time) {
	if until.IsZero() {
		return
	}
	if l.stopTimer != nil && l.timerAt.Equal(until) {
		return
	}
	if l.stopTimer != nil {
		l.stopTimer()
	}
	l.timerAt = until
	l.stopTimer = l.clock.AfterFunc(until.Sub(now), func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.timerAt.Equal(until) {
			return // replaced
		}
		l.stopTimer, l.timerAt = nil, time.Time{}
		l.dispatch()
	})
}

// EstimateTokens is the default estimate of the tokens a call spends: its
// prompt's text (messages, tool calls and results, tool definitions) at
// four bytes a token, 1,000 tokens for each file, plus MaxOutputTokens when
// set. Providers count output tokens against the budget as the request's
// maximum, so setting MaxOutputTokens makes the estimate closer.
func EstimateTokens(opts *provider.CallOptions) int {
	if opts == nil {
		return 0
	}
	var bytes, files int
	for _, m := range opts.Prompt {
		switch m := m.(type) {
		case provider.SystemMessage:
			bytes += len(m.Content)
		case provider.UserMessage:
			for _, p := range m.Content {
				switch p := p.(type) {
				case provider.TextPart:
					bytes += len(p.Text)
				case provider.FilePart:
					files++
				}
			}
		case provider.AssistantMessage:
			for _, p := range m.Content {
				switch p := p.(type) {
				case provider.TextPart:
					bytes += len(p.Text)
				case provider.ReasoningPart:
					bytes += len(p.Text)
				case provider.ToolCallPart:
					bytes += len(p.ToolName) + len(p.Input)
				case provider.FilePart:
					files++
				}
			}
		case provider.ToolMessage:
			for _, p := range m.Content {
				if p, ok := p.(provider.ToolResultPart); ok {
					b, _ := json.Marshal(p.Output)
					bytes += len(p.ToolName) + len(b)
				}
			}
		}
	}
	for _, t := range opts.Tools {
		b, _ := json.Marshal(t)
		bytes += len(b)
	}
	n := (bytes+3)/4 + 1000*files
	if opts.MaxOutputTokens != nil && *opts.MaxOutputTokens > 0 {
		n += *opts.MaxOutputTokens
	}
	return n
}
