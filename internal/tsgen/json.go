package tsgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// kind tells which JSON value a node holds.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one parsed JSON value. Objects keep their members in the order of
// the source text, which is what every rendering in this package follows.
type node struct {
	kind    kind
	boolean bool
	text    string // string contents, or the literal text of a number
	items   []*node
	members []member
}

type member struct {
	key   string
	value *node
}

// get returns the value stored under key, or nil when the node is not an
// object or has no such member.
func (n *node) get(key string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	for i := range n.members {
		if n.members[i].key == key {
			return n.members[i].value
		}
	}
	return nil
}

func (n *node) isObject() bool { return n != nil && n.kind == kindObject }
func (n *node) isArray() bool  { return n != nil && n.kind == kindArray }

// stringValue reports the contents of a string node.
func (n *node) stringValue() (string, bool) {
	if n == nil || n.kind != kindString {
		return "", false
	}
	return n.text, true
}

// isString reports whether n is the JSON string s.
func (n *node) isString(s string) bool {
	v, ok := n.stringValue()
	return ok && v == s
}

// parse decodes a JSON document, keeping object members in source order.
// A key that occurs twice keeps its first position and its last value, as
// JSON.parse does. It returns nil for empty or malformed input.
func parse(data []byte) *node {
	if len(data) == 0 || !json.Valid(data) {
		return nil
	}
	// Bound the number of values so that one allocation holds every node:
	// one per object member (a ':'), plus the array elements, which are at
	// most the '[' count plus the commas that do not separate members.
	// Punctuation inside strings only raises the bound; newNode would still
	// cope if it fell short.
	colons := bytes.Count(data, []byte{':'})
	arrayCommas := bytes.Count(data, []byte{','}) - colons + bytes.Count(data, []byte{'{'})
	count := 1 + colons + bytes.Count(data, []byte{'['}) + max(arrayCommas, 0)
	p := parser{data: data, free: make([]node, count)}
	return p.value()
}

// parser reads input that json.Valid has already accepted, so it can skip
// most error handling; json.Valid also bounds the nesting depth.
type parser struct {
	data []byte
	pos  int
	free []node // preallocated nodes, handed out in order
}

func (p *parser) newNode(k kind) *node {
	if len(p.free) == 0 {
		p.free = make([]node, 16)
	}
	n := &p.free[0]
	p.free = p.free[1:]
	n.kind = k
	return n
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() *node {
	p.skipSpace()
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		n := p.newNode(kindString)
		n.text = p.str()
		return n
	case 't':
		p.pos += len("true")
		n := p.newNode(kindBool)
		n.boolean = true
		return n
	case 'f':
		p.pos += len("false")
		return p.newNode(kindBool)
	case 'n':
		p.pos += len("null")
		return p.newNode(kindNull)
	default:
		start := p.pos
		for p.pos < len(p.data) && strings.IndexByte("+-.0123456789eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		n := p.newNode(kindNumber)
		n.text = string(p.data[start:p.pos])
		return n
	}
}

// indexThreshold is the member count above which duplicate keys are found
// through a map rather than by scanning.
const indexThreshold = 16

func (p *parser) object() *node {
	n := p.newNode(kindObject)
	p.pos++ // '{'
	var index map[string]int
	for {
		p.skipSpace()
		if p.data[p.pos] == '}' {
			p.pos++
			return n
		}
		if p.data[p.pos] == ',' {
			p.pos++
			p.skipSpace()
		}
		key := p.str()
		p.skipSpace()
		p.pos++ // ':'
		v := p.value()

		at := -1
		if index != nil {
			if i, ok := index[key]; ok {
				at = i
			}
		} else {
			for i := range n.members {
				if n.members[i].key == key {
					at = i
					break
				}
			}
		}
		if at >= 0 {
			n.members[at].value = v
			continue
		}
		n.members = append(n.members, member{key: key, value: v})
		if index == nil && len(n.members) > indexThreshold {
			index = make(map[string]int, 2*len(n.members))
			for i, m := range n.members {
				index[m.key] = i
			}
		} else if index != nil {
			index[key] = len(n.members) - 1
		}
	}
}

func (p *parser) array() *node {
	n := p.newNode(kindArray)
	p.pos++ // '['
	for {
		p.skipSpace()
		switch p.data[p.pos] {
		case ']':
			p.pos++
			return n
		case ',':
			p.pos++
		}
		n.items = append(n.items, p.value())
	}
}

// str reads a string token starting at the opening quote.
func (p *parser) str() string {
	start := p.pos
	p.pos++
	escaped := false
	for {
		c := p.data[p.pos]
		if c == '\\' {
			escaped = true
			p.pos += 2
			continue
		}
		p.pos++
		if c == '"' {
			break
		}
	}
	raw := p.data[start:p.pos]
	inner := raw[1 : len(raw)-1]
	if !escaped && utf8.Valid(inner) {
		return string(inner)
	}
	// Escapes and invalid UTF-8 are rare; let the standard decoder handle
	// them (it also turns invalid bytes into U+FFFD).
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return strings.ToValidUTF8(string(inner), "\uFFFD")
	}
	return s
}

// appendJSON writes v as compact JSON the way JSON.stringify does: no
// insignificant whitespace, members in stored order, numbers as written,
// non-ASCII characters literal and no HTML escaping.
func appendJSON(b *strings.Builder, v *node) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool:
		if v.boolean {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case kindNumber:
		b.WriteString(v.text)
	case kindString:
		appendQuoted(b, v.text)
	case kindArray:
		b.WriteByte('[')
		for i, item := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			appendJSON(b, item)
		}
		b.WriteByte(']')
	case kindObject:
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			appendQuoted(b, m.key)
			b.WriteByte(':')
			appendJSON(b, m.value)
		}
		b.WriteByte('}')
	}
}

// appendQuoted writes s as a JSON string literal using the escapes
// JSON.stringify uses.
func appendQuoted(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// quote returns s as a JSON string literal.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	appendQuoted(&b, s)
	return b.String()
}
