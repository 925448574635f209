package toolret

import (
	"context"
	"math"
	"testing"
)

func TestScore(t *testing.T) {
	ranked := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	for _, tc := range []struct {
		relevant      []string
		r5, r10, rr   float64
		name          string
		ranked        []string
		wantZeroCount bool
	}{
		{name: "first", relevant: []string{"a"}, r5: 1, r10: 1, rr: 1},
		{name: "sixth", relevant: []string{"f"}, r5: 0, r10: 1, rr: 1.0 / 6},
		{name: "eleventh", relevant: []string{"k"}, r5: 0, r10: 0, rr: 0},
		{name: "two of three", relevant: []string{"c", "g", "z"}, r5: 1.0 / 3, r10: 2.0 / 3, rr: 1.0 / 3},
		{name: "duplicate relevant", relevant: []string{"b", "b"}, r5: 1, r10: 1, rr: 0.5},
		{name: "no result", relevant: []string{"a"}, ranked: []string{}, wantZeroCount: true},
	} {
		r := ranked
		if tc.ranked != nil {
			r = tc.ranked
		}
		r5, r10, rr, empty := Score(r, tc.relevant)
		if !near(r5, tc.r5) || !near(r10, tc.r10) || !near(rr, tc.rr) || empty != tc.wantZeroCount {
			t.Errorf("%s: got %v %v %v %v, want %v %v %v %v", tc.name, r5, r10, rr, empty, tc.r5, tc.r10, tc.rr, tc.wantZeroCount)
		}
	}
	// A result listed twice counts once.
	if r5, _, _, _ := Score([]string{"a", "a", "b"}, []string{"a", "b"}); r5 != 1 {
		t.Errorf("repeated result: R@5 = %v", r5)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestRankerUnknown(t *testing.T) {
	if _, err := Ranker("nope", nil); err == nil {
		t.Error("no error for an unknown ranker")
	}
}

// TestBM25DevFigures guards the BM25 ranking's quality on the dev splits.
func TestBM25DevFigures(t *testing.T) {
	ds, _ := load(t)
	for _, tc := range []struct {
		dataset string
		minR5   float64
	}{
		{"metatool", 0.65},
		{"sealtools", 0.84},
	} {
		search, err := Ranker("bm25", nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Evaluate(context.Background(), ds[tc.dataset], search)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: R@5 %.3f R@10 %.3f MRR@10 %.3f no result %.3f", tc.dataset, m.RecallAt5, m.RecallAt10, m.MRR10, m.ZeroResults)
		if m.RecallAt5 < tc.minR5 {
			t.Errorf("%s: R@5 %.3f, want at least %.2f", tc.dataset, m.RecallAt5, tc.minR5)
		}
	}
}

func TestNDCGAndRecallAt(t *testing.T) {
	ranked := []string{"a", "b", "c", "d"}
	if got := NDCG(ranked, []string{"a"}, 10); !near(got, 1) {
		t.Errorf("first: nDCG %v, want 1", got)
	}
	if got := NDCG(ranked, []string{"b"}, 10); !near(got, 1/math.Log2(3)) {
		t.Errorf("second: nDCG %v", got)
	}
	// Two relevant, found at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2 3).
	if got, want := NDCG(ranked, []string{"a", "c"}, 10), 1.5/(1+1/math.Log2(3)); !near(got, want) {
		t.Errorf("two: nDCG %v, want %v", got, want)
	}
	if got := NDCG(ranked, []string{"d"}, 3); got != 0 {
		t.Errorf("beyond k: nDCG %v, want 0", got)
	}
	if got := RecallAt(ranked, []string{"a", "b"}, 1); !near(got, 0.5) {
		t.Errorf("R@1 = %v, want 0.5", got)
	}
	if got := RecallAt([]string{"a", "a"}, []string{"a", "b"}, 2); !near(got, 0.5) {
		t.Errorf("repeated result: R@2 = %v, want 0.5", got)
	}
}
