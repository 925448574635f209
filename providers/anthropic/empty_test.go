package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aisdkgo/ai/provider"
)

// TestRequestEmptyToolValues sends tools with an empty (not nil) list of
// input examples, empty provider options and no description. The expected
// tools and beta header are what @ai-sdk/anthropic 4.0.105 sends for the
// same tools through ai 7.0.173 (description left out, not "": a Go tool
// without a description is the reference's tool without one).
func TestRequestEmptyToolValues(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	_, _, req := sent(t, "claude-sonnet-4-5", &provider.CallOptions{Tools: []provider.Tool{
		&provider.FunctionTool{Name: "noDesc", InputSchema: schema},
		&provider.FunctionTool{Name: "emptyExamples", Description: "d", InputSchema: schema, InputExamples: []json.RawMessage{}},
		&provider.FunctionTool{Name: "emptyOptions", Description: "d", InputSchema: schema, ProviderOptions: provider.ProviderOptions{}},
	}})
	var body map[string]json.RawMessage
	assert.NoError(t, json.Unmarshal(req.body, &body))
	assert.JSONEq(t, `[{"name":"noDesc","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}},
		{"name":"emptyExamples","description":"d","input_schema":{"type":"object","properties":{"city":{"type":"string"}}},"input_examples":[]},
		{"name":"emptyOptions","description":"d","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`, string(body["tools"]))
	assert.Equal(t, "structured-outputs-2025-11-13,advanced-tool-use-2025-11-20", req.headers.Get("anthropic-beta"))
}
