// Package semsearch ranks deferred tools by meaning for [ai.NewToolSearch]:
// it embeds each tool's name and description with an embedding model,
// embeds the model's query, and returns the tools most similar to it
// (cosine similarity), optionally fused with a keyword ranking such as
// BM25 by reciprocal rank fusion.
//
//	searcher, err := semsearch.New(semsearch.Options{
//		Model:   openai.New().Embedding("text-embedding-3-small"),
//		Keyword: bm25.Search(nil), // optional
//	})
//	search, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: searcher.Search})
//
// # Cost
//
// Tools are embedded once: their embeddings are cached by the text embedded
// (so a tool set that changes costs only the new or changed tools), shared
// by every generation that uses the searcher, concurrent generations
// included, and computed by one [ai.EmbedMany] call per new batch of tools.
// Every search then costs one embedding call for the query and a scan of the
// cached vectors. On a shared two-core amd64 machine with AVX2, a query over
// 4,000 tools ranks in about 0.2 ms with 768 dimensions
// (BenchmarkRank4000x768) and 0.7 ms with 1,536; without AVX2 (other
// architectures, or the purego build tag) the scan takes about six times
// as long. A searcher keeps at most
// [Options.MaxCachedTools] tool embeddings (4 bytes a dimension each) and
// the ranking indexes of its four most recently used catalogs.
//
// # Quality
//
// How well the ranking works depends on the embedding model and cannot be
// measured without one. The toolret command measures it on the tool
// retrieval datasets of this repository (MetaTool and Seal-Tools dev
// splits) with a real embedder, next to the built-in and BM25 rankings:
//
//	OPENAI_API_KEY=... go run ./internal/toolret/cmd/toolret \
//		-dataset internal/toolret/testdata/sealtools.dev.json \
//		-ranker semantic -embedder openai:text-embedding-3-small
//
// -ranker semantic+bm25 measures the fusion with BM25; -embedder also takes
// google:gemini-embedding-001 (GOOGLE_GENERATIVE_AI_API_KEY) and
// compat:<base URL>:<model> for an OpenAI-compatible server (for example a
// local Ollama with nomic-embed-text, or internal/toolret/embedserver,
// which serves a small sentence encoder offline). The command embeds the
// requests in batches before measuring. With that encoder, fusion with
// bm25 and KeywordFirstSentences 3 reaches R@5 0.767 on MetaTool and
// 0.922 on Seal-Tools (bm25 alone: 0.656 and 0.921).
package semsearch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/sentences"
	"github.com/aisdkgo/ai/provider"
)

// Defaults for [Options].
const (
	DefaultLimit = 50
	// DefaultFusionK is lower than the 60 usual in document retrieval: a
	// search tool shows only its first few results, and on the tool
	// retrieval datasets of this repository a low constant, which lets
	// each ranking's first tools lead, measured better (see
	// internal/toolret/README.md).
	DefaultFusionK        = 5
	DefaultMaxCachedTools = 20000
	// KeywordFirstCount is how many of the keyword ranking's tools lead the
	// results of a long request (see [Options.KeywordFirstSentences]).
	KeywordFirstCount = 10
)

// maxCachedIndexes bounds the ranking indexes a searcher keeps, one per
// distinct catalog.
const maxCachedIndexes = 4

