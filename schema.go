package ai

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/aisdkgo/ai/internal/jsonvalid"
)

// schema is a compiled JSON Schema: its JSON text for providers and the
// fastest validator that decides exactly like the schema.
type schema struct {
	raw json.RawMessage

	// lazy schemas are compiled on first use; one that does not compile is
	// not checked locally.
	lazy     bool
	once     sync.Once
	resolved *jsonschema.Resolved
	// fast validates the raw JSON bytes directly; nil when the schema uses
	// keywords the fast checker does not cover.
	fast *jsonvalid.Checker

	// tree is the schema as JSON values, for nullsAsAbsent; decoded on
	// first use.
	treeOnce sync.Once
	tree     map[string]any
}

// compileSchema resolves s now, so that an invalid schema is reported at
// once.
func compileSchema(s *jsonschema.Schema) (*schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return &schema{raw: raw, resolved: resolved, fast: jsonvalid.Compile(s)}, nil
}

// lazySchema keeps a schema's JSON text as given and compiles it on first
// use.
func lazySchema(raw json.RawMessage) (*schema, error) {
	if !json.Valid(raw) {
		return nil, errors.New("the schema is not valid JSON")
	}
	return &schema{raw: raw, lazy: true}, nil
}

func (s *schema) prepare() {
	s.once.Do(func() {
		if !s.lazy {
			return
		}
		compile := func(raw []byte) bool {
			var js jsonschema.Schema
			if err := json.Unmarshal(raw, &js); err != nil {
				return false
			}
			resolved, err := js.Resolve(nil)
			if err != nil {
				return false
			}
			s.resolved, s.fast = resolved, jsonvalid.Compile(&js)
			return true
		}
		if compile(s.raw) {
			return
		}
		// Schemas written for JavaScript validators may use regular
		// expression syntax Go lacks (look-arounds, back-references).
		// Validate against the rest of the schema rather than nothing.
		if lenient, changed := dropForeignPatterns(s.raw); changed {
			compile(lenient)
		}
	})
}

// dropForeignPatterns removes from a schema the "pattern" keywords and
// "patternProperties" entries whose regular expressions Go cannot compile.
// It reports whether it removed any.
func dropForeignPatterns(raw []byte) ([]byte, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw, false
	}
	if !cleanPatterns(v) {
		return raw, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw, false
	}
	return b, true
}

// cleanPatterns removes foreign patterns from the schema v and,
// recursively, from its subschemas (never from values such as enum, const
// or default).
func cleanPatterns(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	compiles := func(p string) bool { _, err := regexp.Compile(p); return err == nil }
	changed := false
	if p, ok := m["pattern"].(string); ok && !compiles(p) {
		delete(m, "pattern")
		changed = true
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for p := range pp {
			if !compiles(p) {
				delete(pp, p)
				changed = true
			}
		}
	}
	for k, x := range m {
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if mm, ok := x.(map[string]any); ok {
				for _, sub := range mm {
					changed = cleanPatterns(sub) || changed
				}
			}
		case "items", "prefixItems", "allOf", "anyOf", "oneOf":
			if list, ok := x.([]any); ok {
				for _, sub := range list {
					changed = cleanPatterns(sub) || changed
				}
			} else {
				changed = cleanPatterns(x) || changed
			}
		case "additionalProperties", "additionalItems", "unevaluatedProperties", "unevaluatedItems",
			"not", "if", "then", "else", "contains", "propertyNames", "contentSchema":
			changed = cleanPatterns(x) || changed
		}
	}
	return changed
}

