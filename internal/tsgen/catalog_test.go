package tsgen

import (
	"encoding/json"
	"testing"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// sampleTools is a small catalog: one tool with nested, optional and enum
// fields and an input example, and one whose name is not an identifier.
var sampleTools = []Tool{
	{
		Name:        "findOrders",
		Description: "Find orders for a customer.",
		InputSchema: raw(`{
			"type": "object",
			"properties": {
				"customer": {
					"type": "object",
					"properties": {
						"id": {"type": "string"},
						"region": {"enum": ["eu", "us"]}
					},
					"required": ["id"]
				},
				"status": {"type": "string", "enum": ["open", "shipped", "cancelled"], "description": "Only orders in this state."},
				"since": {"type": "string", "format": "date"},
				"limit": {"type": "integer"}
			},
			"required": ["customer"]
		}`),
		OutputSchema: raw(`{
			"type": "object",
			"properties": {
				"orders": {
					"type": "array",
					"items": {
						"type": "object",
						"properties": {"id": {"type": "string"}, "total": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}}},
						"required": ["id", "total"]
					}
				},
				"next": {"type": ["string", "null"]}
			},
			"required": ["orders"]
		}`),
		InputExamples: []json.RawMessage{raw(`{ "customer": { "id": "c-42" }, "status": "open" }`)},
	},
	{
		Name:        "web-search",
		Title:       "Web search",
		InputSchema: raw(`{"type":"object","properties":{"query":{"type":"string"},"freshness":{"type":"string","format":"date-time"},"sites":{"type":"array","items":{"type":"string","format":"uri"}}},"required":["query"]}`),
	},
}

const sampleDeclarations = "```ts\n" +
	"declare const tools: {\n" +
	"  /** Find orders for a customer. */\n" +
	"  findOrders: (input: {\n" +
	"    customer: { id: string; region?: \"eu\" | \"us\"; };\n" +
	"    /** Only orders in this state. */\n" +
	"    status?: \"open\" | \"shipped\" | \"cancelled\";\n" +
	"    since?: string;\n" +
	"    limit?: number;\n" +
	"  }) => Promise<{ orders: { id: string; total: number; tags?: string[]; }[]; next?: string | null; }>;\n" +
	"  /** Web search */\n" +
	"  \"web-search\": (input: { query: string; freshness?: string; sites?: string[]; }) => Promise<unknown>;\n" +
	"};\n" +
	"```"

const sampleExamples = "Tool call examples:\n" +
	"```ts\n" +
	"const [findOrders, web_search] = await Promise.all([\n" +
	"  tools.findOrders({\"customer\":{\"id\":\"c-42\"},\"status\":\"open\"}),\n" +
	"  tools[\"web-search\"]({\"query\":\"string\",\"freshness\":\"2026-01-01T00:00:00.000Z\",\"sites\":[\"https://example.com\"]}),\n" +
	"]);\n" +
	"return {\n" +
	"  findOrders: { orders: findOrders.orders },\n" +
	"  \"web-search\": web_search,\n" +
	"};\n" +
	"```"

func TestCatalogTwoTools(t *testing.T) {
	equal(t, sampleDeclarations, Declarations(sampleTools))
	equal(t, sampleExamples, Examples(sampleTools))
	equal(t, sampleDeclarations+"\n\n"+sampleExamples, Catalog(sampleTools))
}

func TestCatalogNoTools(t *testing.T) {
	equal(t, "No host tools are available; do not call `tools.*`.", Declarations(nil))
	equal(t, "", Examples(nil))
	equal(t, "No host tools are available; do not call `tools.*`.", Catalog([]Tool{}))
}

func TestCatalogNonIdentifierName(t *testing.T) {
	tools := []Tool{{
		Name:         "web-search",
		InputSchema:  raw(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`),
		OutputSchema: raw(`{"type":"object","properties":{"urls":{"type":"array","items":{"type":"string"}}},"required":["urls"]}`),
	}}
	equal(t, "```ts\n"+
		"declare const tools: {\n"+
		"  \"web-search\": (input: { q: string; }) => Promise<{ urls: string[]; }>;\n"+
		"};\n"+
		"```\n"+
		"\n"+
		"Tool call examples:\n"+
		"```ts\n"+
		"const result = await tools[\"web-search\"]({\"q\":\"string\"});\n"+
		"return { urls: result.urls };\n"+
		"```", Catalog(tools))
}

func TestCatalogWithoutOutputSchema(t *testing.T) {
	tools := []Tool{{Name: "ping", InputSchema: raw(`{"type":"object"}`)}}
	equal(t, "```ts\ndeclare const tools: {\n  ping: (input: {}) => Promise<unknown>;\n};\n```", Declarations(tools))
	equal(t, "Tool call examples:\n```ts\nconst result = await tools.ping({});\nreturn result;\n```", Examples(tools))
}

func TestCatalogWithoutInputSchema(t *testing.T) {
	for _, in := range []json.RawMessage{nil, raw(`true`), raw(`{bad`)} {
		tools := []Tool{{Name: "now", InputSchema: in, OutputSchema: raw(`{"type":"string"}`)}}
		equal(t, "```ts\ndeclare const tools: {\n  now: (input: unknown) => Promise<string>;\n};\n```", Declarations(tools))
		equal(t, "Tool call examples:\n```ts\nconst result = await tools.now({});\nreturn result;\n```", Examples(tools))
	}
}

func TestCatalogMultiLineSignatures(t *testing.T) {
	tools := []Tool{{
		Name:         "save",
		Description:  "Save a note.",
		InputSchema:  raw(`{"type":"object","properties":{"note":{"type":"object","properties":{"body":{"type":"string","description":"Markdown text."}},"required":["body"]}},"required":["note"]}`),
		OutputSchema: raw(`{"type":"object","properties":{"id":{"type":"string","description":"New id."}},"required":["id"]}`),
	}}
	equal(t, "```ts\n"+
		"declare const tools: {\n"+
		"  /** Save a note. */\n"+
		"  save: (input: {\n"+
		"    note: {\n"+
		"      /** Markdown text. */\n"+
		"      body: string;\n"+
		"    };\n"+
		"  }) => Promise<{\n"+
		"    /** New id. */\n"+
		"    id: string;\n"+
		"  }>;\n"+
		"};\n"+
		"```", Declarations(tools))
}

func TestCatalogDocLine(t *testing.T) {
	schema := raw(`{"type":"object"}`)
	cases := []struct {
		name string
		tool Tool
		want string
	}{
		{"description", Tool{Name: "a", Description: "Does a.", Title: "A"}, "  /** Does a. */\n"},
		{"title fallback", Tool{Name: "a", Title: "Tool A"}, "  /** Tool A */\n"},
		{"blank description falls back", Tool{Name: "a", Description: " \n ", Title: "Tool A"}, "  /** Tool A */\n"},
		{"none", Tool{Name: "a"}, ""},
		{"defused and collapsed", Tool{Name: "a", Description: "Use /* c */ comments.\n\n  Really."}, "  /** Use /* c * / comments. Really. */\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.tool.InputSchema = schema
			want := "```ts\ndeclare const tools: {\n" + tc.want + "  a: (input: {}) => Promise<unknown>;\n};\n```"
			equal(t, want, Declarations([]Tool{tc.tool}))
		})
	}
}

func TestCatalogToolOrderKept(t *testing.T) {
	schema := raw(`{"type":"object"}`)
	tools := []Tool{{Name: "b", InputSchema: schema}, {Name: "a", InputSchema: schema}}
	equal(t, "```ts\ndeclare const tools: {\n"+
		"  b: (input: {}) => Promise<unknown>;\n"+
		"  a: (input: {}) => Promise<unknown>;\n"+
		"};\n```", Declarations(tools))
}

func TestCatalogNameEscaping(t *testing.T) {
	tools := []Tool{{Name: `say "hi"\now`, InputSchema: raw(`{"type":"object"}`)}}
	equal(t, "```ts\ndeclare const tools: {\n  \"say \\\"hi\\\"\\\\now\": (input: {}) => Promise<unknown>;\n};\n```", Declarations(tools))
	equal(t, "Tool call examples:\n```ts\nconst result = await tools[\"say \\\"hi\\\"\\\\now\"]({});\nreturn result;\n```", Examples(tools))
}

func TestExamplesInputExamples(t *testing.T) {
	schema := raw(`{"type":"object","properties":{"n":{"type":"number"},"on":{"type":"boolean"},"s":{"type":"string"},"d":{"type":"string","format":"date"}}}`)
	cases := []struct {
		name     string
		examples []json.RawMessage
		want     string
	}{
		{"sampled", nil, `{"n":1,"on":true,"s":"string","d":"2026-01-01"}`},
		{"first example verbatim order", []json.RawMessage{raw(` { "s" : "x<y>&z", "n" : 2.50, "on" : false } `), raw(`{"n":9}`)}, `{"s":"x<y>&z","n":2.50,"on":false}`},
		{"non-ascii literal", []json.RawMessage{raw(`{"s":"Zürich \u00e9"}`)}, `{"s":"Zürich é"}`},
		{"non-object example", []json.RawMessage{raw(`[1, "two"]`)}, `[1,"two"]`},
		{"null example falls back", []json.RawMessage{raw(`null`)}, `{"n":1,"on":true,"s":"string","d":"2026-01-01"}`},
		{"malformed example falls back", []json.RawMessage{raw(`{"n":`), raw(`{"n":3}`)}, `{"n":1,"on":true,"s":"string","d":"2026-01-01"}`},
		{"empty example falls back", []json.RawMessage{nil}, `{"n":1,"on":true,"s":"string","d":"2026-01-01"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tools := []Tool{{Name: "f", InputSchema: schema, InputExamples: tc.examples}}
			equal(t, "Tool call examples:\n```ts\nconst result = await tools.f("+tc.want+");\nreturn result;\n```", Examples(tools))
		})
	}
}

func TestExamplesPromiseAll(t *testing.T) {
	schema := raw(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	tools := []Tool{
		{Name: "search", InputSchema: schema, OutputSchema: raw(`{"type":"object","properties":{"hits":{"type":"array"}}}`)},
		{Name: "fetch", InputSchema: schema},
	}
	equal(t, "Tool call examples:\n```ts\n"+
		"const [search, fetch] = await Promise.all([\n"+
		"  tools.search({\"q\":\"string\"}),\n"+
		"  tools.fetch({\"q\":\"string\"}),\n"+
		"]);\n"+
		"return {\n"+
		"  search: { hits: search.hits },\n"+
		"  fetch: fetch,\n"+
		"};\n```", Examples(tools))
}

func TestVariableNames(t *testing.T) {
	cases := []struct {
		names []string
		want  []string
	}{
		{[]string{"search", "getWeather", "$x", "_y"}, []string{"search", "getWeather", "$x", "_y"}},
		{[]string{"web-search", "x.y", "a b"}, []string{"web_search", "x_y", "a_b"}},
		{[]string{"1st", "42", "", "---", "9-a"}, []string{"st", "tool", "tool2", "___", "_a"}},
		{[]string{"ünï", "😀go"}, []string{"_n_", "__go"}},
		{[]string{"a-b", "a.b", "a_b", "a b"}, []string{"a_b", "a_b2", "a_b3", "a_b4"}},
		// A suffixed name that another tool already uses is skipped.
		{[]string{"a_b2", "a-b", "a.b"}, []string{"a_b2", "a_b", "a_b3"}},
		// Names JavaScript will not bind here get a suffix as well.
		{[]string{"delete", "delete-", "await", "tools", "Promise", "class"}, []string{"delete2", "delete_", "await2", "tools2", "Promise2", "class2"}},
	}
	for _, tc := range cases {
		got := variableNames(tc.names)
		if len(got) != len(tc.want) {
			t.Fatalf("variableNames(%q) = %q, want %q", tc.names, got, tc.want)
		}
		for i := range got {
			equal(t, tc.want[i], got[i], "variableNames(%q)[%d]", tc.names, i)
		}
	}
}

func TestExamplesVariableClash(t *testing.T) {
	schema := raw(`{"type":"object"}`)
	tools := []Tool{{Name: "get-user", InputSchema: schema}, {Name: "get.user", InputSchema: schema}, {Name: "3d", InputSchema: schema}}
	equal(t, "Tool call examples:\n```ts\n"+
		"const [get_user, get_user2, d] = await Promise.all([\n"+
		"  tools[\"get-user\"]({}),\n"+
		"  tools[\"get.user\"]({}),\n"+
		"  tools[\"3d\"]({}),\n"+
		"]);\n"+
		"return {\n"+
		"  \"get-user\": get_user,\n"+
		"  \"get.user\": get_user2,\n"+
		"  \"3d\": d,\n"+
		"};\n```", Examples(tools))
}

func TestProjection(t *testing.T) {
	cases := []struct {
		name   string
		output json.RawMessage
		want   string
	}{
		{"first property", raw(`{"type":"object","properties":{"items":{"type":"array"},"total":{"type":"number"}}}`), `{ items: result.items }`},
		{"skips non-object property schemas", raw(`{"type":"object","properties":{"a":true,"b":{"type":"string"}}}`), `{ b: result.b }`},
		{"non-identifier field", raw(`{"type":"object","properties":{"next-page":{"type":"string"}}}`), `{ "next-page": result["next-page"] }`},
		{"no object property", raw(`{"type":"object","properties":{"a":false}}`), `result`},
		{"no properties", raw(`{"type":"object","additionalProperties":{"type":"string"}}`), `result`},
		{"empty properties", raw(`{"type":"object","properties":{}}`), `result`},
		{"not an object", raw(`{"type":"string"}`), `result`},
		{"properties without type", raw(`{"properties":{"x":{}}}`), `{ x: result.x }`},
		{"refs not followed", raw(`{"$ref":"#/$defs/o","$defs":{"o":{"properties":{"x":{}}}}}`), `result`},
		{"absent", nil, `result`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tools := []Tool{{Name: "f", InputSchema: raw(`{"type":"object"}`), OutputSchema: tc.output}}
			equal(t, "Tool call examples:\n```ts\nconst result = await tools.f({});\nreturn "+tc.want+";\n```", Examples(tools))
		})
	}
}

func TestCatalogStable(t *testing.T) {
	tools := append([]Tool(nil), sampleTools...)
	many := raw(`{"type":"object","properties":{` +
		`"k1":{"type":"string"},"k2":{"type":"string"},"k3":{"type":"string"},"k4":{"type":"string"},` +
		`"k5":{"type":"string"},"k6":{"type":"string"},"k7":{"type":"string"},"k8":{"type":"string"},` +
		`"k9":{"type":"string"},"k10":{"type":"string"},"k11":{"type":"string"},"k12":{"type":"string"},` +
		`"k13":{"type":"string"},"k14":{"type":"string"},"k15":{"type":"string"},"k16":{"type":"string"},` +
		`"k17":{"type":"string"},"k18":{"type":"string"},"k19":{"type":"string"},"k20":{"type":"string"},"k1":{"type":"number"}},` +
		`"required":["k20","k19","k18","k17","k16","k15","k14","k13","k12","k11","k10","k9","k8","k7","k6","k5","k4","k3","k2"]}`)
	tools = append(tools, Tool{Name: "many", InputSchema: many, OutputSchema: many})
	first := Catalog(tools)
	for range 50 {
		equal(t, first, Catalog(tools))
	}
	// The duplicate k1 keeps its first position and its last value.
	equal(t, `{"k1":1,"k2":"string","k3":"string","k4":"string","k5":"string","k6":"string","k7":"string","k8":"string","k9":"string","k10":"string","k11":"string","k12":"string","k13":"string","k14":"string","k15":"string","k16":"string","k17":"string","k18":"string","k19":"string","k20":"string"}`, string(Sample(many)))
}
