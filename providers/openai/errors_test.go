package openai_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

// models returns a Responses and a Chat model of p.
func models(p *openai.Provider) map[string]provider.LanguageModel {
	return map[string]provider.LanguageModel{"responses": p.Responses("gpt-4o"), "chat": p.Chat("gpt-4o")}
}

// both runs f with Generate and with Stream (whose error is the error of
// opening the stream).
func both(m provider.LanguageModel) map[string]func(context.Context, *provider.CallOptions) error {
	return map[string]func(context.Context, *provider.CallOptions) error{
		"generate": func(ctx context.Context, o *provider.CallOptions) error { _, err := m.Generate(ctx, o); return err },
		"stream":   func(ctx context.Context, o *provider.CallOptions) error { _, err := m.Stream(ctx, o); return err },
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name      string
		resp      replay.Response
		status    int
		retryable bool
		message   string
		header    [2]string
	}{
		{"400", replay.Error(400, `{"error":{"message":"Invalid 'input': empty.","type":"invalid_request_error","param":"input","code":null}}`, nil),
			400, false, "Invalid 'input': empty.", [2]string{}},
		{"401", replay.Error(401, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`, nil),
			401, false, "Incorrect API key provided.", [2]string{}},
		{"429 with retry-after", replay.Error(429, `{"error":{"message":"Rate limit reached.","type":"requests","code":"rate_limit_exceeded"}}`,
			http.Header{"Retry-After": {"2"}, "Retry-After-Ms": {"1500"}}), 429, true, "Rate limit reached.", [2]string{"Retry-After", "2"}},
		{"500", replay.Error(500, `{"error":{"message":"The server had an error.","type":"server_error"}}`, nil),
			500, true, "The server had an error.", [2]string{}},
		{"503 without a body", replay.Response{Status: 503}, 503, true, "Service Unavailable", [2]string{}},
	}
	for _, tt := range tests {
		for kind, m := range models(openai.New(openai.WithAPIKey("k"))) {
			for mode := range both(m) {
				t.Run(tt.name+"/"+kind+"/"+mode, func(t *testing.T) {
					srv := replay.NewServer(t, tt.resp)
					m := models(newProvider(srv))[kind]
					err := both(m)[mode](context.Background(), prompt("hi"))
					var apiErr *provider.APICallError
					require.ErrorAs(t, err, &apiErr)
					assert.Equal(t, tt.status, apiErr.StatusCode)
					assert.Equal(t, tt.retryable, apiErr.Retryable)
					assert.Equal(t, tt.message, apiErr.Message)
					assert.NotEmpty(t, apiErr.RequestBody)
					assert.Contains(t, apiErr.URL, srv.URL+"/v1/")
					if tt.header[0] != "" {
						assert.Equal(t, tt.header[1], apiErr.ResponseHeaders.Get(tt.header[0]))
						assert.Equal(t, "1500", apiErr.ResponseHeaders.Get("Retry-After-Ms"))
					}
				})
			}
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := replay.NewServer(t)
	p := newProvider(srv)
	srv.Close()
	for kind, m := range models(p) {
		for mode, run := range both(m) {
			t.Run(kind+"/"+mode, func(t *testing.T) {
				err := run(context.Background(), prompt("hi"))
				var apiErr *provider.APICallError
				require.ErrorAs(t, err, &apiErr)
				assert.True(t, apiErr.Retryable)
				assert.Zero(t, apiErr.StatusCode)
				assert.NotNil(t, apiErr.Cause)
			})
		}
	}
}

func TestCancelledBeforeResponse(t *testing.T) {
	srv := replay.NewServer(t, replay.Response{Handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }})
	for kind, m := range models(newProvider(srv)) {
		for mode, run := range both(m) {
			t.Run(kind+"/"+mode, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				err := run(ctx, prompt("hi"))
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				var apiErr *provider.APICallError
				assert.False(t, errors.As(err, &apiErr), "cancellation is not an API error")
			})
		}
	}
}

func TestMissingAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := replay.NewServer(t, replay.JSON([]byte(responsesOK)))
	p := openai.New(openai.WithBaseURL(srv.URL))
	for kind, m := range models(p) {
		for mode, run := range both(m) {
			t.Run(kind+"/"+mode, func(t *testing.T) {
				err := run(context.Background(), prompt("hi"))
				var keyErr *provider.LoadAPIKeyError
				require.ErrorAs(t, err, &keyErr)
				assert.Contains(t, keyErr.Message, "OPENAI_API_KEY")
			})
		}
	}
	assert.Empty(t, srv.Requests())
}

func TestAPIKeyFromEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-env")
	srv := replay.NewServer(t, replay.JSON([]byte(responsesOK)))
	p := openai.New(openai.WithBaseURL(srv.URL+"/"), openai.WithOrganization("org-1"), openai.WithProject("proj-1"),
		openai.WithHeaders(http.Header{"X-Custom": {"a"}, "Openai-Project": {"override"}}))
	opts := prompt("hi")
	opts.Headers = provider.Header{"X-Custom": {"call"}}
	_, err := p.Model("gpt-4o").Generate(context.Background(), opts)
	require.NoError(t, err)
	req := srv.Last(t)
	assert.Equal(t, "/responses", req.Path, "the trailing slash of the base URL is removed")
	assert.Equal(t, "Bearer sk-env", req.Header.Get("Authorization"))
	assert.Equal(t, "org-1", req.Header.Get("OpenAI-Organization"))
	assert.Equal(t, "override", req.Header.Get("OpenAI-Project"), "provider headers are applied after the provider's own")
	assert.Equal(t, "call", req.Header.Get("X-Custom"), "call headers win")
	assert.Equal(t, "aisdkgo-openai", req.Header.Get("User-Agent"))
}

func TestBaseURLFromEnvironment(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(chatOK)))
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/proxy/")
	_, err := openai.New(openai.WithAPIKey("k")).Chat("gpt-4o").Generate(context.Background(), prompt("hi"))
	require.NoError(t, err)
	assert.Equal(t, "/proxy/chat/completions", srv.Last(t).Path)
}

func TestModelNames(t *testing.T) {
	p := openai.New(openai.WithAPIKey("k"))
	assert.Equal(t, "openai.responses", p.Model("gpt-5").Provider())
	assert.Equal(t, "openai.responses", p.Responses("gpt-5").Provider())
	assert.Equal(t, "openai.chat", p.Chat("gpt-4o").Provider())
	assert.Equal(t, "gpt-5", p.Model("gpt-5").ModelID())
	urls, err := p.Model("gpt-5").(provider.URLSupporter).SupportedURLs(context.Background())
	require.NoError(t, err)
	assert.True(t, urls["application/pdf"][0].MatchString("https://example.com/a.pdf"))
	urls, err = p.Chat("gpt-4o").(provider.URLSupporter).SupportedURLs(context.Background())
	require.NoError(t, err)
	assert.True(t, urls["image/*"][0].MatchString("http://example.com/a.png"))
	assert.NotContains(t, urls, "application/pdf")
}

func TestErrorEventsAfterOutput(t *testing.T) {
	t.Run("responses", func(t *testing.T) {
		body := replay.SSE(
			`{"type":"response.created","response":{"id":"resp_1","created_at":1,"model":"gpt-4o"}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","content":[]}}`,
			`{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"Hel"}`,
			`{"type":"error","code":"server_error","message":"Something broke.","param":null}`,
			`{"type":"response.failed","response":{"id":"resp_1","error":{"code":"server_error","message":"Something broke."},"usage":{"input_tokens":5,"output_tokens":1}}}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := newProvider(srv).Model("gpt-4o").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1, "response.failed after an error event adds no second error")
		var apiErr *provider.APICallError
		require.ErrorAs(t, errs[0].Err, &apiErr)
		assert.Equal(t, "Something broke.", apiErr.Message)
		assert.Equal(t, 500, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "Hel", replay.Text(parts))
		fin := replay.Of[provider.Finish](parts)[0]
		assert.Equal(t, provider.FinishReason{Unified: provider.FinishError, Raw: "error"}, fin.FinishReason)
		assert.Equal(t, 5, *fin.Usage.InputTokens.Total)
		assert.Len(t, replay.Of[provider.TextEnd](parts), 1, "the open text block is closed before the stream ends")
	})
	t.Run("responses error event with a numeric code", func(t *testing.T) {
		body := replay.SSE(
			`{"type":"response.created","response":{"id":"resp_1","created_at":1,"model":"gpt-4o"}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","content":[]}}`,
			`{"type":"error","code":503,"message":"Unavailable.","param":null}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := newProvider(srv).Model("gpt-4o").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		var apiErr *provider.APICallError
		require.ErrorAs(t, errs[0].Err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, "Unavailable.", apiErr.Message)
	})
	t.Run("responses failed without error event", func(t *testing.T) {
		body := replay.SSE(
			`{"type":"response.created","response":{"id":"resp_1","created_at":1,"model":"gpt-4o"}}`,
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","content":[]}}`,
			`{"type":"response.failed","response":{"id":"resp_1","error":{"code":"rate_limit_exceeded","message":"Too many tokens."}}}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := newProvider(srv).Model("gpt-4o").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		var apiErr *provider.APICallError
		require.ErrorAs(t, errs[0].Err, &apiErr)
		assert.Equal(t, 429, apiErr.StatusCode)
		assert.Equal(t, "Too many tokens.", apiErr.Message)
		assert.Equal(t, provider.FinishError, replay.Of[provider.Finish](parts)[0].FinishReason.Unified)
	})
	t.Run("chat", func(t *testing.T) {
		body := replay.SSE(
			`{"id":"c","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
			`{"error":{"message":"The server had an error.","type":"server_error","code":"502"}}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := newProvider(srv).Chat("gpt-4o").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		var apiErr *provider.APICallError
		require.ErrorAs(t, errs[0].Err, &apiErr)
		assert.Equal(t, 502, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, provider.FinishReason{Unified: provider.FinishError}, replay.Of[provider.Finish](parts)[0].FinishReason)
	})
	t.Run("chat invalid chunk", func(t *testing.T) {
		body := replay.SSE(`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}`, `{not json`, `{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := newProvider(srv).Chat("gpt-4o").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		var invalid *provider.InvalidResponseDataError
		require.ErrorAs(t, errs[0].Err, &invalid)
		assert.Equal(t, provider.FinishError, replay.Of[provider.Finish](parts)[0].FinishReason.Unified)
	})
}

func TestErrorEventsBeforeOutput(t *testing.T) {
	t.Run("chat", func(t *testing.T) {
		body := replay.SSE(
			`{"id":"c","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
			`{"error":{"message":"The engine is overloaded.","type":"server_error","code":"overloaded"}}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		res, err := newProvider(srv).Chat("gpt-4o").Stream(context.Background(), prompt("hi"))
		assert.Nil(t, res)
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "The engine is overloaded.", apiErr.Message)
	})
	t.Run("responses failed first", func(t *testing.T) {
		body := replay.SSE(
			`{"type":"response.created","response":{"id":"resp_1","created_at":1,"model":"gpt-4o"}}`,
			`{"type":"response.in_progress","response":{"id":"resp_1"}}`,
			`{"type":"response.failed","response":{"id":"resp_1","error":{"code":"server_error","message":"Try again."}}}`,
		)
		srv := replay.NewServer(t, replay.Stream(body))
		_, err := newProvider(srv).Model("gpt-4o").Stream(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 500, apiErr.StatusCode)
		assert.True(t, apiErr.Retryable)
		assert.Equal(t, "Try again.", apiErr.Message)
	})
	t.Run("responses from a 200 body with an error", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON([]byte(`{"id":"resp_1","created_at":1,"model":"gpt-4o","output":[],"error":{"code":"server_error","message":"Failed."}}`)))
		_, err := newProvider(srv).Model("gpt-4o").Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 200, apiErr.StatusCode)
		assert.False(t, apiErr.Retryable)
		assert.Equal(t, "Failed.", apiErr.Message)
	})
	t.Run("responses without output", func(t *testing.T) {
		srv := replay.NewServer(t, replay.JSON([]byte(`{"id":"resp_1","created_at":1,"model":"gpt-4o","incomplete_details":{"reason":"max_output_tokens"}}`)))
		_, err := newProvider(srv).Model("gpt-4o").Generate(context.Background(), prompt("hi"))
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 200, apiErr.StatusCode)
		assert.False(t, apiErr.Retryable)
		assert.Contains(t, apiErr.Message, "max_output_tokens")
	})
	t.Run("chat completions stream on the responses endpoint", func(t *testing.T) {
		srv := replay.NewServer(t, replay.Stream(replay.SSE(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}]}`)))
		res, err := newProvider(srv).Model("gpt-4o").Stream(context.Background(), prompt("hi"))
		require.NoError(t, err)
		parts := replay.Collect(t, res)
		errs := replay.Of[provider.ErrorPart](parts)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].Err.Error(), "Chat Completions")
	})
}

// blockingStream serves the given frames, then waits until the client goes
// away or the test ends.
func blockingStream(t *testing.T, frames ...string) (*replay.Server, chan struct{}) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := replay.NewServer(t, replay.Response{Handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			_, _ = w.Write([]byte("data: " + f + "\n\n"))
		}
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}})
	return srv, release
}

var streamFrames = map[string][]string{
	"responses": {
		`{"type":"response.created","response":{"id":"resp_1","created_at":1,"model":"gpt-4o"}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","content":[]}}`,
		`{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"one"}`,
		`{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"two"}`,
	},
	"chat": {
		`{"id":"c","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"one"}}]}`,
		`{"id":"c","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"two"}}]}`,
	},
}

func TestCancelMidStream(t *testing.T) {
	for kind, frames := range streamFrames {
		t.Run(kind, func(t *testing.T) {
			srv, _ := blockingStream(t, frames...)
			tracker := &replay.CloseTracker{}
			m := models(newProvider(srv, openai.WithHTTPClient(&http.Client{Transport: tracker})))[kind]
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := m.Stream(ctx, prompt("hi"))
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				var last error
				for p, err := range res.Stream {
					if d, ok := p.(provider.TextDelta); ok && d.Delta == "two" {
						cancel()
					}
					if err != nil {
						last = err
					}
				}
				done <- last
			}()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, context.Canceled)
			case <-time.After(5 * time.Second):
				t.Fatal("the stream did not end after cancellation")
			}
			assert.True(t, tracker.AllClosed(), "the body is closed")
		})
	}
}

