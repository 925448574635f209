package jsonvalid

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

// Go types whose inferred schemas the checker must handle.

type address struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty"`
}

type base struct {
	ID   int      `json:"id"`
	Tags []string `json:"tags,omitempty"`
}

type everything struct {
	base
	Name    string            `json:"name"`
	Nick    *string           `json:"nick,omitempty"`
	Age     uint8             `json:"age"`
	Delta   int8              `json:"delta,omitempty"`
	Count   int32             `json:"count,omitempty"`
	Size    uint              `json:"size,omitempty"`
	Score   float64           `json:"score"`
	OK      bool              `json:"ok"`
	Home    address           `json:"home"`
	Work    *address          `json:"work,omitempty"`
	Matrix  [2][3]int         `json:"matrix,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Extra   any               `json:"extra,omitempty"`
	Hist    []float64         `json:"hist"`
	When    time.Time         `json:"when,omitzero"`
	Ignored string            `json:"-"`
}

type weather struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type manyKeys struct {
	K0  int     `json:"k0"`
	K1  int     `json:"k1"`
	K2  string  `json:"k2"`
	K3  string  `json:"k3,omitempty"`
	K4  bool    `json:"k4"`
	K5  bool    `json:"k5,omitempty"`
	K6  float64 `json:"k6"`
	K7  float64 `json:"k7,omitempty"`
	K8  int16   `json:"k8"`
	K9  uint16  `json:"k9,omitempty"`
	K10 uint32  `json:"k10"`
	K11 int64   `json:"k11,omitempty"`
	K12 *int    `json:"k12"`
	K13 []int   `json:"k13,omitempty"`
}

type pointers struct {
	P  *int              `json:"p"`
	PP **string          `json:"pp,omitempty"`
	PS *[]bool           `json:"ps"`
	PM *map[string]int8  `json:"pm,omitempty"`
	MA map[string]*base  `json:"ma,omitempty"`
	AA [1][]*address     `json:"aa"`
	MM map[string][]uint `json:"mm,omitempty"`
}

type schemaCase struct {
	name   string
	schema *jsonschema.Schema
}

// infer returns the schema jsonschema-go infers for T.
func infer[T any](t testing.TB) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.For[T](nil)
	require.NoError(t, err)
	return s
}

// parse unmarshals a hand-written schema.
func parse(t testing.TB, text string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal([]byte(text), &s), text)
	return &s
}

// accepted lists schemas Compile must accept, covering every supported
// keyword alone and combined.
func accepted(t testing.TB) []schemaCase {
	t.Helper()
	cases := []schemaCase{
		{"infer/struct", infer[everything](t)},
		{"infer/weather", infer[weather](t)},
		{"infer/manyKeys", infer[manyKeys](t)},
		{"infer/pointers", infer[pointers](t)},
		{"infer/*weather", infer[*weather](t)},
		{"infer/[]int", infer[[]int](t)},
		{"infer/[3]string", infer[[3]string](t)},
		{"infer/map", infer[map[string]int](t)},
		{"infer/map-of-struct", infer[map[string]*address](t)},
		{"infer/*int", infer[*int](t)},
		{"infer/bool", infer[bool](t)},
		{"infer/string", infer[string](t)},
		{"infer/float64", infer[float64](t)},
		{"infer/any", infer[any](t)},
		{"infer/int8", infer[int8](t)},
		{"infer/uint8", infer[uint8](t)},
		{"infer/int32", infer[int32](t)},
		{"infer/uint", infer[uint](t)},
		{"infer/[]any", infer[[]any](t)},
		{"infer/time", infer[time.Time](t)},

		{"type-array/string-null", parse(t, `{"type":["string","null"]}`)},
		{"type-array/integer-string", parse(t, `{"type":["integer","string"]}`)},
		{"type-array/number-boolean", parse(t, `{"type":["number","boolean"]}`)},
		{"type-array/object-array", parse(t, `{"type":["object","array"],"items":{"type":"integer"},"properties":{"a":{"type":"null"}},"required":["a"]}`)},
		{"type-array/empty", parse(t, `{"type":[]}`)},
		{"type/integer", parse(t, `{"type":"integer"}`)},
		{"type/null", parse(t, `{"type":"null"}`)},
		{"string/length", parse(t, `{"type":"string","minLength":2,"maxLength":4}`)},
		{"string/maxLength0", parse(t, `{"type":"string","maxLength":0}`)},
		{"string/maxLength-negative", parse(t, `{"type":"string","maxLength":-1}`)},
		{"string/minLength-untyped", parse(t, `{"minLength":1,"maxLength":3}`)},
		{"number/exclusive", parse(t, `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":10}`)},
		{"number/zero", parse(t, `{"type":"number","minimum":0,"maximum":0}`)},
		{"number/huge-bounds", parse(t, `{"type":"integer","minimum":-1e308,"maximum":1e308}`)},
		{"number/tiny-bounds", parse(t, `{"type":"number","exclusiveMinimum":-1e-300,"exclusiveMaximum":5e-324}`)},
		{"number/fraction-bounds", parse(t, `{"type":"integer","minimum":-2.5,"maximum":2.5}`)},
		{"number/untyped", parse(t, `{"minimum":1.5,"exclusiveMaximum":100}`)},
		{"array/nested", parse(t, `{"type":"array","minItems":1,"items":{"type":"array","maxItems":2,"items":{"type":"integer","minimum":0}}}`)},
		{"array/maxItems-negative", parse(t, `{"type":"array","maxItems":-1}`)},
		{"array/untyped-bounds", parse(t, `{"minItems":2,"maxItems":3}`)},
		{"array/items-true", parse(t, `{"type":"array","items":true}`)},
		{"object/plain", parse(t, `{"type":"object"}`)},
		{"object/closed-empty", parse(t, `{"additionalProperties":false}`)},
		{"object/addl-schema", parse(t, `{"type":"object","additionalProperties":{"type":"integer","minimum":0}}`)},
		{"object/props-and-addl", parse(t, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"boolean"}}`)},
		{"object/addl-true", parse(t, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`)},
		{"object/required-untyped", parse(t, `{"required":["a","a","b"]}`)},
		{"object/nested-required", parse(t, `{"properties":{"a":{"properties":{"b":{"type":"integer","maximum":0}},"required":["b"]}}}`)},
		{"object/odd-keys", parse(t, `{"type":"object","properties":{"":{"type":"integer"},"é":{"type":"string"},"\ufffd":{"type":"integer"},"a b":{"type":"boolean"},"a/b":{"type":"null"}},"required":["\ufffd",""]}`)},
		{"object/props", parse(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","maxLength":1}}}`)},
		{"empty", parse(t, `{}`)},
		{"true", parse(t, `true`)},
		{"draft-07", parse(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":0},"s":{"type":"array","items":{"type":"string"}}},"required":["n"],"additionalProperties":false}`)},
		{"draft-07-https", parse(t, `{"$schema":"https://json-schema.org/draft-07/schema#","type":"array","items":{"type":"number"},"maxItems":3}`)},
		{"draft-2020-12", parse(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":["integer","null"],"maximum":3}},"required":["n"],"additionalProperties":{"type":"string"}}`)},
		{"nested-$schema", parse(t, `{"properties":{"a":{"$schema":"http://json-schema.org/draft-04/schema#","type":"string","maxLength":2}},"required":["a"]}`)},
		{"annotations", parse(t, `{"title":"T","description":"D","$comment":"C","default":{"a":1},"examples":[{"a":2}],"deprecated":true,"readOnly":true,"writeOnly":true,
			"type":"object","properties":{"a":{"type":"integer","description":"x","default":"not an integer","examples":["nope"],"format":"int32"}}}`)},
		{"format/email", parse(t, `{"type":"string","format":"email"}`)},
		{"format/date-time", parse(t, `{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"u":{"format":"uuid"}}}`)},
	}
	// The longest run of required properties the checker tracks.
	req := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for i := range 64 {
		name := string(rune('A'+i%26)) + string(rune('a'+i/26))
		req.Required = append(req.Required, name)
		req.Properties[name] = &jsonschema.Schema{Type: "integer"}
	}
	cases = append(cases, schemaCase{"object/64-required", req})
	return cases
}

// rejected lists schemas Compile must refuse, because the checker does not
// implement one of their keywords (or the general validator would not run).
func rejected(t testing.TB) []schemaCase {
	t.Helper()
	cases := []schemaCase{
		{"$ref", parse(t, `{"$ref":"#/$defs/x","$defs":{"x":{"type":"string"}}}`)},
		{"$defs-unused", parse(t, `{"type":"string","$defs":{"x":{"type":"string"}}}`)},
		{"$id", parse(t, `{"$id":"https://example.com/s","type":"string"}`)},
		{"$anchor", parse(t, `{"$anchor":"a","type":"string"}`)},
		{"enum", parse(t, `{"enum":[1,2]}`)},
		{"const", parse(t, `{"const":1}`)},
		{"const-null", parse(t, `{"const":null}`)},
		{"pattern", parse(t, `{"type":"string","pattern":"^a"}`)},
		{"allOf", parse(t, `{"allOf":[{"type":"string"}]}`)},
		{"anyOf", parse(t, `{"anyOf":[{"type":"string"},{"type":"null"}]}`)},
		{"oneOf", parse(t, `{"oneOf":[{"type":"string"}]}`)},
		{"not", parse(t, `{"not":{"type":"string"}}`)},
		{"false", parse(t, `false`)},
		{"not-empty-root", parse(t, `{"not":{}}`)},
		{"if-then-else", parse(t, `{"if":{"type":"string"},"then":{"minLength":1},"else":{"type":"integer"}}`)},
		{"multipleOf", parse(t, `{"type":"number","multipleOf":2}`)},
		{"uniqueItems", parse(t, `{"type":"array","uniqueItems":true}`)},
		{"prefixItems", parse(t, `{"prefixItems":[{"type":"string"}]}`)},
		{"items-array", parse(t, `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`)},
		{"additionalItems", parse(t, `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":false}`)},
		{"contains", parse(t, `{"contains":{"type":"string"}}`)},
		{"unevaluatedItems", parse(t, `{"unevaluatedItems":false}`)},
		{"minProperties", parse(t, `{"minProperties":1}`)},
		{"maxProperties", parse(t, `{"maxProperties":1}`)},
		{"patternProperties", parse(t, `{"patternProperties":{"^a":{"type":"string"}}}`)},
		{"propertyNames", parse(t, `{"propertyNames":{"maxLength":3}}`)},
		{"unevaluatedProperties", parse(t, `{"unevaluatedProperties":false}`)},
		{"dependentRequired", parse(t, `{"dependentRequired":{"a":["b"]}}`)},
		{"dependentSchemas", parse(t, `{"dependentSchemas":{"a":{"required":["b"]}}}`)},
		{"dependencies", parse(t, `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`)},
		{"contentSchema", parse(t, `{"contentMediaType":"application/json","contentSchema":{"type":"object"}}`)},
		{"unknown-keyword", parse(t, `{"type":"string","x-custom":1}`)},
		{"draft-04", parse(t, `{"$schema":"http://json-schema.org/draft-04/schema#","type":"string"}`)},
		{"unknown-dialect", parse(t, `{"$schema":"https://example.com/schema","type":"string"}`)},
		{"unknown-type", parse(t, `{"type":"float"}`)},
		{"unknown-type-in-array", parse(t, `{"type":["string","float"]}`)},
		{"nested/enum", parse(t, `{"properties":{"a":{"enum":[1]}}}`)},
		{"nested/items-pattern", parse(t, `{"items":{"pattern":"x"}}`)},
		{"nested/addl-pattern", parse(t, `{"additionalProperties":{"pattern":"x"}}`)},
		{"addl-not-string", parse(t, `{"additionalProperties":{"not":{"type":"string"}}}`)},
		{"addl-false-annotated", parse(t, `{"additionalProperties":{"not":{},"description":"closed"}}`)},
		{"property-false", parse(t, `{"properties":{"a":false}}`)},
		{"items-false", parse(t, `{"items":false}`)},
		{"type-and-types", &jsonschema.Schema{Type: "string", Types: []string{"integer"}}},
		{"minimum-NaN", &jsonschema.Schema{Minimum: new(math.NaN())}},
		{"maximum-Inf", &jsonschema.Schema{Maximum: new(math.Inf(1))}},
		{"exclusiveMinimum-Inf", &jsonschema.Schema{ExclusiveMinimum: new(math.Inf(-1))}},
		{"nested/exclusiveMaximum-NaN", &jsonschema.Schema{Items: &jsonschema.Schema{ExclusiveMaximum: new(math.NaN())}}},
		{"nil-property", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"a": nil}}},
	}
	req := &jsonschema.Schema{Type: "object"}
	for i := range 65 {
		req.Required = append(req.Required, string(rune('A'+i%26))+string(rune('a'+i/26)))
	}
	cases = append(cases, schemaCase{"65-required", req})
	deep := &jsonschema.Schema{}
	for range 70 {
		deep = &jsonschema.Schema{Items: deep}
	}
	cases = append(cases, schemaCase{"too-deep", deep})
	return cases
}

func TestCompileAccepts(t *testing.T) {
	for _, tc := range accepted(t) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.schema.Resolve(nil)
			require.NoError(t, err, "the general validator must accept the schema")
			require.NotNil(t, Compile(tc.schema))
		})
	}
}

func TestCompileRejects(t *testing.T) {
	for _, tc := range rejected(t) {
		t.Run(tc.name, func(t *testing.T) {
			require.Nil(t, Compile(tc.schema))
		})
	}
	require.Nil(t, Compile(nil))
}

// TestFormatIsAnnotation pins down that jsonschema-go does not assert
// "format", so the checker, which ignores it, agrees.
func TestFormatIsAnnotation(t *testing.T) {
	for _, tc := range []struct{ schema, value string }{
		{`{"type":"string","format":"email"}`, `"not an email"`},
		{`{"type":"string","format":"date-time"}`, `"yesterday"`},
		{`{"format":"ipv4"}`, `"999.1.1.1"`},
		{`{"format":"uuid"}`, `12`},
	} {
		s := parse(t, tc.schema)
		rs, err := s.Resolve(nil)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal([]byte(tc.value), &v))
		require.NoError(t, rs.Validate(v), "jsonschema-go now asserts format: %s", tc.schema)
		c := Compile(s)
		require.NotNil(t, c)
		require.NoError(t, c.Check([]byte(tc.value)))
	}
}
