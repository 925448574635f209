package openaichat

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStrictSchema(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		warns          bool
	}{
		{name: "all required and closed: unchanged",
			in:   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			want: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`},
		{name: "optional properties become required and nullable",
			in: `{"type":"object","properties":{"city":{"type":"string"},"note":{"type":"string","description":"d"},"high":{"type":["null","number"]},
				"n":{"type":["integer","string"]}},"required":["city","high"]}`,
			want: `{"type":"object","properties":{"city":{"type":"string"},"note":{"type":["string","null"],"description":"d"},"high":{"type":["null","number"]},
				"n":{"type":["integer","string","null"]}},"required":["city","high","n","note"],"additionalProperties":false}`},
		{name: "enum, const and references are wrapped in anyOf",
			in: `{"type":"object","properties":{"e":{"type":"string","enum":["x","y"]},"c":{"const":1},"r":{"$ref":"#/$defs/R"},
				"u":{"anyOf":[{"type":"string"},{"type":"number"}]}},
				"$defs":{"R":{"type":"object","properties":{"v":{"type":"boolean"}}}}}`,
			want: `{"type":"object","properties":{"e":{"anyOf":[{"type":"string","enum":["x","y"]},{"type":"null"}]},"c":{"anyOf":[{"const":1},{"type":"null"}]},
				"r":{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}]},"u":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}},
				"required":["c","e","r","u"],"additionalProperties":false,
				"$defs":{"R":{"type":"object","properties":{"v":{"type":["boolean","null"]}},"required":["v"],"additionalProperties":false}}}`},
		{name: "nested objects and array items",
			in: `{"type":"object","properties":{"in":{"type":"object","properties":{"a":{"type":"integer"}}},
				"list":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":true}}},"required":["in","list"]}`,
			want: `{"type":"object","properties":{"in":{"type":"object","properties":{"a":{"type":["integer","null"]}},"required":["a"],"additionalProperties":false},
				"list":{"type":"array","items":{"type":"object","properties":{"b":{"type":["string","null"]}},"required":["b"],"additionalProperties":false}}},
				"required":["in","list"],"additionalProperties":false}`},
		{name: "an optional nested object: nullable, and closed inside",
			in: `{"type":"object","properties":{"in":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}}`,
			want: `{"type":"object","properties":{"in":{"type":["object","null"],"properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}},
				"required":["in"],"additionalProperties":false}`},
		{name: "a map cannot be closed",
			in:    `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"required":["m"],"additionalProperties":false}`,
			want:  `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"required":["m"],"additionalProperties":false}`,
			warns: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, warnings := StrictSchema(json.RawMessage(c.in))
			assert.JSONEq(t, c.want, string(got))
			if c.warns {
				require.Len(t, warnings, 1)
				assert.Contains(t, warnings[0].Details, "m")
			} else {
				assert.Empty(t, warnings)
			}
		})
	}
}
