package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/provider"
)

// emptyValueTools have no description, an empty list of input examples and
// empty provider options.
func emptyValueTools() []provider.Tool {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	return []provider.Tool{
		&provider.FunctionTool{Name: "noDesc", InputSchema: schema},
		&provider.FunctionTool{Name: "emptyExamples", Description: "d", InputSchema: schema, InputExamples: []json.RawMessage{}},
		&provider.FunctionTool{Name: "emptyOptions", Description: "d", InputSchema: schema, ProviderOptions: provider.ProviderOptions{}},
	}
}

// TestRequestEmptyToolValues compares the tools sent for emptyValueTools
// with what @ai-sdk/openai 4.0.118 sends through ai 7.0.173 for the same
// tools: no description key for a tool without one, and neither examples
// nor options, which these APIs do not take.
func TestRequestEmptyToolValues(t *testing.T) {
	const params = `{"type":"object","properties":{"city":{"type":"string"}}}`
	opts := callWith(emptyValueTools(), provider.ToolChoice{Type: provider.ToolChoiceAuto})
	body, _ := responsesBody(t, "gpt-5", opts)
	tools, err := json.Marshal(body["tools"])
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"function","name":"noDesc","parameters":`+params+`,"strict":false},
		{"type":"function","name":"emptyExamples","description":"d","parameters":`+params+`,"strict":false},
		{"type":"function","name":"emptyOptions","description":"d","parameters":`+params+`,"strict":false}]`, string(tools))

	body, _ = chatBody(t, "gpt-4o", opts)
	tools, err = json.Marshal(body["tools"])
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"function","function":{"name":"noDesc","parameters":`+params+`}},
		{"type":"function","function":{"name":"emptyExamples","description":"d","parameters":`+params+`}},
		{"type":"function","function":{"name":"emptyOptions","description":"d","parameters":`+params+`}}]`, string(tools))
}
