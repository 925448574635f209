package tsgen

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

type typeCase struct {
	name   string
	schema string
	want   string
}

func runTypeCases(t *testing.T, cases []typeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			equal(t, tc.want, TypeOf(json.RawMessage(tc.schema)))
		})
	}
}

func TestTypeOfChecklist(t *testing.T) {
	runTypeCases(t, []typeCase{
		{
			name:   "required string property",
			schema: `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`,
			want:   `{ id: string; }`,
		},
		{
			name:   "optional property",
			schema: `{"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"integer"}},"required":["id"]}`,
			want:   `{ id: string; limit?: number; }`,
		},
		{
			name:   "string enum",
			schema: `{"enum":["web","files"]}`,
			want:   `"web" | "files"`,
		},
		{
			name:   "nullable type array",
			schema: `{"type":["string","null"]}`,
			want:   `string | null`,
		},
		{
			name:   "array of union",
			schema: `{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"number"}]}}`,
			want:   `Array<string | number>`,
		},
		{
			name:   "array of string",
			schema: `{"type":"array","items":{"type":"string"}}`,
			want:   `string[]`,
		},
		{
			name:   "described property",
			schema: `{"type":"object","properties":{"q":{"type":"string","description":"Search query"}},"required":["q"]}`,
			want:   "{\n  /** Search query */\n  q: string;\n}",
		},
		{
			name:   "record of string",
			schema: `{"type":"object","additionalProperties":{"type":"string"}}`,
			want:   `Record<string, string>`,
		},
		{
			name:   "self reference",
			schema: `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}},"parent":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}}}`,
			want:   `{ name?: string; children?: unknown[]; parent?: { next?: unknown; }; }`,
		},
	})
}

func TestTypeOfPrimitives(t *testing.T) {
	runTypeCases(t, []typeCase{
		{"string", `{"type":"string"}`, "string"},
		{"number", `{"type":"number"}`, "number"},
		{"integer", `{"type":"integer"}`, "number"},
		{"boolean", `{"type":"boolean"}`, "boolean"},
		{"null", `{"type":"null"}`, "null"},
		{"no type", `{}`, "unknown"},
		{"unknown type", `{"type":"date"}`, "unknown"},
		{"non-string type", `{"type":7}`, "unknown"},
		{"description only", `{"description":"anything"}`, "unknown"},
	})
}

func TestTypeOfNotASchema(t *testing.T) {
	for _, in := range []string{"", "null", "true", "[]", `"object"`, "12", `{"type":`, "{} {}"} {
		equal(t, "unknown", TypeOf(json.RawMessage(in)), "input %q", in)
	}
	equal(t, "unknown", TypeOf(nil))
}

func TestTypeOfLiterals(t *testing.T) {
	runTypeCases(t, []typeCase{
		{"const string", `{"const":"web"}`, `"web"`},
		{"const string escapes", `{"const":"a\"b\\c\nd"}`, `"a\"b\\c\nd"`},
		{"const non-ascii kept", `{"const":"größe <b>&</b>"}`, `"größe <b>&</b>"`},
		{"const number as written", `{"const":1.50}`, `1.50`},
		{"const negative exponent", `{"const":-2e-3}`, `-2e-3`},
		{"const true", `{"const":true}`, `true`},
		{"const false", `{"const":false}`, `false`},
		{"const null", `{"const":null}`, `null`},
		{"const object", `{"const":{"a":1}}`, `unknown`},
		{"const array", `{"const":[1]}`, `unknown`},
		{"const wins over type", `{"const":"x","type":"number"}`, `"x"`},
		{"enum mixed", `{"enum":["a",1,true,null,false]}`, `"a" | 1 | true | null | false`},
		{"enum duplicates removed", `{"enum":["a","b","a"]}`, `"a" | "b"`},
		{"enum non-literal", `{"enum":["a",{"x":1},[2]]}`, `"a" | unknown`},
		{"enum empty", `{"enum":[]}`, `unknown`},
		{"enum not an array", `{"enum":"a","type":"string"}`, `string`},
		{"enum before type", `{"type":"string","enum":["x","y"]}`, `"x" | "y"`},
	})
}

