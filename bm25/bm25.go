// Package bm25 is an opt-in ranking for [ai.NewToolSearch], built for
// requests written in everyday language. It scores a tool's name,
// description and parameters (their names and descriptions) with Okapi
// BM25, each a weighted field (BM25F), and adds these refinements:
//
//   - English stop words are ignored and words are reduced to their stems
//     with the Snowball English (Porter2) stemmer, so "booked" finds
//     "bookings";
//   - two words that follow each other both in the request and in a tool
//     (stop words aside) earn extra points, so "gene expression" ranks the
//     tool about gene expression above tools that only mention genes or
//     expressions;
//   - a stem also matches, at a lower weight, longer stems that begin with
//     it and shorter ones (of four letters or more) that it begins with,
//     which joins forms the stemmer keeps apart ("financ" and "financi",
//     from "finance" and "financial");
//   - a tool's score is multiplied by 1 plus the share of its own words
//     (weighted as in its score, rare ones more) that the request has, so
//     that of two tools matching a request alike, the one the request
//     describes more fully ranks first ("information about plants" puts
//     the tool that gives information on plants above the one about plant
//     diseases and pests);
//   - a request of three sentences or more, which usually asks for several
//     things, has its best tools reordered so that each next tool adds most
//     to what the ones above it have not covered yet: a term counts a
//     little less each time a tool placed above already has it, and a
//     tool gains for each sentence by as much as it matches that sentence
//     better than the tools above (so the tool for a second request is not
//     pushed out by near-copies of the tool for the first);
//   - with [Options.Synonyms], a request word also matches, at a lower
//     weight, the words related to it in WordNet (synonyms, derived forms
//     and more general words).
//
// Words are split as the built-in ranking splits them ([ai.Tokenize]:
// camelCase, snake_case, Unicode lower-casing), and an acronym is also
// parted from a capitalised word after it ("SEOTool" gives "seo" and
// "tool").
//
// Use [Search] as the search function of a search tool:
//
//	search, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: bm25.Search(nil)})
//
// or [New] to rank a catalog directly. The package is separate from [ai] so
// that programs using only the built-in ranking do not pull in the stemmer.
package bm25

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/sentences"
	"github.com/kljensen/snowball/english"
)

// Defaults for [Options].
const (
	DefaultK1         = 1.5
	DefaultB          = 0.5
	DefaultNameWeight = 2.0
	// DefaultParameterWeight is the weight of a tool's parameter names and
	// descriptions. It was set without measurement: the evaluation data
	// has no parameters.
	DefaultParameterWeight = 0.5
	DefaultLimit           = 50
)

const (
	// pairWeight is what a pair of neighbouring words counts for, relative
	// to a single word.
	pairWeight = 0.5
	// prefixWeight is what a word that starts with a request word (or that
	// a request word starts with) counts for, relative to the word itself.
	prefixWeight = 0.4
	// minPrefix is the shortest stem that prefix matching uses, in bytes.
	minPrefix = 4
	// maxCachedIndexes bounds the indexes a [Search] function keeps, one
	// per distinct catalog.
	maxCachedIndexes = 4
	// coverSentences is how many sentences a request needs before its
	// results are ordered for coverage: such requests usually ask for
	// several things at once.
	coverSentences = 3
	// coverDiscount multiplies a term's contribution each time a tool
	// placed above already has the term.
	coverDiscount = 0.8
	// coverDepth is how many of the best tools coverage ordering looks
	// at, at least.
	coverDepth = 30
	// coverTop is how many places coverage ordering fills.
	coverTop = 10
)

// Options configure the ranking. A nil *Options, like the zero value, gives
// the defaults.
type Options struct {
	// K1 sets how quickly repeats of a word stop adding to a tool's score
	// (0 means [DefaultK1]).
	K1 float64
	// B sets how much long names and descriptions are discounted against
	// the average, from 0 (not at all) to 1 (fully). 0 means [DefaultB];
	// a tiny value such as 1e-9 turns the discount off.
	B float64
	// NameWeight is what a word in the name counts for, relative to the
	// same word in the description (0 means [DefaultNameWeight]).
	NameWeight float64
	// ParameterWeight is what a word of the tool's parameters (their names
	// and descriptions, [ai.SearchCandidate.Parameters]) counts for,
	// relative to the same word in the description (0 means
	// [DefaultParameterWeight]; a tiny value such as 1e-9 ignores them).
	ParameterWeight float64
	// StopWords are the words ignored in names, descriptions and requests,
	// compared after lower-casing. Nil means a built-in English list; an
	// empty, non-nil slice ignores none.
	StopWords []string
	// Limit caps how many names one call of a [Search] function returns
	// (0 means [DefaultLimit]). The search tool keeps at most its own
	// MaxResults of them, so raise Limit when MaxResults is higher.
	Limit int
	// Synonyms makes a request word also match, at a lower weight, the
	// words WordNet relates to it in its two most frequent senses:
	// synonyms, derived forms ("buy", "purchase", "buyer") and words one
	// level more general ("translate", "change"). Only common English
	// words have them, and related words found in more than 5% of the
	// tools (and in more than one) are left out. The table, from WordNet 3.0, is built into the
	// package (180 KB compressed, 3 MB once read, on the first query that
	// needs it).
	Synonyms bool
}

