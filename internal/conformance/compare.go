package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// The placeholders an expected trace may hold where any string is fine.
const (
	searchDescriptionPlaceholder = "<toolSearch description>"
	errorTextPlaceholder         = "<sdk error text>"
)

// volatileKeys may appear in an actual trace without being expected.
var volatileKeys = map[string]bool{
	"timestamp": true, "request": true, "response": true, "performance": true,
	"providerMetadata": true, "usage": true, "totalUsage": true,
}

// Compare returns the differences between an expected and an actual trace
// (both JSON values as decoded by encoding/json), one line each, under the
// comparison rules of the trace format: key order does not matter, array
// order does; approval ids are renumbered by first appearance on both
// sides; the placeholders match any string; an expected "Error: M" matches
// an actual "M"; volatile keys present only in the actual trace are ignored.
func Compare(expected, actual any) []string {
	var diffs []string
	var walk func(e, a any, path string)
	walk = func(e, a any, path string) {
		if s, ok := e.(string); ok && (s == searchDescriptionPlaceholder || s == errorTextPlaceholder) {
			if _, ok := a.(string); !ok {
				diffs = append(diffs, fmt.Sprintf("%s: expected any string (%s), actual %s", path, show(e), show(a)))
			}
			return
		}
		if kind(e) != kind(a) {
			diffs = append(diffs, fmt.Sprintf("%s: expected %s, actual %s", path, show(e), show(a)))
			return
		}
		switch e := e.(type) {
		case []any:
			a := a.([]any)
			n := min(len(e), len(a))
			for i := range n {
				walk(e[i], a[i], fmt.Sprintf("%s[%d]%s", path, i, label(e[i])))
			}
			for i := n; i < len(e); i++ {
				diffs = append(diffs, fmt.Sprintf("%s[%d]: missing in actual: %s", path, i, show(e[i])))
			}
			for i := n; i < len(a); i++ {
				diffs = append(diffs, fmt.Sprintf("%s[%d]: unexpected in actual: %s", path, i, show(a[i])))
			}
			if len(e) != len(a) {
				diffs = append(diffs, fmt.Sprintf("%s: expected %d elements, actual %d", path, len(e), len(a)))
			}
		case map[string]any:
			a := a.(map[string]any)
			keys := map[string]bool{}
			for k := range e {
				keys[k] = true
			}
			for k := range a {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				sub := k
				if path != "" {
					sub = path + "." + k
				}
				ev, inE := e[k]
				av, inA := a[k]
				switch {
				case inE && inA:
					walk(ev, av, sub)
				case inE:
					diffs = append(diffs, fmt.Sprintf("%s: missing in actual (expected %s)", sub, show(ev)))
				case !volatileKeys[k]:
					diffs = append(diffs, fmt.Sprintf("%s: unexpected in actual: %s", sub, show(av)))
				}
			}
		case string:
			as := a.(string)
			if e == as || strings.HasPrefix(e, "Error: ") && as == e[len("Error: "):] {
				return
			}
			diffs = append(diffs, fmt.Sprintf("%s: expected %s, actual %s", path, show(e), show(a)))
		case float64:
			if math.Abs(e-a.(float64)) != 0 {
				diffs = append(diffs, fmt.Sprintf("%s: expected %s, actual %s", path, show(e), show(a)))
			}
		default:
			if e != a {
				diffs = append(diffs, fmt.Sprintf("%s: expected %s, actual %s", path, show(e), show(a)))
			}
		}
	}
	walk(renumberIDs(expected), renumberIDs(actual), "")
	return diffs
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 160 {
		return string(b[:157]) + "..."
	}
	return string(b)
}

func label(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	var hint []string
	if t, ok := m["type"].(string); ok {
		hint = append(hint, t)
	}
	for _, k := range []string{"name", "toolName", "role", "tool"} {
		if s, ok := m[k].(string); ok {
			hint = append(hint, s)
			break
		}
	}
	if len(hint) == 0 {
		return ""
	}
	return "<" + strings.Join(hint, " ") + ">"
}

// renumberIDs renames approvalId values to <id-1>, <id-2>... in order of
// first appearance, walking objects with sorted keys.
func renumberIDs(v any) any {
	ids := map[string]string{}
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				out[i] = walk(x)
			}
			return out
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			out := make(map[string]any, len(v))
			for _, k := range keys {
				if id, ok := v[k].(string); ok && k == "approvalId" {
					if _, seen := ids[id]; !seen {
						ids[id] = fmt.Sprintf("<id-%d>", len(ids)+1)
					}
					out[k] = ids[id]
					continue
				}
				out[k] = walk(v[k])
			}
			return out
		}
		return v
	}
	return walk(v)
}
