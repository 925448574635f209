package google

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// recordedRequest is a request body @ai-sdk/google 4.0.121 sent for the
// call options (in the TypeScript SDK's JSON shape), with its warnings.
type recordedRequest struct {
	Provider string             `json:"provider"`
	ModelID  string             `json:"modelId"`
	Stream   bool               `json:"stream"`
	Options  json.RawMessage    `json:"options"`
	Path     string             `json:"path"`
	Body     json.RawMessage    `json:"body"`
	Warnings []provider.Warning `json:"warnings"`
}

// TestRequestBodiesMatchTheTypeScriptSDK sends every recorded call and
// compares the body, the path and the warnings with what the TypeScript
// SDK sent.
func TestRequestBodiesMatchTheTypeScriptSDK(t *testing.T) {
	files, err := filepath.Glob("testdata/requests/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var rec recordedRequest
			require.NoError(t, json.Unmarshal(data, &rec))
			opts := callOptions(t, rec.Options)

			var f *fakeAPI
			if rec.Stream {
				f = newFakeAPI(t, reply{body: sseBody(t, "google-text.chunks.txt"), sse: true})
			} else {
				f = newFakeAPI(t, reply{body: readFixture(t, "google-text.json")})
			}
			var p *Provider
			root := "/v1beta"
			if rec.Provider == "vertex" {
				root = "/vertex"
				p = testProvider(f, WithVertex("", ""), WithBaseURL(f.URL+root))
			} else {
				p = testProvider(f)
			}
			model := p.Model(rec.ModelID)
			var warnings []provider.Warning
			var sent json.RawMessage
			if rec.Stream {
				res, err := model.Stream(context.Background(), opts)
				require.NoError(t, err)
				parts, err := collect(t, res)
				require.NoError(t, err)
				warnings = parts[0].(provider.StreamStart).Warnings
				sent = res.Request.Body
			} else {
				res, err := model.Generate(context.Background(), opts)
				require.NoError(t, err)
				warnings = res.Warnings
				sent = res.Request.Body
			}
			req := f.request(t, 0)
			assert.JSONEq(t, string(rec.Body), string(req.body), "request body")
			assert.JSONEq(t, string(req.body), string(sent), "the recorded request is what was sent")
			path := req.path
			if req.query != "" {
				path += "?" + req.query
			}
			assert.Equal(t, rec.Path, path)
			if rec.Warnings == nil {
				rec.Warnings = []provider.Warning{}
			}
			if warnings == nil {
				warnings = []provider.Warning{}
			}
			assert.Equal(t, rec.Warnings, warnings, "warnings")
		})
	}
}

func TestRequestHeaders(t *testing.T) {
	_, req := generate(t, "gemini-2.5-flash", &provider.CallOptions{Headers: map[string][]string{"X-Custom": {"call"}}},
		WithHeaders(map[string][]string{"X-Custom": {"provider"}, "X-Other": {"provider"}}))
	assert.Equal(t, "test-key", req.headers.Get("x-goog-api-key"))
	assert.Equal(t, "application/json", req.headers.Get("Content-Type"))
	assert.Equal(t, "call", req.headers.Get("X-Custom"), "call headers win")
	assert.Equal(t, "provider", req.headers.Get("X-Other"))
	assert.Contains(t, req.headers.Get("User-Agent"), "aisdkgo-google")
}

func TestAPIKeyFromTheEnvironment(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "google-text.json")})
	t.Setenv("GOOGLE_GENERATIVE_AI_API_KEY", "env-key")
	p := New(WithBaseURL(f.URL), WithHTTPClient(f.Client()))
	_, err := p.Model("gemini-2.5-flash").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	require.NoError(t, err)
	assert.Equal(t, "env-key", f.request(t, 0).headers.Get("x-goog-api-key"))

	t.Setenv("GOOGLE_GENERATIVE_AI_API_KEY", "")
	_, err = p.Model("gemini-2.5-flash").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	var keyErr *provider.LoadAPIKeyError
	require.ErrorAs(t, err, &keyErr)
	assert.Contains(t, keyErr.Message, "GOOGLE_GENERATIVE_AI_API_KEY")
}

