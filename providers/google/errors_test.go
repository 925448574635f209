package google

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

func callErr(t *testing.T, stream bool, replies ...reply) error {
	t.Helper()
	f := newFakeAPI(t, replies...)
	model := testProvider(f).Model("gemini-2.5-flash")
	opts := &provider.CallOptions{Prompt: userPrompt("Hi")}
	if !stream {
		_, err := model.Generate(context.Background(), opts)
		return err
	}
	res, err := model.Stream(context.Background(), opts)
	if err != nil {
		return err
	}
	_, err = collect(t, res)
	require.Error(t, err, "the call must fail")
	return err
}

func TestRateLimitWithRetryInfo(t *testing.T) {
	for _, stream := range []bool{false, true} {
		err := callErr(t, stream, reply{status: 429, body: readFixture(t, "google-429-retry-info.json")})
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 429, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "You exceeded your current quota, please check your plan.", apiErr.Message)
		assert.Equal(t, "34400", apiErr.ResponseHeaders.Get("Retry-After-Ms"), "RetryInfo.retryDelay becomes the retry hint")
		assert.Contains(t, string(apiErr.ResponseBody), "RESOURCE_EXHAUSTED")
		assert.True(t, strings.HasSuffix(apiErr.URL, ":generateContent") || strings.HasSuffix(apiErr.URL, ":streamGenerateContent?alt=sse"))
	}
	// A retry-after header from the server is left alone.
	err := callErr(t, false, reply{status: 429, headers: http.Header{"Retry-After": {"3"}}, body: readFixture(t, "google-429-retry-info.json")})
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.Empty(t, apiErr.ResponseHeaders.Get("Retry-After-Ms"))
	assert.Equal(t, "3", apiErr.ResponseHeaders.Get("Retry-After"))
}

func TestRetryDelayParsing(t *testing.T) {
	for in, want := range map[string]time.Duration{"34.4s": 34400 * time.Millisecond, "1s": time.Second, "0.5s": 500 * time.Millisecond, "0s": 0} {
		d, ok := parseDuration(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, d, in)
	}
	for _, in := range []string{"", "s", "5", "-1s", "1e400s", "NaNs", "99999999s"} {
		_, ok := parseDuration(in)
		assert.False(t, ok, in)
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		status    int
		body      string
		message   string
		retryable bool
	}{
		{400, `{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}`, "Invalid JSON payload received.", false},
		{401, `{"error":{"code":401,"message":"API key not valid.","status":"UNAUTHENTICATED"}}`, "API key not valid.", false},
		{403, `{"error":{"code":403,"message":"Permission denied.","status":"PERMISSION_DENIED"}}`, "Permission denied.", false},
		{500, `{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}`, "Internal error encountered.", true},
		{503, `{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, "The model is overloaded.", true},
		{502, `<html><body>Bad gateway</body></html>`, "Bad Gateway", true},
	} {
		for _, stream := range []bool{false, true} {
			err := callErr(t, stream, reply{status: tc.status, body: tc.body})
			var apiErr *provider.APICallError
			require.ErrorAs(t, err, &apiErr, "%d", tc.status)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.message, apiErr.Message)
			assert.Equal(t, tc.retryable, apiErr.Retryable)
		}
	}
}

func TestErrorInSuccessfulResponse(t *testing.T) {
	for _, tc := range []struct {
		body      string
		status    int
		retryable bool
	}{
		{`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, 503, true},
		{`{"error":{"code":null,"message":"Quota exhausted.","status":"RESOURCE_EXHAUSTED"}}`, 429, true},
		{`{"error":{"message":"Bad argument.","status":"INVALID_ARGUMENT"}}`, 400, false},
		{`{"error":{"message":"Something odd.","status":"WHATEVER"}}`, 500, true},
	} {
		// A 200 answer that is an error fails the call with the answer's
		// status, and is not retried: the same request gets the same answer.
		err := callErr(t, false, reply{body: tc.body})
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr, tc.body)
		assert.Equal(t, 200, apiErr.StatusCode, tc.body)
		assert.False(t, apiErr.Retryable, tc.body)

		// As the first chunk of a stream, it fails the call with the status
		// its code stands for.
		err = callErr(t, true, reply{body: sseOf(tc.body), sse: true})
		require.ErrorAs(t, err, &apiErr, tc.body)
		assert.Equal(t, tc.status, apiErr.StatusCode, tc.body)
		assert.Equal(t, tc.retryable, apiErr.Retryable, tc.body)
	}
}

func TestStreamErrorAfterOutput(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseOf(
		`{"candidates":[{"content":{"parts":[{"text":"It will "}]}}],"responseId":"r1"}`,
		`{"error":{"code":500,"message":"Internal error.","status":"INTERNAL"}}`)})
	res, err := testProvider(f).Model("gemini-2.5-flash").Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	var errs []error
	for _, p := range parts {
		if e, ok := p.(provider.ErrorPart); ok {
			errs = append(errs, e.Err)
		}
	}
	require.Len(t, errs, 1)
	var apiErr *provider.APICallError
	require.ErrorAs(t, errs[0], &apiErr)
	assert.Equal(t, 500, apiErr.StatusCode)
	assert.Equal(t, "Internal error.", apiErr.Message)
	assert.Equal(t, provider.FinishError, finishOf(t, parts).FinishReason.Unified)
}

func TestUnreadableResponses(t *testing.T) {
	for name, rp := range map[string]reply{
		"empty body":         {body: ""},
		"HTML page":          {body: "<html><body>Sign in to the proxy</body></html>", headers: http.Header{"Content-Type": {"text/html"}}},
		"truncated JSON":     {body: `{"candidates":[`},
		"not an object":      {body: `[1, 2]`},
		"empty stream":       {body: "", sse: true},
		"HTML stream":        {body: "<html><body>Sign in</body></html>", headers: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
		"stream of comments": {body: ": keep-alive\n\n: keep-alive\n\n", sse: true},
	} {
		stream := rp.sse || strings.Contains(name, "stream")
		err := callErr(t, stream, rp)
		var invalid *provider.InvalidResponseDataError
		assert.ErrorAs(t, err, &invalid, name)
	}
}

func TestStreamLineTooLong(t *testing.T) {
	long := `{"candidates":[{"content":{"parts":[{"text":"` + strings.Repeat("a", 17<<20) + `"}]}}]}`
	err := callErr(t, true, reply{sse: true, body: sseOf(`{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}`, long)})
	var invalid *provider.InvalidResponseDataError
	assert.ErrorAs(t, err, &invalid)
}

func TestCancelledStreamClosesTheConnection(t *testing.T) {
	gone := make(chan struct{})
	srv := newFakeAPI(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(sseOf(`{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}`)))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := testProvider(srv).Model("gemini-2.5-flash").Stream(ctx, &provider.CallOptions{Prompt: userPrompt("Hi")})
	require.NoError(t, err)
	for p, err := range res.Stream {
		if _, ok := p.(provider.TextDelta); ok {
			cancel()
		}
		if err != nil {
			assert.ErrorIs(t, err, context.Canceled)
			break
		}
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection stayed open after the cancellation")
	}
}
