package providertest

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// helloTurn is the answer of a call that succeeds.
var helloTurn = turn{id: "resp_ok", text: "Hello after a retry.", input: 7, output: 5}

// promptBound is how long a call that must not wait for the default
// backoff (2 s) may take.
const promptBound = 1500 * time.Millisecond

// checkSuccess checks a generation that succeeded after calls requests.
func checkSuccess(t *testing.T, srv *server, o outcome, calls int) {
	t.Helper()
	require.NoError(t, o.err)
	assert.NoError(t, o.iterErr)
	assert.Empty(t, o.errorParts())
	assert.Equal(t, calls, srv.count(), "requests")
	require.NotNil(t, o.res)
	require.Len(t, o.res.Steps, 1)
	assert.Equal(t, helloTurn.text, o.res.Text)
	assert.Equal(t, ai.FinishStop, o.res.FinishReason)
	assert.Equal(t, helloTurn.input, deref(o.res.Usage.InputTokens))
	assert.Equal(t, helloTurn.output, deref(o.res.Usage.OutputTokens))
	if o.parts != nil {
		assert.Equal(t, helloTurn.text, o.streamedText())
	}
}

// apiError checks that err is the provider's API error and returns it.
func apiError(t *testing.T, err error, status int, message string, retryable bool) *provider.APICallError {
	t.Helper()
	var apiErr *provider.APICallError
	if !assert.ErrorAs(t, err, &apiErr) {
		return nil
	}
	assert.Equal(t, status, apiErr.StatusCode)
	assert.Equal(t, message, apiErr.Message)
	assert.Equal(t, retryable, apiErr.Retryable)
	return apiErr
}

