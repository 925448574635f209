// Package httpx holds the HTTP plumbing the providers share: JSON requests,
// API errors and server-sent event streams.
package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"

	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// Request is one JSON POST request.
type Request struct {
	// Client sends the request; nil means http.DefaultClient.
	Client *http.Client
	// URL is the full request URL.
	URL string
	// Headers are sent with the request; Content-Type is set to JSON.
	Headers http.Header
	// Body is marshalled as the JSON request body.
	Body any
	// ErrorMessage extracts a message from an error response body; it
	// returns "" when the body is not in the provider's error format.
	ErrorMessage func(body []byte) string
}

// Post sends r and returns the response of a 2xx status together with the
// request body that was sent. Any other status becomes a
// *provider.APICallError; a transport failure becomes a retryable one unless
// ctx ended, in which case ctx's error is returned. The caller closes the
// response body.
func Post(ctx context.Context, r Request) (*http.Response, []byte, error) {
	body, err := json.Marshal(r.Body)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(body))
	if err != nil {
		return nil, body, err
	}
	for k, vs := range r.Headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, body, context.Cause(ctx)
		}
		return nil, body, &provider.APICallError{
			Message:     err.Error(),
			URL:         r.URL,
			RequestBody: body,
			Retryable:   true,
			Cause:       err,
		}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, body, nil
	}
	defer resp.Body.Close()
	respBody, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := ""
	if r.ErrorMessage != nil && len(respBody) > 0 {
		msg = r.ErrorMessage(respBody)
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return nil, body, &provider.APICallError{
		Message:         msg,
		URL:             r.URL,
		StatusCode:      resp.StatusCode,
		RequestBody:     body,
		ResponseHeaders: provider.Header(resp.Header),
		ResponseBody:    respBody,
		Retryable:       provider.IsRetryableStatus(resp.StatusCode),
	}
}

// ReadJSON reads and decodes a whole response body, closing it. It returns
// the raw bytes as well.
func ReadJSON(resp *http.Response, v any) ([]byte, error) {
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return data, &provider.InvalidResponseDataError{Data: data, Message: err.Error()}
	}
	return data, nil
}

// Events yields the data payloads of a server-sent event response body,
// skipping "[DONE]" terminators, and closes the body when iteration ends
// (also when the consumer stops early).
func Events(ctx context.Context, resp *http.Response) iter.Seq2[sse.Event, error] {
	return func(yield func(sse.Event, error) bool) {
		defer resp.Body.Close()
		stop := context.AfterFunc(ctx, func() { resp.Body.Close() })
		defer stop()
		for ev, err := range sse.Events(resp.Body) {
			if err != nil {
				if ctx.Err() != nil {
					err = context.Cause(ctx)
				}
				yield(sse.Event{}, err)
				return
			}
			if ev.Data == "[DONE]" {
				continue
			}
			if !yield(ev, nil) {
				return
			}
		}
		if err := ctx.Err(); err != nil {
			yield(sse.Event{}, errors.Join(context.Cause(ctx)))
		}
	}
}
