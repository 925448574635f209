// Package jsonvalid validates JSON text against simple JSON Schemas without
// decoding it into Go values first.
//
// General validation (github.com/google/jsonschema-go) needs the instance as
// map[string]any, which costs a decode and dozens of allocations per call.
// The schemas inferred from Go types, and most hand-written tool schemas,
// only use a few keywords: types, properties, required,
// additionalProperties, items and simple bounds. For those, [Compile]
// returns a [Checker] that walks the JSON bytes once and reaches the same
// verdict as the general validator; for anything else it returns nil and the
// caller keeps the general validator.
package jsonvalid

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Checker validates JSON text against one compiled schema. It is safe for
// concurrent use.
type Checker struct{ root *node }

type node struct {
	any        bool // no type constraint
	types      uint8
	props      map[string]*node
	required   []string
	reqIndex   map[string]int
	addl       *node // schema for additional properties; nil = allowed
	addlFalse  bool
	items      *node
	minItems   int
	maxItems   int // -1 = none
	minLen     int
	maxLen     int // -1 = none
	min, max   *float64
	xmin, xmax *float64
}

const (
	tNull uint8 = 1 << iota
	tBool
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeBits = map[string]uint8{
	"null": tNull, "boolean": tBool, "integer": tInteger, "number": tNumber,
	"string": tString, "array": tArray, "object": tObject,
}

// Compile returns a Checker for s, or nil when s uses keywords the checker
// does not cover (refs, combinators, enum, pattern...).
func Compile(s *jsonschema.Schema) *Checker {
	if s == nil {
		return nil
	}
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
	default:
		return nil
	}
	n, ok := compile(s, 0)
	if !ok {
		return nil
	}
	return &Checker{root: n}
}

// allowed lists the Schema fields the checker understands; every other
// field must be zero.
var allowed = map[string]bool{
	"Schema": true, "Comment": true, "Title": true, "Description": true, "Default": true,
	"Deprecated": true, "ReadOnly": true, "WriteOnly": true, "Examples": true,
	"Type": true, "Types": true, "Minimum": true, "Maximum": true,
	"ExclusiveMinimum": true, "ExclusiveMaximum": true, "MinLength": true, "MaxLength": true,
	"Items": true, "MinItems": true, "MaxItems": true, "Required": true, "Properties": true,
	"AdditionalProperties": true, "Format": true, "PropertyOrder": true,
}

func compile(s *jsonschema.Schema, depth int) (*node, bool) {
	if depth > 64 {
		return nil, false
	}
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		if !allowed[t.Field(i).Name] && !v.Field(i).IsZero() {
			return nil, false
		}
	}
	n := &node{maxItems: -1, maxLen: -1}
	switch {
	case s.Type != "":
		b, ok := typeBits[s.Type]
		if !ok {
			return nil, false
		}
		n.types = b
	case s.Types != nil:
		for _, ty := range s.Types {
			b, ok := typeBits[ty]
			if !ok {
				return nil, false
			}
			n.types |= b
		}
	default:
		n.any = true
	}
	if n.types&tNumber != 0 {
		n.types |= tInteger
	}
	n.min, n.max, n.xmin, n.xmax = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum
	if s.MinLength != nil {
		n.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLen = *s.MaxLength
	}
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	if s.Items != nil {
		c, ok := compile(s.Items, depth+1)
		if !ok {
			return nil, false
		}
		n.items = c
	}
	if len(s.Properties) > 0 {
		n.props = make(map[string]*node, len(s.Properties))
		for k, ps := range s.Properties {
			if ps == nil {
				return nil, false
			}
			c, ok := compile(ps, depth+1)
			if !ok {
				return nil, false
			}
			n.props[k] = c
		}
	}
	if len(s.Required) > 0 {
		n.required = s.Required
		n.reqIndex = make(map[string]int, len(s.Required))
		for i, r := range s.Required {
			if _, dup := n.reqIndex[r]; !dup {
				n.reqIndex[r] = i
			}
		}
		if len(s.Required) > 64 {
			return nil, false
		}
	}
	if a := s.AdditionalProperties; a != nil {
		switch {
		case isFalse(a):
			n.addlFalse = true
		case isTrue(a):
		default:
			c, ok := compile(a, depth+1)
			if !ok {
				return nil, false
			}
			n.addl = c
		}
	}
	return n, true
}

