// Package replay serves recorded provider traffic from a test HTTP server
// and collects what models make of it. It is for tests only.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aisdkgo/ai/provider"
)

// Response is one canned HTTP response.
type Response struct {
	Status  int
	Header  http.Header
	Body    []byte
	Handler http.HandlerFunc // when set, serves the request instead
}

// JSON is a 200 response with a JSON body.
func JSON(body []byte) Response {
	return Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// Stream is a 200 event-stream response with an SSE body.
func Stream(body []byte) Response {
	return Response{Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: body}
}

// Error is an error response with a JSON body.
func Error(status int, body string, header http.Header) Response {
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range header {
		h[k] = v
	}
	return Response{Status: status, Header: h, Body: []byte(body)}
}

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic map.
func (r Request) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, r.Body)
	}
	return m
}

// Server is a test server that answers requests with canned responses, in
// order; the last response repeats.
type Server struct {
	*httptest.Server
	mu        sync.Mutex
	requests  []Request
	responses []Response
	n         int
}

// NewServer starts a server; it is closed when the test ends.
func NewServer(t testing.TB, responses ...Response) *Server {
	s := &Server{responses: responses}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	var resp Response
	if len(s.responses) > 0 {
		resp = s.responses[min(s.n, len(s.responses)-1)]
	}
	s.n++
	s.mu.Unlock()
	if resp.Handler != nil {
		resp.Handler(w, r)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	if resp.Status == 0 {
		resp.Status = 200
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Last returns the last request received.
func (s *Server) Last(t testing.TB) Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request was received")
	}
	return reqs[len(reqs)-1]
}

// Read returns the content of a test data file.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Lines returns the non-empty lines of a chunk file: one JSON payload each.
func Lines(t testing.TB, path string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(string(Read(t, path)), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, "\r"))
		}
	}
	return out
}

// SSE frames payloads as an OpenAI-style event stream ending with [DONE].
func SSE(payloads ...string) []byte {
	var b bytes.Buffer
	for _, p := range payloads {
		b.WriteString("data: ")
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// Split divides the payloads of a multi-response chunk file at each payload
// whose "type" is start.
func Split(payloads []string, start string) [][]string {
	var out [][]string
	for _, p := range payloads {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(p), &head)
		if head.Type == start || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], p)
	}
	return out
}

// Collect drains a stream, failing the test on a stream error or a stream
// that breaks the rules of [CheckParts].
func Collect(t testing.TB, r *provider.StreamResult) []provider.StreamPart {
	t.Helper()
	var parts []provider.StreamPart
	for p, err := range r.Stream {
		if err != nil {
			t.Fatalf("stream error: %v", err)
		}
		parts = append(parts, p)
	}
	if err := CheckParts(parts); err != nil {
		t.Errorf("malformed stream: %v", err)
	}
	return parts
}

// Of returns the parts of type T.
func Of[T provider.StreamPart](parts []provider.StreamPart) []T {
	var out []T
	for _, p := range parts {
		if v, ok := p.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// ContentOf returns the content of type T.
func ContentOf[T provider.Content](content []provider.Content) []T {
	var out []T
	for _, c := range content {
		if v, ok := c.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// Text joins the text deltas of a stream.
func Text(parts []provider.StreamPart) string {
	var b strings.Builder
	for _, d := range Of[provider.TextDelta](parts) {
		b.WriteString(d.Delta)
	}
	return b.String()
}

// Reasoning joins the reasoning deltas of a stream.
func Reasoning(parts []provider.StreamPart) string {
	var b strings.Builder
	for _, d := range Of[provider.ReasoningDelta](parts) {
		b.WriteString(d.Delta)
	}
	return b.String()
}

// Types lists the part types of a stream, merging runs of deltas.
func Types(parts []provider.StreamPart) []string {
	var out []string
	for _, p := range parts {
		t := p.PartType()
		if len(out) > 0 && out[len(out)-1] == t && strings.HasSuffix(t, "-delta") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// CloseTracker is an http.RoundTripper that records whether response bodies
// were closed.
type CloseTracker struct {
	Base   http.RoundTripper
	closed atomic.Int32
	opened atomic.Int32
}

// RoundTrip sends req and wraps the response body.
func (c *CloseTracker) RoundTrip(req *http.Request) (*http.Response, error) {
	base := c.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	resp.Body = &trackedBody{ReadCloser: resp.Body, c: c}
	return resp, nil
}

// AllClosed reports whether every body that was opened has been closed.
func (c *CloseTracker) AllClosed() bool {
	return c.opened.Load() > 0 && c.opened.Load() == c.closed.Load()
}

type trackedBody struct {
	io.ReadCloser
	c    *CloseTracker
	once sync.Once
}

// Close counts the first close and closes the body.
func (b *trackedBody) Close() error {
	b.once.Do(func() { b.c.closed.Add(1) })
	return b.ReadCloser.Close()
}

// CheckParts verifies the shape of a complete stream: it opens with
// stream-start and ends with exactly one finish; text, reasoning and tool
// input deltas fall inside blocks that were started and not yet ended; no
// block is started twice while open, and none is left open at the finish.
func CheckParts(parts []provider.StreamPart) error {
	if len(parts) == 0 {
		return fmt.Errorf("empty stream")
	}
	if _, ok := parts[0].(provider.StreamStart); !ok {
		return fmt.Errorf("the stream starts with %s", parts[0].PartType())
	}
	open := map[string]bool{}
	key := func(kind, id string) string { return kind + "\x00" + id }
	start := func(kind, id string) error {
		if open[key(kind, id)] {
			return fmt.Errorf("%s block %q started twice", kind, id)
		}
		open[key(kind, id)] = true
		return nil
	}
	inside := func(kind, id string) error {
		if !open[key(kind, id)] {
			return fmt.Errorf("%s delta outside block %q", kind, id)
		}
		return nil
	}
	end := func(kind, id string) error {
		if !open[key(kind, id)] {
			return fmt.Errorf("%s block %q ended without being open", kind, id)
		}
		delete(open, key(kind, id))
		return nil
	}
	for i, p := range parts {
		var err error
		switch p := p.(type) {
		case provider.StreamStart:
			if i != 0 {
				err = fmt.Errorf("stream-start at %d", i)
			}
		case provider.TextStart:
			err = start("text", p.ID)
		case provider.TextDelta:
			err = inside("text", p.ID)
		case provider.TextEnd:
			err = end("text", p.ID)
		case provider.ReasoningStart:
			err = start("reasoning", p.ID)
		case provider.ReasoningDelta:
			err = inside("reasoning", p.ID)
		case provider.ReasoningEnd:
			err = end("reasoning", p.ID)
		case provider.ToolInputStart:
			err = start("tool-input", p.ID)
		case provider.ToolInputDelta:
			err = inside("tool-input", p.ID)
		case provider.ToolInputEnd:
			err = end("tool-input", p.ID)
		case provider.ToolCall:
			if open[key("tool-input", p.ToolCallID)] {
				err = fmt.Errorf("tool call %q while its input is open", p.ToolCallID)
			}
		case provider.Finish:
			if i != len(parts)-1 {
				err = fmt.Errorf("finish at %d of %d", i, len(parts))
			}
			if len(open) > 0 {
				err = fmt.Errorf("%d blocks open at the finish", len(open))
			}
		}
		if err != nil {
			return fmt.Errorf("part %d (%s): %w", i, p.PartType(), err)
		}
	}
	if _, ok := parts[len(parts)-1].(provider.Finish); !ok {
		return fmt.Errorf("the stream ends with %s", parts[len(parts)-1].PartType())
	}
	return nil
}
