package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/aisdkgo/ai/internal/claude"
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

// sanitizeSchema rewrites a JSON schema for output_config.format; see
// [claude.SanitizeSchema].
func sanitizeSchema(schema json.RawMessage) json.RawMessage { return claude.SanitizeSchema(schema) }
