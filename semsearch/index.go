package semsearch

import (
	"fmt"

	"github.com/aisdkgo/ai"
)

// Index holds the unit-length embeddings of one catalog, in one block of
// memory. It does not change once built and is safe for concurrent use.
type Index struct {
	catalog []ai.SearchCandidate
	dims    int
	vecs    []float32 // len(catalog) rows of dims values
}

// Match is a ranked tool.
type Match struct {
	Name string
	// Similarity is the cosine similarity of the tool to the query, from
	// -1 to 1.
	Similarity float64
}

// Len returns the number of tools.
func (x *Index) Len() int { return len(x.catalog) }

// Dimensions returns the size of the embeddings.
func (x *Index) Dimensions() int { return x.dims }

func (x *Index) matches(catalog []ai.SearchCandidate) bool {
	if len(x.catalog) != len(catalog) {
		return false
	}
	for i := range catalog {
		if x.catalog[i] != catalog[i] {
			return false
		}
	}
	return true
}

// Rank returns the limit tools most similar to the query embedding q (which
// need not have length 1), best first; equal similarities keep catalog
// order. q must have the index's dimensions.
func (x *Index) Rank(q []float32, limit int) ([]Match, error) {
	if len(q) != x.dims {
		return nil, fmt.Errorf("semsearch: the query embedding has %d dimensions, the tools' have %d", len(q), x.dims)
	}
	limit = min(limit, len(x.catalog))
	if limit <= 0 {
		return nil, nil
	}
	unit := normalize32(q)
	// h keeps the best limit tools seen so far, the worst at its root.
	h := make(top, 0, limit)
	for i := range x.catalog {
		c := scored{i, dot(unit, x.vecs[i*x.dims:(i+1)*x.dims])}
		if len(h) < limit {
			h = h.push(c)
		} else if better(c, h[0]) {
			h[0] = c
			h.down(0)
		}
	}
	out := make([]Match, len(h))
	for j := len(h) - 1; j >= 0; j-- {
		var c scored
		c, h = h.pop()
		out[j] = Match{Name: x.catalog[c.i].Name, Similarity: float64(c.s)}
	}
	return out, nil
}

func normalize32(q []float32) []float32 {
	v := make([]float64, len(q))
	for i, x := range q {
		v[i] = float64(x)
	}
	return normalize(v)
}

type scored struct {
	i int
	s float32
}

// better reports whether a ranks before b: a higher similarity, or the same
// and earlier in the catalog.
func better(a, b scored) bool {
	if a.s != b.s {
		return a.s > b.s
	}
	return a.i < b.i
}

// top is a binary heap whose root is the worst of the kept tools.
type top []scored

// worse reports whether element i ranks after element j.
func (h top) worse(i, j int) bool { return better(h[j], h[i]) }

func (h top) push(c scored) top {
	h = append(h, c)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.worse(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func (h top) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l
		if r := l + 1; r < len(h) && h.worse(r, l) {
			w = r
		}
		if !h.worse(w, i) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// pop removes the root.
func (h top) pop() (scored, top) {
	c := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	h.down(0)
	return c, h
}
