package claude

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// supportedFormats are the string formats native structured outputs accept.
var supportedFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "uri": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// constraintKeys are keywords native structured outputs reject; their
// values are moved into the description instead.
var constraintKeys = []string{
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
	"minProperties", "maxProperties", "not",
}

var upperCase = regexp.MustCompile(`[A-Z]`)

// SanitizeSchema rewrites a JSON schema for output_config.format: keywords
// the API rejects are dropped (constraints survive as description text),
// oneOf becomes anyOf, and objects are closed. The original schema is still
// what validates the result.
func SanitizeSchema(schema json.RawMessage) json.RawMessage {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return schema
	}
	return MarshalValue(sanitizeNode(root))
}

func sanitizeNode(node any) any {
	m, ok := node.(map[string]any)
	if !ok {
		return node
	}
	out := &Object{}
	if ref, ok := m["$ref"]; ok {
		out.Set("$ref", ref)
		sanitizeDefinitions(m, out)
		return out
	}
	for _, k := range []string{"$schema", "$id", "title", "description", "default", "const", "enum", "type"} {
		if v, ok := m[k]; ok && (v != nil || k == "default" || k == "const") {
			out.Set(k, v)
		}
	}
	if list, ok := m["anyOf"].([]any); ok {
		out.Set("anyOf", sanitizeList(list))
	} else if list, ok := m["oneOf"].([]any); ok {
		out.Set("anyOf", sanitizeList(list))
	}
	if list, ok := m["allOf"].([]any); ok {
		out.Set("allOf", sanitizeList(list))
	}
	sanitizeDefinitions(m, out)
	props, hasProps := m["properties"].(map[string]any)
	if m["type"] == "object" || hasProps {
		if hasProps {
			sp := make(map[string]any, len(props))
			for k, v := range props {
				sp[k] = sanitizeNode(v)
			}
			out.Set("properties", sp)
		}
		out.Set("additionalProperties", false)
		if req, ok := m["required"]; ok {
			out.Set("required", req)
		}
	}
	if items, ok := m["items"]; ok && items != nil {
		if list, ok := items.([]any); ok {
			out.Set("items", sanitizeList(list))
		} else {
			out.Set("items", sanitizeNode(items))
		}
	}
	format, _ := m["format"].(string)
	if supportedFormats[format] {
		out.Set("format", format)
	}
	var notes []string
	for _, k := range constraintKeys {
		v, ok := m[k]
		if !ok || v == nil || v == false {
			continue
		}
		name := upperCase.ReplaceAllStringFunc(k, func(s string) string { return " " + strings.ToLower(s) })
		text, isString := v.(string)
		if !isString {
			text = string(MarshalValue(v))
		}
		notes = append(notes, fmt.Sprintf("%s: %s", name, text))
	}
	if format != "" && !supportedFormats[format] {
		notes = append(notes, "format: "+format)
	}
	if len(notes) > 0 {
		note := strings.Join(notes, "; ") + "."
		if d, ok := out.Get("description"); ok {
			if ds, ok := d.(string); ok {
				note = ds + "\n" + note
			}
		}
		out.Set("description", note)
	}
	return out
}

func sanitizeList(list []any) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = sanitizeNode(v)
	}
	return out
}

func sanitizeDefinitions(m map[string]any, out *Object) {
	for _, k := range []string{"definitions", "$defs"} {
		defs, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		sd := make(map[string]any, len(defs))
		for name, d := range defs {
			sd[name] = sanitizeNode(d)
		}
		out.Set(k, sd)
	}
}
