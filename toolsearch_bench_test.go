package ai

import (
	"encoding/json"
	"os"
	"testing"
)

// loadSealTools reads the Seal-Tools dev split (4,076 tools, 700 requests)
// kept with the tool-retrieval evaluation.
func loadSealTools(b *testing.B) ([]SearchCandidate, []string) {
	b.Helper()
	raw, err := os.ReadFile("internal/toolret/testdata/sealtools.dev.json")
	if err != nil {
		b.Skip(err)
	}
	var d struct {
		Tools   []SearchCandidate `json:"tools"`
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		b.Fatal(err)
	}
	queries := make([]string, len(d.Queries))
	for i, q := range d.Queries {
		queries[i] = q.Query
	}
	return d.Tools, queries
}

// BenchmarkDefaultRankingQuery4k measures one search with the built-in
// ranking over 4,076 tools as a search tool runs it: the catalog is checked
// against the cached index, then the query is ranked. Each iteration takes
// the next Seal-Tools dev request.
func BenchmarkDefaultRankingQuery4k(b *testing.B) {
	catalog, queries := loadSealTools(b)
	cfg := &searchConfig{max: DefaultMaxResults}
	cfg.rank(queries[0], catalog) // build and cache the index
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cfg.rank(queries[i%len(queries)], catalog)
	}
}

// BenchmarkDefaultRankingIndex4k measures building the built-in ranking's
// index of 4,076 tools, the cost of the first search over a new catalog.
func BenchmarkDefaultRankingIndex4k(b *testing.B) {
	catalog, _ := loadSealTools(b)
	b.ReportAllocs()
	for b.Loop() {
		buildRankIndex(catalog)
	}
}
