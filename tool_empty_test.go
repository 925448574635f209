package ai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// TestToolEmptyValuesReachTheModel checks the tool definitions a model
// receives for tools with no description, an empty list of input examples
// and empty provider options. The expected JSON is what ai 7.0.173 hands
// its model for the same tools (a Go tool without a description is the
// reference's tool without one; see DESIGN.md on empty descriptions).
func TestToolEmptyValuesReachTheModel(t *testing.T) {
	type in struct {
		City string `json:"city,omitempty"`
	}
	run := func(context.Context, in, ai.ToolExecutionOptions) (string, error) { return "x", nil }
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "hi",
		Tools: ai.Tools{
			{Name: "noDesc", Tool: ai.NewTool(ai.ToolDef[in, string]{Execute: run})},
			{Name: "emptyExamples", Tool: ai.NewTool(ai.ToolDef[in, string]{Description: "d", InputExamples: []in{}, Execute: run})},
			{Name: "emptyOptions", Tool: ai.NewTool(ai.ToolDef[in, string]{Description: "d", ProviderOptions: ai.ProviderOptions{}, Execute: run})},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(model.Calls()[0].Tools)
	if err != nil {
		t.Fatal(err)
	}
	var gotV, wantV any
	_ = json.Unmarshal(got, &gotV)
	const schema = `{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`
	want := `[{"type":"function","name":"noDesc","inputSchema":` + schema + `},
		{"type":"function","name":"emptyExamples","inputSchema":` + schema + `,"description":"d","inputExamples":[]},
		{"type":"function","name":"emptyOptions","inputSchema":` + schema + `,"description":"d","providerOptions":{}}]`
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	if g, w := canonical(gotV), canonical(wantV); g != w {
		t.Fatalf("tools\n got %s\nwant %s", g, w)
	}
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
