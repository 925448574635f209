// Package jsondec decodes JSON into values of simple Go types (structs of
// strings, booleans, numbers, slices, pointers and nested structs) without
// the allocations of encoding/json, with exactly its result. Anything the
// fast path does not cover (other types, escapes it does not handle, a value
// of the wrong type, duplicate keys) is decoded by encoding/json instead,
// into a fresh value, so the result never differs.
package jsondec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Decoder decodes JSON into values of one type.
type Decoder struct {
	typ  reflect.Type
	plan *node // nil: always encoding/json
}

// For returns the decoder of t.
func For(t reflect.Type) *Decoder {
	d := &Decoder{typ: t}
	d.plan = planFor(t, map[reflect.Type]bool{})
	return d
}

// Decode decodes data into *p, which must point at a zero value of the
// decoder's type.
func (d *Decoder) Decode(data string, p unsafe.Pointer) error {
	if d.plan != nil {
		s := scanner{data: data}
		s.ws()
		if s.value(d.plan, p) {
			s.ws()
			if s.pos == len(s.data) {
				return nil
			}
		}
		// Start again from a zero value, the slow way.
		v := reflect.NewAt(d.typ, p).Elem()
		v.SetZero()
	}
	return json.Unmarshal([]byte(data), reflect.NewAt(d.typ, p).Interface())
}

type kind int

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat
	kStruct
	kSlice
	kPtr
)

type node struct {
	kind   kind
	typ    reflect.Type
	bits   int
	fields []field
	elem   *node
}

type field struct {
	name   string
	ascii  bool    // the name is ASCII, so a fold is a simple case fold
	offset uintptr // in the struct
	node   *node
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planFor returns how to decode t, or nil when encoding/json must.
func planFor(t reflect.Type, seen map[reflect.Type]bool) *node {
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil
	}
	n := &node{typ: t, bits: 64}
	switch t.Kind() {
	case reflect.String:
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind, n.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = kFloat, t.Bits()
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64
		}
		n.kind = kSlice
		if n.elem = planFor(t.Elem(), seen); n.elem == nil {
			return nil
		}
	case reflect.Pointer:
		n.kind = kPtr
		if n.elem = planFor(t.Elem(), seen); n.elem == nil {
			return nil
		}
	case reflect.Struct:
		if seen[t] {
			return nil // recursive types decode the slow way
		}
		seen[t] = true
		defer delete(seen, t)
		n.kind = kStruct
		names := map[string]bool{}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				return nil
			}
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if opts != "" {
				for o := range strings.SplitSeq(opts, ",") {
					if o == "string" {
						return nil
					}
				}
			}
			if !validTag(name) {
				name = f.Name
			}
			folded := strings.ToLower(name)
			if names[folded] {
				return nil // names that collide, even only when folded
			}
			names[folded] = true
			fn := planFor(f.Type, seen)
			if fn == nil {
				return nil
			}
			n.fields = append(n.fields, field{name: name, ascii: isASCII(name), offset: f.Offset, node: fn})
		}
		if len(n.fields) > 64 {
			return nil
		}
	default:
		return nil
	}
	return n
}

// validTag is encoding/json's rule for a usable tag name.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// scanner reads one JSON text. Its methods report false when the fast path
// gives up.
type scanner struct {
	data  string
	pos   int
	depth int // of nested objects and arrays
}

// maxDepth bounds nesting, as encoding/json does; deeper input is left to
// it (and rejected there).
const maxDepth = 10000

// enter counts one level of nesting; false means too deep.
func (s *scanner) enter() bool {
	s.depth++
	return s.depth <= maxDepth
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) literal(word string) bool {
	if strings.HasPrefix(s.data[s.pos:], word) {
		s.pos += len(word)
		return true
	}
	return false
}

// value decodes one value of n into the memory at p.
func (s *scanner) value(n *node, p unsafe.Pointer) bool {
	if s.pos >= len(s.data) {
		return false
	}
	if s.data[s.pos] == 'n' {
		if !s.literal("null") {
			return false
		}
		switch n.kind {
		case kPtr:
			*(*unsafe.Pointer)(p) = nil
		case kSlice:
			reflect.NewAt(n.typ, p).Elem().SetZero()
		}
		return true
	}
	switch n.kind {
	case kString:
		str, ok := s.string()
		if !ok {
			return false
		}
		*(*string)(p) = str
	case kBool:
		switch {
		case s.literal("true"):
			*(*bool)(p) = true
		case s.literal("false"):
			*(*bool)(p) = false
		default:
			return false
		}
	case kInt, kUint, kFloat:
		return s.number(n, p)
	case kPtr:
		v := reflect.New(n.elem.typ)
		if !s.value(n.elem, v.UnsafePointer()) {
			return false
		}
		*(*unsafe.Pointer)(p) = v.UnsafePointer()
	case kSlice:
		return s.slice(n, p)
	case kStruct:
		return s.object(n, p)
	default:
		return false
	}
	return true
}

func (s *scanner) object(n *node, p unsafe.Pointer) bool {
	if s.data[s.pos] != '{' || !s.enter() {
		return false
	}
	defer func() { s.depth-- }()
	s.pos++
	var set uint64
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	for {
		s.ws()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return false
		}
		key, ok := s.string()
		if !ok {
			return false
		}
		s.ws()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return false
		}
		s.pos++
		s.ws()
		i, ok := n.match(key)
		if !ok {
			return false
		}
		if i < 0 {
			if !s.skip() {
				return false
			}
		} else {
			if set&(1<<i) != 0 {
				return false // a repeated key: encoding/json's merging rules apply
			}
			set |= 1 << i
			f := &n.fields[i]
			if !s.value(f.node, unsafe.Add(p, f.offset)) {
				return false
			}
		}
		s.ws()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// match returns the field a key names (-1 for none), preferring an exact