func TestRetries(t *testing.T) {
	type testCase struct {
		name       string
		maxRetries *int
		// generateOnly skips StreamText.
		generateOnly bool
		// script answers the requests; ok is the successful answer.
		script func(w wire, ok reply) []reply
		// cancelOnFirstAnswer cancels the generation once the server sent its
		// first answer.
		cancelOnFirstAnswer bool
		check               func(t *testing.T, srv *server, stream bool, o outcome)
	}
	cases := []testCase{
		{
			name: "rate limited with retry-after-ms, then success",
			script: func(w wire, ok reply) []reply {
				return []reply{errorReply(429, w.errorBody(429, "Rate limit reached for requests."), "retry-after-ms", "10"), ok}
			},
			check: func(t *testing.T, srv *server, _ bool, o outcome) {
				checkSuccess(t, srv, o, 2)
				assert.GreaterOrEqual(t, o.elapsed, 10*time.Millisecond, "the retry must wait as the header says")
				assert.Less(t, o.elapsed, promptBound)
			},
		},
		{
			name: "rate limited with retry-after 0, then success",
			script: func(w wire, ok reply) []reply {
				return []reply{errorReply(429, w.errorBody(429, "Rate limit reached for requests."), "retry-after", "0"), ok}
			},
			check: func(t *testing.T, srv *server, _ bool, o outcome) {
				checkSuccess(t, srv, o, 2)
				assert.Less(t, o.elapsed, promptBound)
			},
		},
		{
			name: "server error, then success",
			script: func(w wire, ok reply) []reply {
				return []reply{errorReply(500, w.errorBody(500, "The server had an error while processing your request."), "retry-after-ms", "5"), ok}
			},
			check: func(t *testing.T, srv *server, _ bool, o outcome) {
				checkSuccess(t, srv, o, 2)
				assert.Less(t, o.elapsed, promptBound)
			},
		},
		{
			name: "two overloads, then success",
			script: func(w wire, ok reply) []reply {
				overloaded := errorReply(529, w.errorBody(529, "Overloaded"), "retry-after", "0.005")
				return []reply{overloaded, overloaded, ok}
			},
			check: func(t *testing.T, srv *server, _ bool, o outcome) {
				checkSuccess(t, srv, o, 3)
				assert.Less(t, o.elapsed, promptBound)
			},
		},
		{
			name: "bad request is not retried",
			script: func(w wire, ok reply) []reply {
				return []reply{errorReply(400, w.errorBody(400, "Invalid value for 'temperature'."), "retry-after-ms", "1"), ok}
			},
			check: func(t *testing.T, srv *server, stream bool, o outcome) {
				assert.Equal(t, 1, srv.count(), "requests")
				err := o.callErr(t, stream)
				var retryErr *ai.RetryError
				assert.False(t, errors.As(err, &retryErr), "a first non-retryable error is returned unwrapped: %v", err)
				apiErr := apiError(t, err, 400, "Invalid value for 'temperature'.", false)
				if apiErr != nil {
					assert.Equal(t, srv.URL+requestURI(srv.wire, stream), apiErr.URL)
					assert.NotEmpty(t, apiErr.ResponseBody)
				}
				if !stream {
					require.NotNil(t, o.res, "a failed generation returns the steps finished before the failure")
					assert.Empty(t, o.res.Steps)
				}
			},
		},
		{
			name:       "retries exhausted",
			maxRetries: new(1),
			script: func(w wire, ok reply) []reply {
				return []reply{errorReply(429, w.errorBody(429, "Rate limit reached for requests."), "retry-after-ms", "1")}
			},
			check: func(t *testing.T, srv *server, stream bool, o outcome) {
				assert.Equal(t, 2, srv.count(), "requests")
				err := o.callErr(t, stream)
				var retryErr *ai.RetryError
				if assert.ErrorAs(t, err, &retryErr) {
					assert.Equal(t, "maxRetriesExceeded", retryErr.Reason)
					if assert.Len(t, retryErr.Errors, 2) {
						for _, e := range retryErr.Errors {
							apiError(t, e, 429, "Rate limit reached for requests.", true)
						}
					}
				}
				apiError(t, err, 429, "Rate limit reached for requests.", true)
			},
		},
		{
			name: "retryable error, then a bad request",
			script: func(w wire, ok reply) []reply {
				return []reply{
					errorReply(503, w.errorBody(503, "Service unavailable."), "retry-after-ms", "1"),
					errorReply(400, w.errorBody(400, "Invalid request."), "retry-after-ms", "1"),
					ok,
				}
			},
			check: func(t *testing.T, srv *server, stream bool, o outcome) {
				assert.Equal(t, 2, srv.count(), "requests")
				var retryErr *ai.RetryError
				if assert.ErrorAs(t, o.callErr(t, stream), &retryErr) {
					assert.Equal(t, "errorNotRetryable", retryErr.Reason)
					if assert.Len(t, retryErr.Errors, 2) {
						apiError(t, retryErr.Errors[0], 503, "Service unavailable.", true)
						apiError(t, retryErr.Errors[1], 400, "Invalid request.", false)
					}
				}
			},
		},
		{
			name:       "connection lost before the answer",
			maxRetries: new(0),
			script: func(w wire, ok reply) []reply {
				return []reply{{handle: dropConnection}}
			},
			check: func(t *testing.T, srv *server, stream bool, o outcome) {
				assert.Equal(t, 1, srv.count(), "requests")
				var apiErr *provider.APICallError
				if assert.ErrorAs(t, o.callErr(t, stream), &apiErr) {
					assert.True(t, apiErr.Retryable, "a lost connection is worth retrying")
				}
			},
		},
		{
			name:         "answer cut off while reading, then success",
			generateOnly: true,
			script: func(w wire, ok reply) []reply {
				cut := errorReply(200, ok.body[:len(ok.body)/2], "retry-after-ms", "5")
				cut.then = dropConnection
				return []reply{cut, ok}
			},
			check: func(t *testing.T, srv *server, _ bool, o outcome) {
				checkSuccess(t, srv, o, 2)
				assert.Less(t, o.elapsed, promptBound)
			},
		},
		{
			name:         "unreadable answer is not retried",
			generateOnly: true,
			script: func(w wire, ok reply) []reply {
				return []reply{jsonReply(`{"id": "resp_bad", "output": [`), ok}
			},
			check: func(t *testing.T, srv *server, _ bool, o outcome) {
				assert.Equal(t, 1, srv.count(), "requests")
				var invalid *provider.InvalidResponseDataError
				assert.ErrorAs(t, o.err, &invalid)
			},
		},
		{
			name:                "cancelled while waiting to retry",
			cancelOnFirstAnswer: true,
			script: func(w wire, ok reply) []reply {
				return []reply{errorReply(503, w.errorBody(503, "Service unavailable."), "retry-after", "30"), ok}
			},
			check: func(t *testing.T, srv *server, stream bool, o outcome) {
				assert.Less(t, o.elapsed, promptBound, "the wait must end with the context")
				assert.Equal(t, 1, srv.count(), "requests")
				assert.ErrorIs(t, o.err, context.Canceled)
				if stream {
					assert.NoError(t, o.iterErr)
					assert.Empty(t, o.errorParts())
					assert.Equal(t, []string{"start", "abort"}, o.types())
				}
			},
		},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			for _, stream := range []bool{false, true} {
				if stream && tc.generateOnly {
					continue
				}
				t.Run(w.name()+"/"+tc.name+"/"+mode(stream), func(t *testing.T) {
					t.Parallel()
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
					defer cancel()
					script := tc.script(w, w.respond(stream, helloTurn))
					if tc.cancelOnFirstAnswer {
						script[0].then = func(http.ResponseWriter, *http.Request) { cancel() }
					}
					srv := newServer(t, w, replies(script...))
					opts := options(w, srv)
					opts.MaxRetries = tc.maxRetries
					tc.check(t, srv, stream, generate(ctx, t, stream, opts))
				})
			}
		}
	}
}