func TestTypeOfCombinators(t *testing.T) {
	runTypeCases(t, []typeCase{
		{"oneOf", `{"oneOf":[{"type":"string"},{"type":"number"}]}`, `string | number`},
		{"anyOf deduplicated", `{"anyOf":[{"type":"string"},{"type":"string"},{"type":"null"}]}`, `string | null`},
		{"oneOf before anyOf", `{"anyOf":[{"type":"string"}],"oneOf":[{"type":"boolean"}]}`, `boolean`},
		{"oneOf with non-object entry ignored", `{"oneOf":[{"type":"string"},true],"type":"number"}`, `number`},
		{"oneOf empty", `{"oneOf":[]}`, `unknown`},
		{"allOf", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"number"}}}]}`, `{ a: string; } & { b?: number; }`},
		{"allOf keeps unions bare", `{"allOf":[{"enum":["a","b"]},{"type":"string"}]}`, `"a" | "b" & string`},
		{"allOf empty", `{"allOf":[]}`, `unknown`},
		// Each entry is rendered as if it were the only type, and properties or
		// items pick the shape before the type does, so "null" beside them
		// renders the structure again and the duplicate is dropped.
		{"type array with object", `{"type":["object","null"],"properties":{"a":{"type":"string"}}}`, `{ a?: string; }`},
		{"type array object shape first", `{"type":["null","object"],"additionalProperties":true}`, `null | Record<string, unknown>`},
		{"type array integer and number", `{"type":["integer","number"]}`, `number`},
		{"type array array items", `{"type":["array","null"],"items":{"type":"string"}}`, `string[]`},
		{"type array null without structure", `{"type":["null","array"]}`, `null | unknown[]`},
		{"type array empty", `{"type":[]}`, `unknown`},
		{"type array nested", `{"type":[["string","null"],"boolean"]}`, `string | null | boolean`},
		{"properties decide object", `{"type":"string","properties":{"a":{"type":"string"}}}`, `{ a?: string; }`},
		{"items decide array", `{"items":{"type":"number"}}`, `number[]`},
	})
}

func TestTypeOfArrays(t *testing.T) {
	runTypeCases(t, []typeCase{
		{"no items", `{"type":"array"}`, `unknown[]`},
		{"boolean items", `{"type":"array","items":true}`, `unknown[]`},
		{"tuple", `{"type":"array","items":[{"type":"string"},{"type":"number"}]}`, `[string, number]`},
		{"tuple with non-object", `{"type":"array","items":[{"type":"string"},true,3]}`, `[string, unknown, unknown]`},
		{"empty tuple", `{"type":"array","items":[]}`, `[]`},
		{"nested arrays", `{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}`, `boolean[][]`},
		{"intersection items", `{"type":"array","items":{"allOf":[{"type":"object"},{"type":"object"}]}}`, `Array<{} & {}>`},
		{"object items", `{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`, `{ id: string; }[]`},
		{"literal union items", `{"type":"array","items":{"enum":["a","b"]}}`, `Array<"a" | "b">`},
		{
			"multi-line items",
			`{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","description":"Key"}}}}`,
			"Array<{\n  /** Key */\n  id?: string;\n}>",
		},
	})
}

func TestTypeOfObjects(t *testing.T) {
	runTypeCases(t, []typeCase{
		{"empty object", `{"type":"object"}`, `{}`},
		{"additionalProperties false", `{"type":"object","additionalProperties":false}`, `{}`},
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`, `Record<string, unknown>`},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"number"}}`, `Record<string, number>`},
		{"only non-object properties", `{"type":"object","properties":{"a":true,"b":1},"additionalProperties":{"type":"string"}}`, `Record<string, string>`},
		{"properties not an object", `{"type":"object","properties":[{"type":"string"}]}`, `{}`},
		{"index signature schema", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":{"type":"number"}}`, `{ a: string; [key: string]: number; }`},
		{"index signature true", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`, `{ a?: string; [key: string]: unknown; }`},
		{"index signature false", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{ a?: string; }`},
		{"boolean property schema skipped", `{"type":"object","properties":{"a":true,"b":{"type":"string"}}}`, `{ b?: string; }`},
		{"required not an array", `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`, `{ a?: string; }`},
		{"required with junk", `{"type":"object","properties":{"a":{"type":"string"}},"required":[1,"a",null]}`, `{ a: string; }`},
		{"property order follows text", `{"properties":{"z":{"type":"string"},"a":{"type":"string"},"m":{"type":"string"}}}`, `{ z?: string; a?: string; m?: string; }`},
		{"numeric keys keep text order", `{"properties":{"b":{"type":"string"},"1":{"type":"string"}}}`, `{ b?: string; "1"?: string; }`},
		{"duplicate key keeps first position, last value", `{"properties":{"a":{"type":"string"},"b":{"type":"string"},"a":{"type":"number"}}}`, `{ a?: number; b?: string; }`},
		{"quoted names", `{"properties":{"x.y":{"type":"string"},"web-search":{"type":"string"},"$ok_1":{"type":"string"},"1a":{"type":"string"},"":{"type":"string"},"é":{"type":"string"}}}`, `{ "x.y"?: string; "web-search"?: string; $ok_1?: string; "1a"?: string; ""?: string; "é"?: string; }`},
		{
			"nested object inline",
			`{"type":"object","properties":{"user":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}},"required":["user"]}`,
			`{ user: { name: string; age?: number; }; }`,
		},
	})
}

