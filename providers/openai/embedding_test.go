package openai_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
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

const embeddingAnswer = `{"object":"list","data":[
	{"object":"embedding","index":1,"embedding":[0.3,0.4]},
	{"object":"embedding","index":0,"embedding":[0.1,0.2]}],
	"model":"text-embedding-3-small","usage":{"prompt_tokens":6,"total_tokens":6}}`

func TestEmbeddingRequestBodies(t *testing.T) {
	data, err := os.ReadFile("testdata/embedding-requests.json")
	require.NoError(t, err)
	var recorded []embeddingRequest
	require.NoError(t, json.Unmarshal(data, &recorded))
	require.NotEmpty(t, recorded)
	for _, rec := range recorded {
		t.Run(rec.Name, func(t *testing.T) {
			answer := embeddingAnswer
			if len(rec.Values) == 1 {
				answer = `{"data":[{"index":0,"embedding":[0.1,0.2]}]}`
			}
			srv := replay.NewServer(t, replay.JSON([]byte(answer)))
			m := newProvider(srv).Embedding("text-embedding-3-small")
			_, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: rec.Values, Dimensions: rec.Options.Dimensions, ProviderOptions: rec.Options.ProviderOptions})
			require.NoError(t, err)
			req := srv.Last(t)
			assert.JSONEq(t, string(rec.Body), string(req.Body))
			assert.Equal(t, rec.Path, req.Path)
			assert.Equal(t, "Bearer sk-test", req.Header.Get("Authorization"))
		})
	}
}

func TestEmbedding(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(embeddingAnswer)))
	m := newProvider(srv).Embedding("text-embedding-3-small")
	assert.Equal(t, "openai.embedding", m.Provider())
	assert.Equal(t, "text-embedding-3-small", m.ModelID())
	assert.Equal(t, 2048, m.MaxEmbeddingsPerCall())
	assert.True(t, m.SupportsParallelCalls())
	res, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: []string{"sunny day", "rainy night"}, Dimensions: 2})
	require.NoError(t, err)
	assert.Equal(t, [][]float64{{0.1, 0.2}, {0.3, 0.4}}, res.Embeddings, "ordered by index")
	require.NotNil(t, res.Usage.Tokens)
	assert.Equal(t, 6, *res.Usage.Tokens)
	assert.Equal(t, float64(2), srv.Last(t).JSON(t)["dimensions"], "the call's dimensions are sent")
	assert.NotEmpty(t, res.Response.Body)
}

func TestEmbeddingErrors(t *testing.T) {
	srv := replay.NewServer(t,
		replay.Error(400, `{"error":{"message":"This model does not support specifying dimensions.","type":"invalid_request_error","param":null,"code":null}}`, nil),
		replay.Error(429, `{"error":{"message":"Rate limit reached.","type":"requests","code":"rate_limit_exceeded"}}`, nil),
		replay.JSON([]byte(`{"data":[{"index":0,"embedding":[1]}]}`)),
	)
	m := newProvider(srv).Embedding("text-embedding-ada-002")
	two := &provider.EmbedCallOptions{Values: []string{"a", "b"}}
	var apiErr *provider.APICallError
	_, err := m.Embed(context.Background(), two)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.StatusCode)
	assert.Equal(t, "This model does not support specifying dimensions.", apiErr.Message)
	assert.False(t, apiErr.Retryable)

	_, err = m.Embed(context.Background(), two)
	require.ErrorAs(t, err, &apiErr)
	assert.True(t, apiErr.Retryable)

	_, err = m.Embed(context.Background(), two)
	var invalid *provider.InvalidResponseDataError
	require.ErrorAs(t, err, &invalid, "one embedding for two values")

	_, err = m.Embed(context.Background(), &provider.EmbedCallOptions{Values: make([]string, 2049)})
	var tooMany *provider.TooManyEmbeddingValuesError
	require.ErrorAs(t, err, &tooMany)
	assert.Len(t, srv.Requests(), 3)
}
