package ai

import (
	"encoding/json"
	"os"
	"strconv"
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

// grownCatalog repeats a catalog, renaming the copies, until it has n
// tools: a stand-in for a larger catalog with the same kind of texts.
func grownCatalog(cands []SearchCandidate, n int) []SearchCandidate {
	out := make([]SearchCandidate, 0, n)
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

// BenchmarkDefaultRankingQuery10k is BenchmarkDefaultRankingQuery4k over
// 10,000 tools (the Seal-Tools catalog repeated under other names).
func BenchmarkDefaultRankingQuery10k(b *testing.B) {
	catalog, queries := loadSealTools(b)
	catalog = grownCatalog(catalog, 10000)
	cfg := &searchConfig{max: DefaultMaxResults}
	cfg.rank(queries[0], catalog)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cfg.rank(queries[i%len(queries)], catalog)
	}
}
