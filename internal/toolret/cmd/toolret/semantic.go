package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/internal/toolret"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/google"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/providers/openaicompat"
	"github.com/aisdkgo/ai/semsearch"
)

// embeddingModel returns the embedding model an -embedder value names:
// openai:<model>, google:<model>, compat:<base URL>:<model>, words:<path of
// a word-vector file> or hash.
func embeddingModel(spec string) (provider.EmbeddingModel, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	switch kind {
	case "openai":
		return openai.New().Embedding(orDefault(rest, "text-embedding-3-small")), nil
	case "google":
		return google.New().Embedding(orDefault(rest, "gemini-embedding-001")), nil
	case "compat":
		i := strings.LastIndex(rest, ":")
		if i <= 0 {
			return nil, fmt.Errorf("-embedder compat:<base URL>:<model>, got %q", spec)
		}
		return openaicompat.New(openaicompat.WithBaseURL(rest[:i])).Embedding(rest[i+1:]), nil
	case "words":
		if rest == "" {
			return nil, fmt.Errorf("-embedder words:<path of a word-vector file>, got %q", spec)
		}
		return loadWordModel(rest)
	case "hash":
		return &aitest.EmbeddingModel{Dimensions: 1024}, nil
	}
	return nil, fmt.Errorf("unknown embedder %q: want openai:<model>, google:<model>, compat:<base URL>:<model>, words:<path> or hash", spec)
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// semanticRanker returns the search function of "semantic" or
// "semantic+bm25" over embedder, fused with BM25 with bm25opts. The dataset's requests are embedded up
// front, in batches, so that measuring makes few model calls.
func semanticRanker(ctx context.Context, d *toolret.Dataset, ranker, embedder string, bm25opts *bm25.Options, fusion fusionOptions) (ai.SearchFunc, error) {
	model, err := embeddingModel(embedder)
	if err != nil {
		return nil, err
	}
	var queries []string
	for _, q := range d.Queries {
		queries = append(queries, q.Query)
	}
	slices.Sort(queries)
	queries = slices.Compact(queries)
	res, err := ai.EmbedMany(ctx, ai.EmbedManyOptions{Model: model, Values: queries, MaxParallelCalls: 4})
	if err != nil {
		return nil, fmt.Errorf("embedding the requests: %w", err)
	}
	cached := &cachedModel{EmbeddingModel: model, vectors: map[string][]float64{}}
	for i, q := range queries {
		cached.vectors[q] = res.Embeddings[i]
	}
	opts := semsearch.Options{Model: cached, MaxParallelCalls: 4, FusionK: fusion.k, KeywordFirstSentences: fusion.keywordFirst}
	if ranker == "semantic+bm25" {
		opts.Keyword = bm25.Search(bm25opts)
	}
	s, err := semsearch.New(opts)
	if err != nil {
		return nil, err
	}
	return s.Search, nil
}

// fusionOptions are the semsearch options of "semantic+bm25" that the
// command's flags set (zero: the package defaults).
type fusionOptions struct {
	k            int
	keywordFirst int
}

// cachedModel answers calls whose values it has embeddings for, and passes
// the others on.
type cachedModel struct {
	provider.EmbeddingModel
	mu      sync.Mutex
	vectors map[string][]float64
}

func (m *cachedModel) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	m.mu.Lock()
	res := &provider.EmbedCallResult{}
	for _, v := range opts.Values {
		vec, ok := m.vectors[v]
		if !ok {
			res = nil
			break
		}
		res.Embeddings = append(res.Embeddings, vec)
	}
	m.mu.Unlock()
	if res != nil {
		return res, nil
	}
	return m.EmbeddingModel.Embed(ctx, opts)
}
