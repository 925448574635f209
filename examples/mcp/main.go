// Command mcp shows tool search over the tools of an MCP server. It runs
// an MCP server with 200 tools in the same process, connects a client to it
// over in-memory transports, turns the server's tools into deferred tools
// with package mcptools, and runs a generation in which a scripted model
// (package aitest, so no API key and no network) searches for two tools,
// then calls them. It prints what the model saw and did at each step.
//
//	go run ./examples/mcp
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run runs the example, writing its report to w.
func run(ctx context.Context, w io.Writer) error {
	// The server side: one MCP server offering 200 tools.
	server := newServer()
	clientT, serverT := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		return err
	}
	defer serverSession.Close()

	// The client side. The list-changed handler must be on the client
	// before it connects.
	changes := new(mcptools.ListChanged)
	client := mcp.NewClient(&mcp.Implementation{Name: "example-app", Version: "v1"}, changes.ClientOptions(nil))
	session, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		return err
	}
	defer session.Close() // closing the session is the application's job

	src := mcptools.NewSource(session, &mcptools.Options{Prefix: "ops_", DeferLoading: true, ListChanged: changes})
	tools, err := src.Tools(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "The server offers %d tools (%d bytes of definitions); all are deferred.\n\n", len(tools), definitionBytes(tools))

	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{
			aitest.Text("I need a weather tool and a currency tool."),
			aitest.ToolCall("call_1", "tool_search", map[string]any{"query": "weather forecast"}),
			aitest.ToolCall("call_2", "tool_search", map[string]any{"query": "convert currency"}),
		}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{
			aitest.ToolCall("call_3", "ops_weather_forecast", map[string]any{"city": "Lisbon", "days": 2}),
			aitest.ToolCall("call_4", "ops_currency_convert", map[string]any{"amount": 250, "from": "EUR", "to": "JPY"}),
		}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{
			aitest.Text("Lisbon: sunny, 24°C then 22°C. 250 EUR is 40,250 JPY, enough for a good dinner."),
		}},
	)

	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model:    model,
		Prompt:   "I fly to Lisbon tomorrow with 250 euros and then on to Tokyo. Weather, and what is that in yen?",
		Tools:    append(tools, ai.NamedTool{Name: "tool_search", Tool: ai.ToolSearch()}),
		StopWhen: ai.StepCountIs(5),
		OnStepStart: func(e ai.StepStartEvent) {
			var names []string
			size := 0
			for _, t := range e.Tools {
				if ft, ok := t.(*provider.FunctionTool); ok {
					names = append(names, ft.Name)
					size += len(ft.Name) + len(ft.Description) + len(ft.InputSchema)
				}
			}
			fmt.Fprintf(w, "Step %d: the model sees %s (%d bytes of definitions): %s\n", e.StepNumber, count(len(names), "tool"), size, strings.Join(names, ", "))
		},
		OnStepEnd: func(s *ai.StepResult) { printStep(w, s) },
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Answer: %s\n", res.Text)
	return nil
}

// printStep prints what the model did in a step and what came back.
func printStep(w io.Writer, s *ai.StepResult) {
	for _, p := range s.Content {
		switch p := p.(type) {
		case ai.Text:
			fmt.Fprintf(w, "  model says: %s\n", p.Text)
		case ai.ToolCall:
			fmt.Fprintf(w, "  model calls %s(%s)\n", p.ToolName, p.Input)
		case ai.ToolResult:
			fmt.Fprintf(w, "    -> %s returned %s\n", p.ToolName, describe(p.Output))
		case ai.ToolError:
			fmt.Fprintf(w, "    -> %s failed: %v\n", p.ToolName, p.Error)
		}
	}
	fmt.Fprintln(w)
}

// describe renders a tool result for the console.
func describe(out any) string {
	switch out := out.(type) {
	case ai.ToolSearchResult:
		var names []string
		for _, t := range out.Tools {
			names = append(names, t.Name)
		}
		return "the matches " + strings.Join(names, ", ")
	case *mcp.CallToolResult:
		switch o := mcptools.ModelOutput(out).(type) {
		case ai.TextOutput:
			return fmt.Sprintf("text %q", o.Value)
		case ai.JSONOutput:
			return "JSON " + string(o.Value)
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// definitionBytes sums what the definitions of tools would cost to send.
func definitionBytes(tools ai.Tools) int {
	n := 0
	for _, nt := range tools {
		if ft, ok := nt.Tool.(*ai.FunctionTool); ok {
			n += len(nt.Name) + len(ft.Description()) + len(ft.InputSchema())
		}
	}
	return n
}

// newServer returns an MCP server with 200 tools: 198 plausible operations
// tools, a weather forecast and a currency converter.
func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "ops-server", Version: "v1.0.0"}, nil)
	areas := []string{"billing", "crm", "deploy", "docs", "hr", "inventory", "mail", "metrics", "storage", "tickets", "vpn"}
	actions := []string{"list", "get", "create", "update", "delete", "archive", "export", "import", "assign", "comment", "approve", "audit", "tag", "merge", "sync", "notify", "schedule", "restore"}
	for i := range 198 {
		area, action := areas[i%len(areas)], actions[i/len(areas)]
		name := fmt.Sprintf("%s_%s", area, action)
		server.AddTool(&mcp.Tool{
			Name:        name,
			Description: fmt.Sprintf("%s records in the %s system. Takes an id and optional filters.", titleCase(action), area),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"filters":{"type":"object"}},"required":["id"]}`),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ": done"}}}, nil
		})
	}

	server.AddTool(&mcp.Tool{
		Name:        "weather_forecast",
		Description: "Weather forecast for a city for the next days.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			City string `json:"city"`
			Days int    `json:"days"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		forecast := map[string]any{"city": in.City, "days": []map[string]any{
			{"day": 1, "sky": "sunny", "celsius": 24},
			{"day": 2, "sky": "sunny", "celsius": 22},
		}[:max(1, min(in.Days, 2))]}
		b, _ := json.Marshal(forecast)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: forecast}, nil
	})

	server.AddTool(&mcp.Tool{
		Name:        "currency_convert",
		Description: "Convert an amount of money from one currency to another at today's rate.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}},"required":["amount","from","to"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Amount float64 `json:"amount"`
			From   string  `json:"from"`
			To     string  `json:"to"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		rates := map[string]float64{"EUR": 1, "USD": 1.08, "JPY": 161}
		from, okFrom := rates[in.From]
		to, okTo := rates[in.To]
		if !okFrom || !okTo {
			res := &mcp.CallToolResult{}
			res.SetError(fmt.Errorf("unknown currency pair %s/%s", in.From, in.To))
			return res, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("%.2f %s = %.2f %s", in.Amount, in.From, in.Amount/from*to, in.To),
		}}}, nil
	})
	return server
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func titleCase(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