func TestTypeOfLayout(t *testing.T) {
	runTypeCases(t, []typeCase{
		{
			"nested multi-line re-indented",
			`{"type":"object","properties":{"outer":{"type":"object","description":"Outer","properties":{"inner":{"type":"object","properties":{"leaf":{"type":"string","description":"Leaf"}}}},"required":["inner"]},"flag":{"type":"boolean"}}}`,
			"{\n" +
				"  /** Outer */\n" +
				"  outer?: {\n" +
				"    inner: {\n" +
				"      /** Leaf */\n" +
				"      leaf?: string;\n" +
				"    };\n" +
				"  };\n" +
				"  flag?: boolean;\n" +
				"}",
		},
		{
			"multi-line child forces multi-line parent",
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string","description":"B"}}}}}`,
			"{\n  a?: {\n    /** B */\n    b?: string;\n  };\n}",
		},
		{
			"multi-line array item inside object",
			`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","description":"B"}}}}},"required":["list"]}`,
			"{\n  list: Array<{\n    /** B */\n    b?: string;\n  }>;\n}",
		},
		{
			"multi-line index signature re-indented",
			`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"object","properties":{"b":{"type":"string","description":"B"}}}}`,
			"{\n  a?: string;\n  [key: string]: {\n    /** B */\n    b?: string;\n  };\n}",
		},
		{
			"multi-line record value",
			`{"type":"object","additionalProperties":{"type":"object","properties":{"b":{"type":"string","description":"B"}}}}`,
			"Record<string, {\n  /** B */\n  b?: string;\n}>",
		},
		{
			"comment whitespace collapsed and trimmed",
			`{"properties":{"a":{"type":"string","description":"  first line\n\tsecond\u00a0line\u2028third  "}}}`,
			"{\n  /** first line second line third */\n  a?: string;\n}",
		},
		{
			"comment terminator defused",
			`{"properties":{"a":{"type":"string","description":"ends */ here; also *\/ and **/"}}}`,
			"{\n  /** ends * / here; also * / and ** / */\n  a?: string;\n}",
		},
		{
			"blank description adds no comment",
			`{"properties":{"a":{"type":"string","description":"  "}}}`,
			`{ a?: string; }`,
		},
		{
			"non-string description ignored",
			`{"properties":{"a":{"type":"string","description":42}}}`,
			`{ a?: string; }`,
		},
	})
}

// objectWithKey returns a schema with one required string property whose
// name has n characters; its single-line type is n+13 characters long.
func objectWithKey(n int, char string) (schema, key string) {
	key = strings.Repeat(char, n)
	return `{"type":"object","properties":{"` + key + `":{"type":"string"}},"required":["` + key + `"]}`, key
}

func TestTypeOfSingleLineThreshold(t *testing.T) {
	schema, key := objectWithKey(107, "k")
	got := TypeOf(json.RawMessage(schema))
	equal(t, "{ "+key+": string; }", got)
	equal(t, 120, len(got))

	schema, key = objectWithKey(108, "k")
	equal(t, "{\n  "+key+": string;\n}", TypeOf(json.RawMessage(schema)))

	// The width is counted in UTF-16 units, as a JavaScript string length:
	// a two-byte character counts once, one outside the BMP twice. A required
	// property v with a string literal of n units is n+10 wide.
	literal := func(s string) string {
		return TypeOf(json.RawMessage(`{"type":"object","properties":{"v":{"const":"` + s + `"}},"required":["v"]}`))
	}
	e110, e111 := strings.Repeat("é", 110), strings.Repeat("é", 111)
	equal(t, `{ v: "`+e110+`"; }`, literal(e110))
	equal(t, "{\n  v: \""+e111+"\";\n}", literal(e111))
	s55, s56 := strings.Repeat("😀", 55), strings.Repeat("😀", 56)
	equal(t, `{ v: "`+s55+`"; }`, literal(s55))
	equal(t, "{\n  v: \""+s56+"\";\n}", literal(s56))

	// A quoted key counts its quotes.
	schema, key = objectWithKey(105, "é")
	equal(t, `{ "`+key+`": string; }`, TypeOf(json.RawMessage(schema)))
	schema, key = objectWithKey(106, "é")
	equal(t, "{\n  \""+key+"\": string;\n}", TypeOf(json.RawMessage(schema)))
}