// Options configure a [Searcher].
type Options struct {
	// Model embeds the tools and the queries. It is required.
	Model provider.EmbeddingModel
	// Limit caps how many names one search returns (0 means
	// [DefaultLimit]); the search tool keeps at most its own MaxResults.
	Limit int
	// MinSimilarity drops the tools whose cosine similarity to the query is
	// not above it. The zero value drops only unrelated (orthogonal) and
	// opposite tools.
	MinSimilarity float64
	// Keyword, when set, is a second ranking (for example bm25.Search(nil)
	// or one built on ai.Ranking) fused with the semantic one by
	// reciprocal rank fusion: a tool scores the sum of 1/(FusionK + rank)
	// over the two rankings it appears in.
	Keyword ai.SearchFunc
	// FusionK is the constant of reciprocal rank fusion (0 means
	// [DefaultFusionK]); larger values flatten the advantage of the first
	// ranks.
	FusionK int
	// KeywordFirstSentences, when above zero, changes how a request of at
	// least that many sentences is fused: the keyword ranking's first
	// [KeywordFirstCount] tools come first, in its order, and the fused
	// ranking follows without them. A sentence is a run of text ended by
	// '?', '!', ';', a line break, a full stop followed by a space, or the
	// end. Such a request usually asks for several things, and a keyword
	// ranking may order its first results to cover each of them (bm25 does
	// from three sentences), which fusion would undo; 3 suits bm25. Zero
	// fuses every request.
	KeywordFirstSentences int
	// Document is the text embedded for a tool; nil means [DefaultDocument].
	Document func(ai.SearchCandidate) string
	// DocumentOptions and QueryOptions are the provider options of the
	// embedding calls for tools and for queries, for models that embed the
	// two differently (for example Google's taskType RETRIEVAL_DOCUMENT and
	// RETRIEVAL_QUERY).
	DocumentOptions provider.ProviderOptions
	QueryOptions    provider.ProviderOptions
	// Dimensions asks the model for shorter embeddings (0: its default).
	Dimensions int
	// MaxRetries and MaxParallelCalls are passed to ai.EmbedMany.
	MaxRetries       *int
	MaxParallelCalls int
	// MaxCachedTools bounds the tool embeddings kept (0 means
	// [DefaultMaxCachedTools]); the least recently used ones outside the
	// current catalog are dropped first.
	MaxCachedTools int
}

// DefaultDocument is the text embedded for a tool: the words of its name
// (camelCase and snake_case split, as [ai.Tokenize] splits them), then its
// description: "get weather forecast: Get the forecast for a city.".
func DefaultDocument(c ai.SearchCandidate) string {
	name := strings.Join(ai.Tokenize(c.Name), " ")
	if name == "" {
		name = c.Name
	}
	if c.Description == "" {
		return name
	}
	return name + ": " + c.Description
}

// Searcher ranks tools by the similarity of their embeddings to a query's.
// It is safe for concurrent use; its cache serves every generation that
// uses it.
type Searcher struct {
	opts Options
	doc  func(ai.SearchCandidate) string

	mu      sync.Mutex
	entries map[string]*entry
	clock   uint64
	dims    int
	indexes []*Index // most recently used first
}

// entry is the cached embedding of one document. done is closed once vec or
// err is set.
type entry struct {
	done chan struct{}
	vec  []float32
	err  error
	used uint64
}

// New returns a searcher. It returns an error when opts has no model or
// invalid numbers.
func New(opts Options) (*Searcher, error) {
	if opts.Model == nil {
		return nil, errors.New("semsearch: Options.Model is required")
	}
	if opts.Limit < 0 || opts.FusionK < 0 || opts.KeywordFirstSentences < 0 || opts.MaxCachedTools < 0 || opts.Dimensions < 0 || opts.MaxParallelCalls < 0 {
		return nil, errors.New("semsearch: Limit, FusionK, KeywordFirstSentences, MaxCachedTools, Dimensions and MaxParallelCalls must not be negative")
	}
	if opts.Limit == 0 {
		opts.Limit = DefaultLimit
	}
	if opts.FusionK == 0 {
		opts.FusionK = DefaultFusionK
	}
	if opts.MaxCachedTools == 0 {
		opts.MaxCachedTools = DefaultMaxCachedTools
	}
	s := &Searcher{opts: opts, doc: opts.Document, entries: map[string]*entry{}}
	if s.doc == nil {
		s.doc = DefaultDocument
	}
	return s, nil
}

// Search is an [ai.SearchFunc]: it returns the names of the candidates most
// similar to query, best first (equal similarities keep the candidates'
// order), fused with the keyword ranking when one is set. An embedding
// failure is returned as the error, which the search tool reports to the
// model.
func (s *Searcher) Search(ctx context.Context, query string, candidates []ai.SearchCandidate) ([]string, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	idx, err := s.Index(ctx, candidates)
	if err != nil {
		return nil, err
	}
	q, err := s.embedQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	depth := s.opts.Limit
	if s.opts.Keyword != nil {
		depth = max(2*s.opts.Limit, 100)
	}
	matches, err := idx.Rank(q, depth)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, m := range matches {
		if m.Similarity > s.opts.MinSimilarity {
			matches[n] = m
			n++
		}
	}
	matches = matches[:n]
	semantic := make([]string, len(matches))
	for i, m := range matches {
		semantic[i] = m.Name
	}
	if s.opts.Keyword == nil {
		return semantic, nil
	}
	keyword, err := s.opts.Keyword(ctx, query, candidates)
	if err != nil {
		return nil, err
	}
	fused := Fuse(s.opts.FusionK, semantic, keyword)
	if n := s.opts.KeywordFirstSentences; n > 0 && sentences.Count(query) >= n {
		fused = keywordFirst(keyword, fused)
	}
	if len(fused) > s.opts.Limit {
		fused = fused[:s.opts.Limit]
	}
	return fused, nil
}