// validate checks data, which must be syntactically valid JSON.
func (s *schema) validate(data []byte) error {
	if s == nil {
		return nil
	}
	s.prepare()
	if s.resolved == nil {
		return nil
	}
	if s.fast != nil {
		err := s.fast.Check(data)
		if !jsonvalid.ErrFallback(err) {
			return err
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	return s.resolved.Validate(v)
}

// validateValue checks a Go value by way of its JSON form and returns that
// form.
func (s *schema) validateValue(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if err := s.validate(data); err != nil {
		return data, err
	}
	return data, nil
}

// parseJSON checks that text is JSON and does not use the keys "__proto__"
// or "constructor" with a "prototype" member, which JavaScript consumers of
// the value (code mode, browsers) would treat as prototype changes.
func parseJSON(text []byte) error {
	if !json.Valid(text) {
		var v any
		err := json.Unmarshal(text, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return err
	}
	// Only text that spells one of the keys, or has a \u escape that
	// could, needs a closer look.
	if bytes.Contains(text, []byte("__proto__")) || bytes.Contains(text, []byte("constructor")) || bytes.Contains(text, []byte(`\u`)) {
		var v any
		d := json.NewDecoder(bytes.NewReader(text))
		d.UseNumber() // numbers out of float64's range are still JSON
		if err := d.Decode(&v); err != nil {
			return err
		}
		if hasForbiddenKey(v) {
			return errors.New("object contains a forbidden prototype property")
		}
	}
	return nil
}

func hasForbiddenKey(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["__proto__"]; ok {
			return true
		}
		if c, ok := v["constructor"].(map[string]any); ok {
			if _, ok := c["prototype"]; ok {
				return true
			}
		}
		for _, x := range v {
			if hasForbiddenKey(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasForbiddenKey(x) {
				return true
			}
		}
	}
	return false
}

// describeValue renders a value for an error message, shortened.
func describeValue(data []byte) string {
	const max = 500
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}

// nullsAsAbsent removes from the JSON value data the properties that are
// null where the schema neither requires them nor admits null there, so
// that a null stands for the property's absence. A provider whose API
// needs every property of an object (OpenAI's strict mode) sends the
// optional ones as nullable, and the model answers null for those it
// leaves out; the value is then checked and decoded as the schema says.
// Nested objects and array items are treated the same way; the order of
// the remaining properties and their text are kept. data is returned as
// it is when nothing is removed.
func (s *schema) nullsAsAbsent(data []byte) []byte {
	if s == nil || !bytes.Contains(data, []byte("null")) {
		return data
	}
	s.treeOnce.Do(func() {
		var m map[string]any
		if json.Unmarshal(s.raw, &m) == nil {
			s.tree = m
		}
	})
	if s.tree == nil {
		return data
	}
	out, _ := dropNulls(data, s.tree, s.tree, 0)
	return out
}

// maxSchemaDepth bounds how deep nullsAsAbsent follows a value and the
// references of its schema.
const maxSchemaDepth = 64

// dropNulls applies nullsAsAbsent to data under the subschema sch of root;
// it reports whether it removed anything.
func dropNulls(data []byte, sch, root map[string]any, depth int) ([]byte, bool) {
	sch = deref(sch, root)
	if sch == nil || depth > maxSchemaDepth {
		return data, false
	}
	if all, ok := sch["allOf"].([]any); ok && len(all) == 1 && sch["properties"] == nil && sch["items"] == nil {
		if sub, ok := all[0].(map[string]any); ok {
			return dropNulls(data, sub, root, depth+1)
		}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return data, false
	}
	switch trimmed[0] {
	case '{':
		props, _ := sch["properties"].(map[string]any)
		if props == nil {
			return data, false
		}
		required := map[string]bool{}
		if list, ok := sch["required"].([]any); ok {
			for _, r := range list {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(trimmed, &members) != nil {
			return data, false
		}
		keys, ok := objectKeys(trimmed)
		if !ok {
			return data, false
		}
		changed := false
		var b bytes.Buffer
		b.WriteByte('{')
		n := 0
		for _, k := range keys {
			v := members[k]
			ps, _ := props[k].(map[string]any)
			if ps != nil && string(v) == "null" && !required[k] && !admitsNull(ps, root, depth) {
				changed = true
				continue
			}
			if ps != nil {
				var sub bool
				if v, sub = dropNulls(v, ps, root, depth+1); sub {
					changed = true
				}
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			name, _ := json.Marshal(k)
			b.Write(name)
			b.WriteByte(':')
			b.Write(v)
		}
		if !changed {
			return data, false
		}
		b.WriteByte('}')
		return b.Bytes(), true
	case '[':
		items, _ := sch["items"].(map[string]any)
		if items == nil {
			return data, false
		}
		var elems []json.RawMessage
		if json.Unmarshal(trimmed, &elems) != nil {
			return data, false
		}
		changed := false
		for i, e := range elems {
			if out, sub := dropNulls(e, items, root, depth+1); sub {
				elems[i], changed = out, true
			}
		}
		if !changed {
			return data, false
		}
		return joinArray(elems), true
	}
	return data, false
}

// objectKeys returns the keys of a JSON object in their order, each once
// (the last of duplicates wins in decoding, so its place is kept).
func objectKeys(obj []byte) ([]string, bool) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var keys []string
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return nil, false
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, true
}

// deref follows a local reference ("#/$defs/X", "#/definitions/X").
func deref(sch, root map[string]any) map[string]any {
	for range maxSchemaDepth {
		ref, ok := sch["$ref"].(string)
		if !ok {
			return sch
		}
		var defs map[string]any
		var name string
		switch {
		case strings.HasPrefix(ref, "#/$defs/"):
			defs, _ = root["$defs"].(map[string]any)
			name = ref[len("#/$defs/"):]
		case strings.HasPrefix(ref, "#/definitions/"):
			defs, _ = root["definitions"].(map[string]any)
			name = ref[len("#/definitions/"):]
		case ref == "#":
			sch = root
			continue
		default:
			return nil
		}
		next, _ := defs[name].(map[string]any)
		if next == nil {
			return nil
		}
		sch = next
	}
	return nil
}

// admitsNull reports whether the schema sch may accept null; a schema it
// cannot read counts as admitting null, so that nothing is removed on a
// guess.
func admitsNull(sch, root map[string]any, depth int) bool {
	sch = deref(sch, root)
	if sch == nil || depth > maxSchemaDepth {
		return true
	}
	if c, ok := sch["const"]; ok {
		return c == nil
	}
	if e, ok := sch["enum"].([]any); ok && !slices.Contains(e, nil) {
		return false
	}
	switch t := sch["type"].(type) {
	case string:
		if t != "null" {
			return false
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			return false
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if branches, ok := sch[k].([]any); ok {
			some := false
			for _, b := range branches {
				if bm, ok := b.(map[string]any); b == true || ok && admitsNull(bm, root, depth+1) {
					some = true
				}
			}
			if !some {
				return false
			}
		}
	}
	if all, ok := sch["allOf"].([]any); ok {
		for _, b := range all {
			if bm, ok := b.(map[string]any); ok && !admitsNull(bm, root, depth+1) {
				return false
			}
		}
	}
	return true
}
