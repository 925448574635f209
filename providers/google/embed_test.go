package google

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// embeddingRequest is an embedding request body the TypeScript SDK sent.
type embeddingRequest struct {
	Name    string   `json:"name"`
	Path    string   `json:"path"`
	Values  []string `json:"values"`
	Options struct {
		Dimensions      int                      `json:"dimensions"`
		ProviderOptions provider.ProviderOptions `json:"providerOptions"`
	} `json:"options"`
	Body json.RawMessage `json:"body"`
}

func recordedEmbeddings(t *testing.T) map[string]embeddingRequest {
	t.Helper()
	var list []embeddingRequest
	require.NoError(t, json.Unmarshal([]byte(readFixture(t, "embedding-requests.json")), &list))
	m := map[string]embeddingRequest{}
	for _, r := range list {
		m[r.Name] = r
	}
	return m
}

func TestEmbeddingRequestBodies(t *testing.T) {
	recorded := recordedEmbeddings(t)
	for _, tc := range []struct {
		name, model string
		vertex      bool
		answer      string
	}{
		{"google-single", "gemini-embedding-001", false, `{"embedding":{"values":[0.1,0.2]}}`},
		{"google-batch", "gemini-embedding-001", false, `{"embeddings":[{"values":[0.1,0.2]},{"values":[0.3,0.4]}]}`},
		{"vertex-predict", "text-embedding-005", true, readFixture(t, "google-vertex-embedding.json")},
		{"vertex-embed-content", "gemini-embedding-2", true, `{"embedding":{"values":[0.1,0.2]},"usageMetadata":{"promptTokenCount":3}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := recorded[tc.name]
			require.NotEmpty(t, rec.Values)
			f := newFakeAPI(t, reply{body: tc.answer})
			p := testProvider(f)
			if tc.vertex {
				p = testProvider(f, WithVertex("", ""), WithBaseURL(f.URL+"/vertex"))
			}
			m := p.Embedding(tc.model)
			res, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: rec.Values, Dimensions: rec.Options.Dimensions, ProviderOptions: rec.Options.ProviderOptions})
			require.NoError(t, err)
			req := f.request(t, 0)
			assert.JSONEq(t, string(rec.Body), string(req.body))
			assert.Equal(t, rec.Path, req.path)
			assert.Len(t, res.Embeddings, len(rec.Values))
			assert.Equal(t, "test-key", req.headers.Get("x-goog-api-key"))
			if tc.model == "gemini-embedding-2" {
				assert.Equal(t, 1, m.MaxEmbeddingsPerCall(), "one value a call")
				assert.Equal(t, 3, *res.Usage.Tokens)
			}
		})
	}
}

func TestVertexEmbeddingFixture(t *testing.T) {
	f := newFakeAPI(t, reply{body: readFixture(t, "google-vertex-embedding.json")})
	m := testProvider(f, WithVertex("", ""), WithBaseURL(f.URL+"/vertex")).Embedding("text-embedding-005")
	assert.Equal(t, "google.vertex.embedding", m.Provider())
	assert.Equal(t, 250, m.MaxEmbeddingsPerCall())
	res, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: []string{"sunny day at the beach", "rainy day in the city"}})
	require.NoError(t, err)
	require.Len(t, res.Embeddings, 2)
	assert.Equal(t, []float64{-0.017999587580561638, -0.006893285550177097, -0.036766719073057175, -0.017558680847287178, -0.019938766956329346}, res.Embeddings[0])
	assert.Equal(t, -0.048464205116033554, res.Embeddings[1][4])
	require.NotNil(t, res.Usage.Tokens)
	assert.Equal(t, 11, *res.Usage.Tokens, "the token counts of the values add up")
	assert.NotEmpty(t, res.Response.Body)
}

func TestEmbeddingErrors(t *testing.T) {
	f := newFakeAPI(t,
		reply{body: `{"embeddings":[{"values":[0.1]}]}`},
		reply{status: 429, body: readFixture(t, "google-429-retry-info.json")},
		reply{body: `{"error":{"code":400,"message":"Bad input.","status":"INVALID_ARGUMENT"}}`},
		reply{body: `not json`},
	)
	m := testProvider(f).Embedding("gemini-embedding-001")
	assert.Equal(t, 100, m.MaxEmbeddingsPerCall())
	assert.True(t, m.SupportsParallelCalls())
	two := &provider.EmbedCallOptions{Values: []string{"a", "b"}}

	_, err := m.Embed(context.Background(), two)
	var invalid *provider.InvalidResponseDataError
	require.ErrorAs(t, err, &invalid, "fewer embeddings than values")

	_, err = m.Embed(context.Background(), two)
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.True(t, apiErr.Retryable)
	assert.Equal(t, "34400", apiErr.ResponseHeaders.Get("Retry-After-Ms"))

	_, err = m.Embed(context.Background(), two)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 200, apiErr.StatusCode, "an error in a 200 answer")
	assert.False(t, apiErr.Retryable)

	_, err = m.Embed(context.Background(), two)
	require.ErrorAs(t, err, &invalid)

	values := make([]string, 101)
	_, err = m.Embed(context.Background(), &provider.EmbedCallOptions{Values: values})
	var tooMany *provider.TooManyEmbeddingValuesError
	require.ErrorAs(t, err, &tooMany)
	assert.Equal(t, 100, tooMany.Max)
	assert.Equal(t, 101, tooMany.Count)
}
