// Package jsonvalid validates JSON text against simple JSON Schemas without
// decoding it into Go values first.
//
// General validation (github.com/google/jsonschema-go) needs the instance as
// map[string]any, which costs a decode and dozens of allocations per call.
// The schemas inferred from Go types, and most hand-written tool schemas,
// only use a few keywords: types, properties, required,
// additionalProperties, items and simple bounds. For those, [Compile]
// returns a [Checker] that walks the JSON bytes once and reaches the same
// verdict as the general validator, or, when the decoder would read the
// input's keys differently from their bytes (duplicates, escapes, invalid
// UTF-8), asks the caller to run the general validator (see [ErrFallback]).
// For anything else Compile returns nil and the caller keeps the general
// validator.
package jsonvalid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
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
	fields     []field        // properties and required names
	index      map[string]int // into fields, when there are many
	required   []string       // without duplicates; bit i of a mask is required[i]
	addl       *node          // schema for additional properties; nil = allowed
	addlFalse  bool
	items      *node
	minItems   int
	maxItems   int // math.MaxInt = none
	minLen     int
	maxLen     int // math.MaxInt = none
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
	if s.Type != "" && s.Types != nil {
		// The general validator refuses such a schema.
		return nil, false
	}
	for _, b := range []*float64{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
			// The general validator cannot compare with these.
			return nil, false
		}
	}
	n := &node{maxItems: math.MaxInt, maxLen: math.MaxInt}
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
	n.min, n.max, n.xmin, n.xmax = clone(s.Minimum), clone(s.Maximum), clone(s.ExclusiveMinimum), clone(s.ExclusiveMaximum)
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
	for k, ps := range s.Properties {
		if ps == nil {
			return nil, false
		}
		c, ok := compile(ps, depth+1)
		if !ok {
			return nil, false
		}
		n.fields = append(n.fields, field{name: k, node: c, req: -1})
	}
	for _, r := range s.Required {
		if slices.Contains(n.required, r) {
			continue
		}
		if len(n.required) == 64 {
			return nil, false // more than the mask holds
		}
		f := n.field([]byte(r))
		if f == nil {
			n.fields = append(n.fields, field{name: r, req: -1})
			f = &n.fields[len(n.fields)-1]
		}
		f.req = len(n.required)
		n.required = append(n.required, r)
	}
	if len(n.fields) > fieldsLinear {
		n.index = make(map[string]int, len(n.fields))
		for i, f := range n.fields {
			n.index[f.name] = i
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

func clone(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return new(*p)
}

// field is a property name the schema constrains.
type field struct {
	name string
	node *node // nil for a required name without a property schema
	req  int   // bit in the mask of required names seen, or -1
}

// fieldsLinear is how many fields are searched linearly rather than
// through a map.
const fieldsLinear = 8

// field returns the field named name, or nil.
func (n *node) field(name []byte) *field {
	if n.index != nil {
		if i, ok := n.index[string(name)]; ok {
			return &n.fields[i]
		}
		return nil
	}
	for i := range n.fields {
		if n.fields[i].name == string(name) {
			return &n.fields[i]
		}
	}
	return nil
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

// errFallback asks the caller to use the general validator: the instance
// has keys that the general validator reads differently from their bytes
// (duplicates, where the last one wins, escapes, or invalid UTF-8, which
// decodes to U+FFFD).
var errFallback = errors.New("jsonvalid: fall back to the general validator")

// ErrFallback reports whether err asks for general validation.
func ErrFallback(err error) bool { return err == errFallback }

// Check validates data, which must be valid JSON (for example checked with
// json.Valid). It returns nil when data matches the schema, an error saying
// where it does not otherwise, or an error for which [ErrFallback] is true
// when the general validator must decide.
func (c *Checker) Check(data []byte) error {
	if uint64(len(data)) > math.MaxUint32 {
		return errFallback // beyond the key offsets the scanner records
	}
	s := scanner{data: data}
	s.skipSpace()
	err := s.value(c.root)
	if err != nil && err != errFallback && ambiguousKeys(data) {
		// The checker stops at the first mismatch, possibly before a later
		// duplicate key that replaces the offending value in the decoded
		// instance.
		return errFallback
	}
	return err
}

type scanner struct {
	data []byte
	pos  int
	// The keys and indexes leading to the current value: the first ones in
	// an array, so that the scanner itself stays on the stack, the others
	// in a slice allocated for deep documents only.
	depth   int
	pathBuf [16][]byte
	deep    [][]byte
	// The keys of the objects being read, innermost last, likewise.
	nkeys    int
	keyBuf   [keysFiltered]span
	moreKeys []span
}

func (s *scanner) push(seg []byte) {
	if s.depth < len(s.pathBuf) {
		s.pathBuf[s.depth] = seg
	} else {
		s.deep = append(s.deep[:s.depth-len(s.pathBuf)], seg)
	}
	s.depth++
}

func (s *scanner) pop() { s.depth-- }

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
	for i := range s.depth {
		p := s.deep
		if i < len(s.pathBuf) {
			p = s.pathBuf[:]
		} else {
			i -= len(s.pathBuf)
		}
		path += "/" + string(p[i])
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
		if n.minLen > 0 || n.maxLen != math.MaxInt {
			l, err := runeCount(s.data[start:s.pos])
			if err != nil {
				return err
			}
			if l < n.minLen {
				return s.fail("string has %d characters, fewer than %d", l, n.minLen)
			}
			if l > n.maxLen {
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
		num := s.number()
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

// number moves past the number at s.pos and returns its text.
func (s *scanner) number() []byte {
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '+', '.', 'e', 'E':
			s.pos++
		default:
			return s.data[start:s.pos]
		}
	}
	return s.data[start:s.pos]
}

// Duplicate keys are found by comparing each key with the earlier keys of
// its object: directly for the first few, through a Bloom filter up to
// keysFiltered keys, and with a map beyond, so that the work stays linear.
const (
	keysDirect   = 8
	keysFiltered = 64
)

// span locates a key, without its quotes, in the data.
type span struct{ start, end uint32 }

// pushKey records a key of the innermost object.
func (s *scanner) pushKey(start, end int) {
	k := span{uint32(start), uint32(end)}
	if s.nkeys < len(s.keyBuf) {
		s.keyBuf[s.nkeys] = k
	} else {
		s.moreKeys = append(s.moreKeys[:s.nkeys-len(s.keyBuf)], k)
	}
	s.nkeys++
}

// key returns the i-th recorded key.
func (s *scanner) key(i int) []byte {
	k := s.moreKeys
	if i < len(s.keyBuf) {
		k = s.keyBuf[:]
	} else {
		i -= len(s.keyBuf)
	}
	return s.data[k[i].start:k[i].end]
}

// seen reports whether one of the recorded keys from index base on is key.
func (s *scanner) seen(base int, key []byte) bool {
	for i := base; i < s.nkeys; i++ {
		if string(s.key(i)) == string(key) {
			return true
		}
	}
	return false
}

func (s *scanner) object(n *node) error {
	s.pos++ // {
	var seenReq uint64
	var bloom [4]uint64
	var many map[string]bool
	base := s.nkeys
	s.skipSpace()
	if s.data[s.pos] == '}' {
		s.pos++
	} else {
		for {
			s.skipSpace()
			start := s.pos
			s.skipString()
			raw := s.data[start+1 : s.pos-1]
			if !plainKey(raw) {
				// Escaped keys are rare; let the general validator decide.
				return errFallback
			}
			switch count := s.nkeys - base; {
			case count < keysDirect:
				if s.seen(base, raw) {
					return errFallback
				}
			case count < keysFiltered:
				if count == keysDirect {
					for i := base; i < s.nkeys; i++ {
						bloomAdd(&bloom, s.key(i))
					}
				}
				if bloomAdd(&bloom, raw) && s.seen(base, raw) {
					return errFallback
				}
			default:
				if many == nil {
					many = make(map[string]bool, 2*count)
					for i := base; i < s.nkeys; i++ {
						many[string(s.key(i))] = true
					}
				}
				if many[string(raw)] {
					return errFallback
				}
				many[string(raw)] = true
			}
			s.pushKey(start+1, s.pos-1)
			s.skipSpace()
			s.pos++ // :
			s.skipSpace()
			s.push(raw)
			f := n.field(raw)
			if f != nil && f.node != nil {
				if err := s.value(f.node); err != nil {
					return err
				}
			} else if n.addlFalse {
				s.pop()
				return s.fail("unexpected property %q", raw)
			} else if n.addl != nil {
				if err := s.value(n.addl); err != nil {
					return err
				}
			} else if err := s.skipValue(); err != nil {
				return err
			}
			s.pop()
			if f != nil && f.req >= 0 {
				seenReq |= 1 << uint(f.req)
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
	s.nkeys = base
	if seenReq != n.reqMask() {
		for i, r := range n.required {
			if seenReq&(1<<uint(i)) == 0 {
				return s.fail("missing required property %q", r)
			}
		}
	}
	return nil
}

// bloomAdd adds key to the filter and reports whether it may have been
// there already.
func bloomAdd(f *[4]uint64, key []byte) bool {
	h := uint64(14695981039346656037) // FNV-1a
	for _, c := range key {
		h ^= uint64(c)
		h *= 1099511628211
	}
	b1, b2 := h&255, h>>8&255
	m1, m2 := uint64(1)<<(b1&63), uint64(1)<<(b2&63)
	seen := f[b1>>6]&m1 != 0 && f[b2>>6]&m2 != 0
	f[b1>>6] |= m1
	f[b2>>6] |= m2
	return seen
}

var indexNames [64][]byte

var overflowIndex = []byte("…")

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
				name := overflowIndex
				if count < len(indexNames) {
					name = indexNames[count]
				}
				s.push(name)
				err := s.value(n.items)
				s.pop()
				if err != nil {
					return err
				}
			} else if err := s.skipValue(); err != nil {
				return err
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
	if count > n.maxItems {
		return s.fail("array has %d items, more than %d", count, n.maxItems)
	}
	return nil
}

// skipValue moves past any value. Its contents are unconstrained, but the
// general validator decodes them: it fails on numbers out of the float64
// range, and so does skipValue.
func (s *scanner) skipValue() error {
	depth := 0
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case '"':
			s.skipString()
			if depth == 0 {
				return nil
			}
			continue
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			num := s.number()
			// Without an exponent, only more than 309 digits overflow.
			if len(num) > 300 || bytes.ContainsAny(num, "eE") {
				if _, err := strconv.ParseFloat(string(num), 64); err != nil {
					return s.fail("number %s is out of range", num)
				}
			}
			if depth == 0 {
				return nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.pos++
				return nil
			}
			if depth < 0 {
				return nil
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return nil
			}
		}
		s.pos++
	}
	return nil
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

// plainKey reports whether the raw key, between its quotes, decodes to
// itself: no escapes and valid UTF-8.
func plainKey(raw []byte) bool {
	ascii := true
	for _, c := range raw {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(raw)
}

// ambiguousKeys reports whether some object in data, which must be valid
// JSON, has a key that is not plain or appears twice. It runs on the error
// path only.
func ambiguousKeys(data []byte) bool {
	type frame struct {
		object bool
		keys   map[string]bool
	}
	var stack []frame
	expectKey := false
	s := scanner{data: data}
	for s.pos < len(data) {
		switch data[s.pos] {
		case '{':
			stack = append(stack, frame{object: true})
			expectKey = true
		case '[':
			stack = append(stack, frame{})
			expectKey = false
		case '}', ']':
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			expectKey = stack[len(stack)-1].object
		case '"':
			start := s.pos
			s.skipString()
			if expectKey {
				raw := data[start+1 : s.pos-1]
				top := &stack[len(stack)-1]
				if !plainKey(raw) || top.keys[string(raw)] {
					return true
				}
				if top.keys == nil {
					top.keys = map[string]bool{}
				}
				top.keys[string(raw)] = true
				expectKey = false
			}
			continue
		}
		s.pos++
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

// reqMask has a bit set for every required name.
func (n *node) reqMask() uint64 {
	return uint64(1)<<uint(len(n.required)) - 1 // 1<<64 is 0 in Go, so 64 names give all ones
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
