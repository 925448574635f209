package anthropic

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aisdkgo/ai/provider"
)

// callBoth runs Generate and Stream against the same scripted reply and
// returns both errors.
func callBoth(t *testing.T, r reply) (generateErr, streamErr error) {
	t.Helper()
	f := newFakeAPI(t, r, r)
	m := testModel(t, f, "claude-sonnet-4-5")
	_, generateErr = m.Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	_, streamErr = m.Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	return generateErr, streamErr
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name      string
		reply     reply
		status    int
		message   string
		retryable bool
		header    [2]string
	}{
		{
			name:   "400 invalid request",
			reply:  reply{status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_1"}`},
			status: 400, message: "max_tokens: Field required",
		},
		{
			name:   "401 authentication",
			reply:  reply{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`},
			status: 401, message: "invalid x-api-key",
		},
		{
			name: "429 rate limit keeps retry-after",
			reply: reply{status: 429, headers: http.Header{"Retry-After": {"7"}, "Anthropic-Ratelimit-Requests-Remaining": {"0"}},
				body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`},
			status: 429, message: "Number of request tokens has exceeded your per-minute rate limit", retryable: true,
			header: [2]string{"Retry-After", "7"},
		},
		{
			name:   "529 overloaded",
			reply:  reply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
			status: 529, message: "Overloaded", retryable: true,
		},
		{
			name:   "500 without an error body",
			reply:  reply{status: 500, body: `<html>oops</html>`},
			status: 500, message: "Internal Server Error", retryable: true,
		},
		{
			name:   "empty body",
			reply:  reply{status: 404},
			status: 404, message: "Not Found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			genErr, streamErr := callBoth(t, tt.reply)
			for _, err := range []error{genErr, streamErr} {
				var apiErr *provider.APICallError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tt.status, apiErr.StatusCode)
				assert.Equal(t, tt.message, apiErr.Message)
				assert.Equal(t, tt.retryable, apiErr.Retryable)
				assert.Equal(t, tt.reply.body, string(apiErr.ResponseBody))
				assert.Contains(t, string(apiErr.RequestBody), `"model":"claude-sonnet-4-5"`)
				if tt.header[0] != "" {
					assert.Equal(t, tt.header[1], apiErr.ResponseHeaders.Get(tt.header[0]))
				}
			}
		})
	}
}

func TestConnectionRefusedIsRetryable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()

	m := New(WithAPIKey("k"), WithBaseURL("http://"+addr+"/v1")).Model("claude-sonnet-4-5")
	_, genErr := m.Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	_, streamErr := m.Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	for _, err := range []error{genErr, streamErr} {
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.True(t, apiErr.Retryable)
		assert.Zero(t, apiErr.StatusCode)
		assert.Equal(t, "http://"+addr+"/v1/messages", apiErr.URL)
		assert.NotNil(t, apiErr.Cause)
	}
}

// An error event before any output fails the call itself, so that it can be
// retried; the status stands for the kind of error.
func TestStreamErrorAsFirstEvent(t *testing.T) {
	tests := []struct {
		name      string
		events    []string
		status    int
		retryable bool
		message   string
	}{
		{"overloaded", []string{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, 529, true, "Overloaded"},
		{"after a ping", []string{`{"type":"ping"}`, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, 529, true, "Overloaded"},
		{"api error", []string{`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`}, 500, true, "Internal server error"},
		{"rate limit", []string{`{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}`}, 429, true, "Slow down"},
		{"invalid request", []string{`{"type":"error","error":{"type":"invalid_request_error","message":"Bad"}}`}, 400, false, "Bad"},
		{"authentication", []string{`{"type":"error","error":{"type":"authentication_error","message":"Who?"}}`}, 401, false, "Who?"},
		{"too large", []string{`{"type":"error","error":{"type":"request_too_large","message":"Big"}}`}, 413, false, "Big"},
		{"unknown kind", []string{`{"type":"error","error":{"type":"mystery_error","message":"Hm"}}`}, 500, false, "Hm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeAPI(t, reply{sse: true, headers: http.Header{"Request-Id": {"req_9"}}, body: sseBody(t, tt.events)})
			res, err := testModel(t, f, "claude-sonnet-4-5").Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi"), IncludeRawChunks: true})
			assert.Nil(t, res)
			var apiErr *provider.APICallError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.retryable, apiErr.Retryable)
			assert.Equal(t, tt.message, apiErr.Message)
			assert.Equal(t, "req_9", apiErr.ResponseHeaders.Get("Request-Id"))
			assert.Contains(t, string(apiErr.ResponseBody), tt.message)
			assert.Equal(t, f.URL+"/messages", apiErr.URL)
		})
	}
}

