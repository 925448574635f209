package semsearch_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/semsearch"
)

var catalog = []ai.SearchCandidate{
	{Name: "sendEmail", Description: "Send an email to a recipient."},
	{Name: "getForecast", Description: "Get the weather forecast for a city."},
	{Name: "createInvoice", Description: "Create an invoice for a customer."},
	{Name: "getWeatherAlerts", Description: "List the active storm and heat alerts for a region."},
	{Name: "bookFlight", Description: "Book a flight between two cities."},
}

func newSearcher(t *testing.T, opts semsearch.Options) *semsearch.Searcher {
	t.Helper()
	s, err := semsearch.New(opts)
	require.NoError(t, err)
	return s
}

// split sorts the calls of a model into those that embedded tools and
// those that embedded queries.
func split(calls []provider.EmbedCallOptions, queries ...string) (docs, qs []provider.EmbedCallOptions) {
	for _, c := range calls {
		if len(c.Values) == 1 && slices.Contains(queries, c.Values[0]) {
			qs = append(qs, c)
		} else {
			docs = append(docs, c)
		}
	}
	return docs, qs
}

func TestSearchRanksBySimilarity(t *testing.T) {
	model := &aitest.EmbeddingModel{Dimensions: 512}
	s := newSearcher(t, semsearch.Options{Model: model})
	names, err := s.Search(t.Context(), "weather forecast tomorrow", catalog)
	require.NoError(t, err)
	require.NotEmpty(t, names)
	assert.Equal(t, "getForecast", names[0])
	assert.NotContains(t, names, "createInvoice", "unrelated tools are dropped")

	docs, queries := split(model.Calls(), "weather forecast tomorrow")
	require.Len(t, docs, 1)
	assert.Equal(t, "get forecast: Get the weather forecast for a city.", docs[0].Values[1], "the name's words and the description are embedded")
	assert.Len(t, queries, 1)
}

func TestDefaultDocument(t *testing.T) {
	assert.Equal(t, "get weather alerts: List alerts.", semsearch.DefaultDocument(ai.SearchCandidate{Name: "getWeatherAlerts", Description: "List alerts."}))
	assert.Equal(t, "list files", semsearch.DefaultDocument(ai.SearchCandidate{Name: "list_files"}))
	assert.Equal(t, "--", semsearch.DefaultDocument(ai.SearchCandidate{Name: "--"}))
}

// searchingModel is a language model that searches with query in its first
// step and answers in its second.
func searchingModel(query string) *aitest.Model {
	return &aitest.Model{Respond: func(_ context.Context, call int, o *provider.CallOptions) (aitest.Response, error) {
		for _, m := range o.Prompt {
			if _, ok := m.(provider.ToolMessage); ok {
				return aitest.Response{Content: []provider.Content{aitest.Text("done")}}, nil
			}
		}
		return aitest.Response{
			Content:      []provider.Content{aitest.ToolCall("call-1", "search", fmt.Sprintf(`{"query":%q}`, query))},
			FinishReason: aitest.ToolCalls,
		}, nil
	}}
}

// deferredTools registers a search tool and the catalog as deferred tools.
func deferredTools(t *testing.T, search ai.SearchFunc) ai.Tools {
	t.Helper()
	st, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: search})
	require.NoError(t, err)
	tools := ai.Tools{{Name: "search", Tool: st}}
	for _, c := range catalog {
		tools = append(tools, ai.NamedTool{Name: c.Name, Tool: ai.NewTool(ai.ToolDef[map[string]any, string]{
			Description:  c.Description,
			DeferLoading: true,
			Execute: func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) {
				return "ok", nil
			},
		})})
	}
	return tools
}

// found returns the names a generation's search found.
func found(t *testing.T, res *ai.GenerateTextResult) []string {
	t.Helper()
	var names []string
	for _, r := range res.ToolResults() {
		out, ok := r.Output.(ai.ToolSearchResult)
		require.True(t, ok, "search output %T", r.Output)
		for _, c := range out.Tools {
			names = append(names, c.Name)
		}
	}
	return names
}

