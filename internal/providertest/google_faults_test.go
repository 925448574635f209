package providertest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// googleFault is one way an answer of the Gemini protocol goes wrong, and what a
// caller of GenerateText or StreamText must see. The rows follow the
// shared fault table of the other protocols.
type googleFault struct {
	name string
	// generate and stream say which entry points the row applies to.
	generate, stream bool
	// script answers the requests; ok is the successful answer.
	script func(w googleWire, ok reply) []reply
	// timeout bounds the generation; 0 means 10 s.
	timeout    time.Duration
	maxRetries *int
	check      func(t *testing.T, srv *server, stream bool, o outcome)
}

// retryInfoBody is a quota error whose RetryInfo asks to wait delay.
func retryInfoBody(delay string) string {
	return mustJSON(map[string]any{"error": map[string]any{
		"code": 429, "message": "You exceeded your current quota, please check your plan.", "status": "RESOURCE_EXHAUSTED",
		"details": []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{"quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
		},
	}})
}

// failedCall checks a generation whose only model call failed with an
// error of the type target points to, after requests requests.
func failedCall(t *testing.T, srv *server, stream bool, o outcome, requests int, target any) {
	t.Helper()
	assert.Equal(t, requests, srv.count(), "requests")
	err := o.callErr(t, stream)
	if !assert.Error(t, err) {
		return
	}
	assert.ErrorAs(t, err, target)
	if stream {
		assert.NoError(t, o.iterErr)
		assert.Equal(t, []string{"start", "error"}, o.types(), "no step starts, nothing is made up")
		var noOutput *ai.NoOutputGeneratedError
		assert.ErrorAs(t, o.err, &noOutput)
		assert.Nil(t, o.res)
		return
	}
	if assert.NotNil(t, o.res, "a failed generation returns the steps finished before it") {
		assert.Empty(t, o.res.Steps)
	}
}

// drip answers slowly: a stream sends one chunk every few milliseconds, a
// JSON answer one byte, until the client goes away.
func drip(stream bool, w googleWire) func(http.ResponseWriter, *http.Request) {
	return func(rw http.ResponseWriter, r *http.Request) {
		chunk := "data: " + w.partial("resp_slow", "a")[0].data + "\n\n"
		if stream {
			rw.Header().Set("Content-Type", "text/event-stream")
		} else {
			rw.Header().Set("Content-Type", "application/json")
			chunk = " "
		}
		rw.WriteHeader(http.StatusOK)
		flusher := rw.(http.Flusher)
		if !stream {
			_, _ = rw.Write([]byte(`{"candidates":`))
		}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(10 * time.Second)
		for {
			_, _ = rw.Write([]byte(chunk))
			flusher.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-deadline:
				return
			case <-tick.C:
			}
		}
	}
}