func (s *Searcher) embedQuery(ctx context.Context, query string) ([]float32, error) {
	res, err := ai.Embed(ctx, ai.EmbedOptions{
		Model: s.opts.Model, Value: query, Dimensions: s.opts.Dimensions,
		MaxRetries: s.opts.MaxRetries, ProviderOptions: s.opts.QueryOptions,
	})
	if err != nil {
		return nil, fmt.Errorf("semsearch: embedding the query: %w", err)
	}
	return normalize(res.Embedding), nil
}

// Index returns the ranking index of a catalog, embedding the documents of
// the tools that are not cached yet; while one call embeds a document,
// other calls that need it wait for it. The index of a catalog seen
// recently is returned as it is.
func (s *Searcher) Index(ctx context.Context, catalog []ai.SearchCandidate) (*Index, error) {
	if len(catalog) == 0 {
		return &Index{}, nil
	}
	if x := s.lookup(catalog); x != nil {
		return x, nil
	}
	docs := make([]string, len(catalog))
	for i, c := range catalog {
		docs[i] = s.doc(c)
	}
	entries, err := s.acquire(ctx, docs)
	if err != nil {
		return nil, err
	}
	x := &Index{catalog: slices.Clone(catalog), dims: len(entries[0].vec)}
	x.vecs = make([]float32, 0, len(entries)*x.dims)
	for i, e := range entries {
		if len(e.vec) != x.dims {
			return nil, fmt.Errorf("semsearch: tool %q has an embedding of %d dimensions, others have %d", catalog[i].Name, len(e.vec), x.dims)
		}
		x.vecs = append(x.vecs, e.vec...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Another call may have indexed the same catalog meanwhile; keep one.
	if i := slices.IndexFunc(s.indexes, func(y *Index) bool { return y.matches(catalog) }); i >= 0 {
		x = s.indexes[i]
		s.indexes = slices.Delete(s.indexes, i, i+1)
	}
	s.indexes = slices.Insert(s.indexes, 0, x)
	if len(s.indexes) > maxCachedIndexes {
		clear(s.indexes[maxCachedIndexes:])
		s.indexes = s.indexes[:maxCachedIndexes]
	}
	s.evict(docs)
	return x, nil
}

func (s *Searcher) lookup(catalog []ai.SearchCandidate) *Index {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.indexes {
		if x.matches(catalog) {
			copy(s.indexes[1:i+1], s.indexes[:i])
			s.indexes[0] = x
			return x
		}
	}
	return nil
}

// acquire returns the entries of docs, embedding the missing ones.
func (s *Searcher) acquire(ctx context.Context, docs []string) ([]*entry, error) {
	for {
		entries := make([]*entry, len(docs))
		var mine []*entry
		var mineDocs []string
		s.mu.Lock()
		s.clock++
		for i, d := range docs {
			e := s.entries[d]
			if e == nil {
				e = &entry{done: make(chan struct{})}
				s.entries[d] = e
				mine = append(mine, e)
				mineDocs = append(mineDocs, d)
			}
			e.used = s.clock
			entries[i] = e
		}
		s.mu.Unlock()
		if len(mine) > 0 {
			if err := s.embedDocuments(ctx, mineDocs, mine); err != nil {
				return nil, err
			}
		}
		retry := false
		for _, e := range entries {
			select {
			case <-e.done:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			if e.err != nil {
				// The call that embedded it was cancelled: embed it here.
				if isContextError(e.err) && ctx.Err() == nil {
					retry = true
					break
				}
				return nil, e.err
			}
		}
		if !retry {
			return entries, nil
		}
	}
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// embedDocuments embeds docs into their new entries; on failure the
// entries are removed from the cache, so that a later search tries again.
func (s *Searcher) embedDocuments(ctx context.Context, docs []string, entries []*entry) error {
	res, err := ai.EmbedMany(ctx, ai.EmbedManyOptions{
		Model: s.opts.Model, Values: docs, Dimensions: s.opts.Dimensions,
		MaxRetries: s.opts.MaxRetries, MaxParallelCalls: s.opts.MaxParallelCalls,
		ProviderOptions: s.opts.DocumentOptions,
	})
	if err == nil {
		err = s.checkDims(res.Embeddings)
	}
	if err != nil {
		err = fmt.Errorf("semsearch: embedding the tools: %w", err)
		s.mu.Lock()
		for i, d := range docs {
			if s.entries[d] == entries[i] {
				delete(s.entries, d)
			}
		}
		s.mu.Unlock()
		for _, e := range entries {
			e.err = err
			close(e.done)
		}
		return err
	}
	for i, e := range entries {
		e.vec = normalize(res.Embeddings[i])
		close(e.done)
	}
	return nil
}

// checkDims checks that all embeddings have the dimensions of the ones
// cached before.
func (s *Searcher) checkDims(vecs [][]float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vecs {
		if len(v) == 0 {
			return errors.New("the embedding model returned an empty embedding")
		}
		if s.dims == 0 {
			s.dims = len(v)
		}
		if len(v) != s.dims {
			return fmt.Errorf("the embedding model returned embeddings of %d and %d dimensions", s.dims, len(v))
		}
	}
	return nil
}

// evict drops the least recently used finished entries beyond the bound,
// keeping those of keep. It is called with s.mu held.
func (s *Searcher) evict(keep []string) {
	over := len(s.entries) - s.opts.MaxCachedTools
	if over <= 0 {
		return
	}
	needed := make(map[string]bool, len(keep))
	for _, d := range keep {
		needed[d] = true
	}
	type candidate struct {
		doc  string
		used uint64
	}
	var old []candidate
	for d, e := range s.entries {
		select {
		case <-e.done:
		default:
			continue // being embedded
		}
		if !needed[d] {
			old = append(old, candidate{d, e.used})
		}
	}
	slices.SortFunc(old, func(a, b candidate) int {
		switch {
		case a.used < b.used:
			return -1
		case a.used > b.used:
			return 1
		}
		return strings.Compare(a.doc, b.doc)
	})
	for _, c := range old[:min(over, len(old))] {
		delete(s.entries, c.doc)
	}
}

// normalize returns v scaled to length 1 as float32; a vector without
// length (or with values that are not finite) stays all zeros, similar to
// nothing.
func normalize(v []float64) []float32 {
	out := make([]float32, len(v))
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n == 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return out
	}
	n = math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// Fuse combines rankings by reciprocal rank fusion: a name scores the sum
// of 1/(k + rank) over the rankings it appears in (ranks from 1), and the
// names are returned by falling score. Equal scores are ordered by the
// first ranking that has the name, then by rank in it. Duplicates within a
// ranking count once, at their first rank.
func Fuse(k int, rankings ...[]string) []string {
	type score struct {
		name  string
		total float64
		first int // index of the first ranking that has the name
		rank  int // rank in that ranking
	}
	var order []*score
	byName := map[string]*score{}
	for r, ranking := range rankings {
		seen := map[string]bool{}
		for i, name := range ranking {
			if seen[name] {
				continue
			}
			seen[name] = true
			sc := byName[name]
			if sc == nil {
				sc = &score{name: name, first: r, rank: i}
				byName[name] = sc
				order = append(order, sc)
			}
			sc.total += 1 / float64(k+i+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *score) int {
		switch {
		case a.total > b.total:
			return -1
		case a.total < b.total:
			return 1
		case a.first != b.first:
			return a.first - b.first
		}
		return a.rank - b.rank
	})
	names := make([]string, len(order))
	for i, sc := range order {
		names[i] = sc.name
	}
	return names
}

// keywordFirst returns the first [KeywordFirstCount] distinct names of
// keyword, in order, followed by the other names of fused.
func keywordFirst(keyword, fused []string) []string {
	out := make([]string, 0, len(fused)+KeywordFirstCount)
	seen := make(map[string]bool, KeywordFirstCount)
	for _, name := range keyword {
		if len(out) == KeywordFirstCount {
			break
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, name := range fused {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}
