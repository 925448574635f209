package ai

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// defaultMaxRetries is how often a failed model call is retried.
const defaultMaxRetries = 2

// initialBackoff and backoffFactor shape the wait between attempts.
const (
	initialBackoff = 2 * time.Second
	backoffFactor  = 2
)

// callModel runs a model call, retrying errors marked retryable with
// exponential backoff and the provider's retry-after hints.
func callModel[T any](r *run, ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	max := defaultMaxRetries
	if r.opts.MaxRetries != nil {
		max = *r.opts.MaxRetries
	}
	return retry(ctx, max, f)
}

func (r *run) callModel(ctx context.Context, f func(context.Context) (*provider.GenerateResult, error)) (*provider.GenerateResult, error) {
	return callModel(r, ctx, func(ctx context.Context) (res *provider.GenerateResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, &CallbackPanicError{Callback: "the model's Generate", Panic: v}
			}
		}()
		res, err = f(ctx)
		if err == nil && res == nil {
			err = &provider.InvalidResponseDataError{Message: "the model returned no result"}
		}
		return res, err
	})
}

func retry[T any](ctx context.Context, maxRetries int, f func(context.Context) (T, error)) (T, error) {
	var errs []error
	backoff := initialBackoff
	for attempt := 0; ; attempt++ {
		v, err := f(ctx)
		if err == nil {
			return v, nil
		}
		var zero T
		if ctx.Err() != nil {
			return zero, err
		}
		if maxRetries == 0 {
			return zero, err
		}
		errs = append(errs, err)
		var apiErr *provider.APICallError
		retryable := errors.As(err, &apiErr) && apiErr.Retryable
		if !retryable {
			if attempt == 0 {
				return zero, err
			}
			return zero, &RetryError{Reason: "errorNotRetryable", Errors: errs}
		}
		if attempt >= maxRetries {
			return zero, &RetryError{Reason: "maxRetriesExceeded", Errors: errs}
		}
		wait := retryDelay(apiErr.ResponseHeaders, backoff, time.Now())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, context.Cause(ctx)
		case <-t.C:
		}
		backoff *= backoffFactor
	}
}

// retryDelay honours retry-after-ms and retry-after when they are sane
// (non-negative, and under a minute or shorter than the backoff).
func retryDelay(h http.Header, backoff time.Duration, now time.Time) time.Duration {
	if h == nil {
		return backoff
	}
	var hint time.Duration
	found := false
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			hint, found = time.Duration(ms*float64(time.Millisecond)), true
		}
	}
	if !found {
		if v := h.Get("retry-after"); v != "" {
			if s, err := strconv.ParseFloat(v, 64); err == nil {
				hint, found = time.Duration(s*float64(time.Second)), true
			} else if t, err := http.ParseTime(v); err == nil {
				hint, found = t.Sub(now), true
			}
		}
	}
	if found && hint >= 0 && (hint < time.Minute || hint < backoff) {
		return hint
	}
	return backoff
}