// params are resolved options.
type params struct {
	k1, b, nameWeight float64
	paramWeight       float64
	stop              map[string]bool
	limit             int
	synonyms          bool
}

var defaultStop = sync.OnceValue(func() map[string]bool { return stopSet(englishStopWords) })

func stopSet(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		for _, t := range ai.Tokenize(w) {
			m[t] = true
		}
	}
	return m
}

func resolve(o *Options) *params {
	p := &params{k1: DefaultK1, b: DefaultB, nameWeight: DefaultNameWeight, paramWeight: DefaultParameterWeight, limit: DefaultLimit}
	if o == nil {
		p.stop = defaultStop()
		return p
	}
	if o.K1 > 0 {
		p.k1 = o.K1
	}
	if o.B > 0 {
		p.b = min(o.B, 1)
	}
	if o.NameWeight > 0 {
		p.nameWeight = o.NameWeight
	}
	if o.ParameterWeight > 0 {
		p.paramWeight = o.ParameterWeight
	}
	if o.Limit > 0 {
		p.limit = o.Limit
	}
	p.synonyms = o.Synonyms
	if o.StopWords == nil {
		p.stop = defaultStop()
	} else {
		p.stop = stopSet(o.StopWords)
	}
	return p
}

// Search returns a search function for [ai.ToolSearchOptions.Search]; nil
// opts means the defaults. It builds an index the first time it sees a
// catalog (the candidates' names and descriptions, in order) and reuses it
// while the catalog stays the same, across steps and generations, keeping
// the indexes of the few catalogs used last. It is safe for concurrent use.
func Search(opts *Options) ai.SearchFunc {
	c := &cache{p: resolve(opts)}
	return func(_ context.Context, query string, candidates []ai.SearchCandidate) ([]string, error) {
		return c.index(candidates).Query(query, c.p.limit), nil
	}
}

// cache holds the indexes of recently seen catalogs.
type cache struct {
	p       *params
	mu      sync.Mutex
	indexes []*Index // most recently used first
}

func (c *cache) index(catalog []ai.SearchCandidate) *Index {
	if x := c.lookup(catalog); x != nil {
		return x
	}
	x := build(catalog, c.p)
	c.mu.Lock()
	defer c.mu.Unlock()
	// Another call may have indexed the same catalog meanwhile; keep one.
	if i := slices.IndexFunc(c.indexes, func(y *Index) bool { return y.matches(catalog) }); i >= 0 {
		x = c.indexes[i]
		c.indexes = slices.Delete(c.indexes, i, i+1)
	}
	c.indexes = slices.Insert(c.indexes, 0, x)
	if len(c.indexes) > maxCachedIndexes {
		clear(c.indexes[maxCachedIndexes:])
		c.indexes = c.indexes[:maxCachedIndexes]
	}
	return x
}

func (c *cache) lookup(catalog []ai.SearchCandidate) *Index {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.indexes {
		if x.matches(catalog) {
			copy(c.indexes[1:i+1], c.indexes[:i])
			c.indexes[0] = x
			return x
		}
	}
	return nil
}

// Index is a BM25 index of one catalog. It does not change once built and
// is safe for concurrent queries.
type Index struct {
	catalog []ai.SearchCandidate
	p       *params
	// terms maps a term (a stem, or two stems joined by a space) to its
	// id, its position in idf.
	terms map[string]int32
	idf   []float64
	// postings[postStart[id]:postStart[id+1]] are the tools that have
	// term id, in catalog order.
	postings  []posting
	postStart []int32
	// stems holds the stem of every word of the catalog, so that most
	// request words need no stemming.
	stems map[string]string
	// sorted lists the single-stem terms in order, for prefix matching.
	sorted []string
	// docTerms[docStart[d]:docStart[d+1]] are the terms of tool d with
	// their impact, by term id, for coverage ordering.
	docTerms []termImpact
	docStart []int32
	// pair tells, by term id, the terms that are pairs of stems.
	pair []bool
	// whole holds, by tool, the sum of idf times impact of its single-stem
	// terms: what its coverage by a request is a share of.
	whole []float64
}