func TestIndexBuiltOnceAcrossGenerations(t *testing.T) {
	embedder := &aitest.EmbeddingModel{Dimensions: 512}
	s := newSearcher(t, semsearch.Options{Model: embedder})
	tools := deferredTools(t, s.Search)
	const query = "weather forecast"
	for range 100 {
		res, err := ai.GenerateText(t.Context(), ai.GenerateTextOptions{
			Model: searchingModel(query), Prompt: "Will it rain?", Tools: tools, StopWhen: ai.StepCountIs(3),
		})
		require.NoError(t, err)
		assert.Equal(t, "getForecast", found(t, res)[0])
	}
	docs, queries := split(embedder.Calls(), query)
	assert.Len(t, docs, 1, "the tools are embedded once for all generations")
	assert.Len(t, docs[0].Values, len(catalog))
	assert.Len(t, queries, 100, "each search embeds its query")
}

func TestConcurrentGenerationsShareOneIndex(t *testing.T) {
	embedder := &aitest.EmbeddingModel{MaxPerCall: 2, Dimensions: 512}
	s := newSearcher(t, semsearch.Options{Model: embedder})
	tools := deferredTools(t, s.Search)
	queries := []string{"weather forecast", "send an email", "book a flight", "storm alerts"}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Go(func() {
			q := queries[i%len(queries)]
			res, err := ai.GenerateText(t.Context(), ai.GenerateTextOptions{
				Model: searchingModel(q), Prompt: "Help.", Tools: tools, StopWhen: ai.StepCountIs(3),
			})
			if err == nil && len(found(t, res)) == 0 {
				err = fmt.Errorf("%q found nothing", q)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	docs, qs := split(embedder.Calls(), queries...)
	n := 0
	for _, d := range docs {
		n += len(d.Values)
	}
	assert.Equal(t, len(catalog), n, "every tool is embedded once, however many generations wait for it")
	assert.Len(t, docs, 3, "in calls of at most two values")
	assert.Len(t, qs, 40)
}

func TestChangedToolSetEmbedsOnlyNewTools(t *testing.T) {
	embedder := &aitest.EmbeddingModel{Dimensions: 512}
	s := newSearcher(t, semsearch.Options{Model: embedder})
	_, err := s.Search(t.Context(), "email", catalog)
	require.NoError(t, err)
	more := append(slices.Clone(catalog), ai.SearchCandidate{Name: "translateText", Description: "Translate text into another language."})
	names, err := s.Search(t.Context(), "translate this text", more)
	require.NoError(t, err)
	assert.Equal(t, "translateText", names[0])
	docs, _ := split(embedder.Calls(), "email", "translate this text")
	require.Len(t, docs, 2)
	assert.Equal(t, []string{"translate text: Translate text into another language."}, docs[1].Values)
}

// vectorModel embeds the texts it knows as given vectors.
func vectorModel(vectors map[string][]float64) *aitest.EmbeddingModel {
	return &aitest.EmbeddingModel{Respond: func(_ context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		res := &provider.EmbedCallResult{}
		for _, v := range o.Values {
			vec, ok := vectors[v]
			if !ok {
				return nil, fmt.Errorf("no vector for %q", v)
			}
			res.Embeddings = append(res.Embeddings, vec)
		}
		return res, nil
	}}
}

var abc = []ai.SearchCandidate{{Name: "a"}, {Name: "b"}, {Name: "c"}}

func TestFusionOrder(t *testing.T) {
	// Semantic ranking a, b, c; keyword ranking c, a.
	model := vectorModel(map[string][]float64{
		"q": {1, 0},
		"a": {1, 0.1}, "b": {1, 0.5}, "c": {1, 1},
	})
	keyword := func(context.Context, string, []ai.SearchCandidate) ([]string, error) { return []string{"c", "a"}, nil }
	plain := newSearcher(t, semsearch.Options{Model: model})
	names, err := plain.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, names)

	fused := newSearcher(t, semsearch.Options{Model: model, Keyword: keyword})
	names, err = fused.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	// a: 1/6 + 1/7, c: 1/8 + 1/6, b: 1/7.
	assert.Equal(t, []string{"a", "c", "b"}, names)

	// The constant k decides how much a first rank is worth against two
	// middle ranks. Semantic a, b, c, d; keyword d, b.
	model4 := vectorModel(map[string][]float64{"q": {1, 0}, "a": {1, 0.1}, "b": {1, 0.5}, "c": {1, 1}, "d": {1, 2}})
	abcd := append(slices.Clone(abc), ai.SearchCandidate{Name: "d"})
	keyword4 := func(context.Context, string, []ai.SearchCandidate) ([]string, error) { return []string{"d", "b"}, nil }
	names, err = newSearcher(t, semsearch.Options{Model: model4, Keyword: keyword4}).Search(t.Context(), "q", abcd)
	require.NoError(t, err)
	// k 5: b 2/7, d 1/9 + 1/6, a 1/6, c 1/8.
	assert.Equal(t, []string{"b", "d", "a", "c"}, names)
	names, err = newSearcher(t, semsearch.Options{Model: model4, Keyword: keyword4, FusionK: 1}).Search(t.Context(), "q", abcd)
	require.NoError(t, err)
	// k 1: d 1/5 + 1/2, b 2/3, a 1/2, c 1/4.
	assert.Equal(t, []string{"d", "b", "a", "c"}, names)

	keywordErr := errors.New("index offline")
	broken := newSearcher(t, semsearch.Options{Model: model, Keyword: func(context.Context, string, []ai.SearchCandidate) ([]string, error) { return nil, keywordErr }})
	_, err = broken.Search(t.Context(), "q", abc)
	assert.ErrorIs(t, err, keywordErr)
}

// TestFusionWithBM25 fuses the word-hashing embedding of aitest with the
// bm25 ranking: the result is their reciprocal rank fusion, and a tool that
// only BM25 finds (through the stem of "booked") joins it.
func TestFusionWithBM25(t *testing.T) {
	tools := []ai.SearchCandidate{
		{Name: "bookHotel", Description: "Book a hotel room."},
		{Name: "listBookings", Description: "List the bookings of a traveller."},
		{Name: "getForecast", Description: "Get the weather forecast for a city."},
		{Name: "cancelHotel", Description: "Cancel a hotel reservation."},
		{Name: "sendEmail", Description: "Send an email to a recipient."},
	}
	const query = "what has been booked for my hotel stay"
	keyword := bm25.Search(nil)
	model := &aitest.EmbeddingModel{Dimensions: 512}
	semantic, err := newSearcher(t, semsearch.Options{Model: model}).Search(t.Context(), query, tools)
	require.NoError(t, err)
	lexical, err := keyword(t.Context(), query, tools)
	require.NoError(t, err)
	require.NotContains(t, semantic, "listBookings", "the hashed words of the query miss the bookings tool")
	require.Contains(t, lexical, "listBookings", "stemming finds it")

	fused, err := newSearcher(t, semsearch.Options{Model: model, Keyword: keyword}).Search(t.Context(), query, tools)
	require.NoError(t, err)
	assert.Equal(t, semsearch.Fuse(semsearch.DefaultFusionK, semantic, lexical), fused)
	assert.Contains(t, fused, "listBookings")
	assert.NotContains(t, fused, "sendEmail", "a tool neither ranking finds stays out")
	assert.Equal(t, "bookHotel", fused[0], "the tool both rankings put first")
}

func TestFuse(t *testing.T) {
	assert.Equal(t, []string{"x", "y", "z"}, semsearch.Fuse(60, []string{"x", "y"}, []string{"x", "z"}))
	// Ties keep the order of the first ranking, then of the second.
	assert.Equal(t, []string{"a", "b", "c", "d"}, semsearch.Fuse(60, []string{"a", "c"}, []string{"b", "d"}))
	assert.Equal(t, []string{"b", "a"}, semsearch.Fuse(60, []string{"a", "b", "b"}, []string{"b"}), "duplicates count once")
	assert.Empty(t, semsearch.Fuse(60))
}

func TestLimitAndMinSimilarity(t *testing.T) {
	model := vectorModel(map[string][]float64{
		"q": {1, 0},
		"a": {1, 0}, "b": {1, 1}, "c": {-1, 0.1},
	})
	s := newSearcher(t, semsearch.Options{Model: model})
	names, err := s.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names, "an opposite tool is dropped")

	s = newSearcher(t, semsearch.Options{Model: model, MinSimilarity: 0.9})
	names, err = s.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, names)

	s = newSearcher(t, semsearch.Options{Model: model, MinSimilarity: -2, Limit: 2})
	names, err = s.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names)
}

