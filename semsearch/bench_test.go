package semsearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/semsearch"
)

// randomModel embeds every text as a random vector seeded by the text's
// position in the call, so that building large indexes costs little.
type randomModel struct {
	dims int
	r    *rand.Rand
}

func (m *randomModel) Provider() string            { return "bench" }
func (m *randomModel) ModelID() string             { return "random" }
func (m *randomModel) MaxEmbeddingsPerCall() int   { return 0 }
func (m *randomModel) SupportsParallelCalls() bool { return false }
func (m *randomModel) Embed(_ context.Context, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	res := &provider.EmbedCallResult{}
	for range o.Values {
		v := make([]float64, m.dims)
		for i := range v {
			v[i] = m.r.NormFloat64()
		}
		res.Embeddings = append(res.Embeddings, v)
	}
	return res, nil
}

func benchCatalog(n int) []ai.SearchCandidate {
	c := make([]ai.SearchCandidate, n)
	for i := range c {
		c[i] = ai.SearchCandidate{Name: fmt.Sprintf("tool%d", i), Description: fmt.Sprintf("Does thing number %d.", i)}
	}
	return c
}

func benchRank(b *testing.B, n, dims int) {
	s, err := semsearch.New(semsearch.Options{Model: &randomModel{dims: dims, r: rand.New(rand.NewPCG(1, 2))}})
	if err != nil {
		b.Fatal(err)
	}
	idx, err := s.Index(context.Background(), benchCatalog(n))
	if err != nil {
		b.Fatal(err)
	}
	q := make([]float32, dims)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := idx.Rank(q, semsearch.DefaultLimit); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRank4000x768 ranks 4,000 cached tool embeddings of 768
// dimensions for one query embedding.
func BenchmarkRank4000x768(b *testing.B)  { benchRank(b, 4000, 768) }
func BenchmarkRank4000x256(b *testing.B)  { benchRank(b, 4000, 256) }
func BenchmarkRank4000x1536(b *testing.B) { benchRank(b, 4000, 1536) }

// BenchmarkSearch4000x768 is one whole search over 4,000 cached tools: the
// catalog lookup, the query's embedding (by a model that answers at once)
// and the ranking.
func BenchmarkSearch4000x768(b *testing.B) {
	s, err := semsearch.New(semsearch.Options{Model: &randomModel{dims: 768, r: rand.New(rand.NewPCG(1, 2))}})
	if err != nil {
		b.Fatal(err)
	}
	catalog := benchCatalog(4000)
	ctx := context.Background()
	if _, err := s.Search(ctx, "warm up", catalog); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Search(ctx, "send the invoice by email", catalog); err != nil {
			b.Fatal(err)
		}
	}
}
