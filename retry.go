package ai

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
)

// defaultMaxRetries is how often a failed model call is retried.
const defaultMaxRetries = 2

// initialBackoff and backoffFactor shape the wait between attempts.
const (
	initialBackoff = 2 * time.Second
	backoffFactor  = 2
)

// retry runs a model call, retrying errors marked retryable with
// exponential backoff and the provider's retry-after hints.
func retry[T any](ctx context.Context, rt effect.Retry, f func(context.Context) (T, error)) (T, error) {
	maxRetries := rt.Max
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
		if rt.Notify != nil {
			rt.Notify(attempt+1, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			// Keep the error that caused the wait beside the cancellation.
			return zero, &RetryError{Reason: "abort", Errors: errs, Cause: context.Cause(ctx)}
		case <-t.C:
		}
		backoff *= backoffFactor
	}
}

// retryDelay honours retry-after-ms and retry-after when they are sane
// (non-negative, and under a minute or shorter than the backoff).
func retryDelay(h provider.Header, backoff time.Duration, now time.Time) time.Duration {
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
			} else if t, ok := parseHTTPDate(v); ok {
				hint, found = t.Sub(now), true
			}
		}
	}
	if found && hint >= 0 && (hint < time.Minute || hint < backoff) {
		return hint
	}
	return backoff
}

// parseHTTPDate parses an HTTP date in the three formats HTTP allows.
func parseHTTPDate(v string) (time.Time, bool) {
	for _, layout := range []string{
		"Mon, 02 Jan 2006 15:04:05 GMT", // RFC 1123 with GMT, the preferred form
		time.RFC850,
		time.ANSIC,
	} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
