package ratelimit

import (
	"strconv"
	"strings"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// maxHint bounds the waits a server can ask for: a reset or retry-after
// further away than this is taken as this far away, so a broken header
// cannot stall the calls for longer.
const maxHint = 15 * time.Minute

// maxCount bounds the limits and remaining counts read from headers.
const maxCount = 1 << 40

// dimension is what one response says about one budget (requests or
// tokens).
type dimension struct {
	limit, remaining       int64
	hasLimit, hasRemaining bool
	reset                  time.Time // zero when absent
}

// report is what one response's headers say about the budgets.
type report struct {
	requests, tokens dimension
	retryAfter       time.Duration
	hasRetryAfter    bool
}

// parseHeaders reads the rate-limit headers of a response received at
// now: OpenAI's x-ratelimit-{limit,remaining,reset}-{requests,tokens}
// (the reset a duration such as "6m0s" or "20ms"), Anthropic's
// anthropic-ratelimit-{requests,tokens,input-tokens}-{limit,remaining,reset}
// (the reset an RFC 3339 time), and retry-after-ms / retry-after (seconds
// or an HTTP date).
func parseHeaders(h provider.Header, now time.Time) report {
	var r report
	if h == nil {
		return r
	}
	r.requests = parseDimension(h, now,
		"X-Ratelimit-Limit-Requests", "X-Ratelimit-Remaining-Requests", "X-Ratelimit-Reset-Requests")
	if !r.requests.hasRemaining {
		r.requests = parseDimension(h, now,
			"Anthropic-Ratelimit-Requests-Limit", "Anthropic-Ratelimit-Requests-Remaining", "Anthropic-Ratelimit-Requests-Reset")
	}
	r.tokens = parseDimension(h, now,
		"X-Ratelimit-Limit-Tokens", "X-Ratelimit-Remaining-Tokens", "X-Ratelimit-Reset-Tokens")
	if !r.tokens.hasRemaining {
		r.tokens = parseDimension(h, now,
			"Anthropic-Ratelimit-Tokens-Limit", "Anthropic-Ratelimit-Tokens-Remaining", "Anthropic-Ratelimit-Tokens-Reset")
	}
	if !r.tokens.hasRemaining {
		r.tokens = parseDimension(h, now,
			"Anthropic-Ratelimit-Input-Tokens-Limit", "Anthropic-Ratelimit-Input-Tokens-Remaining", "Anthropic-Ratelimit-Input-Tokens-Reset")
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			r.retryAfter, r.hasRetryAfter = seconds(ms/1000), true
		}
	}
	if v := h.Get("Retry-After"); v != "" && !r.hasRetryAfter {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			r.retryAfter, r.hasRetryAfter = seconds(s), true
		} else if t, err := time.Parse(time.RFC1123, v); err == nil {
			r.retryAfter, r.hasRetryAfter = clampHint(max(t.Sub(now), 0)), true
		}
	}
	return r
}

func parseDimension(h provider.Header, now time.Time, limitKey, remainingKey, resetKey string) dimension {
	var d dimension
	d.limit, d.hasLimit = parseCount(h.Get(limitKey))
	d.remaining, d.hasRemaining = parseCount(h.Get(remainingKey))
	if v := strings.TrimSpace(h.Get(resetKey)); v != "" {
		d.reset = parseReset(v, now)
	}
	return d
}

func parseCount(v string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return min(n, maxCount), true
}

// parseReset reads a reset time: a Go-style duration ("1m30.5s", "20ms"),
// a number of seconds, or an RFC 3339 time. It returns the zero time when v
// is none of these.
func parseReset(v string, now time.Time) time.Time {
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(clampHint(d))
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return now.Add(seconds(s))
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return now.Add(clampHint(max(t.Sub(now), 0)))
	}
	return time.Time{}
}

func clampHint(d time.Duration) time.Duration { return min(d, maxHint) }

// seconds converts a non-negative number of seconds to a duration of at
// most maxHint.
func seconds(s float64) time.Duration {
	if s >= maxHint.Seconds() {
		return maxHint
	}
	return time.Duration(s * float64(time.Second))
}
