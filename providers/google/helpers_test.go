package google

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	query   string
	headers http.Header
	body    []byte
}

// fakeAPI answers with scripted replies in order and records the requests.
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
		f.requests = append(f.requests, recorded{path: r.URL.Path, query: r.URL.RawQuery, headers: r.Header.Clone(), body: body})
		rp := reply{status: 500, body: `{"error":{"code":500,"message":"no scripted reply","status":"INTERNAL"}}`}
		if len(f.replies) > 0 {
			rp = f.replies[0]
			f.replies = f.replies[1:]
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

func (f *fakeAPI) request(t *testing.T, i int) recorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Greater(t, len(f.requests), i, "requests received")
	return f.requests[i]
}

// testProvider returns a provider pointed at f with deterministic ids.
func testProvider(f *fakeAPI, opts ...Option) *Provider {
	n := 0
	var mu sync.Mutex
	base := []Option{WithAPIKey("test-key"), WithBaseURL(f.URL + "/v1beta"), WithHTTPClient(f.Client())}
	p := New(append(base, opts...)...)
	p.cfg.newID = func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id-%d", n)
	}
	return p
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return string(b)
}

// sseBody renders a chunks file (one JSON payload per line) as an event
// stream.
func sseBody(t *testing.T, name string) string {
	t.Helper()
	return sseOf(chunkLines(t, name)...)
}

func chunkLines(t *testing.T, name string) []string {
	t.Helper()
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(readFixture(t, name)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	require.NoError(t, sc.Err())
	return lines
}

func sseOf(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + strings.ReplaceAll(p, "\n", "") + "\r\n\r\n")
	}
	return b.String()
}

// collect reads a whole stream.
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

func userPrompt(text string) []provider.Message {
	return []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: text}}}}
}

// generate runs one Generate call against a server answering with the
// recorded text response.
func generate(t *testing.T, modelID string, opts *provider.CallOptions, popts ...Option) (*provider.GenerateResult, recorded) {
	t.Helper()
	f := newFakeAPI(t, reply{body: readFixture(t, "google-text.json")})
	if opts.Prompt == nil {
		opts.Prompt = userPrompt("Hello")
	}
	res, err := testProvider(f, popts...).Model(modelID).Generate(context.Background(), opts)
	require.NoError(t, err)
	return res, f.request(t, 0)
}

func bodyMap(t *testing.T, r recorded) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m))
	return m
}

// callOptions rebuilds call options from the TypeScript SDK's JSON shape,
// as the capture of the request bodies recorded them.
func callOptions(t *testing.T, raw json.RawMessage) *provider.CallOptions {
	t.Helper()
	var o struct {
		Prompt           json.RawMessage          `json:"prompt"`
		MaxOutputTokens  *int                     `json:"maxOutputTokens"`
		Temperature      *float64                 `json:"temperature"`
		TopP             *float64                 `json:"topP"`
		TopK             *int                     `json:"topK"`
		PresencePenalty  *float64                 `json:"presencePenalty"`
		FrequencyPenalty *float64                 `json:"frequencyPenalty"`
		Seed             *int                     `json:"seed"`
		StopSequences    []string                 `json:"stopSequences"`
		ResponseFormat   *provider.ResponseFormat `json:"responseFormat"`
		Tools            []json.RawMessage        `json:"tools"`
		ToolChoice       *provider.ToolChoice     `json:"toolChoice"`
		Reasoning        provider.ReasoningEffort `json:"reasoning"`
		ProviderOptions  provider.ProviderOptions `json:"providerOptions"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&o))
	prompt, err := provider.UnmarshalMessages(o.Prompt)
	require.NoError(t, err)
	opts := &provider.CallOptions{
		Prompt: prompt, MaxOutputTokens: o.MaxOutputTokens, Temperature: o.Temperature, TopP: o.TopP, TopK: o.TopK,
		PresencePenalty: o.PresencePenalty, FrequencyPenalty: o.FrequencyPenalty, Seed: o.Seed, StopSequences: o.StopSequences,
		ResponseFormat: o.ResponseFormat, Reasoning: o.Reasoning, ProviderOptions: o.ProviderOptions,
	}
	if o.ToolChoice != nil {
		opts.ToolChoice = *o.ToolChoice
	}
	for _, rt := range o.Tools {
		var tool struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Strict      *bool           `json:"strict"`
			ID          string          `json:"id"`
			Args        map[string]any  `json:"args"`
		}
		require.NoError(t, json.Unmarshal(rt, &tool))
		switch tool.Type {
		case "function":
			opts.Tools = append(opts.Tools, &provider.FunctionTool{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema, Strict: tool.Strict})
		case "provider":
			opts.Tools = append(opts.Tools, &provider.ProviderTool{ID: tool.ID, Name: tool.Name, Args: tool.Args})
		default:
			t.Fatalf("unknown tool type %q", tool.Type)
		}
	}
	return opts
}
