package openaichat

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// ResponseSchema prepares the schema of a JSON response format for
// OpenAI: a lone allOf reference is resolved as [NormalizeSchema] does,
// and the keywords OpenAI rejects are removed with a warning each:
// propertyNames (only string property-name schemas; others are an error)
// and patterns with regex look-arounds.
func ResponseSchema(schema json.RawMessage) (json.RawMessage, []provider.Warning, error) {
	schema = NormalizeSchema(schema)
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return schema, nil, nil
	}
	var c schemaCleaner
	if err := c.clean(v); err != nil {
		return nil, nil, err
	}
	var warnings []provider.Warning
	if c.propertyNames {
		warnings = append(warnings, provider.Warning{Type: "compatibility", Feature: "JSON Schema propertyNames",
			Details: "OpenAI does not accept propertyNames in a JSON Schema; it was removed, so property names are not constrained."})
	}
	if c.lookaround {
		warnings = append(warnings, provider.Warning{Type: "compatibility", Feature: "JSON Schema pattern with regex lookaround",
			Details: "OpenAI does not accept regex look-arounds in JSON Schema patterns; the pattern was removed, so it is not enforced."})
	}
	if !c.propertyNames && !c.lookaround {
		return schema, nil, nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return schema, nil, nil
	}
	return out, warnings, nil
}

type schemaCleaner struct {
	propertyNames, lookaround bool
}