func isTrue(s *jsonschema.Schema) bool { return reflect.ValueOf(s).Elem().IsZero() }

func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !isTrue(s.Not) {
		return false
	}
	c := *s
	c.Not = nil
	return isTrue(&c)
}

// errFallback asks the caller to use the general validator (the instance
// has duplicate keys, whose treatment the general validator decides).
var errFallback = errors.New("jsonvalid: fall back to the general validator")

// ErrFallback reports whether err asks for general validation.
func ErrFallback(err error) bool { return err == errFallback }

// Check validates data, which must be valid JSON (for example checked with
// json.Valid). It returns nil when data matches the schema, an error saying
// where it does not otherwise, or an error for which [ErrFallback] is true
// when the general validator must decide.
func (c *Checker) Check(data []byte) error {
	s := scanner{data: data}
	s.path = s.pathBuf[:0]
	s.skipSpace()
	return s.value(c.root)
}

type scanner struct {
	data    []byte
	pos     int
	path    [][]byte // keys and indexes leading to the current value
	pathBuf [16][]byte
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// fail builds an error naming the current location; it is only called on
// the error path, so the hot path never builds path strings.
func (s *scanner) fail(format string, args ...any) error {
	path := ""
	for _, p := range s.path {
		path += "/" + string(p)
	}
	if path == "" {
		path = "/"
	}
	return fmt.Errorf("at %s: %s", path, fmt.Sprintf(format, args...))
}

// value checks the value at s.pos against n and moves past it.
func (s *scanner) value(n *node) error {
	switch c := s.data[s.pos]; {
	case c == '{':
		if !n.any && n.types&tObject == 0 {
			return s.fail("object is not allowed, want %s", n.typeNames())
		}
		return s.object(n)
	case c == '[':
		if !n.any && n.types&tArray == 0 {
			return s.fail("array is not allowed, want %s", n.typeNames())
		}
		return s.array(n)
	case c == '"':
		start := s.pos
		s.skipString()
		if !n.any && n.types&tString == 0 {
			return s.fail("string is not allowed, want %s", n.typeNames())
		}
		if n.minLen > 0 || n.maxLen >= 0 {
			l, err := runeCount(s.data[start:s.pos])
			if err != nil {
				return err
			}
			if l < n.minLen {
				return s.fail("string has %d characters, fewer than %d", l, n.minLen)
			}
			if n.maxLen >= 0 && l > n.maxLen {
				return s.fail("string has %d characters, more than %d", l, n.maxLen)
			}
		}
		return nil
	case c == 't' || c == 'f':
		if c == 't' {
			s.pos += 4
		} else {
			s.pos += 5
		}
		if !n.any && n.types&tBool == 0 {
			return s.fail("boolean is not allowed, want %s", n.typeNames())
		}
		return nil
	case c == 'n':
		s.pos += 4
		if !n.any && n.types&tNull == 0 {
			return s.fail("null is not allowed, want %s", n.typeNames())
		}
		return nil
	default:
		start := s.pos
	scan:
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				break scan
			}
			s.pos++
		}
		num := s.data[start:s.pos]
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			// Out of range for float64: the general validator cannot decode
			// it either.
			return s.fail("number %s is out of range", num)
		}
		integer := f == math.Trunc(f)
		if !n.any {
			if integer && n.types&tInteger == 0 || !integer && n.types&tNumber == 0 {
				return s.fail("number %s is not allowed, want %s", num, n.typeNames())
			}
		}
		if n.min != nil && f < *n.min {
			return s.fail("%v is less than the minimum %v", f, *n.min)
		}
		if n.max != nil && f > *n.max {
			return s.fail("%v is greater than the maximum %v", f, *n.max)
		}
		if n.xmin != nil && f <= *n.xmin {
			return s.fail("%v is not greater than %v", f, *n.xmin)
		}
		if n.xmax != nil && f >= *n.xmax {
			return s.fail("%v is not less than %v", f, *n.xmax)
		}
		return nil
	}
}