func TestEqualSimilaritiesKeepCatalogOrder(t *testing.T) {
	model := vectorModel(map[string][]float64{"q": {1, 0}, "a": {1, 1}, "b": {2, 2}, "c": {3, 3}})
	s := newSearcher(t, semsearch.Options{Model: model})
	names, err := s.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, names)
}

func TestEmbeddingFailureIsNotCached(t *testing.T) {
	var calls atomic.Int32
	model := &aitest.EmbeddingModel{Respond: func(_ context.Context, _ int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		if calls.Add(1) == 1 {
			return nil, &provider.APICallError{Message: "invalid key", StatusCode: 401}
		}
		res := &provider.EmbedCallResult{}
		for _, v := range o.Values {
			res.Embeddings = append(res.Embeddings, aitest.HashEmbedding(v, 512))
		}
		return res, nil
	}}
	s := newSearcher(t, semsearch.Options{Model: model})
	_, err := s.Search(t.Context(), "weather", catalog)
	var apiErr *provider.APICallError
	require.ErrorAs(t, err, &apiErr)
	assert.Contains(t, err.Error(), "embedding the tools")

	names, err := s.Search(t.Context(), "weather forecast", catalog)
	require.NoError(t, err)
	assert.Equal(t, "getForecast", names[0])
}