var googleFaults = []googleFault{
	{
		name: "empty 200 body", generate: true, stream: true,
		script: func(w googleWire, ok reply) []reply { return []reply{jsonReply(""), ok} },
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			var invalid *provider.InvalidResponseDataError
			failedCall(t, srv, stream, o, 1, &invalid)
		},
	},
	{
		name: "event stream without events", stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{{events: []event{}}, ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			var invalid *provider.InvalidResponseDataError
			failedCall(t, srv, stream, o, 1, &invalid)
		},
	},
	{
		name: "HTML body", generate: true, stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{{header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: "<html><body><h1>Sign in to continue</h1></body></html>"}, ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			var invalid *provider.InvalidResponseDataError
			failedCall(t, srv, stream, o, 1, &invalid)
			if invalid != nil && stream {
				assert.Contains(t, string(invalid.Data), "Sign in")
			}
		},
	},
	{
		name: "error JSON in a 200 answer", generate: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{jsonReply(w.errorBody(400, "Request contains an invalid argument.")), ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			// An error in a 200 answer has the answer's status.
			apiError(t, o.callErr(t, stream), 200, "Request contains an invalid argument.", false)
		},
	},
	{
		name: "error JSON in a 200 answer is not retried, whatever its code", generate: true,
		script: func(w googleWire, ok reply) []reply {
			r := jsonReply(w.errorBody(503, "The model is overloaded."))
			r.header = http.Header{"Retry-After-Ms": {"5"}}
			return []reply{r, ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			apiError(t, o.callErr(t, stream), 200, "The model is overloaded.", false)
		},
	},
	{
		name: "error as the first frame", stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{{events: []event{{data: w.errorBody(400, "Request contains an invalid argument.")}}}, ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			var apiErr *provider.APICallError
			failedCall(t, srv, stream, o, 1, &apiErr)
			if apiErr != nil {
				assert.Equal(t, 400, apiErr.StatusCode)
				assert.False(t, apiErr.Retryable)
			}
		},
	},
	{
		name: "quota error as the first frame, retried after its RetryInfo delay", stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{{events: []event{{data: retryInfoBody("0.02s")}}}, ok}
		},
		check: func(t *testing.T, srv *server, _ bool, o outcome) {
			checkSuccess(t, srv, o, 2)
			assert.GreaterOrEqual(t, o.elapsed, 20*time.Millisecond, "the retry waits as RetryInfo says")
			assert.Less(t, o.elapsed, promptBound, "and not for the default backoff")
		},
	},
	{
		name: "stream cut before its finish", stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{{events: w.partial("resp_cut", partialText)}, ok}
		},
		check: func(t *testing.T, srv *server, _ bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			assert.NoError(t, o.iterErr)
			assert.Empty(t, o.errorParts())
			require.NoError(t, o.err)
			require.Len(t, o.res.Steps, 1)
			assert.Equal(t, partialText, o.res.Text)
			assert.Equal(t, ai.FinishInterrupted, o.res.FinishReason)
		},
	},
	{
		name: "over-long line after output", stream: true,
		script: func(w googleWire, ok reply) []reply {
			long := event{data: mustJSON(w.chunk("resp_long", []any{map[string]any{"text": strings.Repeat("x", 17<<20)}}, "", nil))}
			return []reply{{events: append(w.partial("resp_long", partialText), long)}, ok}
		},
		check: func(t *testing.T, srv *server, _ bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			checkBrokenStep(t, o)
			if errs := o.errorParts(); assert.Len(t, errs, 1) {
				var invalid *provider.InvalidResponseDataError
				assert.ErrorAs(t, errs[0], &invalid)
			}
		},
	},
	{
		name: "over-long line before output", stream: true,
		script: func(w googleWire, ok reply) []reply {
			long := event{data: mustJSON(w.chunk("resp_long", []any{map[string]any{"text": strings.Repeat("x", 17<<20)}}, "", nil))}
			return []reply{{events: []event{long}}, ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			var invalid *provider.InvalidResponseDataError
			failedCall(t, srv, stream, o, 1, &invalid)
		},
	},
	{
		name: "429 with RetryInfo, then success", generate: true, stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{errorReply(429, retryInfoBody("0.02s")), ok}
		},
		check: func(t *testing.T, srv *server, _ bool, o outcome) {
			checkSuccess(t, srv, o, 2)
			assert.GreaterOrEqual(t, o.elapsed, 20*time.Millisecond, "the retry waits as RetryInfo says")
			assert.Less(t, o.elapsed, promptBound)
		},
	},
	{
		name: "429 with a long RetryInfo and no retries", generate: true, stream: true, maxRetries: new(0),
		script: func(w googleWire, ok reply) []reply {
			return []reply{errorReply(429, retryInfoBody("34.4s")), ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			apiErr := apiError(t, o.callErr(t, stream), 429, "You exceeded your current quota, please check your plan.", true)
			if apiErr != nil {
				assert.Equal(t, "34400", apiErr.ResponseHeaders.Get("Retry-After-Ms"))
			}
			assert.Less(t, o.elapsed, promptBound)
		},
	},
	{
		name: "500, then success", generate: true, stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{errorReply(500, w.errorBody(500, "Internal error encountered."), "retry-after-ms", "5"), ok}
		},
		check: func(t *testing.T, srv *server, _ bool, o outcome) {
			checkSuccess(t, srv, o, 2)
		},
	},
	{
		name: "400 is not retried", generate: true, stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{errorReply(400, w.errorBody(400, "Invalid JSON payload received."), "retry-after-ms", "1"), ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			apiErr := apiError(t, o.callErr(t, stream), 400, "Invalid JSON payload received.", false)
			if apiErr != nil {
				assert.Equal(t, srv.URL+requestURI(srv.wire, stream), apiErr.URL)
			}
		},
	},
	{
		name: "401 is not retried", generate: true, stream: true,
		script: func(w googleWire, ok reply) []reply {
			return []reply{errorReply(401, w.errorBody(401, "API key not valid. Please pass a valid API key."), "retry-after-ms", "1"), ok}
		},
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			apiError(t, o.callErr(t, stream), 401, "API key not valid. Please pass a valid API key.", false)
		},
	},
	{
		name: "slow drip ended by the context's deadline", generate: true, stream: true, timeout: 150 * time.Millisecond,
		script: func(w googleWire, ok reply) []reply { return nil },
		check: func(t *testing.T, srv *server, stream bool, o outcome) {
			assert.Equal(t, 1, srv.count(), "requests")
			assert.ErrorIs(t, o.err, context.DeadlineExceeded)
			assert.Less(t, o.elapsed, promptBound)
			if stream {
				assert.NoError(t, o.iterErr)
				if types := o.types(); assert.NotEmpty(t, types) {
					assert.Equal(t, "abort", types[len(types)-1])
				}
			}
		},
	},
}

func TestGoogleFaults(t *testing.T) {
	w := googleWire{}
	for _, f := range googleFaults {
		for _, stream := range []bool{false, true} {
			if stream && !f.stream || !stream && !f.generate {
				continue
			}
			t.Run(f.name+"/"+mode(stream), func(t *testing.T) {
				t.Parallel()
				script := f.script(w, w.respond(stream, helloTurn))
				if script == nil {
					script = []reply{{handle: drip(stream, w)}}
				}
				srv := newServer(t, w, replies(script...))
				timeout := f.timeout
				if timeout == 0 {
					timeout = 10 * time.Second
				}
				ctx, cancel := context.WithTimeout(t.Context(), timeout)
				defer cancel()
				opts := options(w, srv)
				opts.MaxRetries = f.maxRetries
				f.check(t, srv, stream, generate(ctx, t, stream, opts))
			})
		}
	}
}