func (s *scanner) object(n *node) error {
	s.pos++ // {
	var seenReq uint64
	var keys [8][]byte // the first keys, to detect duplicates without allocating
	var more map[string]bool
	count := 0
	s.skipSpace()
	if s.data[s.pos] == '}' {
		s.pos++
	} else {
		for {
			s.skipSpace()
			start := s.pos
			s.skipString()
			raw := s.data[start+1 : s.pos-1]
			if hasEscape(raw) {
				// Escaped keys are rare; let the general validator decide.
				return errFallback
			}
			for _, k := range keys[:min(count, len(keys))] {
				if string(k) == string(raw) {
					return errFallback
				}
			}
			if count < len(keys) {
				keys[count] = raw
			} else {
				if more == nil {
					more = map[string]bool{}
				}
				if more[string(raw)] {
					return errFallback
				}
				more[string(raw)] = true
			}
			count++
			s.skipSpace()
			s.pos++ // :
			s.skipSpace()
			s.path = append(s.path, raw)
			if p, ok := n.props[string(raw)]; ok {
				if err := s.value(p); err != nil {
					return err
				}
			} else if n.addlFalse {
				s.path = s.path[:len(s.path)-1]
				return s.fail("unexpected property %q", raw)
			} else if n.addl != nil {
				if err := s.value(n.addl); err != nil {
					return err
				}
			} else {
				s.skipValue()
			}
			s.path = s.path[:len(s.path)-1]
			if i, ok := n.reqIndex[string(raw)]; ok {
				seenReq |= 1 << uint(i)
			}
			s.skipSpace()
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			s.pos++ // }
			break
		}
	}
	for i, r := range n.required {
		if n.reqIndex[r] == i && seenReq&(1<<uint(i)) == 0 {
			return s.fail("missing required property %q", r)
		}
	}
	return nil
}

var indexNames [64][]byte

func init() {
	for i := range indexNames {
		indexNames[i] = []byte(strconv.Itoa(i))
	}
}

func (s *scanner) array(n *node) error {
	s.pos++ // [
	count := 0
	s.skipSpace()
	if s.data[s.pos] == ']' {
		s.pos++
	} else {
		for {
			s.skipSpace()
			if n.items != nil {
				name := []byte("…")
				if count < len(indexNames) {
					name = indexNames[count]
				}
				s.path = append(s.path, name)
				err := s.value(n.items)
				s.path = s.path[:len(s.path)-1]
				if err != nil {
					return err
				}
			} else {
				s.skipValue()
			}
			count++
			s.skipSpace()
			if s.data[s.pos] == ',' {
				s.pos++
				continue
			}
			s.pos++ // ]
			break
		}
	}
	if count < n.minItems {
		return s.fail("array has %d items, fewer than %d", count, n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		return s.fail("array has %d items, more than %d", count, n.maxItems)
	}
	return nil
}

// skipValue moves past any value.
func (s *scanner) skipValue() {
	depth := 0
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case '"':
			s.skipString()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.pos++
				return
			}
			if depth < 0 {
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
		}
		s.pos++
	}
}

// skipString moves past the string starting at s.pos.
func (s *scanner) skipString() {
	s.pos++ // opening quote
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			s.pos++
			return
		}
		s.pos++
	}
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// runeCount counts the characters of a quoted JSON string.
func runeCount(quoted []byte) (int, error) {
	inner := quoted[1 : len(quoted)-1]
	if !hasEscape(inner) {
		return utf8.RuneCount(inner), nil
	}
	var str string
	if err := json.Unmarshal(quoted, &str); err != nil {
		return 0, err
	}
	return utf8.RuneCountInString(str), nil
}

var typeOrder = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

func (n *node) typeNames() string {
	out := ""
	for _, name := range typeOrder {
		if n.types&typeBits[name] == 0 || name == "integer" && n.types&tNumber != 0 {
			continue
		}
		if out != "" {
			out += " or "
		}
		out += name
	}
	return out
}
