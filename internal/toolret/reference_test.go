package toolret

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// datasets are the dev splits kept in testdata.
var datasets = []string{"metatool", "sealtools"}

var (
	loadOnce sync.Once
	loaded   map[string]*Dataset
	refs     map[string]map[string][]string
	loadErr  error
)

// load reads both dev splits and the reference rankings, once per test
// binary.
func load(t testing.TB) (map[string]*Dataset, map[string]map[string][]string) {
	t.Helper()
	loadOnce.Do(func() {
		loaded = map[string]*Dataset{}
		refs = map[string]map[string][]string{}
		for _, name := range datasets {
			d, err := Load("testdata/" + name + ".dev.json")
			if err != nil {
				loadErr = err
				return
			}
			r, err := LoadRankings("testdata/" + name + ".dev.sdk10.jsonl")
			if err != nil {
				loadErr = err
				return
			}
			loaded[name], refs[name] = d, r
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded, refs
}

// TestDefaultRankingMatchesReference requires the built-in ranking to
// return, for every dev query of both datasets, the same first ten names as
// the TypeScript reference (fewer when fewer tools match), in the same
// order.
//
// Each ai.Ranking call indexes the whole catalog again, which the race
// detector slows down several times over while having nothing to check
// here (one goroutine). Under it, every fourth query is checked; without
// it, all of them.
func TestDefaultRankingMatchesReference(t *testing.T) {
	stride := 1
	if raceEnabled {
		stride = 4
	}
	ds, refs := load(t)
	for _, name := range datasets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d, ref := ds[name], refs[name]
			if len(ref) != len(d.Queries) {
				t.Fatalf("%d reference rankings for %d queries", len(ref), len(d.Queries))
			}
			cands := d.Candidates()
			diffs, checked := 0, 0
			for i := 0; i < len(d.Queries); i += stride {
				q := d.Queries[i]
				checked++
				want, ok := ref[q.ID]
				if !ok {
					t.Fatalf("no reference ranking for %s", q.ID)
				}
				got := ai.Ranking(q.Query, cands)
				got = got[:min(len(got), 10)]
				if !slices.Equal(got, want) {
					if diffs++; diffs <= 10 {
						t.Errorf("%s %q:\n got  %q\n want %q", q.ID, q.Query, got, want)
					}
				}
			}
			if diffs > 0 {
				t.Errorf("%d of %d queries differ", diffs, checked)
			}
			t.Logf("%d of %d queries checked", checked, len(d.Queries))
		})
	}
}

// TestToolSearchMatchesReference runs a sample of the dev queries through
// whole generations: a scripted model calls the built-in search tool
// (MaxResults 10) with the query, every tool of the dataset is registered
// as deferred, and the search result must list the reference's names in
// order. All generations share one search tool, and with it its cached
// index.
func TestToolSearchMatchesReference(t *testing.T) {
	const sample = 40
	ds, refs := load(t)
	for _, name := range datasets {
		t.Run(name, func(t *testing.T) {
			d, ref := ds[name], refs[name]
			ten := 10
			search, err := ai.NewToolSearch(ai.ToolSearchOptions{MaxResults: &ten})
			if err != nil {
				t.Fatal(err)
			}
			searchName := "tool_search"
			for slices.ContainsFunc(d.Tools, func(tl Tool) bool { return tl.Name == searchName }) {
				searchName += "_"
			}
			tools := ai.Tools{{Name: searchName, Tool: search}}
			for _, tl := range d.Tools {
				ft, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
					Description:  tl.Description,
					DeferLoading: true,
					Execute: func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) {
						return "ok", nil
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				tools = append(tools, ai.NamedTool{Name: tl.Name, Tool: ft})
			}
			step := max(1, len(d.Queries)/sample)
			for i := 0; i < len(d.Queries); i += step {
				q := d.Queries[i]
				model := aitest.NewModel(aitest.Response{
					Content:      []provider.Content{aitest.ToolCall("c1", searchName, map[string]string{"query": q.Query})},
					FinishReason: aitest.ToolCalls,
				})
				res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: q.Query, Tools: tools})
				if err != nil {
					t.Fatalf("%s: %v", q.ID, err)
				}
				got, err := searchNames(res)
				if err != nil {
					t.Fatalf("%s: %v", q.ID, err)
				}
				if want := ref[q.ID]; !slices.Equal(got, want) {
					t.Errorf("%s %q:\n got  %q\n want %q", q.ID, q.Query, got, want)
				}
			}
		})
	}
}

// searchNames returns the names a generation's only search call found.
func searchNames(res *ai.GenerateTextResult) ([]string, error) {
	results := res.ToolResults()
	if len(results) != 1 {
		return nil, fmt.Errorf("%d tool results (tool errors: %v)", len(results), res.FinalStep().ToolErrors())
	}
	out, ok := results[0].Output.(ai.ToolSearchResult)
	if !ok {
		return nil, fmt.Errorf("search output is %T", results[0].Output)
	}
	var names []string
	for _, c := range out.Tools {
		names = append(names, c.Name)
	}
	return names, nil
}
