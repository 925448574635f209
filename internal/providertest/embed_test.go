package providertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/google"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

// TestEmbeddingNullIsInvalid checks that a null where a vector holds a
// number fails the call with a typed error instead of becoming 0.
func TestEmbeddingNullIsInvalid(t *testing.T) {
	openaiBody := func(v string) string {
		return `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]},{"object":"embedding","index":1,"embedding":` + v + `}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`
	}
	googleBody := func(v string) string { return `{"embeddings":[{"values":[0.1,0.2]},{"values":` + v + `}]}` }
	cases := []struct {
		name  string
		model func(url string) provider.EmbeddingModel
		body  func(vector string) string
	}{
		{"openai", func(u string) provider.EmbeddingModel {
			return openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(u)).Embedding("text-embedding-3-small")
		}, openaiBody},
		{"openai-compatible", func(u string) provider.EmbeddingModel {
			return openaicompat.New(openaicompat.WithBaseURL(u), openaicompat.WithName("local")).Embedding("nomic")
		}, openaiBody},
		{"google", func(u string) provider.EmbeddingModel {
			return google.New(google.WithAPIKey("k"), google.WithBaseURL(u)).Embedding("gemini-embedding-001")
		}, googleBody},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := ""
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, body)
			}))
			defer srv.Close()
			m := c.model(srv.URL)
			opts := &provider.EmbedCallOptions{Values: []string{"a", "b"}}

			body = c.body("[0.3,0.4]")
			res, err := m.Embed(context.Background(), opts)
			require.NoError(t, err)
			assert.Equal(t, [][]float64{{0.1, 0.2}, {0.3, 0.4}}, res.Embeddings)

			for _, bad := range []string{"[0.3,null]", "[null]", "null"} {
				body = c.body(bad)
				res, err = m.Embed(context.Background(), opts)
				assert.Nil(t, res, bad)
				var invalid *provider.InvalidResponseDataError
				require.ErrorAs(t, err, &invalid, bad)
				var apiErr *provider.APICallError
				require.ErrorAs(t, err, &apiErr, bad)
				assert.False(t, apiErr.Retryable, bad)
				assert.Contains(t, apiErr.Message, "null", bad)
			}
		})
	}
}

// TestEmbedManyFailingBatch runs EmbedMany over several concurrent Google
// batches one of which fails with a retry hint: the siblings it cancels
// see the same error as their context's cause, and nothing may change that
// shared error (run with -race).
func TestEmbedManyFailingBatch(t *testing.T) {
	const batches = 4
	noRetries := 0
	for range 5 {
		srv := failingBatchServer(batches)
		m := google.New(google.WithAPIKey("k"), google.WithBaseURL(srv.URL)).Embedding("gemini-embedding-001")
		values := make([]string, batches*m.MaxEmbeddingsPerCall())
		for i := range values {
			values[i] = fmt.Sprintf("v%d", i)
		}
		res, err := ai.EmbedMany(context.Background(), ai.EmbedManyOptions{Model: m, Values: values, MaxRetries: &noRetries})
		srv.Close()
		require.Nil(t, res)
		var apiErr *provider.APICallError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
		assert.Equal(t, "2000", apiErr.ResponseHeaders.Get("Retry-After-Ms"))
	}
}

// failingBatchServer answers the batch holding "v0" with a 429 carrying a
// retry delay once all batches arrived, and keeps the others waiting.
func failingBatchServer(batches int32) *httptest.Server {
	var arrived atomic.Int32
	all := make(chan struct{})
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if arrived.Add(1) == batches {
			close(all)
		}
		if !strings.Contains(string(body), `"v0"`) {
			<-r.Context().Done()
			return
		}
		select {
		case <-all:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED",`+
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`)
	}))
}
