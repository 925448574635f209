package openaichat

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// NormalizeSchema rewrites a JSON Schema for OpenAI's structured outputs,
// which reject "allOf". Some schema generators express a reference as
// {"allOf": [{"$ref": "..."}]}; below the root such a wrapper becomes a plain
// "$ref", and at the root the referenced local definition is inlined. Schemas
// without "allOf" are returned unchanged.
func NormalizeSchema(schema json.RawMessage) json.RawMessage {
	if !bytes.Contains(schema, []byte(`"allOf"`)) {
		return schema
	}
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return schema
	}
	root, ok := v.(map[string]any)
	if !ok {
		return schema
	}
	root = normalizeNode(root, true).(map[string]any)
	if ref := singletonRef(root); ref != "" {
		if target, ok := localDefinition(ref, root); ok {
			merged := map[string]any{}
			for k, v := range target {
				merged[k] = v
			}
			for k, v := range root {
				if k != "allOf" {
					merged[k] = v
				}
			}
			root = merged
		}
	}
	out, err := json.Marshal(root)
	if err != nil {
		return schema
	}
	return out
}

func normalizeNode(node any, isRoot bool) any {
	obj, ok := node.(map[string]any)
	if !ok {
		return node
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	for _, key := range []string{"properties", "patternProperties", "definitions", "$defs"} {
		if rec, ok := out[key].(map[string]any); ok {
			n := make(map[string]any, len(rec))
			for k, v := range rec {
				n[k] = normalizeNode(v, false)
			}
			out[key] = n
		}
	}
	switch items := out["items"].(type) {
	case []any:
		n := make([]any, len(items))
		for i, v := range items {
			n[i] = normalizeNode(v, false)
		}
		out["items"] = n
	case map[string]any:
		out["items"] = normalizeNode(items, false)
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := out[key].([]any); ok {
			n := make([]any, len(list))
			for i, v := range list {
				n[i] = normalizeNode(v, false)
			}
			out[key] = n
		}
	}
	if ap, ok := out["additionalProperties"].(map[string]any); ok {
		out["additionalProperties"] = normalizeNode(ap, false)
	}
	if ref := singletonRef(out); ref != "" && !isRoot {
		delete(out, "allOf")
		out["$ref"] = ref
	}
	return out
}

// singletonRef returns r when node has "allOf": [{"$ref": r}].
func singletonRef(node map[string]any) string {
	list, ok := node["allOf"].([]any)
	if !ok || len(list) != 1 {
		return ""
	}
	only, ok := list[0].(map[string]any)
	if !ok || len(only) != 1 {
		return ""
	}
	ref, _ := only["$ref"].(string)
	return ref
}

var localRef = regexp.MustCompile(`^#/(definitions|\$defs)/(.+)$`)

func localDefinition(ref string, root map[string]any) (map[string]any, bool) {
	m := localRef.FindStringSubmatch(ref)
	if m == nil {
		return nil, false
	}
	name := strings.ReplaceAll(strings.ReplaceAll(m[2], "~1", "/"), "~0", "~")
	defs, _ := root[m[1]].(map[string]any)
	target, ok := defs[name].(map[string]any)
	return target, ok
}