// Once output has started, an error event is a stream part and the stream
// finishes with reason error.
func TestStreamErrorAfterOutput(t *testing.T) {
	events := []string{
		`{"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Partial"}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	}
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, events)})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})
	// The open text block is closed before finish, as with every provider
	// here (the reference leaves it open).
	assert.Equal(t, []string{"stream-start", "response-metadata", "text-start", "text-delta", "error", "text-end", "finish"}, partTypes(parts))
	var streamErr *StreamError
	require.ErrorAs(t, parts[4].(provider.ErrorPart).Err, &streamErr)
	assert.Equal(t, "overloaded_error", streamErr.Type)
	assert.Equal(t, "Overloaded", streamErr.Message)
	assert.True(t, streamErr.Retryable())
	fin := parts[6].(provider.Finish)
	assert.Equal(t, provider.FinishError, fin.FinishReason.Unified)
	assert.Equal(t, 10, *fin.Usage.InputTokens.Total)
}

func TestStreamEndsWithoutMessageStop(t *testing.T) {
	events := []string{
		`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut"}}`,
	}
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, events)})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})
	fin := parts[len(parts)-1].(provider.Finish)
	assert.Equal(t, provider.FinishReason{Unified: provider.FinishInterrupted}, fin.FinishReason)
	assert.Equal(t, 3, *fin.Usage.InputTokens.Total)
	assert.Equal(t, "cut", streamText(parts))
}

func TestStreamInvalidEvents(t *testing.T) {
	body := "event: message_start\ndata: " +
		`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}` + "\n\n" +
		"data: {not json\n\n" +
		": keep-alive comment\n\n" +
		"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":3}}}` + "\n\n" +
		"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}` + "\n\n" +
		"event: something_new\ndata: " + `{"type":"something_new"}` + "\n\n" +
		"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_other","model":"m","content":[]}}` + "\n\n" +
		"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ignored"}}` + "\n\n"
	f := newFakeAPI(t, reply{sse: true, body: body})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{})
	assert.Equal(t, []string{"stream-start", "response-metadata", "error", "text-start", "text-delta", "error", "text-end", "finish"}, partTypes(parts))
	assert.Equal(t, provider.FinishError, parts[7].(provider.Finish).FinishReason.Unified)
	var invalid *provider.InvalidResponseDataError
	require.ErrorAs(t, parts[2].(provider.ErrorPart).Err, &invalid)
	require.ErrorAs(t, parts[5].(provider.ErrorPart).Err, &invalid)
	assert.Contains(t, invalid.Message, "msg_other")
	assert.Equal(t, "ok", streamText(parts))
}

func TestStreamRawChunks(t *testing.T) {
	events := chunkResponses(t, "anthropic-text.chunks.txt")[0]
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, events)})
	parts := streamAll(t, testModel(t, f, "claude-sonnet-4-5"), &provider.CallOptions{IncludeRawChunks: true})
	raws := partsOf[provider.Raw](parts)
	require.Len(t, raws, len(events))
	assert.JSONEq(t, events[0], string(raws[0].RawValue))
	assert.Equal(t, "raw", parts[1].PartType())
	assert.Equal(t, "response-metadata", parts[2].PartType())
}

func TestStreamConsumedOnce(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: sseBody(t, chunkResponses(t, "anthropic-text.chunks.txt")[0])})
	res, err := testModel(t, f, "claude-sonnet-4-5").Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	require.NoError(t, err)
	_, err = collect(t, res)
	require.NoError(t, err)
	_, err = collect(t, res)
	require.Error(t, err)
}

