package ai

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The index ranks exactly as scoring every candidate directly and sorting
// them stably by score would, whatever the cap: ties stay in catalog order
// and a capped ranking is the start of the full one.
func TestRankingMatchesDirectScoring(t *testing.T) {
	words := []string{"send", "get", "invoice", "email", "billing", "report", "sync", "order"}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		n := 1 + rng.IntN(400)
		catalog := make([]SearchCandidate, n)
		for i := range catalog {
			desc := ""
			for range rng.IntN(6) {
				desc += words[rng.IntN(len(words))] + " "
			}
			catalog[i] = SearchCandidate{
				Name:        fmt.Sprintf("%s%s%d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i),
				Description: desc,
			}
		}
		query := ""
		for range 1 + rng.IntN(5) {
			query += words[rng.IntN(len(words))] + " "
		}
		x := buildRankIndex(catalog)
		for _, max := range []int{1, 2, 5, 17, n, 1 + rng.IntN(n+3)} {
			if got, want := x.query(query, max), directRanking(query, catalog, max); !slices.Equal(got, want) {
				t.Fatalf("round %d, max %d, query %q:\n got %v\nwant %v", round, max, query, got, want)
			}
		}
	}
}

// directRanking scores each candidate on its own: 2 per distinct query
// word in its name, 1 per one in its description.
func directRanking(query string, catalog []SearchCandidate, max int) []string {
	terms := slices.Compact(slices.Sorted(slices.Values(Tokenize(query))))
	type scored struct {
		name  string
		score int
	}
	var all []scored
	for _, c := range catalog {
		name, desc := Tokenize(c.Name), Tokenize(c.Description)
		s := 0
		for _, t := range terms {
			if slices.Contains(name, t) {
				s += 2
			}
			if slices.Contains(desc, t) {
				s++
			}
		}
		if s > 0 {
			all = append(all, scored{c.Name, s})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return b.score - a.score })
	var names []string
	for _, s := range all[:min(max, len(all))] {
		names = append(names, s.name)
	}
	return names
}
