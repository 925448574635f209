package tsgen

import (
	"encoding/json"
	"testing"
)

func FuzzTypeOf(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"id":{"type":"string","description":"x */ y"}},"required":["id"]}`,
		`{"type":["string","null"]}`,
		`{"type":[["object","null"],"array"],"properties":{"a":{}},"items":[{"type":"string"},true]}`,
		`{"$ref":"#/$defs/a","$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}}}`,
		`{"allOf":[{"$ref":"#/definitions/x~1y"},{"enum":[1,"a",null,{}]}],"definitions":{"x/y":{"const":true}}}`,
		`{"type":"array","items":{"type":"object","additionalProperties":{"type":"object","properties":{"k":{"description":"d"}}}}}`,
		`{"default":{"a":[1,2]},"examples":["e"],"format":"date"}`,
		`{"oneOf":[],"anyOf":[{}],"allOf":[]}`,
		`[]`, `null`, `"x"`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		schema := json.RawMessage(data)
		typ := TypeOf(schema)
		if again := TypeOf(schema); again != typ {
			t.Fatalf("TypeOf not deterministic:\n%s\n%s", typ, again)
		}
		sample := Sample(schema)
		if !json.Valid(sample) {
			t.Fatalf("Sample produced invalid JSON: %s", sample)
		}
		if again := Sample(schema); string(again) != string(sample) {
			t.Fatalf("Sample not deterministic:\n%s\n%s", sample, again)
		}
		tools := []Tool{
			{Name: string(data), Description: string(data), InputSchema: schema, OutputSchema: schema, InputExamples: []json.RawMessage{schema}},
			{Name: "second", InputSchema: schema},
		}
		catalog := Catalog(tools)
		if again := Catalog(tools); again != catalog {
			t.Fatalf("Catalog not deterministic")
		}
	})
}
