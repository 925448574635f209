package semsearch

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"

	"github.com/aisdkgo/ai"
)

func TestDotKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 200; n++ {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
			want += float64(a[i]) * float64(b[i])
		}
		for name, got := range map[string]float32{"dot": dot(a, b), "generic": dotGeneric(a, b)} {
			if math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Fatalf("%s of %d values: got %v, want %v", name, n, got, want)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	v := normalize([]float64{3, 4})
	if v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("normalize(3, 4) = %v", v)
	}
	for _, bad := range [][]float64{{0, 0}, {math.Inf(1), 1}, {math.NaN(), 0}, {}} {
		for _, x := range normalize(bad) {
			if x != 0 {
				t.Fatalf("normalize(%v) = %v, want zeros", bad, normalize(bad))
			}
		}
	}
}

func TestRankMatchesASort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, dims = 500, 24
	x := &Index{dims: dims}
	for i := range n {
		x.catalog = append(x.catalog, ai.SearchCandidate{Name: strconv.Itoa(i)})
		v := make([]float64, dims)
		for j := range v {
			// Few distinct values, so that equal similarities occur.
			v[j] = float64(r.IntN(3))
		}
		x.vecs = append(x.vecs, normalize(v)...)
	}
	q := make([]float32, dims)
	for j := range q {
		q[j] = float32(r.IntN(3))
	}
	unit := normalize32(q)
	type pair struct {
		i int
		s float32
	}
	all := make([]pair, n)
	for i := range all {
		all[i] = pair{i, dot(unit, x.vecs[i*dims:(i+1)*dims])}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
	for _, limit := range []int{1, 7, 50, n, n + 10} {
		got, err := x.Rank(q, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != min(limit, n) {
			t.Fatalf("limit %d: %d matches", limit, len(got))
		}
		for k, m := range got {
			if m.Name != strconv.Itoa(all[k].i) {
				t.Fatalf("limit %d, rank %d: got %s, want %d", limit, k, m.Name, all[k].i)
			}
		}
	}
}
