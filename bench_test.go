package ai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	_ "github.com/aisdkgo/ai/quickjs"
)

// benchModel answers step n with responses[n], without recording calls, so
// the benchmarks measure the library rather than the test double.
type benchModel struct {
	responses []*provider.GenerateResult
	chunks    []provider.StreamPart
	step      int
}

func (m *benchModel) Provider() string { return "bench" }
func (m *benchModel) ModelID() string  { return "bench" }

func (m *benchModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	r := m.responses[m.step]
	m.step++
	return r, nil
}

func (m *benchModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		for _, p := range m.chunks {
			if !yield(p, nil) {
				return
			}
		}
	}}, nil
}

func count(n int) *int { return &n }

var benchUsage = provider.Usage{
	InputTokens:  provider.InputTokens{Total: count(1), NoCache: count(1), CacheRead: count(0), CacheWrite: count(0)},
	OutputTokens: provider.OutputTokens{Total: count(1), Text: count(1), Reasoning: count(0)},
}

type loopIn struct {
	X float64 `json:"x,omitempty"`
}

type loopOut struct {
	Y float64 `json:"y"`
}

// BenchmarkGenerateTextLoop3 is one generation of three steps: the model
// calls tool a twice (one call per step), then answers with text.
func BenchmarkGenerateTextLoop3(b *testing.B) {
	a := ai.NewTool(ai.ToolDef[loopIn, loopOut]{
		Description: "a",
		Execute: func(_ context.Context, in loopIn, _ ai.ToolExecutionOptions) (loopOut, error) {
			return loopOut{Y: in.X}, nil
		},
	})
	tools := ai.Tools{{Name: "a", Tool: a}}
	responses := []*provider.GenerateResult{
		{Content: []provider.Content{provider.ToolCall{ToolCallID: "c1", ToolName: "a", Input: `{"x":1}`}},
			FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, Usage: benchUsage},
		{Content: []provider.Content{provider.ToolCall{ToolCallID: "c2", ToolName: "a", Input: `{"x":1}`}},
			FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, Usage: benchUsage},
		{Content: []provider.Content{provider.Text{Text: "done"}},
			FinishReason: provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, Usage: benchUsage},
	}
	ctx := context.Background()
	stop := ai.StepCountIs(5)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model:    &benchModel{responses: responses},
			Tools:    tools,
			StopWhen: stop,
			Prompt:   "x",
		})
		if err != nil || res.Text != "done" || len(res.Steps) != 3 {
			b.Fatalf("unexpected result: %v %+v", err, res)
		}
	}
}

var (
	benchVerbs   = []string{"get", "list", "create", "update", "delete", "send", "search", "sync", "export", "import"}
	benchNouns   = []string{"Forecast", "Invoice", "Customer", "Email", "Calendar", "Ticket", "Repository", "Payment", "Shipment", "Contact", "Report", "Document", "Order", "Product", "Message"}
	benchSystems = []string{"billing", "crm", "ops", "support", "sales"}
)

type idIn struct {
	ID string `json:"id,omitempty"`
}

// searchTools builds the search workload: n deferred tools and a search
// tool.
func searchTools(n int) ai.Tools {
	tools := ai.Tools{{Name: "search", Tool: ai.ToolSearch()}}
	for i := range n {
		v, o := benchVerbs[i%len(benchVerbs)], benchNouns[(i/len(benchVerbs))%len(benchNouns)]
		tools = append(tools, ai.NamedTool{
			Name: fmt.Sprintf("%s%s%d", v, o, i),
			Tool: ai.NewTool(ai.ToolDef[idIn, map[string]bool]{
				DeferLoading: true,
				Description: fmt.Sprintf("%s a %s record number %d in the %s system, returns JSON with status and details.",
					v, strings.ToLower(o), i, benchSystems[i%len(benchSystems)]),
				Execute: func(context.Context, idIn, ai.ToolExecutionOptions) (map[string]bool, error) {
					return map[string]bool{"ok": true}, nil
				},
			}),
		})
	}
	return tools
}

func benchmarkSearch(b *testing.B, n int) {
	tools := searchTools(n)
	responses := []*provider.GenerateResult{
		{Content: []provider.Content{provider.ToolCall{ToolCallID: "c1", ToolName: "search", Input: `{"query":"send invoice email billing"}`}},
			FinishReason: provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}, Usage: benchUsage},
		{Content: []provider.Content{provider.Text{Text: "done"}},
			FinishReason: provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, Usage: benchUsage},
	}
	ctx := context.Background()
	stop := ai.StepCountIs(3)
	run := func() *ai.GenerateTextResult {
		res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
			Model:    &benchModel{responses: responses},
			Tools:    tools,
			StopWhen: stop,
			Prompt:   "x",
		})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	found := run().Steps[0].ToolResults()[0].Output.(ai.ToolSearchResult)
	if len(found.Tools) != 5 {
		b.Fatalf("found %d tools, want 5", len(found.Tools))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
}

