package ai

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The capped ranking keeps exactly the first entries of the full ranking,
// ties in catalog order, whatever the scores.
func TestCappedRankingIsAPrefixOfTheFullOne(t *testing.T) {
	words := []string{"send", "get", "invoice", "email", "billing", "report", "sync", "order"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(300)
		catalog := make([]SearchCandidate, n)
		for i := range catalog {
			catalog[i] = SearchCandidate{
				Name:        fmt.Sprintf("%s%s%d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i),
				Description: words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))],
			}
		}
		query := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
		x := buildRankIndex(catalog)
		full := x.query(query, catalog, len(catalog))
		for _, max := range []int{1, 2, 5, 17} {
			got := x.query(query, catalog, max)
			want := full[:min(max, len(full))]
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, max %d, query %q: got %v, want %v", round, max, query, got, want)
			}
		}
	}
}
