package ai

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
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
