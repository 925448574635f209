package tsgen

import (
	"encoding/json"
	"strings"
)

// Sample synthesizes an example value for a JSON Schema, as compact JSON. It
// is the input the call examples use when a tool has no input example. A nil,
// malformed or non-object schema gives {}.
func Sample(schema json.RawMessage) json.RawMessage {
	return json.RawMessage(toJSON(sampleOrEmpty(parse(schema))))
}

func toJSON(v *node) string {
	var b strings.Builder
	appendJSON(&b, v)
	return b.String()
}

// sampleOrEmpty samples root, or returns {} when root is not a schema object.
func sampleOrEmpty(root *node) *node {
	if !root.isObject() {
		return emptyObject
	}
	s := sampler{root: root}
	return s.sample(root, 0)
}

var (
	emptyObject = &node{kind: kindObject}
	nullValue   = &node{kind: kindNull}
	oneValue    = &node{kind: kindNumber, text: "1"}
	trueValue   = &node{kind: kindBool, boolean: true}
	emptySchema = &node{kind: kindObject}
)

// Placeholder strings by format; any other format gets the word "string".
var (
	sampleURL      = &node{kind: kindString, text: "https://example.com"}
	sampleDateTime = &node{kind: kindString, text: "2026-01-01T00:00:00.000Z"}
	sampleDate     = &node{kind: kindString, text: "2026-01-01"}
	sampleString   = &node{kind: kindString, text: "string"}
)

// sampler carries the state of one sample synthesis; like the type
// conversion it follows each $ref at most once.
type sampler struct {
	root *node
	refs refTracker
}

// sample returns a value for schema s. Returned nodes may be shared with the
// schema (defaults, constants, examples) and must not be modified.
func (p *sampler) sample(s *node, depth int) *node {
	if depth > maxDepth {
		return nullValue
	}
	if v := s.get("default"); v != nil {
		return v
	}
	if ref, ok := s.get("$ref").stringValue(); ok {
		target := p.refs.resolve(p.root, ref)
		if target == nil {
			return nullValue
		}
		return p.sample(target, depth+1)
	}
	if v := s.get("const"); v != nil {
		return v
	}
	if v := s.get("enum"); v.isArray() {
		if len(v.items) == 0 {
			return nullValue
		}
		return v.items[0]
	}
	for _, key := range [...]string{"oneOf", "anyOf"} {
		if list, ok := schemaList(s.get(key)); ok {
			first := emptySchema
			if len(list) > 0 {
				first = list[0]
			}
			return p.sample(first, depth+1)
		}
	}
	return p.sampleType(s, pickType(s.get("type")), depth)
}

// pickType chooses the type keyword value a sample is built for: for a type
// array the first entry that is not "null" (or the first entry, or none).
func pickType(t *node) *node {
	for t.isArray() {
		var pick *node
		for _, item := range t.items {
			if !item.isString("null") {
				pick = item
				break
			}
		}
		if pick == nil && len(t.items) > 0 {
			pick = t.items[0]
		}
		t = pick
	}
	return t
}

func (p *sampler) sampleType(s, t *node, depth int) *node {
	switch {
	case t.isString("object") || s.get("properties").isObject():
		out := &node{kind: kindObject}
		if props := s.get("properties"); props.isObject() {
			for _, m := range props.members {
				if m.value.isObject() {
					out.members = append(out.members, member{key: m.key, value: p.sample(m.value, depth+1)})
				}
			}
		}
		return out
	case t.isString("array") || s.get("items") != nil:
		items := s.get("items")
		if items.isArray() {
			if len(items.items) == 0 {
				items = nil
			} else {
				items = items.items[0]
			}
		}
		elem := nullValue
		if items.isObject() {
			elem = p.sample(items, depth+1)
		}
		return &node{kind: kindArray, items: []*node{elem}}
	case t.isString("number"), t.isString("integer"):
		return oneValue
	case t.isString("boolean"):
		return trueValue
	case t.isString("null"):
		return nullValue
	case t == nil || t.isString("string"):
		if ex := s.get("examples"); ex.isArray() && len(ex.items) > 0 {
			return ex.items[0]
		}
		format, _ := s.get("format").stringValue()
		switch format {
		case "uri", "url":
			return sampleURL
		case "date-time":
			return sampleDateTime
		case "date":
			return sampleDate
		}
		return sampleString
	}
	return nullValue
}
