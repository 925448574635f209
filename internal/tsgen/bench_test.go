package tsgen

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchmarkTools builds n tools with realistic schemas of varying shape.
func benchmarkTools(n int) []Tool {
	tools := make([]Tool, n)
	for i := range tools {
		in := fmt.Sprintf(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "description": "What to look for in source %d."},
				"limit": {"type": "integer", "minimum": 1, "maximum": 100},
				"mode": {"enum": ["fast", "thorough", "exhaustive"]},
				"filters": {
					"type": "object",
					"properties": {
						"since": {"type": "string", "format": "date"},
						"tags": {"type": "array", "items": {"type": "string"}},
						"owner": {"$ref": "#/$defs/user"}
					}
				}
			},
			"required": ["query"],
			"additionalProperties": false,
			"$defs": {"user": {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": ["string", "null"]}}, "required": ["id"]}}
		}`, i)
		out := `{
			"type": "object",
			"properties": {
				"items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "score": {"type": "number"}, "url": {"type": "string", "format": "uri"}}, "required": ["id", "score"]}},
				"cursor": {"anyOf": [{"type": "string"}, {"type": "null"}]}
			},
			"required": ["items"]
		}`
		tools[i] = Tool{
			Name:         fmt.Sprintf("source-%d.search", i),
			Description:  fmt.Sprintf("Search source number %d and return ranked matches.", i),
			InputSchema:  json.RawMessage(in),
			OutputSchema: json.RawMessage(out),
		}
		if i%3 == 0 {
			tools[i].InputExamples = []json.RawMessage{json.RawMessage(`{"query":"status report","limit":5}`)}
		}
	}
	return tools
}

func BenchmarkCatalog50(b *testing.B) {
	tools := benchmarkTools(50)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(Catalog(tools))
	}
	b.SetBytes(int64(n))
}
