package openaicompat_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

func TestEmbeddingRequestBody(t *testing.T) {
	data, err := os.ReadFile("testdata/embedding-requests.json")
	require.NoError(t, err)
	var recorded []struct {
		Path    string   `json:"path"`
		Values  []string `json:"values"`
		Options struct {
			Dimensions      int                      `json:"dimensions"`
			ProviderOptions provider.ProviderOptions `json:"providerOptions"`
		} `json:"options"`
		Body json.RawMessage `json:"body"`
	}
	require.NoError(t, json.Unmarshal(data, &recorded))
	require.Len(t, recorded, 1)
	rec := recorded[0]
	srv := replay.NewServer(t, replay.JSON([]byte(`{"data":[{"embedding":[0.1]},{"embedding":[0.2]}],"usage":{"prompt_tokens":4}}`)))
	m := openaicompat.New(openaicompat.WithBaseURL(srv.URL+"/v1"), openaicompat.WithName("local")).Embedding("nomic-embed-text")
	assert.Equal(t, "local.embedding", m.Provider())
	res, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: rec.Values, Dimensions: rec.Options.Dimensions, ProviderOptions: rec.Options.ProviderOptions})
	require.NoError(t, err)
	req := srv.Last(t)
	assert.JSONEq(t, string(rec.Body), string(req.Body))
	assert.Equal(t, rec.Path, req.Path)
	assert.Empty(t, req.Header.Get("Authorization"), "no key, no Authorization header")
	assert.Equal(t, [][]float64{{0.1}, {0.2}}, res.Embeddings)
	assert.Equal(t, 4, *res.Usage.Tokens)
	assert.Empty(t, res.Warnings)
}

func TestEmbeddingOptionsAndKeys(t *testing.T) {
	srv := replay.NewServer(t, replay.JSON([]byte(`{"data":[{"embedding":[0.1]}]}`)))
	m := openaicompat.New(openaicompat.WithBaseURL(srv.URL+"/v1"), openaicompat.WithName("my-server"), openaicompat.WithAPIKey("k"),
		openaicompat.WithQueryParams(map[string][]string{"api-version": {"1"}})).Embedding("e5")
	res, err := m.Embed(context.Background(), &provider.EmbedCallOptions{Values: []string{"x"}, Dimensions: 8, ProviderOptions: provider.ProviderOptions{
		"openai-compatible": {"user": "old"},
		"my-server":         {"dimensions": 16},
	}})
	require.NoError(t, err)
	req := srv.Last(t)
	body := req.JSON(t)
	assert.Equal(t, float64(16), body["dimensions"], "provider options win over the call's dimensions")
	assert.Equal(t, "old", body["user"])
	assert.Equal(t, "api-version=1", req.Query)
	assert.Equal(t, "Bearer k", req.Header.Get("Authorization"))
	require.Len(t, res.Warnings, 2)
	assert.Equal(t, "deprecated", res.Warnings[0].Type)
	assert.Equal(t, "Use 'openaiCompatible' instead.", res.Warnings[0].Message)
	assert.Equal(t, "Use 'myServer' instead.", res.Warnings[1].Message)
	assert.Nil(t, res.Usage.Tokens, "no usage reported")

	_, err = openaicompat.New().Embedding("e5").Embed(context.Background(), &provider.EmbedCallOptions{Values: []string{"x"}})
	assert.ErrorIs(t, err, openaicompat.ErrNoBaseURL)
}
