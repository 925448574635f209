package ai

import (
	"slices"
	"testing"
)

// scanRanking ranks without an index: one pass over the catalog.
func scanRanking(query string, catalog []SearchCandidate) []string {
	terms := tokenize(query, nil)
	slices.Sort(terms)
	terms = slices.Compact(terms)
	if len(terms) == 0 {
		return nil
	}
	set := make(map[string]int, len(terms))
	for i, t := range terms {
		set[t] = i
	}
	type hit struct {
		i     int32
		score int32
	}
	var hits []hit
	var words []string
	var inName, inDesc []bool
	inName = make([]bool, len(terms))
	inDesc = make([]bool, len(terms))
	for i, c := range catalog {
		clear(inName)
		clear(inDesc)
		words = tokenize(c.Name, words[:0])
		for _, w := range words {
			if j, ok := set[w]; ok {
				inName[j] = true
			}
		}
		words = tokenize(c.Description, words[:0])
		for _, w := range words {
			if j, ok := set[w]; ok {
				inDesc[j] = true
			}
		}
		var s int32
		for j := range terms {
			if inName[j] {
				s += 2
			}
			if inDesc[j] {
				s++
			}
		}
		if s > 0 {
			hits = append(hits, hit{int32(i), s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return int(b.score - a.score) })
	names := make([]string, len(hits))
	for k, h := range hits {
		names[k] = catalog[h.i].Name
	}
	return names
}

func BenchmarkScratchScan4k(b *testing.B) {
	catalog, queries := loadSealTools(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		scanRanking(q, catalog)
	}
}

func BenchmarkScratchRanking4k(b *testing.B) {
	catalog, queries := loadSealTools(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		Ranking(q, catalog)
	}
}

func TestScratchScanEqual(t *testing.T) {
	catalog, queries := loadSealTools(nil)
	for _, q := range queries[:100] {
		if a, b := scanRanking(q, catalog), Ranking(q, catalog); !slices.Equal(a, b) {
			t.Fatalf("%q", q)
		}
	}
}
