package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

func response(contentType string, body io.Reader) *Response {
	rc, ok := body.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(body)
	}
	return &Response{
		HTTP: &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {contentType}}, Body: rc},
		URL:  "http://127.0.0.1/v1/x",
		ErrorMessage: func(b []byte) string {
			var v struct {
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(b, &v) != nil || v.Error == nil {
				return ""
			}
			return v.Error.Message
		},
	}
}

type want struct {
	retryable bool
	message   string
	cause     error
}

func check(t *testing.T, err error, w want) {
	t.Helper()
	var apiErr *provider.APICallError
	if !errors.As(err, &apiErr) {
		t.Fatalf("got %T %v, want an API call error", err, err)
	}
	if apiErr.StatusCode != 200 || apiErr.Retryable != w.retryable || !strings.Contains(apiErr.Message, w.message) {
		t.Errorf("got status %d, retryable %v, message %q; want 200, %v, %q", apiErr.StatusCode, apiErr.Retryable, apiErr.Message, w.retryable, w.message)
	}
	if w.cause != nil && !errors.Is(err, w.cause) {
		t.Errorf("%v does not wrap %v", err, w.cause)
	}
}

func TestReadJSONFailures(t *testing.T) {
	var invalid *provider.InvalidResponseDataError
	tests := []struct {
		name        string
		contentType string
		body        io.Reader
		want        want
	}{
		{"empty", "application/json", strings.NewReader(" \n"), want{message: "the response body is empty"}},
		{"error object", "application/json", strings.NewReader(`{"error":{"message":"No such model."}}`), want{message: "No such model."}},
		{"HTML", "text/html", strings.NewReader("<html>\n<body>Bad\x00 gateway</body></html>"), want{message: `not JSON (Content-Type "text/html"): <html> <body>Bad� gateway`}},
		{"invalid JSON", "application/json", strings.NewReader(`{"id":`), want{message: "not valid JSON"}},
		{"cut off", "application/json", io.MultiReader(strings.NewReader(`{"id":`), iotest.ErrReader(io.ErrUnexpectedEOF)),
			want{retryable: true, message: "cut off after 6 bytes", cause: io.ErrUnexpectedEOF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v map[string]any
			_, err := response(tt.contentType, tt.body).ReadJSON(context.Background(), &v)
			check(t, err, tt.want)
		})
	}
	_, err := response("application/json", strings.NewReader(`[1,`)).ReadJSON(context.Background(), &map[string]any{})
	if !errors.As(err, &invalid) {
		t.Errorf("invalid JSON: %v does not wrap the invalid data", err)
	}
}

func TestEventsFailures(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        io.Reader
		rd          sse.Reader
		want        want
	}{
		{"empty", "text/event-stream", strings.NewReader(""), sse.Reader{}, want{message: "the response body is empty"}},
		{"only a terminator", "text/event-stream", strings.NewReader(": hi\n\ndata: [DONE]\n\n"), sse.Reader{}, want{message: "without any event: : hi"}},
		{"a cut event only", "text/event-stream", strings.NewReader(`data: {"a"`), sse.Reader{}, want{message: "without any event"}},
		{"error object", "application/json", strings.NewReader(`{"error":{"message":"Quota."}}`), sse.Reader{}, want{message: "Quota."}},
		{"HTML", "text/html", strings.NewReader("<h1>502</h1>"), sse.Reader{}, want{message: `not an event stream (Content-Type "text/html"): <h1>502</h1>`}},
		{"long line", "text/event-stream", strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"), sse.Reader{MaxLine: 32},
			want{message: "longer than 32 bytes"}},
		{"cut off", "text/event-stream", io.MultiReader(strings.NewReader("data: {}\n\n"), iotest.ErrReader(io.ErrUnexpectedEOF)), sse.Reader{},
			want{retryable: true, message: "the response stream was cut off", cause: io.ErrUnexpectedEOF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var last error
			for _, err := range response(tt.contentType, tt.body).Events(context.Background(), tt.rd) {
				last = err
			}
			check(t, last, tt.want)
		})
	}
}

func TestEventsDropsACutFinalEvent(t *testing.T) {
	var got []string
	for ev, err := range response("text/event-stream", strings.NewReader("data: {\"a\":1}\n\ndata: {\"b\":2}\ndata: {\"c\"")).Events(context.Background(), sse.Reader{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Data)
	}
	if len(got) != 1 || got[0] != `{"a":1}` {
		t.Errorf("got %q", got)
	}
}

func TestEventsEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	cancel(stop)
	pr, pw := io.Pipe()
	defer pw.Close()
	var last error
	for _, err := range response("text/event-stream", pr).Events(ctx, sse.Reader{}) {
		last = err
	}
	if !errors.Is(last, stop) {
		t.Errorf("got %v, want the context's cause", last)
	}
}

// TestReadJSONAnnouncedLength reads bodies whose length is announced: in
// full into a slice of that length, cut short (a retryable error), longer
// than announced (read to the end all the same) and announced over the
// limit (gathered as it comes).
func TestReadJSONAnnouncedLength(t *testing.T) {
	read := func(body string, length int64) (map[string]string, []byte, error) {
		r := response("application/json", strings.NewReader(body))
		r.HTTP.ContentLength = length
		var v map[string]string
		raw, err := r.ReadJSON(context.Background(), &v)
		return v, raw, err
	}
	v, raw, err := read(`{"a":"b"}`, 9)
	if err != nil || v["a"] != "b" || string(raw) != `{"a":"b"}` || cap(raw) != 9 {
		t.Fatalf("exact: %v %q (cap %d) %v", v, raw, cap(raw), err)
	}
	_, _, err = read(`{"a":`, 9)
	var api *provider.APICallError
	if !errors.As(err, &api) || !api.Retryable || !strings.Contains(api.Message, "cut off after 5 bytes") {
		t.Fatalf("cut: %v", err)
	}
	v, raw, err = read(`{"a":"b"}  `, 9)
	if err != nil || v["a"] != "b" || string(raw) != `{"a":"b"}  ` {
		t.Fatalf("longer: %v %q %v", v, raw, err)
	}
	// A length over the limit is not allocated; the body is gathered as
	// it comes.
	v, _, err = read(`{"a":"c"}`, MaxBody+1)
	if err != nil || v["a"] != "c" {
		t.Fatalf("over the limit: %v %v", v, err)
	}
}