// match; ok is false when only a Unicode case fold could decide.
func (n *node) match(key string) (int, bool) {
	for i := range n.fields {
		if n.fields[i].name == key {
			return i, true
		}
	}
	keyASCII := isASCII(key)
	for i := range n.fields {
		f := &n.fields[i]
		if !f.ascii || !keyASCII {
			return 0, false
		}
		if strings.EqualFold(f.name, key) {
			return i, true
		}
	}
	return -1, true
}

func (s *scanner) slice(n *node, p unsafe.Pointer) bool {
	if s.data[s.pos] != '[' || !s.enter() {
		return false
	}
	defer func() { s.depth-- }()
	s.pos++
	v := reflect.NewAt(n.typ, p).Elem()
	out := reflect.MakeSlice(n.typ, 0, 4)
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		v.Set(out)
		return true
	}
	for {
		s.ws()
		out = reflect.Append(out, reflect.Zero(n.elem.typ))
		if !s.value(n.elem, out.Index(out.Len()-1).Addr().UnsafePointer()) {
			return false
		}
		s.ws()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			v.Set(out)
			return true
		default:
			return false
		}
	}
}

// number decodes a number literal into an integer or float of n's size.
func (s *scanner) number(n *node, p unsafe.Pointer) bool {
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	digits := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	if s.pos == digits || s.data[digits] == '0' && s.pos-digits > 1 {
		return false
	}
	integer := true
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		integer = false
		s.pos++
		frac := s.pos
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == frac {
			return false
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		integer = false
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		exp := s.pos
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
		}
		if s.pos == exp {
			return false
		}
	}
	lit := s.data[start:s.pos]
	switch n.kind {
	case kInt:
		if !integer {
			return false
		}
		x, err := strconv.ParseInt(lit, 10, n.bits)
		if err != nil {
			return false
		}
		switch n.bits {
		case 8:
			*(*int8)(p) = int8(x)
		case 16:
			*(*int16)(p) = int16(x)
		case 32:
			*(*int32)(p) = int32(x)
		default:
			*(*int64)(p) = x
		}
	case kUint:
		if !integer || lit[0] == '-' {
			return false
		}
		x, err := strconv.ParseUint(lit, 10, n.bits)
		if err != nil {
			return false
		}
		switch n.bits {
		case 8:
			*(*uint8)(p) = uint8(x)
		case 16:
			*(*uint16)(p) = uint16(x)
		case 32:
			*(*uint32)(p) = uint32(x)
		default:
			*(*uint64)(p) = x
		}
	case kFloat:
		x, err := strconv.ParseFloat(lit, n.bits)
		if err != nil {
			return false
		}
		if n.bits == 32 {
			*(*float32)(p) = float32(x)
		} else {
			*(*float64)(p) = x
		}
	}
	return true
}

// string reads a string literal. Without escapes the result shares the
// input's memory.
func (s *scanner) string() (string, bool) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return "", false
	}
	s.pos++
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			str := s.data[start:s.pos]
			s.pos++
			return str, true
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false // invalid UTF-8 becomes U+FFFD: the slow way
			}
			s.pos += size
		default:
			s.pos++
		}
	}
	return "", false
}

// escaped reads the rest of a string with escapes, from its first
// character at start.
func (s *scanner) escaped(start int) (string, bool) {
	var b []byte
	b = append(b, s.data[start:s.pos]...)
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return string(b), true
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			b = append(b, s.data[s.pos:s.pos+size]...)
			s.pos += size
		case c != '\\':
			b = append(b, c)
			s.pos++
		default:
			if s.pos+1 >= len(s.data) {
				return "", false
			}
			e := s.data[s.pos+1]
			s.pos += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := s.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					// A pair makes one character; anything else is U+FFFD,
					// as in encoding/json.
					r2 := rune(-1)
					if strings.HasPrefix(s.data[s.pos:], `\u`) {
						save := s.pos
						s.pos += 2
						var ok2 bool
						if r2, ok2 = s.hex4(); !ok2 {
							return "", false
						}
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							b = utf8.AppendRune(b, dec)
							break
						}
						s.pos = save
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", false
			}
		}
	}
	return "", false
}

func (s *scanner) hex4() (rune, bool) {
	if s.pos+4 > len(s.data) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s.data[s.pos : s.pos+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	s.pos += 4
	return r, true
}

var anyNumber = node{kind: kFloat, bits: 64}

// skip passes over one value of any kind.
func (s *scanner) skip() bool {
	if s.pos >= len(s.data) {
		return false
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		_, ok := s.string()
		return ok
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		if !s.enter() {
			return false
		}
		defer func() { s.depth-- }()
		s.pos++
		s.ws()
		if s.pos < len(s.data) && s.data[s.pos] == closing {
			s.pos++
			return true
		}
		for {
			s.ws()
			if c == '{' {
				if _, ok := s.string(); !ok {
					return false
				}
				s.ws()
				if s.pos >= len(s.data) || s.data[s.pos] != ':' {
					return false
				}
				s.pos++
				s.ws()
			}
			if !s.skip() {
				return false
			}
			s.ws()
			if s.pos >= len(s.data) {
				return false
			}
			switch s.data[s.pos] {
			case ',':
				s.pos++
			case closing:
				s.pos++
				return true
			default:
				return false
			}
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		var f float64
		return s.number(&anyNumber, unsafe.Pointer(&f))
	}
}
