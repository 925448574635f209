package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestDropForeignPatterns(t *testing.T) {
	raw := []byte(`{"type":"object",
		"properties":{
			"a":{"type":"string","pattern":"(?<=x)y"},
			"b":{"type":"string","pattern":"^ok$"},
			"pattern":{"type":"string","enum":["(?!x)"]},
			"c":{"type":"array","items":{"type":"string","pattern":"\\k<n>"}},
			"d":{"anyOf":[{"type":"string","pattern":"(?!a)"},{"type":"null"}]}},
		"patternProperties":{"^(?!_)":{"type":"string"},"^x-":{"type":"string"}},
		"default":{"pattern":"(?!kept)"}}`)
	got, changed := dropForeignPatterns(raw)
	if !changed {
		t.Fatal("nothing was dropped")
	}
	var v, want any
	_ = json.Unmarshal(got, &v)
	_ = json.Unmarshal([]byte(`{"type":"object",
		"properties":{
			"a":{"type":"string"},
			"b":{"type":"string","pattern":"^ok$"},
			"pattern":{"type":"string","enum":["(?!x)"]},
			"c":{"type":"array","items":{"type":"string"}},
			"d":{"anyOf":[{"type":"string"},{"type":"null"}]}},
		"patternProperties":{"^x-":{"type":"string"}},
		"default":{"pattern":"(?!kept)"}}`), &want)
	g, _ := json.Marshal(v)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("got  %s\nwant %s", g, w)
	}
	if _, changed := dropForeignPatterns([]byte(`{"type":"object","properties":{"b":{"pattern":"^ok$"}}}`)); changed {
		t.Error("a schema with Go patterns only was changed")
	}
}

// BenchmarkConvert converts 1,000 listed tools, without the listing: the
// cost of this package and of ai.NewDynamicTool alone.
func BenchmarkConvert(b *testing.B) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v1"}, nil)
	for i := range 1000 {
		server.AddTool(&mcp.Tool{
			Name:        fmt.Sprintf("tool_%04d", i),
			Description: fmt.Sprintf("Tool number %d of the benchmark; lists records with filters.", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"workspace":{"type":"string"},"query":{"type":"string"},"cursor":{"type":"string"}},"required":["workspace"]}`),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer session.Close()
	listed, err := listTools(ctx, session)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := NewSource(session, &Options{DeferLoading: true})
		if tools, _, err := s.convert(listed); err != nil || len(tools) != 1000 {
			b.Fatal(err)
		}
	}
}