func TestCancelledSearchDoesNotFailTheOthers(t *testing.T) {
	started := make(chan struct{})
	var first atomic.Bool
	inner := &aitest.EmbeddingModel{Dimensions: 512}
	model := &aitest.EmbeddingModel{Respond: func(ctx context.Context, call int, o *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
		if len(o.Values) > 1 && first.CompareAndSwap(false, true) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return inner.Embed(ctx, o)
	}}
	s := newSearcher(t, semsearch.Options{Model: model})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := s.Search(ctx, "weather", catalog)
		done <- err
	}()
	<-started
	second := make(chan []string, 1)
	go func() {
		names, err := s.Search(t.Context(), "weather forecast", catalog)
		assert.NoError(t, err)
		second <- names
	}()
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	names := <-second
	require.NotEmpty(t, names)
	assert.Equal(t, "getForecast", names[0])
}

func TestBadEmbeddings(t *testing.T) {
	model := vectorModel(map[string][]float64{"q": {1, 0}, "a": {1, 0}, "b": {1, 0, 0}, "c": {1, 0}})
	s := newSearcher(t, semsearch.Options{Model: model})
	_, err := s.Search(t.Context(), "q", abc)
	assert.ErrorContains(t, err, "dimensions")

	model = vectorModel(map[string][]float64{"q": {1, 0, 0}, "a": {1, 0}, "b": {1, 0}, "c": {0, 1}})
	s = newSearcher(t, semsearch.Options{Model: model})
	_, err = s.Search(t.Context(), "q", abc)
	assert.ErrorContains(t, err, "query embedding has 3 dimensions")

	model = vectorModel(map[string][]float64{"q": {1, 0}, "a": {math.NaN(), 1}, "b": {0, 0}, "c": {1, 0}})
	s = newSearcher(t, semsearch.Options{Model: model, MinSimilarity: -1})
	names, err := s.Search(t.Context(), "q", abc)
	require.NoError(t, err)
	assert.Equal(t, []string{"c", "a", "b"}, names, "vectors without a direction are similar to nothing")
}

func TestCacheBound(t *testing.T) {
	embedder := &aitest.EmbeddingModel{Dimensions: 512}
	s := newSearcher(t, semsearch.Options{Model: embedder, MaxCachedTools: 6})
	first := catalog[:3]
	second := []ai.SearchCandidate{{Name: "x1"}, {Name: "x2"}, {Name: "x3"}, {Name: "x4"}}
	for _, c := range [][]ai.SearchCandidate{first, second} {
		_, err := s.Search(t.Context(), "q", c)
		require.NoError(t, err)
	}
	// The index of the first catalog is still cached: no embedding.
	_, err := s.Search(t.Context(), "q", first)
	require.NoError(t, err)
	docs, _ := split(embedder.Calls(), "q")
	assert.Len(t, docs, 2)
	// A new catalog needs the evicted embeddings again.
	_, err = s.Search(t.Context(), "q", append(slices.Clone(first), catalog[3]))
	require.NoError(t, err)
	docs, _ = split(embedder.Calls(), "q")
	require.Len(t, docs, 3)
	assert.Len(t, docs[2].Values, 2, "one evicted tool and the new one")
}

func TestNewValidates(t *testing.T) {
	_, err := semsearch.New(semsearch.Options{})
	assert.Error(t, err)
	_, err = semsearch.New(semsearch.Options{Model: &aitest.EmbeddingModel{}, Limit: -1})
	assert.Error(t, err)
}

func TestEmptyCatalog(t *testing.T) {
	embedder := &aitest.EmbeddingModel{Dimensions: 512}
	s := newSearcher(t, semsearch.Options{Model: embedder})
	names, err := s.Search(t.Context(), "q", nil)
	require.NoError(t, err)
	assert.Empty(t, names)
	assert.Empty(t, embedder.Calls())
}

