package anthropic

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// maxOptionalProperties is the most optional properties a schema may have in
// total for native structured outputs to compile reliably.
const maxOptionalProperties = 10

// nativeSchemaOK reports whether native structured outputs
// (output_config.format) can represent schema: it must not refer to itself,
// must not hold open objects (maps, free-form objects), which the API would
// close, and must have few optional properties.
func nativeSchemaOK(schema json.RawMessage) bool {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return false
	}
	optional, open, cyclic, visited := 0, false, false, 0
	var walk func(node any, refs map[string]bool)
	walk = func(node any, refs map[string]bool) {
		m, ok := node.(map[string]any)
		if !ok || cyclic {
			return
		}
		// Shared references are walked at every use; give up on schemas so
		// large that this explodes.
		if visited++; visited > 100000 {
			cyclic = true
			return
		}
		if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			if refs[ref] {
				cyclic = true
				return
			}
			next := make(map[string]bool, len(refs)+1)
			for k := range refs {
				next[k] = true
			}
			next[ref] = true
			walk(resolvePointer(root, ref), next)
		}
		if isOpenObject(m) {
			open = true
		}
		if props, ok := m["properties"].(map[string]any); ok {
			required := map[string]bool{}
			if req, ok := m["required"].([]any); ok {
				for _, r := range req {
					if s, ok := r.(string); ok {
						required[s] = true
					}
				}
			}
			for name := range props {
				if !required[name] {
					optional++
				}
			}
		}
		for _, k := range []string{"additionalProperties", "contains", "else", "if", "items", "not", "then"} {
			if list, ok := m[k].([]any); ok {
				for _, v := range list {
					walk(v, refs)
				}
			} else {
				walk(m[k], refs)
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			if list, ok := m[k].([]any); ok {
				for _, v := range list {
					walk(v, refs)
				}
			}
		}
		for _, k := range []string{"dependentSchemas", "patternProperties", "properties"} {
			if sub, ok := m[k].(map[string]any); ok {
				for _, v := range sub {
					walk(v, refs)
				}
			}
		}
	}
	walk(root, map[string]bool{})
	return !cyclic && !open && optional <= maxOptionalProperties
}

func isOpenObject(m map[string]any) bool {
	switch ap := m["additionalProperties"].(type) {
	case bool:
		if ap {
			return true
		}
	case map[string]any:
		return true
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok && len(pp) > 0 {
		return true
	}
	isObject := m["type"] == "object"
	if list, ok := m["type"].([]any); ok {
		for _, t := range list {
			if t == "object" {
				isObject = true
			}
		}
	}
	_, hasProps := m["properties"]
	ap, hasAP := m["additionalProperties"]
	return isObject && !hasProps && !(hasAP && ap == false)
}

// resolvePointer resolves a local JSON pointer such as "#/$defs/node".
func resolvePointer(root any, ref string) any {
	node := root
	path := strings.TrimPrefix(ref, "#")
	if path == "" {
		return root
	}
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[seg]
	}
	return node
}

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

// sanitizeSchema rewrites a JSON schema for output_config.format: keywords
// the API rejects are dropped (constraints survive as description text),
// oneOf becomes anyOf, and objects are closed. The original schema is still
// what validates the result.
func sanitizeSchema(schema json.RawMessage) json.RawMessage {
	var root any
	if json.Unmarshal(schema, &root) != nil {
		return schema
	}
	return mustJSON(sanitizeNode(root))
}

func sanitizeNode(node any) any {
	m, ok := node.(map[string]any)
	if !ok {
		return node
	}
	out := &object{}
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
			text = string(mustJSON(v))
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

func sanitizeDefinitions(m map[string]any, out *object) {
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