// clean removes the rejected keywords from the schema v and its
// subschemas.
func (c *schemaCleaner) clean(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if pn, ok := m["propertyNames"]; ok && pn != nil {
		s, isObject := pn.(map[string]any)
		if !isObject || (s["type"] != nil && s["type"] != "string") {
			return &provider.UnsupportedFunctionalityError{Functionality: "JSON Schema propertyNames that does not use a string schema"}
		}
		c.propertyNames = true
	}
	delete(m, "propertyNames")
	if p, ok := m["pattern"].(string); ok && hasLookaround(p) {
		delete(m, "pattern")
		c.lookaround = true
	}
	for _, k := range []string{"properties", "patternProperties", "definitions", "$defs"} {
		if sub, ok := m[k].(map[string]any); ok {
			for _, s := range sub {
				if err := c.clean(s); err != nil {
					return err
				}
			}
		}
	}
	if deps, ok := m["dependencies"].(map[string]any); ok {
		for _, d := range deps {
			if err := c.clean(d); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"additionalProperties", "additionalItems", "contains", "not", "if", "then", "else"} {
		if err := c.clean(m[k]); err != nil {
			return err
		}
	}
	for _, k := range []string{"items", "allOf", "anyOf", "oneOf"} {
		switch sub := m[k].(type) {
		case []any:
			for _, s := range sub {
				if err := c.clean(s); err != nil {
					return err
				}
			}
		default:
			if err := c.clean(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasLookaround reports whether a regular expression has a look-ahead or
// look-behind group outside character classes.
func hasLookaround(p string) bool {
	escaped, class := false, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '[':
			class = true
		case c == ']':
			class = false
		case !class && c == '(' && i+2 < len(p) && p[i+1] == '?':
			if n := p[i+2]; n == '=' || n == '!' {
				return true
			}
			if p[i+2] == '<' && i+3 < len(p) && (p[i+3] == '=' || p[i+3] == '!') {
				return true
			}
		}
	}
	return false
}

// StrictSchema rewrites a response format schema for OpenAI's strict mode,
// which requires every property of an object in "required" and
// "additionalProperties": false on every object. Each object with
// properties gets both; a property that was not required becomes nullable
// (its type joined with "null", or the schema wrapped in an anyOf with
// {"type": "null"} where a type alone would not admit null), so the model
// answers null where it would have left the property out. Nested objects,
// array items, definitions and the branches of anyOf, oneOf and allOf are
// rewritten the same way. The generation reads such a null back as the
// property's absence before it checks and decodes the output (see
// [ai.OutputObject]).
//
// An object whose additionalProperties is a schema (a Go map) or that has
// no properties cannot be written for strict mode; it is left as it is,
// with a warning, and the API is likely to refuse it.
func StrictSchema(schema json.RawMessage) (json.RawMessage, []provider.Warning) {
	var v any
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return schema, nil
	}
	var st strictRewriter
	st.rewrite(v, "")
	var warnings []provider.Warning
	if len(st.open) > 0 {
		warnings = append(warnings, provider.Warning{Type: "compatibility", Feature: "strict JSON schema with open objects",
			Details: "OpenAI's strict mode requires \"additionalProperties\": false on every object, which " +
				strings.Join(st.open, ", ") + " cannot have (a map, or an object without properties); the API may reject the schema. " +
				"Give them fixed properties or set the strictJsonSchema provider option to false."})
	}
	if !st.changed {
		return schema, warnings
	}
	out, err := json.Marshal(v)
	if err != nil {
		return schema, warnings
	}
	return out, warnings
}

type strictRewriter struct {
	changed bool
	// open lists the objects that cannot be closed, by path.
	open []string
}

func (st *strictRewriter) rewrite(v any, at string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	props, hasProps := m["properties"].(map[string]any)
	if hasProps && len(props) > 0 {
		required := map[string]bool{}
		list, _ := m["required"].([]any)
		for _, r := range list {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			st.rewrite(props[name], at+name+".")
			if !required[name] {
				props[name] = nullable(props[name])
				list = append(list, name)
				st.changed = true
			}
		}
		m["required"] = list
		switch ap := m["additionalProperties"].(type) {
		case nil, bool:
			if ap != false {
				m["additionalProperties"] = false
				st.changed = true
			}
		default:
			st.open = append(st.open, strings.TrimSuffix(at, ".")+"(additionalProperties)")
		}
	} else if isObjectType(m["type"]) {
		if ap, ok := m["additionalProperties"]; ok && ap != false {
			st.open = append(st.open, objectPath(at))
		} else if !ok {
			st.open = append(st.open, objectPath(at))
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := m[k].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(defs)) {
				st.rewrite(defs[name], at+"#"+name+".")
			}
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		st.rewrite(ap, at+"*.")
	}
	for _, k := range []string{"items", "anyOf", "oneOf", "allOf"} {
		switch sub := m[k].(type) {
		case []any:
			for _, s := range sub {
				st.rewrite(s, at+"[].")
			}
		case map[string]any:
			st.rewrite(sub, at+"[].")
		}
	}
}

func objectPath(at string) string {
	if at == "" {
		return "the root object"
	}
	return strings.TrimSuffix(at, ".")
}

func isObjectType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// nullable returns a schema that also admits null: a type joined with
// "null" when the schema is a plain type, else an anyOf of the schema and
// {"type": "null"}. A schema that admits null already is returned as it is.
func nullable(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	_, hasEnum := m["enum"]
	_, hasConst := m["const"]
	plain := !hasEnum && !hasConst && m["$ref"] == nil && m["anyOf"] == nil && m["oneOf"] == nil && m["allOf"] == nil
	switch t := m["type"].(type) {
	case string:
		if t == "null" {
			return v
		}
		if plain {
			m["type"] = []any{t, "null"}
			return m
		}
	case []any:
		if slices.Contains(t, any("null")) {
			if enum, _ := m["enum"].([]any); !hasEnum || slices.Contains(enum, nil) {
				return v
			}
		} else if plain {
			m["type"] = append(t, "null")
			return m
		}
	}
	if branches, ok := m["anyOf"].([]any); ok && len(m) == 1 {
		for _, b := range branches {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "null" && len(bm) == 1 {
				return v
			}
		}
		m["anyOf"] = append(branches, map[string]any{"type": "null"})
		return m
	}
	return map[string]any{"anyOf": []any{v, map[string]any{"type": "null"}}}
}
