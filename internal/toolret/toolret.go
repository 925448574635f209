// Package toolret measures how well a tool search ranks the tools a request
// needs, on public tool-retrieval datasets converted to one compact form
// (see testdata/README.md).
package toolret

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/bm25"
)

// Tool is one tool of a dataset's catalog.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Query is one request with the names of the tools it needs.
type Query struct {
	ID       string   `json:"id"`
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
	Tags     []string `json:"tags,omitempty"`
}

// Dataset is a tool catalog with requests over it.
type Dataset struct {
	Source  map[string]any `json:"source"`
	Tools   []Tool         `json:"tools"`
	Queries []Query        `json:"queries"`
}

// Name is the dataset's name from its source record ("" when absent).
func (d *Dataset) Name() string {
	s, _ := d.Source["name"].(string)
	return s
}

// Load reads a dataset file.
func Load(path string) (*Dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Dataset
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(d.Tools) == 0 || len(d.Queries) == 0 {
		return nil, fmt.Errorf("%s: no tools or no queries", path)
	}
	return &d, nil
}

// Candidates returns the catalog as search candidates, in dataset order.
func (d *Dataset) Candidates() []ai.SearchCandidate {
	cs := make([]ai.SearchCandidate, len(d.Tools))
	for i, t := range d.Tools {
		cs[i] = ai.SearchCandidate{Name: t.Name, Description: t.Description}
	}
	return cs
}

// LoadRankings reads a JSON Lines file of {"id", "ranked"} records and
// returns the ranked names by query id.
func LoadRankings(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r struct {
			ID     string   `json:"id"`
			Ranked []string `json:"ranked"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if r.Ranked == nil {
			r.Ranked = []string{}
		}
		out[r.ID] = r.Ranked
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Metrics are retrieval figures averaged over a dataset's queries.
type Metrics struct {
	Queries int
	// RecallAt1 is the share of a query's relevant tools found first (1
	// for a query needing one tool that comes first), averaged over queries.
	RecallAt1 float64
	// RecallAt5 and RecallAt10 are the share of a query's relevant tools
	// found in the first 5 (10) results, averaged over queries.
	RecallAt5, RecallAt10 float64
	// MRR10 is the mean of 1/rank of the first relevant result, counting 0
	// when none is in the first 10.
	MRR10 float64
	// NDCG10 is the normalised discounted cumulative gain of the first 10
	// results with binary relevance, averaged over queries.
	NDCG10 float64
	// ZeroResults is the share of queries with no result at all.
	ZeroResults float64
}

// Score returns the figures for one query: ranked is the search's answer,
// best first; relevant the tools the query needs.
func Score(ranked, relevant []string) (r5, r10, rr float64, empty bool) {
	if len(relevant) == 0 {
		return 0, 0, 0, len(ranked) == 0
	}
	want := make(map[string]bool, len(relevant))
	for _, n := range relevant {
		want[n] = true
	}
	seen := make(map[string]bool, 10)
	hits5, hits10 := 0, 0
	for i, n := range ranked {
		if i >= 10 {
			break
		}
		if !want[n] || seen[n] {
			continue
		}
		seen[n] = true
		if rr == 0 {
			rr = 1 / float64(i+1)
		}
		if i < 5 {
			hits5++
		}
		hits10++
	}
	n := float64(len(want))
	return float64(hits5) / n, float64(hits10) / n, rr, len(ranked) == 0
}

// NDCG returns the normalised discounted cumulative gain of the first k
// results, each relevant tool gaining 1 / log2(rank + 1) once.
func NDCG(ranked, relevant []string, k int) float64 {
	want := make(map[string]bool, len(relevant))
	for _, n := range relevant {
		want[n] = true
	}
	if len(want) == 0 {
		return 0
	}
	dcg, ideal := 0.0, 0.0
	seen := make(map[string]bool, k)
	for i, n := range ranked {
		if i >= k {
			break
		}
		if want[n] && !seen[n] {
			seen[n] = true
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < min(k, len(want)); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

// RecallAt returns the share of the relevant tools among the first k
// results (0 when nothing is relevant).
func RecallAt(ranked, relevant []string, k int) float64 {
	want := make(map[string]bool, len(relevant))
	for _, n := range relevant {
		want[n] = true
	}
	if len(want) == 0 {
		return 0
	}
	seen := make(map[string]bool, k)
	for i, n := range ranked {
		if i >= k {
			break
		}
		if want[n] {
			seen[n] = true
		}
	}
	return float64(len(seen)) / float64(len(want))
}

// Evaluate runs search on every query of d, over the whole catalog, and
// averages the figures. The search gets the candidates in dataset order.
func Evaluate(ctx context.Context, d *Dataset, search ai.SearchFunc) (Metrics, error) {
	cands := d.Candidates()
	var m Metrics
	for _, q := range d.Queries {
		ranked, err := search(ctx, q.Query, cands)
		if err != nil {
			return Metrics{}, fmt.Errorf("query %s: %w", q.ID, err)
		}
		r5, r10, rr, empty := Score(ranked, q.Relevant)
		m.RecallAt1 += RecallAt(ranked, q.Relevant, 1)
		m.NDCG10 += NDCG(ranked, q.Relevant, 10)
		m.RecallAt5 += r5
		m.RecallAt10 += r10
		m.MRR10 += rr
		if empty {
			m.ZeroResults++
		}
	}
	m.Queries = len(d.Queries)
	n := float64(m.Queries)
	m.RecallAt1 /= n
	m.NDCG10 /= n
	m.RecallAt5 /= n
	m.RecallAt10 /= n
	m.MRR10 /= n
	m.ZeroResults /= n
	return m, nil
}

// Rankers lists the rankings [Ranker] knows.
var Rankers = []string{"default", "bm25"}

// Ranker returns the search function of a ranking by name: "default" is
// the built-in keyword ranking ([ai.Ranking]), "bm25" the [bm25] ranking
// with opts (nil means its defaults).
func Ranker(name string, opts *bm25.Options) (ai.SearchFunc, error) {
	switch name {
	case "default":
		return func(_ context.Context, query string, candidates []ai.SearchCandidate) ([]string, error) {
			return ai.Ranking(query, candidates), nil
		}, nil
	case "bm25":
		return bm25.Search(opts), nil
	}
	return nil, fmt.Errorf("unknown ranker %q (want one of %v)", name, Rankers)
}