func TestBreakClosesBody(t *testing.T) {
	for kind, frames := range streamFrames {
		t.Run(kind, func(t *testing.T) {
			srv, _ := blockingStream(t, frames...)
			tracker := &replay.CloseTracker{}
			m := models(newProvider(srv, openai.WithHTTPClient(&http.Client{Transport: tracker})))[kind]
			res, err := m.Stream(context.Background(), prompt("hi"))
			require.NoError(t, err)
			for p, err := range res.Stream {
				require.NoError(t, err)
				if _, ok := p.(provider.TextDelta); ok {
					break
				}
			}
			assert.True(t, tracker.AllClosed(), "breaking out of the loop closes the body")
		})
	}
}

func TestInterruptedStream(t *testing.T) {
	for kind, frames := range streamFrames {
		t.Run(kind, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Stream(replay.SSE(frames...)))
			res, err := models(newProvider(srv))[kind].Stream(context.Background(), prompt("hi"))
			require.NoError(t, err)
			parts := replay.Collect(t, res)
			assert.Equal(t, "onetwo", replay.Text(parts))
			assert.Len(t, replay.Of[provider.TextEnd](parts), 1, "the open text block is closed")
			fin := replay.Of[provider.Finish](parts)
			require.Len(t, fin, 1)
			assert.Equal(t, provider.FinishInterrupted, fin[0].FinishReason.Unified)
		})
	}
}
