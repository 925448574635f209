package claude

import (
	"bytes"
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
	return marshal(sanitizeNode(root))
}

func sanitizeNode(node any) any {
	m, ok := node.(map[string]any)
	if !ok {
		return node
	}
	out := &ordered{}
	if ref, ok := m["$ref"]; ok {
		out.set("$ref", ref)
		sanitizeDefinitions(m, out)
		return out
	}
	for _, k := range []string{"$schema", "$id", "title", "description", "default", "const", "enum", "type"} {
		if v, ok := m[k]; ok && (v != nil || k == "default" || k == "const") {
			out.set(k, v)
		}
	}
	if list, ok := m["anyOf"].([]any); ok {
		out.set("anyOf", sanitizeList(list))
	} else if list, ok := m["oneOf"].([]any); ok {
		out.set("anyOf", sanitizeList(list))
	}
	if list, ok := m["allOf"].([]any); ok {
		out.set("allOf", sanitizeList(list))
	}
	sanitizeDefinitions(m, out)
	props, hasProps := m["properties"].(map[string]any)
	if m["type"] == "object" || hasProps {
		if hasProps {
			sp := make(map[string]any, len(props))
			for k, v := range props {
				sp[k] = sanitizeNode(v)
			}
			out.set("properties", sp)
		}
		out.set("additionalProperties", false)
		if req, ok := m["required"]; ok {
			out.set("required", req)
		}
	}
	if items, ok := m["items"]; ok && items != nil {
		if list, ok := items.([]any); ok {
			out.set("items", sanitizeList(list))
		} else {
			out.set("items", sanitizeNode(items))
		}
	}
	format, _ := m["format"].(string)
	if supportedFormats[format] {
		out.set("format", format)
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
			text = string(marshal(v))
		}
		notes = append(notes, fmt.Sprintf("%s: %s", name, text))
	}
	if format != "" && !supportedFormats[format] {
		notes = append(notes, "format: "+format)
	}
	if len(notes) > 0 {
		note := strings.Join(notes, "; ") + "."
		if d, ok := out.get("description"); ok {
			if ds, ok := d.(string); ok {
				note = ds + "\n" + note
			}
		}
		out.set("description", note)
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

func sanitizeDefinitions(m map[string]any, out *ordered) {
	for _, k := range []string{"definitions", "$defs"} {
		defs, ok := m[k].(map[string]any)
		if !ok {
			continue
		}
		sd := make(map[string]any, len(defs))
		for name, d := range defs {
			sd[name] = sanitizeNode(d)
		}
		out.set(k, sd)
	}
}

// ordered is a JSON object that keeps its keys in insertion order.
type ordered struct {
	keys   []string
	values map[string]any
}

func (o *ordered) set(key string, v any) {
	if o.values == nil {
		o.values = map[string]any{}
	}
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

func (o *ordered) get(key string) (any, bool) {
	v, ok := o.values[key]
	return v, ok
}

// MarshalJSON writes the keys in insertion order.
func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.values[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal renders v, which is known to be marshallable.
func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