// BenchmarkToolSearch1k is one generation that searches 1,000 deferred
// tools, then answers.
func BenchmarkToolSearch1k(b *testing.B) { benchmarkSearch(b, 1000) }

// BenchmarkToolSearch10k is one generation that searches 10,000 deferred
// tools, then answers.
func BenchmarkToolSearch10k(b *testing.B) { benchmarkSearch(b, 10000) }

// BenchmarkStreamText100k streams one step of 100,000 text deltas and reads
// the whole stream.
func BenchmarkStreamText100k(b *testing.B) {
	const n = 100000
	chunks := []provider.StreamPart{provider.StreamStart{}, provider.TextStart{ID: "t"}}
	for range n {
		chunks = append(chunks, provider.TextDelta{ID: "t", Delta: "ab "})
	}
	chunks = append(chunks, provider.TextEnd{ID: "t"},
		provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}, Usage: benchUsage})
	ctx := context.Background()
	b.ReportAllocs()
	parts := 0
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		res, err := ai.StreamText(ctx, ai.StreamTextOptions{Model: &benchModel{chunks: chunks}, Prompt: "x"})
		if err != nil {
			b.Fatal(err)
		}
		parts = 0
		for _, err := range res.Parts() {
			if err != nil {
				b.Fatal(err)
			}
			parts++
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(parts)*float64(b.N)/b.Elapsed().Seconds(), "parts/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(parts), "allocs/part")
}

// BenchmarkCodeModeTrivial runs a trivial program in a fresh sandbox,
// TypeScript stripping included.
func BenchmarkCodeModeTrivial(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		res, err := ai.RunCodeMode(ctx, ai.RunCodeModeOptions{JS: "const x: number = " + strconv.Itoa(i%10) + "; return x + 1;"})
		if err != nil || len(res.Value) == 0 {
			b.Fatal(err)
		}
	}
}

type inventoryIn struct {
	ProductID string `json:"productId"`
}

type inventoryOut struct {
	ProductID      string `json:"productId"`
	AvailableUnits int    `json:"availableUnits"`
}

// BenchmarkCodeMode100Calls runs a program that awaits 100 tool calls one
// after the other and sums their results.
func BenchmarkCodeMode100Calls(b *testing.B) {
	inventory := ai.NewTool(ai.ToolDef[inventoryIn, inventoryOut]{
		Description: "Get inventory for a product.",
		Execute: func(_ context.Context, in inventoryIn, _ ai.ToolExecutionOptions) (inventoryOut, error) {
			return inventoryOut{ProductID: in.ProductID, AvailableUnits: 42}, nil
		},
	})
	tools := ai.Tools{{Name: "getInventory", Tool: inventory}}
	js := `let s = 0; for (let k = 0; k < 100; k++) { const r = await tools.getInventory({ productId: "p" + k }); s += r.availableUnits; } return s;`
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := ai.RunCodeMode(ctx, ai.RunCodeModeOptions{JS: js, Tools: tools})
		if err != nil || string(res.Value) != "4200" {
			b.Fatal(err, string(res.Value))
		}
	}
}

// BenchmarkCodeModeFilter1MB runs a program that filters and sorts a tool
// result of about 1 MB.
func BenchmarkCodeModeFilter1MB(b *testing.B) {
	type row struct {
		ID    int    `json:"id"`
		Name  string `json:"name"`
		Price int    `json:"price"`
		Tags  string `json:"tags"`
	}
	var rows []row
	for i := 0; len(rows) < 12000; i++ {
		rows = append(rows, row{ID: i, Name: fmt.Sprintf("product %d", i), Price: (i * 7919) % 1000, Tags: "alpha beta gamma delta"})
	}
	data, _ := json.Marshal(rows)
	if len(data) < 900_000 {
		b.Fatalf("payload is %d bytes", len(data))
	}
	catalog, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		Execute: func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) {
			return json.RawMessage(data), nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	tools := ai.Tools{{Name: "listProducts", Tool: catalog}}
	js := `const rows = await tools.listProducts({});
return rows.filter(r => r.price > 900).sort((a, b) => b.price - a.price).slice(0, 10).map(r => r.id);`
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := ai.RunCodeMode(ctx, ai.RunCodeModeOptions{JS: js, Tools: tools})
		if err != nil || len(res.Value) == 0 {
			b.Fatal(err)
		}
	}
}
