package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// reply is one scripted HTTP response.
type reply struct {
	status  int
	headers http.Header
	body    string
	// sse sends body with the event stream content type.
	sse bool
}

// recorded is a request the fake server received.
type recorded struct {
	path    string
	headers http.Header
	body    []byte
}

// fakeAPI is an httptest server that answers with scripted replies in order
// and records the requests.
type fakeAPI struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []reply
	requests []recorded
}

func newFakeAPI(t *testing.T, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, recorded{path: r.URL.Path, headers: r.Header.Clone(), body: body})
		var rp reply
		if len(f.replies) > 0 {
			rp = f.replies[0]
			f.replies = f.replies[1:]
		} else {
			rp = reply{status: 500, body: `{"type":"error","error":{"type":"api_error","message":"no scripted reply"}}`}
		}
		f.mu.Unlock()
		for k, vs := range rp.headers {
			w.Header()[k] = vs
		}
		if rp.sse {
			w.Header().Set("Content-Type", "text/event-stream")
		} else if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		status := rp.status
		if status == 0 {
			status = 200
		}
		w.WriteHeader(status)
		io.WriteString(w, rp.body)
	}))
	t.Cleanup(f.Close)
	return f
}

// request returns the i-th recorded request.
func (f *fakeAPI) request(t *testing.T, i int) recorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Greater(t, len(f.requests), i, "request %d was not sent", i)
	return f.requests[i]
}

// bodyMap decodes the i-th request body.
func (f *fakeAPI) bodyMap(t *testing.T, i int) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(f.request(t, i).body, &m))
	return m
}

func testModel(t *testing.T, f *fakeAPI, modelID string, opts ...Option) provider.LanguageModel {
	t.Helper()
	n := 0
	all := append([]Option{WithAPIKey("test-key"), WithBaseURL(f.URL)}, opts...)
	p := New(all...)
	var mu sync.Mutex
	p.cfg.newID = func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return "id-" + string(rune('0'+n))
	}
	return p.Model(modelID)
}

// readFixture returns a test data file.
func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return string(b)
}

// chunkResponses splits a chunks file into the event payloads of each HTTP
// response: a new response starts at every message_start.
func chunkResponses(t testing.TB, name string) [][]string {
	t.Helper()
	var out [][]string
	sc := bufio.NewScanner(strings.NewReader(readFixture(t, name)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &head), "line %q", line)
		if head.Type == "message_start" || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], line)
	}
	require.NoError(t, sc.Err())
	return out
}

// sseBody frames event payloads the way the API sends them: an event line
// with the payload's type, then the data line.
func sseBody(t testing.TB, payloads []string) string {
	t.Helper()
	var b bytes.Buffer
	for _, p := range payloads {
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal([]byte(p), &head))
		b.WriteString("event: " + head.Type + "\n")
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

// collect ranges over a stream and returns its parts and final error.
func collect(t *testing.T, res *provider.StreamResult) ([]provider.StreamPart, error) {
	t.Helper()
	var parts []provider.StreamPart
	for p, err := range res.Stream {
		if err != nil {
			return parts, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// partsOf returns the parts of type T.
func partsOf[T provider.StreamPart](parts []provider.StreamPart) []T {
	var out []T
	for _, p := range parts {
		if v, ok := p.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// contentOf returns the content parts of type T.
func contentOf[T provider.Content](content []provider.Content) []T {
	var out []T
	for _, c := range content {
		if v, ok := c.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// streamText joins the text deltas of a stream.
func streamText(parts []provider.StreamPart) string {
	var b strings.Builder
	for _, d := range partsOf[provider.TextDelta](parts) {
		b.WriteString(d.Delta)
	}
	return b.String()
}

// partTypes lists the part types of a stream, for order assertions.
func partTypes(parts []provider.StreamPart) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.PartType())
	}
	return out
}

func userPrompt(text string) []provider.Message {
	return []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}}
}

func ptr[T any](v T) *T { return &v }

// generate runs Generate with a simple prompt when opts has none.
func generate(t *testing.T, m provider.LanguageModel, opts *provider.CallOptions) *provider.GenerateResult {
	t.Helper()
	if opts.Prompt == nil {
		opts.Prompt = userPrompt("Hello")
	}
	res, err := m.Generate(context.Background(), opts)
	require.NoError(t, err)
	return res
}

// streamAll runs Stream and collects all parts, failing on any error.
func streamAll(t *testing.T, m provider.LanguageModel, opts *provider.CallOptions) []provider.StreamPart {
	t.Helper()
	if opts.Prompt == nil {
		opts.Prompt = userPrompt("Hello")
	}
	res, err := m.Stream(context.Background(), opts)
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	return parts
}

// jsonEq asserts that v marshals to the JSON value want.
func jsonEq(t *testing.T, want string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, want, string(b))
}