func TestVertexAuthentication(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "google-text.json")}, reply{body: readFixture(t, "google-text.json")})
	t.Setenv("GOOGLE_VERTEX_API_KEY", "")
	// Without a key the HTTP client authenticates: no key header is sent.
	p := New(WithVertex("p", "us-central1"), WithBaseURL(f.URL+"/vertex"), WithHTTPClient(f.Client()))
	model := p.Model("gemini-2.5-flash")
	assert.Equal(t, "google.vertex.chat", model.Provider())
	_, err := model.Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	require.NoError(t, err)
	assert.Empty(t, f.request(t, 0).headers.Get("x-goog-api-key"))
	assert.Equal(t, "/vertex/models/gemini-2.5-flash:generateContent", f.request(t, 0).path)

	p = New(WithVertex("", ""), WithAPIKey("express"), WithBaseURL(f.URL+"/vertex"), WithHTTPClient(f.Client()))
	_, err = p.Model("gemini-2.5-flash").Generate(context.Background(), &provider.CallOptions{Prompt: userPrompt("Hi")})
	require.NoError(t, err)
	assert.Equal(t, "express", f.request(t, 1).headers.Get("x-goog-api-key"))
}

func TestVertexBaseURL(t *testing.T) {
	for _, tc := range []struct{ project, location, key, want string }{
		{"proj", "us-central1", "", "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/proj/locations/us-central1/publishers/google"},
		{"proj", "global", "", "https://aiplatform.googleapis.com/v1beta1/projects/proj/locations/global/publishers/google"},
		{"proj", "eu", "", "https://aiplatform.eu.rep.googleapis.com/v1beta1/projects/proj/locations/eu/publishers/google"},
		{"", "", "key", vertexExpressBaseURL},
		{"proj", "us-central1", "key", vertexExpressBaseURL},
	} {
		got, err := New(WithVertex(tc.project, tc.location)).root(tc.key)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	t.Setenv("GOOGLE_VERTEX_PROJECT", "")
	t.Setenv("GOOGLE_VERTEX_LOCATION", "")
	_, err := New(WithVertex("", "")).root("")
	assert.ErrorContains(t, err, "project and location are missing")
	_, err = New(WithVertex("p", "evil.example.com/x")).root("")
	assert.ErrorContains(t, err, "invalid Vertex location")
}

func TestSupportedURLs(t *testing.T) {
	p := New(WithAPIKey("k"))
	urls, err := p.Model("gemini-2.5-flash").(provider.URLSupporter).SupportedURLs(context.Background())
	require.NoError(t, err)
	match := func(mediaType, u string) bool {
		for _, re := range append(urls["*"], urls[mediaType]...) {
			if re.MatchString(u) {
				return true
			}
		}
		return false
	}
	assert.True(t, match("application/pdf", "https://example.com/a.pdf"))
	assert.True(t, match("video/mp4", "https://www.youtube.com/watch?v=abc"))
	assert.True(t, match("image/gif", "https://generativelanguage.googleapis.com/v1beta/files/x"))
	assert.False(t, match("image/gif", "https://example.com/a.gif"), "types Gemini does not fetch")
	assert.False(t, match("application/pdf", "http://example.com/a.pdf"), "plain http")

	old, err := p.Model("gemini-2.0-flash").(provider.URLSupporter).SupportedURLs(context.Background())
	require.NoError(t, err)
	assert.NotContains(t, old, "application/pdf")
}

func TestRequestPromptErrors(t *testing.T) {
	f := newFakeAPI(t)
	model := testProvider(f).Model("gemini-2.5-flash")
	for name, prompt := range map[string][]provider.Message{
		"system after user": {provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "hi"}}}, provider.SystemMessage{Content: "late"}},
		"file without subtype by URL": {provider.UserMessage{Content: []provider.UserPart{
			provider.FilePart{Data: provider.FileURL{URL: "https://example.com/x"}, MediaType: "image"}}}},
		"undetectable bytes": {provider.UserMessage{Content: []provider.UserPart{
			provider.FilePart{Data: provider.FileBytes{Data: []byte("not an image")}, MediaType: "image"}}}},
		"reference for another provider": {provider.UserMessage{Content: []provider.UserPart{
			provider.FilePart{Data: provider.FileReference{Reference: map[string]string{"openai": "file-1"}}, MediaType: "application/pdf"}}}},
		"assistant file URL": {provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.FilePart{Data: provider.FileURL{URL: "https://example.com/x.png"}, MediaType: "image/png"}}}},
	} {
		_, err := model.Generate(context.Background(), &provider.CallOptions{Prompt: prompt})
		var unsupported *provider.UnsupportedFunctionalityError
		assert.ErrorAs(t, err, &unsupported, name)
	}
	assert.Empty(t, f.requests, "nothing is sent")
}

