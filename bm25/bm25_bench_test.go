package bm25_test

import (
	"strconv"
	"testing"

	"github.com/aisdkgo/ai"

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

// grow repeats a catalog, renaming the copies, until it has n tools: a
// stand-in for a larger catalog with the same kind of texts.
func grow(cands []ai.SearchCandidate, n int) []ai.SearchCandidate {
	out := make([]ai.SearchCandidate, 0, n)
	for copyNo := 0; len(out) < n; copyNo++ {
		for _, c := range cands {
			if len(out) == n {
				break
			}
			if copyNo > 0 {
				c.Name += "V" + strconv.Itoa(copyNo+1)
			}
			out = append(out, c)
		}
	}
	return out
}

// BenchmarkRankerBM25Query10k measures one request over 10,000 tools (the
// Seal-Tools catalog repeated under other names) with the index built.
func BenchmarkRankerBM25Query10k(b *testing.B) {
	d := sealTools(b)
	x := bm25.New(grow(d.Candidates(), 10000), nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Query(d.Queries[i%len(d.Queries)].Query, 10)
	}
}

// BenchmarkRankerBM25SynonymsQuery4k is BenchmarkRankerBM25Query4k with
// Options.Synonyms (the table read before the timing).
func BenchmarkRankerBM25SynonymsQuery4k(b *testing.B) {
	d := sealTools(b)
	x := bm25.New(d.Candidates(), &bm25.Options{Synonyms: true})
	x.Query("warm up", 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Query(d.Queries[i%len(d.Queries)].Query, 10)
	}
}

// BenchmarkRankerBM25SynonymsQuery10k is BenchmarkRankerBM25Query10k with
// Options.Synonyms.
func BenchmarkRankerBM25SynonymsQuery10k(b *testing.B) {
	d := sealTools(b)
	x := bm25.New(grow(d.Candidates(), 10000), &bm25.Options{Synonyms: true})
	x.Query("warm up", 1)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.Query(d.Queries[i%len(d.Queries)].Query, 10)
	}
}

// BenchmarkRelatedTable measures reading the built-in WordNet table, done
// once by the first query with Options.Synonyms.
func BenchmarkRelatedTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		bm25.ParseRelatedForTest()
	}
}
