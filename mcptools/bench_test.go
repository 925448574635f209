package mcptools_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

var (
	benchServices = []string{"github", "jira", "slack", "drive", "calendar", "mail", "crm", "billing", "deploy", "metrics"}
	benchVerbs    = []string{"list", "get", "create", "update", "delete", "search", "archive", "export", "assign", "comment"}
	benchNouns    = []string{"issues", "pages", "messages", "files", "events", "contacts", "invoices", "releases", "dashboards", "users"}
)

// addBenchTools registers n tools with distinct names, descriptions and
// schemas of a few properties, like a large real server.
func addBenchTools(s *mcp.Server, n int) {
	for i := range n {
		svc := benchServices[i%len(benchServices)]
		verb := benchVerbs[(i/len(benchServices))%len(benchVerbs)]
		noun := benchNouns[(i/(len(benchServices)*len(benchVerbs)))%len(benchNouns)]
		name := fmt.Sprintf("%s_%s_%s_%d", svc, verb, noun, i)
		desc := fmt.Sprintf("%s the %s of a %s workspace. Supports paging and filters; returns JSON.", verb, noun, svc)
		s.AddTool(&mcp.Tool{
			Name: name, Description: desc,
			InputSchema: objectSchema("workspace", "query", "cursor"),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: verb == "list" || verb == "get" || verb == "search"},
		}, textResult(name+": %v"))
	}
}

// BenchmarkSourceTools lists 1,000 tools of an in-memory server and
// converts them into deferred ai tools, as the first call of Tools (or the
// first after a list change) does.
func BenchmarkSourceTools(b *testing.B) {
	ts := newServer(b, nil, func(s *mcp.Server) { addBenchTools(s, 1000) })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tools, err := mcptools.NewSource(ts.session, &mcptools.Options{Prefix: "x_", DeferLoading: true}).Tools(ctx)
		if err != nil || len(tools) != 1000 {
			b.Fatal(len(tools), err)
		}
	}
}

// BenchmarkSourceToolsCached is a call of Tools on a source that is not
// stale: the common case, once per generation.
func BenchmarkSourceToolsCached(b *testing.B) {
	ts := newServer(b, nil, func(s *mcp.Server) { addBenchTools(s, 1000) })
	ctx := context.Background()
	src := mcptools.NewSource(ts.session, &mcptools.Options{DeferLoading: true, ListChanged: ts.changes})
	if _, err := src.Tools(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := src.Tools(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSourceRefresh lists 1,000 tools again after a list change in
// which none of them changed: the listing is redone, the conversion reused.
func BenchmarkSourceRefresh(b *testing.B) {
	ts := newServer(b, nil, func(s *mcp.Server) { addBenchTools(s, 1000) })
	ctx := context.Background()
	src := mcptools.NewSource(ts.session, &mcptools.Options{DeferLoading: true})
	if _, err := src.Tools(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		src.Invalidate()
		if _, err := src.Tools(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRanking ranks 1,000 converted tools for a query with the
// built-in keyword ranking.
func BenchmarkRanking(b *testing.B) {
	ts := newServer(b, nil, func(s *mcp.Server) { addBenchTools(s, 1000) })
	tools, err := mcptools.NewSource(ts.session, &mcptools.Options{DeferLoading: true}).Tools(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	candidates := make([]ai.SearchCandidate, len(tools))
	for i, nt := range tools {
		candidates[i] = ai.SearchCandidate{Name: nt.Name, Description: nt.Tool.(*ai.FunctionTool).Description()}
	}
	b.ReportAllocs()
	for b.Loop() {
		if got := ai.Ranking("create invoices billing", candidates); len(got) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkGenerateWithToolSearch runs a whole generation over 1,000
// deferred MCP tools: a search step, a call of the tool found (over the
// in-memory transport) and a final answer.
func BenchmarkGenerateWithToolSearch(b *testing.B) {
	ts := newServer(b, nil, func(s *mcp.Server) { addBenchTools(s, 1000) })
	ctx := context.Background()
	tools, err := mcptools.NewSource(ts.session, &mcptools.Options{DeferLoading: true}).Tools(ctx)
	if err != nil {
		b.Fatal(err)
	}
	all := append(tools, ai.NamedTool{Name: "tool_search", Tool: ai.ToolSearch()})
	target := "billing_create_invoices_627"
	b.ReportAllocs()
	for b.Loop() {
		model := aitest.NewModel(
			aitest.Response{Content: []provider.Content{aitest.ToolCall("s1", "tool_search", `{"query":"create invoices billing"}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", target, `{"workspace":"w","query":"q","cursor":""}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.Text("done")}},
		)
		res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Prompt: "bill", Tools: all, StopWhen: ai.StepCountIs(5)})
		if err != nil {
			b.Fatal(err)
		}
		if r := res.Steps[1].ToolResults(); len(r) != 1 {
			b.Fatalf("the call of %s failed: %v", target, res.Steps[1].ToolErrors())
		}
	}
}