func TestOptionsReachTheModel(t *testing.T) {
	embedder := &aitest.EmbeddingModel{Dimensions: 512}
	docOpts := provider.ProviderOptions{"google": {"taskType": "RETRIEVAL_DOCUMENT"}}
	queryOpts := provider.ProviderOptions{"google": {"taskType": "RETRIEVAL_QUERY"}}
	s := newSearcher(t, semsearch.Options{Model: embedder, DocumentOptions: docOpts, QueryOptions: queryOpts, Dimensions: 16})
	_, err := s.Search(t.Context(), "weather", catalog)
	require.NoError(t, err)
	docs, queries := split(embedder.Calls(), "weather")
	assert.Equal(t, docOpts, docs[0].ProviderOptions)
	assert.Equal(t, queryOpts, queries[0].ProviderOptions)
	assert.Equal(t, 16, docs[0].Dimensions)
	assert.Equal(t, 16, queries[0].Dimensions)
}

// TestKeywordFirstSentences keeps the keyword ranking's order at the head
// of the results for requests of several sentences, and fuses the others.
func TestKeywordFirstSentences(t *testing.T) {
	const long = "Send the report. Then book a flight; and what is the weather?"
	const short = "send the report"
	// Semantic ranking a, b, c, d for both requests; keyword ranking d, b.
	model := vectorModel(map[string][]float64{
		long: {1, 0}, short: {1, 0},
		"a": {1, 0.1}, "b": {1, 0.5}, "c": {1, 1}, "d": {1, 2},
	})
	abcd := append(slices.Clone(abc), ai.SearchCandidate{Name: "d"})
	keyword := func(context.Context, string, []ai.SearchCandidate) ([]string, error) { return []string{"d", "b"}, nil }
	s := newSearcher(t, semsearch.Options{Model: model, Keyword: keyword, FusionK: 60, KeywordFirstSentences: 3})

	names, err := s.Search(t.Context(), long, abcd)
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "b", "a", "c"}, names, "three sentences: the keyword ranking first, then the fused rest")

	names, err = s.Search(t.Context(), short, abcd)
	require.NoError(t, err)
	// b 2/62, d 1/64 + 1/61, a 1/61, c 1/63.
	assert.Equal(t, []string{"b", "d", "a", "c"}, names, "one sentence: fused")

	names, err = newSearcher(t, semsearch.Options{Model: model, Keyword: keyword, FusionK: 60, KeywordFirstSentences: 4}).Search(t.Context(), long, abcd)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "d", "a", "c"}, names, "fewer sentences than asked: fused")

	names, err = newSearcher(t, semsearch.Options{Model: model, KeywordFirstSentences: 3}).Search(t.Context(), long, abcd)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d"}, names, "no keyword ranking: semantic order")

	_, err = semsearch.New(semsearch.Options{Model: model, KeywordFirstSentences: -1})
	assert.Error(t, err)
}

// TestDefaultFusionK checks the default constant of fusion on a case
// where it decides: a tool first in one ranking and sixth in the other
// against tools ranked third and third, or fourth and second.
func TestDefaultFusionK(t *testing.T) {
	model := vectorModel(map[string][]float64{
		"q": {1, 0},
		"a": {1, 0.1}, "b": {1, 0.5}, "c": {1, 1}, "d": {1, 2}, "f": {1, 3}, "e": {1, 4},
	})
	tools := []ai.SearchCandidate{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}
	// Semantic ranking a, b, c, d, f, e; keyword ranking e, d, c.
	keyword := func(context.Context, string, []ai.SearchCandidate) ([]string, error) {
		return []string{"e", "d", "c"}, nil
	}
	names, err := newSearcher(t, semsearch.Options{Model: model, Keyword: keyword}).Search(t.Context(), "q", tools)
	require.NoError(t, err)
	// k 5: e 1/11 + 1/6, d 1/9 + 1/7, c 2/8, a 1/6, b 1/7, f 1/10.
	assert.Equal(t, []string{"e", "d", "c", "a", "b", "f"}, names)
	names, err = newSearcher(t, semsearch.Options{Model: model, Keyword: keyword, FusionK: 60}).Search(t.Context(), "q", tools)
	require.NoError(t, err)
	// k 60: d 1/64 + 1/62, c 2/63, e 1/66 + 1/61, a 1/61, b 1/62, f 1/65.
	assert.Equal(t, []string{"d", "c", "e", "a", "b", "f"}, names)
}