// postingsOf returns the tools that have term id.
func (x *Index) postingsOf(id int32) []posting {
	return x.postings[x.postStart[id]:x.postStart[id+1]]
}

// termsOf returns the terms of tool d.
func (x *Index) termsOf(d int32) []termImpact {
	return x.docTerms[x.docStart[d]:x.docStart[d+1]]
}

// termImpact is a term of a tool with its impact there.
type termImpact struct {
	term   int32
	impact float64
}

// posting is a tool that has a term, with the term's saturated,
// length-normalised frequency in it.
type posting struct {
	doc    int32
	impact float64
}

// New indexes catalog; nil opts means the defaults. The index keeps its own
// copy of the catalog.
func New(catalog []ai.SearchCandidate, opts *Options) *Index {
	return build(catalog, resolve(opts))
}

func (x *Index) matches(catalog []ai.SearchCandidate) bool {
	return slices.Equal(x.catalog, catalog)
}

func build(catalog []ai.SearchCandidate, p *params) *Index {
	x := &Index{
		catalog: slices.Clone(catalog),
		p:       p,
		terms:   map[string]int32{},
		stems:   map[string]string{},
	}
	stemOf := func(w string) string {
		s, ok := x.stems[w]
		if !ok {
			s = stem(w)
			x.stems[w] = s
		}
		return s
	}
	n := len(catalog)
	names := make([][]string, n)
	descs := make([][]string, n)
	pars := make([][]string, n)
	var nameLen, descLen, parLen int
	for i, c := range catalog {
		names[i] = p.analyze(c.Name, nil, stemOf)
		descs[i] = p.analyze(c.Description, nil, stemOf)
		pars[i] = p.analyze(c.Parameters, nil, stemOf)
		nameLen += len(names[i])
		descLen += len(descs[i])
		parLen += len(pars[i])
	}
	avg := func(total int) float64 {
		if total == 0 {
			return 1
		}
		return float64(total) / float64(n)
	}
	avgName, avgDesc, avgPar := avg(nameLen), avg(descLen), avg(parLen)

	// Per tool, the BM25F pseudo-frequency of each term: its count in each
	// field, divided by that field's length normalisation and multiplied
	// by the field's weight, summed over the fields.
	type entry struct {
		doc int32
		tf  float64
	}
	var entries [][]entry // by term
	termID := func(t []byte) int32 {
		id, ok := x.terms[string(t)]
		if !ok {
			id = int32(len(entries))
			x.terms[string(t)] = id
			entries = append(entries, nil)
		}
		return id
	}
	tf := map[int32]float64{}
	var term []byte
	count := func(stems []string, w float64) {
		for j, s := range stems {
			tf[termID(append(term[:0], s...))] += w
			if j > 0 {
				term = append(append(append(term[:0], stems[j-1]...), ' '), s...)
				tf[termID(term)] += w
			}
		}
	}
	for i := range catalog {
		clear(tf)
		count(names[i], p.nameWeight/(1-p.b+p.b*float64(len(names[i]))/avgName))
		count(descs[i], 1/(1-p.b+p.b*float64(len(descs[i]))/avgDesc))
		count(pars[i], p.paramWeight/(1-p.b+p.b*float64(len(pars[i]))/avgPar))
		for id, f := range tf {
			entries[id] = append(entries[id], entry{int32(i), f})
		}
	}

	x.idf = make([]float64, len(entries))
	x.postStart = make([]int32, len(entries)+1)
	x.docStart = make([]int32, n+1)
	total := 0
	for id, es := range entries {
		total += len(es)
		x.postStart[id+1] = int32(total)
		for _, e := range es {
			x.docStart[e.doc+1]++
		}
	}
	for d := range n {
		x.docStart[d+1] += x.docStart[d]
	}
	x.postings = make([]posting, 0, total)
	x.docTerms = make([]termImpact, total)
	fill := slices.Clone(x.docStart[:n])
	for id, es := range entries {
		df := float64(len(es))
		x.idf[id] = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		// Map iteration gave each tool's terms in random order, but the
		// tools came in order, so the postings are sorted already; and
		// the terms come in order, so each tool's terms are too.
		for _, e := range es {
			impact := e.tf / (p.k1 + e.tf)
			x.postings = append(x.postings, posting{doc: e.doc, impact: impact})
			x.docTerms[fill[e.doc]] = termImpact{int32(id), impact}
			fill[e.doc]++
		}
	}
	x.pair = make([]bool, len(entries))
	for t, id := range x.terms {
		if strings.Contains(t, " ") {
			x.pair[id] = true
		} else {
			x.sorted = append(x.sorted, t)
		}
	}
	x.whole = make([]float64, n)
	for d := range n {
		for _, ti := range x.termsOf(int32(d)) {
			if !x.pair[ti.term] {
				x.whole[d] += x.idf[ti.term] * ti.impact
			}
		}
	}
	slices.Sort(x.sorted)
	return x
}