func TestRequestInvalidProviderOptions(t *testing.T) {
	f := newFakeAPI(t)
	_, err := testProvider(f).Model("gemini-2.5-flash").Generate(context.Background(), &provider.CallOptions{
		Prompt:          userPrompt("hi"),
		ProviderOptions: provider.ProviderOptions{"google": {"thinkingConfig": "high"}},
	})
	var invalid *InvalidOptionsError
	assert.ErrorAs(t, err, &invalid)
}

func TestRequestTypedOptions(t *testing.T) {
	budget := 0
	_, req := generate(t, "gemini-2.5-flash", &provider.CallOptions{
		ProviderOptions: Options{ThinkingConfig: &ThinkingConfig{ThinkingBudget: &budget}, CachedContent: "cachedContents/x"}.ProviderOptions(),
	})
	body := bodyMap(t, req)
	assert.Equal(t, map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": float64(0)}}, body["generationConfig"])
	assert.Equal(t, "cachedContents/x", body["cachedContent"])
}

func TestRequestJSONResponseTool(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	weather := &provider.FunctionTool{Name: "getWeather", InputSchema: json.RawMessage(`{"type":"object"}`)}
	jsonTool := &provider.FunctionTool{Name: "json", InputSchema: json.RawMessage(`{"type":"object"}`)}
	_, req := generate(t, "gemini-2.5-flash", &provider.CallOptions{
		ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema},
		Tools:          []provider.Tool{weather, jsonTool},
	})
	body := bodyMap(t, req)
	assert.NotContains(t, body["generationConfig"], "responseMimeType", "the format is a tool instead")
	decls := body["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	require.Len(t, decls, 3)
	last := decls[2].(map[string]any)
	assert.Equal(t, "json_1", last["name"], "a name not taken by the application's tools")
	assert.Equal(t, "Respond with a JSON object.", last["description"])
	assert.Equal(t, map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY"}}, body["toolConfig"])

	// Gemini 3 combines JSON output with function tools when the tool
	// choice is auto.
	_, req = generate(t, "gemini-3-pro-preview", &provider.CallOptions{
		ResponseFormat: &provider.ResponseFormat{Type: "json", Schema: schema},
		Tools:          []provider.Tool{weather},
	})
	body = bodyMap(t, req)
	assert.Equal(t, "application/json", body["generationConfig"].(map[string]any)["responseMimeType"])
}

// TestRequestEmptyToolValues checks the declarations of tools with no
// description, empty input examples and empty provider options against
// what @ai-sdk/google 4.0.121 sends through ai 7.0.173 for the same tools:
// the description is always sent (empty when there is none) and examples
// and options are not.
func TestRequestEmptyToolValues(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	_, req := generate(t, "gemini-2.5-flash", &provider.CallOptions{Tools: []provider.Tool{
		&provider.FunctionTool{Name: "noDesc", InputSchema: schema},
		&provider.FunctionTool{Name: "emptyExamples", Description: "d", InputSchema: schema, InputExamples: []json.RawMessage{}},
		&provider.FunctionTool{Name: "emptyOptions", Description: "d", InputSchema: schema, ProviderOptions: provider.ProviderOptions{}},
	}})
	tools, err := json.Marshal(bodyMap(t, req)["tools"])
	require.NoError(t, err)
	assert.JSONEq(t, `[{"functionDeclarations":[
		{"name":"noDesc","description":"","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
		{"name":"emptyExamples","description":"d","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}},
		{"name":"emptyOptions","description":"d","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}]`, string(tools))
}