// hangingAPI sends the start of a stream, then waits until the client goes
// away and reports that on gone. The caller closes the server.
func hangingAPI(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sseBody(t, []string{
			`{"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		}))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	}))
	return srv, gone
}

func TestStreamCancelMidStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, gone := hangingAPI(t)
	defer srv.Close()
	m := New(WithAPIKey("k"), WithBaseURL(srv.URL)).Model("claude-sonnet-4-5")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := m.Stream(ctx, &provider.CallOptions{Prompt: userPrompt("hi")})
	require.NoError(t, err)

	start := time.Now()
	var last error
	for p, err := range res.Stream {
		if err != nil {
			last = err
			break
		}
		if _, ok := p.(provider.TextDelta); ok {
			cancel()
		}
	}
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.ErrorIs(t, last, context.Canceled)
	select {
	case <-gone:
	case <-time.After(3 * time.Second):
		t.Fatal("the connection was not closed after cancellation")
	}
}

func TestStreamBreakClosesBody(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, gone := hangingAPI(t)
	defer srv.Close()
	m := New(WithAPIKey("k"), WithBaseURL(srv.URL)).Model("claude-sonnet-4-5")
	res, err := m.Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	require.NoError(t, err)
	for p, err := range res.Stream {
		require.NoError(t, err)
		if p.PartType() == "text-start" {
			break
		}
	}
	select {
	case <-gone:
	case <-time.After(3 * time.Second):
		t.Fatal("breaking out of the stream did not close the connection")
	}
}

func TestGenerateCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	m := New(WithAPIKey("k"), WithBaseURL(srv.URL)).Model("claude-sonnet-4-5")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := m.Generate(ctx, &provider.CallOptions{Prompt: userPrompt("hi")})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var apiErr *provider.APICallError
	assert.False(t, errors.As(err, &apiErr))

	_, err = m.Stream(ctx, &provider.CallOptions{Prompt: userPrompt("hi")})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A connection that drops mid-body is a retryable failure.
func TestDroppedConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stream := strings.Contains(readAll(r), `"stream":true`)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		// Promise more bytes than are sent, then hang up.
		if stream {
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 10000\r\n\r\n")
			buf.WriteString("event: message_start\ndata: " +
				`{"type":"message_start","message":{"id":"m","model":"m","content":[],"usage":{"input_tokens":1}}}` + "\n\n")
		} else {
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{\"id\":")
		}
		buf.Flush()
	}))
	defer srv.Close()
	m := New(WithAPIKey("k"), WithBaseURL(srv.URL)).Model("claude-sonnet-4-5")

	_, err := m.Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.True(t, apiErr.Retryable)

	res, err := m.Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.ErrorAs(t, err, &apiErr)
	assert.True(t, apiErr.Retryable)
	assert.Equal(t, []string{"stream-start", "response-metadata"}, partTypes(parts))
}

func readAll(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

// A 200 response that holds an error body fails the call; it is not
// retried, whatever the error says, because the same request would get the
// same answer.
func TestGenerateErrorBodyWithSuccessStatus(t *testing.T) {
	f := newFakeAPI(t, reply{body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})
	_, err := testModel(t, f, "claude-sonnet-4-5").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 200, apiErr.StatusCode)
	assert.False(t, apiErr.Retryable)
	assert.Equal(t, "Overloaded", apiErr.Message)
}

func TestGenerateInvalidJSON(t *testing.T) {
	f := newFakeAPI(t, reply{body: `{"id":`})
	_, err := testModel(t, f, "claude-sonnet-4-5").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	var invalid *provider.InvalidResponseDataError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, `{"id":`, string(invalid.Data))
}

// A stream without any event fails the call instead of finishing empty.
func TestStreamEmptyBody(t *testing.T) {
	f := newFakeAPI(t, reply{sse: true, body: ": nothing but a comment\n\n"})
	res, err := testModel(t, f, "claude-sonnet-4-5").Stream(context.Background(), &provider.CallOptions{Prompt: userPrompt("hi")})
	assert.Nil(t, res)
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 200, apiErr.StatusCode)
	assert.False(t, apiErr.Retryable)
	assert.Contains(t, apiErr.Message, "without any event")
}