// analyze appends to dst the stems of the words of text, stop words left
// out, in order.
func (p *params) analyze(text string, dst []string, stemOf func(string) string) []string {
	for _, w := range words(text) {
		if !p.stop[w] {
			dst = append(dst, stemOf(w))
		}
	}
	return dst
}

// stemOf returns the stem of w, looked up when w occurs in the catalog. It
// only reads the index.
func (x *Index) stemOf(w string) string {
	if s, ok := x.stems[w]; ok {
		return s
	}
	return stem(w)
}

// stem reduces a lower-case word to its Snowball English stem. Words with
// digits or with letters outside ASCII are kept as they are: the English
// rules are not meant for them.
func stem(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 0x80 || c >= '0' && c <= '9' {
			return w
		}
	}
	return english.Stem(w, true)
}

// words returns the lower-case words of text: those of [ai.Tokenize], after
// an acronym has been parted from a capitalised word that follows it.
func words(text string) []string {
	return ai.Tokenize(splitAcronyms(text))
}

// splitAcronyms inserts a space between two ASCII upper-case letters when a
// lower-case letter follows the second ("SEOTool" becomes "SEO Tool").
func splitAcronyms(s string) string {
	n := 0
	for i := 0; i+2 < len(s); i++ {
		if acronymEnd(s, i) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+n)
	for i := 0; i < len(s); i++ {
		b = append(b, s[i])
		if i+2 < len(s) && acronymEnd(s, i) {
			b = append(b, ' ')
		}
	}
	return string(b)
}

