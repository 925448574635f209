package tsgen

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSample(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		want   string
	}{
		{"number", `{"type":"number"}`, `1`},
		{"integer", `{"type":"integer"}`, `1`},
		{"boolean", `{"type":"boolean"}`, `true`},
		{"string", `{"type":"string"}`, `"string"`},
		{"null", `{"type":"null"}`, `null`},
		{"date", `{"type":"string","format":"date"}`, `"2026-01-01"`},
		{"date-time", `{"type":"string","format":"date-time"}`, `"2026-01-01T00:00:00.000Z"`},
		{"uri", `{"type":"string","format":"uri"}`, `"https://example.com"`},
		{"url", `{"type":"string","format":"url"}`, `"https://example.com"`},
		{"other format", `{"type":"string","format":"email"}`, `"string"`},
		{"no type", `{}`, `"string"`},
		{"no type with format", `{"format":"date"}`, `"2026-01-01"`},
		{"examples first", `{"type":"string","examples":["alpha","beta"],"format":"date"}`, `"alpha"`},
		{"examples any value", `{"examples":[{"k":[1,2]}]}`, `{"k":[1,2]}`},
		{"examples empty", `{"type":"string","examples":[]}`, `"string"`},
		{"examples ignored for numbers", `{"type":"number","examples":[7]}`, `1`},
		{"unknown type", `{"type":"date"}`, `null`},
		{"default wins", `{"type":"number","default":42.0}`, `42.0`},
		{"default null", `{"type":"string","default":null}`, `null`},
		{"default before ref", `{"$ref":"#/$defs/n","default":"d","$defs":{"n":{"type":"number"}}}`, `"d"`},
		{"const", `{"const":"fixed","type":"string"}`, `"fixed"`},
		{"const null", `{"const":null}`, `null`},
		{"enum first", `{"enum":["web","files"]}`, `"web"`},
		{"enum empty", `{"enum":[],"type":"string"}`, `null`},
		{"oneOf first", `{"oneOf":[{"type":"boolean"},{"type":"string"}]}`, `true`},
		{"anyOf first", `{"anyOf":[{"type":"integer"},{"type":"null"}]}`, `1`},
		{"oneOf empty", `{"oneOf":[]}`, `"string"`},
		{"type array skips null", `{"type":["null","integer"]}`, `1`},
		{"type array only null", `{"type":["null"]}`, `null`},
		{"type array empty", `{"type":[]}`, `"string"`},
		{"allOf not sampled", `{"allOf":[{"type":"number"}]}`, `"string"`},
		{
			"object with every property in order",
			`{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer"},"deep":{"type":"boolean"},"skip":true},"required":["q"]}`,
			`{"q":"string","limit":1,"deep":true}`,
		},
		{"empty object", `{"type":"object","additionalProperties":{"type":"string"}}`, `{}`},
		{"array", `{"type":"array","items":{"type":"string","format":"uri"}}`, `["https://example.com"]`},
		{"array without items", `{"type":"array"}`, `[null]`},
		{"tuple first item", `{"type":"array","items":[{"type":"number"},{"type":"string"}]}`, `[1]`},
		{"empty tuple", `{"type":"array","items":[]}`, `[null]`},
		{
			"ref",
			`{"type":"object","properties":{"when":{"$ref":"#/definitions/day"}},"definitions":{"day":{"type":"string","format":"date"}}}`,
			`{"when":"2026-01-01"}`,
		},
		{"unresolved ref", `{"$ref":"#/$defs/missing","type":"string"}`, `null`},
		{"remote ref", `{"$ref":"other.json"}`, `null`},
		{
			"recursive ref",
			`{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/node"}}}}}`,
			`{"name":"string","child":null}`,
		},
		{
			"root ref is not followed",
			`{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#"}}}`,
			`{"name":"string","child":null}`,
		},
		{
			"escaped strings",
			`{"type":"string","default":"<a href=\"x\">é</a>\n\u2028\u0001"}`,
			`"<a href=\"x\">é</a>\n` + "\u2028" + `\u0001"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			equal(t, tc.want, string(Sample(json.RawMessage(tc.schema))))
		})
	}
}

func TestSampleNotASchema(t *testing.T) {
	for _, in := range []string{"", "null", "true", "[1]", "3", "{"} {
		equal(t, `{}`, string(Sample(json.RawMessage(in))), "input %q", in)
	}
	equal(t, `{}`, string(Sample(nil)))
}

func TestSampleDepthLimit(t *testing.T) {
	equal(t,
		strings.Repeat(`{"a":`, 8)+`"string"`+strings.Repeat(`}`, 8),
		string(Sample(json.RawMessage(nest(8, `{"type":"string"}`)))))
	equal(t,
		strings.Repeat(`{"a":`, 9)+`null`+strings.Repeat(`}`, 9),
		string(Sample(json.RawMessage(nest(9, `{"type":"string"}`)))))
}
