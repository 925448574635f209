package bm25_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/internal/toolret"
)

// TestConcurrentQueriesAgree runs requests of several sentences, which
// take the coverage ordering, on one index from several goroutines at once:
// each gets what the same request gets alone.
func TestConcurrentQueriesAgree(t *testing.T) {
	d, err := toolret.Load("../internal/toolret/testdata/sealtools.dev.json")
	if err != nil {
		t.Skipf("Seal-Tools dev split not available: %v", err)
	}
	x := bm25.New(d.Candidates(), nil)
	queries := d.Queries[:min(120, len(d.Queries))]
	want := make([][]string, len(queries))
	for i, q := range queries {
		want[i] = x.Query(q.Query, 10)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := range queries {
				// Each goroutine walks the requests from another start.
				i := (n + g*len(queries)/4) % len(queries)
				if got := x.Query(queries[i].Query, 10); !slices.Equal(got, want[i]) {
					t.Errorf("request %s: got %q alongside other requests, %q alone", queries[i].ID, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