func acronymEnd(s string, i int) bool {
	return isUpper(s[i]) && isUpper(s[i+1]) && 'a' <= s[i+2] && s[i+2] <= 'z'
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// query is the working state of one query.
type query struct {
	stems   []string
	parts   [][]string
	ids     []int32
	weights []float64
	// has is a bit set of the terms in ids, by term id.
	has  []uint64
	pair []byte
}

// Query returns the names of the k best tools for q, best first; k <= 0
// returns every tool that shares a term with q. A tool's score is its BM25F
// score multiplied by 1 plus the share of its own words that q has: the
// share of the sum, over the tool's stems, of their idf times their
// saturated weight in the tool, that the stems q matches make up. Tools
// with equal scores keep catalog order.
func (x *Index) Query(q string, k int) []string {
	s := &query{has: make([]uint64, (len(x.idf)+63)/64)}
	split := sentences.Count(q) >= coverSentences
	x.analyzeQuery(s, q, split)
	x.matchTerms(s, s.parts, true)
	if len(s.ids) == 0 {
		return nil
	}
	// scores[d] is tool d's score, got[d] the part of x.whole[d] that the
	// request covers.
	buf := make([]float64, 2*len(x.catalog))
	scores, got := buf[:len(x.catalog)], buf[len(x.catalog):]
	touched := make([]int32, 0, len(x.catalog))
	for j, id := range s.ids {
		w := s.weights[j] * x.idf[id]
		cw := 0.0
		if !x.pair[id] {
			cw = x.idf[id]
		}
		for _, p := range x.postingsOf(id) {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += w * p.impact
			got[p.doc] += cw * p.impact
		}
	}
	for _, d := range touched {
		scores[d] *= x.coverage(got[d], d)
	}
	if k <= 0 || k > len(touched) {
		k = len(touched)
	}
	better := func(a, b int32) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	var top []int32
	if split {
		top = selectTop(touched, min(max(k, coverDepth), len(touched)), better)
		x.cover(s, top[:min(coverDepth, len(top))], min(k, coverTop), got)
		top = top[:k]
	} else {
		top = selectTop(touched, k, better)
	}
	names := make([]string, len(top))
	for i, d := range top {
		names[i] = x.catalog[d].Name
	}
	return names
}

// coverage returns what tool d's score is multiplied by when the terms a
// request matches make up got of its x.whole[d]: 1 plus that share, so a
// tool all of whose words the request has (or matches by prefix) counts
// twice as much as its BM25 score, and one the request touches at a single
// word of many little more than once.
func (x *Index) coverage(got float64, d int32) float64 {
	if x.whole[d] <= 0 {
		return 1
	}
	return 1 + got/x.whole[d]
}

// cover reorders cands (best first) in place so that its first k are
// chosen greedily, each next tool being the one that adds most to what the
// tools above it cover. A tool's gain has two parts: its score for the
// request's terms, each term's part multiplied by coverDiscount for every
// tool above that has the term; and, for each sentence of the request, how
// much its score for that sentence's stems and pairs of stems (prefixes
// aside) exceeds the best score a tool above has for it. Every part is
// multiplied by the tool's coverage by the whole request, as in Query,
// from got, Query's part of x.whole that the request covers, by tool.
// Ties, and the tools after the first k, keep their order.
func (x *Index) cover(s *query, cands []int32, k int, got []float64) {
	n := len(cands)
	// The request's terms sorted by id, with their places in s.ids.
	type place struct{ id, j int32 }
	byID := make([]place, len(s.ids))
	for j, id := range s.ids {
		byID[j] = place{id, int32(j)}
	}
	slices.SortFunc(byID, func(a, b place) int { return cmp.Compare(a.id, b.id) })
	// The terms each candidate matches, with their places in s.ids and
	// their contributions: contrib[start[i]:start[i+1]] for the candidate
	// first at place i. A tool's terms are sorted by id, so each is looked
	// up in what is left of byID.
	type part struct {
		term, j int32
		v       float64
	}
	var contrib []part
	start := make([]int, n+1)
	for i, d := range cands {
		rest := byID
		for _, ti := range x.termsOf(d) {
			if !s.contains(ti.term) {
				continue
			}
			m, _ := slices.BinarySearchFunc(rest, ti.term, func(p place, t int32) int { return cmp.Compare(p.id, t) })
			rest = rest[m:]
			j := rest[0].j
			contrib = append(contrib, part{ti.term, j, s.weights[j] * x.idf[ti.term] * ti.impact})
		}
		m := x.coverage(got[d], d)
		for q := start[i]; q < len(contrib); q++ {
			contrib[q].v *= m
		}
		start[i+1] = len(contrib)
	}
	factor := make([]float64, len(s.ids))
	for j := range factor {
		factor[j] = 1
	}
	// sent holds each sentence's score for each candidate, a row of n per
	// sentence. A sentence's terms are among the request's, with the same
	// weights.
	sent := make([]float64, 0, n*len(s.parts))
	for j := range s.parts {
		x.matchTerms(s, s.parts[j:j+1], false)
		if len(s.ids) == 0 {
			continue
		}
		row := sent[len(sent) : len(sent)+n]
		sent = sent[:len(sent)+n]
		for i := range n {
			for _, c := range contrib[start[i]:start[i+1]] {
				if s.contains(c.term) {
					row[i] += c.v
				}
			}
		}
	}
	ns := len(sent) / n
	covered := make([]float64, ns)
	// order[p] is the candidate, by its first place, now at place p.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	for pos := 0; pos < k; pos++ {
		best, gain := pos, -1.0
		for p := pos; p < n; p++ {
			i := order[p]
			g := 0.0
			for _, c := range contrib[start[i]:start[i+1]] {
				g += c.v * factor[c.j]
			}
			for j := range ns {
				g += max(0, sent[j*n+i]-covered[j])
			}
			if g > gain {
				best, gain = p, g
			}
		}
		i := order[best]
		for _, c := range contrib[start[i]:start[i+1]] {
			if c.v > 0 {
				factor[c.j] *= coverDiscount
			}
		}
		for j := range ns {
			covered[j] = max(covered[j], sent[j*n+i])
		}
		// Move the chosen tool to pos, shifting the others down by one so
		// that they keep their order.
		moveTo(cands, pos, best)
		moveTo(order, pos, best)
	}
}

// moveTo moves element from of s to index to (to <= from), shifting those
// between up by one.
func moveTo[T any](s []T, to, from int) {
	v := s[from]
	copy(s[to+1:from+1], s[to:from])
	s[to] = v
}