func TestTypeOfRefs(t *testing.T) {
	runTypeCases(t, []typeCase{
		{
			"defs",
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/point"}},"required":["p"],"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}}}`,
			`{ p: { x: number; y: number; }; }`,
		},
		{
			"definitions",
			`{"type":"array","items":{"$ref":"#/definitions/id"},"definitions":{"id":{"type":"string"}}}`,
			`string[]`,
		},
		{
			"tilde and slash unescaping",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b"},"b":{"$ref":"#/$defs/c~0d"},"c":{"$ref":"#/$defs/~01"}},"$defs":{"a/b":{"type":"string"},"c~d":{"type":"number"},"~1":{"type":"boolean"}}}`,
			`{ a?: string; b?: number; c?: boolean; }`,
		},
		{
			"ref wins over type",
			`{"$ref":"#/$defs/s","type":"number","$defs":{"s":{"type":"string"}}}`,
			`string`,
		},
		{"missing target", `{"$ref":"#/$defs/none","$defs":{}}`, `unknown`},
		{"non-object target", `{"$ref":"#/$defs/flag","$defs":{"flag":true}}`, `unknown`},
		{"remote ref", `{"$ref":"https://example.com/schema.json","type":"string"}`, `unknown`},
		{"bare fragment", `{"$ref":"#","type":"string"}`, `unknown`},
		{"non-string ref ignored", `{"$ref":5,"type":"string"}`, `string`},
		{"pointer through array not followed", `{"$ref":"#/allOf/0","allOf":[{"type":"string"}]}`, `unknown`},
		{
			"direct self reference",
			`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`,
			`unknown`,
		},
		{
			"mutual recursion",
			`{"$ref":"#/$defs/a","$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}}}`,
			`{ b?: { a?: unknown; }; }`,
		},
		{
			"linked list",
			`{"type":"object","properties":{"value":{"type":"number"},"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["value","next"]}`,
			`{ value: number; next: unknown | null; }`,
		},
		{
			"each ref followed once per conversion",
			`{"type":"object","properties":{"from":{"$ref":"#/$defs/addr"},"to":{"$ref":"#/$defs/addr"}},"$defs":{"addr":{"type":"string"}}}`,
			`{ from?: string; to?: unknown; }`,
		},
	})
}

// nest wraps a leaf schema in n objects, each with one required property a.
func nest(n int, leaf string) string {
	s := leaf
	for range n {
		s = `{"type":"object","properties":{"a":` + s + `},"required":["a"]}`
	}
	return s
}

func TestTypeOfDepthLimit(t *testing.T) {
	// Eight nested levels below the root still render.
	equal(t,
		strings.Repeat("{ a: ", 8)+"string"+strings.Repeat("; }", 8),
		TypeOf(json.RawMessage(nest(8, `{"type":"string"}`))))
	// The ninth level is cut off.
	equal(t,
		strings.Repeat("{ a: ", 9)+"unknown"+strings.Repeat("; }", 9),
		TypeOf(json.RawMessage(nest(9, `{"type":"string"}`))))
	equal(t,
		strings.Repeat("{ a: ", 9)+"unknown"+strings.Repeat("; }", 9),
		TypeOf(json.RawMessage(nest(40, `{"type":"string"}`))))

	// Arrays and combinators count as levels too.
	arrays := `{"type":"string"}`
	for range 9 {
		arrays = `{"type":"array","items":` + arrays + `}`
	}
	equal(t, "unknown"+strings.Repeat("[]", 9), TypeOf(json.RawMessage(arrays)))
}

func TestTypeOfDeepJSON(t *testing.T) {
	// Deeply nested input must neither crash nor recurse without bound.
	deep := strings.Repeat(`{"anyOf":[`, 5000) + `{}` + strings.Repeat(`]}`, 5000)
	equal(t, "unknown", TypeOf(json.RawMessage(deep)))
	tooDeep := strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000)
	equal(t, "unknown", TypeOf(json.RawMessage(`{"type":`+tooDeep+`}`)))
}

func TestTypeOfBoundedWork(t *testing.T) {
	// Eight definitions, each with ten properties referring to the next: a
	// conversion that expanded every path would render 10^8 leaves. Each ref
	// is followed once, so the output stays small.
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for d := range 8 {
		if d > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"d` + strconv.Itoa(d) + `":{"type":"object","properties":{`)
		for p := range 10 {
			if p > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"p` + strconv.Itoa(p) + `":{"$ref":"#/$defs/d` + strconv.Itoa(d+1) + `"}`)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`,"d8":{"type":"string"}}}`)
	schema := json.RawMessage(b.String())
	if got := TypeOf(schema); len(got) > 10_000 {
		t.Fatalf("TypeOf output grew to %d bytes", len(got))
	}
	if got := Sample(schema); len(got) > 10_000 {
		t.Fatalf("Sample output grew to %d bytes", len(got))
	}

	// Repeated entries of a type array are rendered once.
	typed := `{"type":"string"}`
	for range 8 {
		typed = `{"type":["object","object","object","null","null"],"properties":{"a":` + typed + `,"b":` + typed + `}}`
	}
	if got := TypeOf(json.RawMessage(typed)); len(got) > 100_000 {
		t.Fatalf("TypeOf output grew to %d bytes", len(got))
	}
}
