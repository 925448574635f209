package bm25_test

import (
	"testing"

	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/internal/toolret"
)

// sealTools loads the Seal-Tools dev split: 4,076 tools and 700 requests.
func sealTools(b *testing.B) *toolret.Dataset {
	b.Helper()
	d, err := toolret.Load("../internal/toolret/testdata/sealtools.dev.json")
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkRankerBM25Query4k measures one request over the 4,076 tools of
// Seal-Tools with the index already built; each iteration takes the next
// dev request.
func BenchmarkRankerBM25Query4k(b *testing.B) {
	d := sealTools(b)
	x := bm25.New(d.Candidates(), nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Query(d.Queries[i%len(d.Queries)].Query, 10)
	}
}

// BenchmarkRankerBM25Index4k measures indexing the 4,076 tools, the cost of
// the first search over a new catalog.
func BenchmarkRankerBM25Index4k(b *testing.B) {
	cands := sealTools(b).Candidates()
	b.ReportAllocs()
	for b.Loop() {
		bm25.New(cands, nil)
	}
}