// analyzeQuery fills s.stems with the stems of q and s.parts with its
// parts: the whole request, or each sentence when split is set.
func (x *Index) analyzeQuery(s *query, q string, split bool) {
	s.stems, s.parts = s.stems[:0], s.parts[:0]
	var ends []int
	if split {
		for _, text := range sentences.Split(q) {
			s.stems = x.p.analyze(text, s.stems, x.stemOf)
			ends = append(ends, len(s.stems))
		}
	} else {
		s.stems = x.p.analyze(q, s.stems, x.stemOf)
		ends = append(ends, len(s.stems))
	}
	start := 0
	for _, end := range ends {
		if end > start {
			s.parts = append(s.parts, s.stems[start:end])
		}
		start = end
	}
}

// matchTerms fills s.ids and s.weights with the catalog terms that the
// stems of parts match and their weights: the stems, the pairs of
// neighbouring stems within a part, and, when prefixes is set, the stems
// that start with one of the stems or that one of them starts with, and
// with Synonyms the stems related to them.
func (x *Index) matchTerms(s *query, parts [][]string, prefixes bool) {
	for _, id := range s.ids {
		s.has[id/64] = 0
	}
	s.ids, s.weights = s.ids[:0], s.weights[:0]
	add := func(id int32, w float64) {
		if !s.contains(id) {
			s.has[id/64] |= 1 << (id % 64)
			s.ids = append(s.ids, id)
			s.weights = append(s.weights, w)
		}
	}
	for _, stems := range parts {
		for _, st := range stems {
			if id, ok := x.terms[st]; ok {
				add(id, 1)
			}
		}
	}
	for _, stems := range parts {
		for j := 1; j < len(stems); j++ {
			s.pair = append(append(append(s.pair[:0], stems[j-1]...), ' '), stems[j]...)
			if id, ok := x.terms[string(s.pair)]; ok {
				add(id, pairWeight)
			}
		}
	}
	if !prefixes {
		return
	}
	for _, stems := range parts {
		for _, st := range stems {
			if len(st) < minPrefix {
				continue
			}
			i, _ := slices.BinarySearch(x.sorted, st)
			for ; i < len(x.sorted) && strings.HasPrefix(x.sorted[i], st); i++ {
				add(x.terms[x.sorted[i]], prefixWeight)
			}
			for l := minPrefix; l < len(st); l++ {
				if id, ok := x.terms[st[:l]]; ok {
					add(id, prefixWeight)
				}
			}
		}
	}
	if !x.p.synonyms {
		return
	}
	related := relatedTable()
	maxDF := max(1, int32(relatedMaxShare*float64(len(x.catalog))))
	for _, stems := range parts {
		for _, st := range stems {
			for _, r := range related[st] {
				if id, ok := x.terms[r]; ok && x.postStart[id+1]-x.postStart[id] <= maxDF {
					add(id, relatedWeight)
				}
			}
		}
	}
}

// contains reports whether term id is among s.ids.
func (s *query) contains(id int32) bool {
	return s.has[id/64]&(1<<(id%64)) != 0
}

// selectTop returns the k best of docs, sorted best first. When k is much
// smaller than len(docs) it keeps a sorted list of the k best seen so far
// instead of sorting them all; otherwise it sorts docs in place.
func selectTop(docs []int32, k int, better func(a, b int32) int) []int32 {
	if k >= len(docs)/4 {
		slices.SortFunc(docs, better)
		return docs[:k]
	}
	top := make([]int32, 0, k)
	for _, d := range docs {
		if len(top) == k && better(d, top[k-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, d, better)
		if len(top) < k {
			top = slices.Insert(top, i, d)
		} else {
			copy(top[i+1:], top[i:k-1])
			top[i] = d
		}
	}
	return top
}

// englishStopWords are common English function words, and the pieces the
// tokenizer leaves of contractions ("don't" gives "don" and "t").
var englishStopWords = strings.Fields(`
a about above after again against all also am an and any are as at
be because been before being below between both but by
can could did do does doing down during each either few for from further
had has have having he her here hers herself him himself his how
i if in into is it its itself just
may me might more most must my myself neither no nor not now
of off on once only or other others our ours ourselves out over own
please same shall she should so some such
than that the their theirs them themselves then there these they this those through to too
under until up upon very
was we were what whatever when where whether which while who whom whose why will with within without would
you your yours yourself yourselves
s t d ll m re ve don doesn didn isn aren wasn weren won wouldn couldn shouldn
`)
