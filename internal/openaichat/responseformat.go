package openaichat

import (
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

// StrictWarning returns a warning when schema cannot be used in OpenAI's
// strict mode as it is, because an object leaves some of its properties
// out of "required" (as a Go struct's omitempty and pointer fields do):
// strict mode requires every property, and the API rejects such a schema.
// It returns nil for a schema that strict mode accepts in this respect.
func StrictWarning(schema json.RawMessage) *provider.Warning {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return nil
	}
	var optional []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			props, _ := v["properties"].(map[string]any)
			required := map[string]bool{}
			if list, ok := v["required"].([]any); ok {
				for _, r := range list {
					if s, ok := r.(string); ok {
						required[s] = true
					}
				}
			}
			for _, name := range slices.Sorted(maps.Keys(props)) {
				if !required[name] {
					optional = append(optional, at+name)
				}
				walk(props[name], at+name+".")
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				switch k {
				case "properties", "enum", "const", "default", "examples":
				case "items":
					walk(v[k], at+"[].")
				default:
					walk(v[k], at)
				}
			}
		case []any:
			for _, e := range v {
				walk(e, at)
			}
		}
	}
	walk(v, "")
	if len(optional) == 0 {
		return nil
	}
	return &provider.Warning{Type: "compatibility", Feature: "strict JSON schema with optional properties",
		Details: "OpenAI's strict mode requires every property of an object, but " + strings.Join(optional, ", ") +
			" are not required (omitempty or pointer fields); the API may reject the schema. " +
			"Make them required (nullable where they may be absent) or set the strictJsonSchema provider option to false."}
}
