package tsgen

import (
	"encoding/json"
	"slices"
	"strings"
)

// maxDepth is the deepest nesting level that is still rendered; anything
// below it becomes unknown (in types) or null (in samples).
const maxDepth = 8

// maxCompactWidth is the longest single-line object type, counted in UTF-16
// code units as a JavaScript string length would be.
const maxCompactWidth = 120

// TypeOf renders a JSON Schema as a TypeScript type. A nil, malformed or
// non-object schema renders as unknown. Multi-line results are indented as if
// the type started at column zero.
func TypeOf(schema json.RawMessage) string {
	root := parse(schema)
	if !root.isObject() {
		return "unknown"
	}
	return typeOfRoot(root)
}

func typeOfRoot(root *node) string {
	c := converter{root: root}
	return c.render(root, 0)
}

// converter carries the state of one schema conversion.
type converter struct {
	root *node
	refs refTracker
}

// refTracker follows local $ref pointers, each at most once per conversion:
// a later occurrence, whether a cycle or a repeat elsewhere in the schema,
// resolves to nothing. That keeps recursive schemas finite and stops shared
// definitions from multiplying the output.
type refTracker struct {
	seen map[string]bool
}

// resolve follows ref, a JSON pointer such as "#/$defs/a~1b", against root.
// It returns nil when the ref is not local, was followed before, or does not
// lead through objects to an object.
func (r *refTracker) resolve(root *node, ref string) *node {
	if !strings.HasPrefix(ref, "#/") || r.seen[ref] {
		return nil
	}
	if r.seen == nil {
		r.seen = make(map[string]bool)
	}
	r.seen[ref] = true
	cur := root
	for part := range strings.SplitSeq(ref[2:], "/") {
		if !cur.isObject() {
			return nil
		}
		part = strings.ReplaceAll(part, "~1", "/")
		part = strings.ReplaceAll(part, "~0", "~")
		cur = cur.get(part)
	}
	if !cur.isObject() {
		return nil
	}
	return cur
}

// schemaList returns the members of an array whose entries are all objects.
func schemaList(n *node) ([]*node, bool) {
	if !n.isArray() {
		return nil, false
	}
	for _, item := range n.items {
		if !item.isObject() {
			return nil, false
		}
	}
	return n.items, true
}

func (c *converter) render(s *node, depth int) string {
	if depth > maxDepth {
		return "unknown"
	}
	if ref, ok := s.get("$ref").stringValue(); ok {
		target := c.refs.resolve(c.root, ref)
		if target == nil {
			return "unknown"
		}
		return c.render(target, depth+1)
	}
	if v := s.get("const"); v != nil {
		return literalType(v)
	}
	if v := s.get("enum"); v.isArray() {
		var u union
		for _, item := range v.items {
			u.add(literalType(item))
		}
		return u.String()
	}
	for _, key := range [...]string{"oneOf", "anyOf"} {
		if list, ok := schemaList(s.get(key)); ok {
			var u union
			for _, item := range list {
				u.add(c.render(item, depth+1))
			}
			return u.String()
		}
	}
	if list, ok := schemaList(s.get("allOf")); ok {
		if len(list) == 0 {
			return "unknown"
		}
		parts := make([]string, len(list))
		for i, item := range list {
			parts[i] = c.render(item, depth+1)
		}
		return strings.Join(parts, " & ")
	}
	t := s.get("type")
	if t.isArray() {
		// Each listed type is rendered as if it were the only one. The
		// result depends only on the shape the type selects, so every shape
		// is rendered once, in order of first appearance.
		var shapes []shape
		collectShapes(s, t, &shapes)
		var u union
		for _, sh := range shapes {
			u.add(c.renderShape(s, sh, depth))
		}
		return u.String()
	}
	return c.renderShape(s, shapeOf(s, t), depth)
}

// shape is what a schema renders as once its type keyword is settled.
type shape uint8

const (
	shapeUnknown shape = iota
	shapeObject
	shapeArray
	shapeString
	shapeNumber
	shapeBoolean
	shapeNull
)

// shapeOf decides the shape for schema s with type keyword value t (which
// may be nil). An object-valued properties keyword or an items keyword
// decides the shape before the type does.
func shapeOf(s, t *node) shape {
	switch {
	case t.isString("object") || s.get("properties").isObject():
		return shapeObject
	case t.isString("array") || s.get("items") != nil:
		return shapeArray
	case t.isString("string"):
		return shapeString
	case t.isString("number"), t.isString("integer"):
		return shapeNumber
	case t.isString("boolean"):
		return shapeBoolean
	case t.isString("null"):
		return shapeNull
	}
	return shapeUnknown
}

// collectShapes appends the distinct shapes selected by the entries of a
// type array, descending into nested arrays.
func collectShapes(s, types *node, out *[]shape) {
	for _, t := range types.items {
		if t.isArray() {
			collectShapes(s, t, out)
			continue
		}
		sh := shapeOf(s, t)
		dup := false
		for _, have := range *out {
			if have == sh {
				dup = true
				break
			}
		}
		if !dup {
			*out = append(*out, sh)
		}
	}
}

func (c *converter) renderShape(s *node, sh shape, depth int) string {
	switch sh {
	case shapeObject:
		return c.objectType(s, depth)
	case shapeArray:
		return c.arrayType(s, depth)
	case shapeString:
		return "string"
	case shapeNumber:
		return "number"
	case shapeBoolean:
		return "boolean"
	case shapeNull:
		return "null"
	}
	return "unknown"
}

func (c *converter) arrayType(s *node, depth int) string {
	items := s.get("items")
	switch {
	case items.isArray():
		parts := make([]string, len(items.items))
		for i, item := range items.items {
			if item.isObject() {
				parts[i] = c.render(item, depth+1)
			} else {
				parts[i] = "unknown"
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case items.isObject():
		t := c.render(items, depth+1)
		if strings.Contains(t, " | ") || strings.Contains(t, " & ") || strings.Contains(t, "\n") {
			return "Array<" + t + ">"
		}
		return t + "[]"
	}
	return "unknown[]"
}

// objectMember is one rendered line of an object type.
type objectMember struct {
	doc  string // comment text, empty for none
	text string // `name?: type;` with nested lines already indented
}

func (c *converter) objectType(s *node, depth int) string {
	props := s.get("properties")
	additional := s.get("additionalProperties")

	req := requiredSet(s.get("required"))

	var members []objectMember
	if props.isObject() {
		for _, m := range props.members {
			if !m.value.isObject() {
				continue
			}
			var b strings.Builder
			b.WriteString(propertyKey(m.key))
			if !req.has(m.key) {
				b.WriteByte('?')
			}
			b.WriteString(": ")
			b.WriteString(indent(c.render(m.value, depth+1)))
			b.WriteByte(';')
			doc := ""
			if d, ok := m.value.get("description").stringValue(); ok {
				doc = commentText(d)
			}
			members = append(members, objectMember{doc: doc, text: b.String()})
		}
	}

	if len(members) == 0 {
		switch {
		case additional.isObject():
			return "Record<string, " + c.render(additional, depth+1) + ">"
		case additional != nil && additional.kind == kindBool && additional.boolean:
			return "Record<string, unknown>"
		}
		return "{}"
	}

	switch {
	case additional.isObject():
		members = append(members, objectMember{
			text: "[key: string]: " + indent(c.render(additional, depth+1)) + ";",
		})
	case additional != nil && additional.kind == kindBool && additional.boolean:
		members = append(members, objectMember{text: "[key: string]: unknown;"})
	}

	if compact, ok := compactObject(members); ok {
		return compact
	}
	var b strings.Builder
	b.WriteByte('{')
	for _, m := range members {
		if m.doc != "" {
			b.WriteString("\n  /** ")
			b.WriteString(m.doc)
			b.WriteString(" */")
		}
		b.WriteString("\n  ")
		b.WriteString(m.text)
	}
	b.WriteString("\n}")
	return b.String()
}

// compactObject returns the single-line form of an object type when no
// member carries a comment or spans lines and the line is short enough.
func compactObject(members []objectMember) (string, bool) {
	width := len("{  }")
	for i, m := range members {
		if m.doc != "" || strings.Contains(m.text, "\n") {
			return "", false
		}
		if i > 0 {
			width++
		}
		width += utf16Len(m.text)
	}
	if width > maxCompactWidth {
		return "", false
	}
	var b strings.Builder
	b.Grow(width)
	b.WriteString("{ ")
	for i, m := range members {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.text)
	}
	b.WriteString(" }")
	return b.String(), true
}

// literalType renders a const or enum value as a TypeScript literal type.
func literalType(v *node) string {
	switch v.kind {
	case kindString:
		return quote(v.text)
	case kindNumber:
		return v.text
	case kindBool:
		if v.boolean {
			return "true"
		}
		return "false"
	case kindNull:
		return "null"
	}
	return "unknown"
}

// union collects distinct type strings in order of first appearance.
type union struct {
	parts []string
	seen  map[string]bool // built only once parts grows past a few entries
}

func (u *union) add(t string) {
	if u.seen != nil {
		if u.seen[t] {
			return
		}
		u.seen[t] = true
	} else {
		if slices.Contains(u.parts, t) {
			return
		}
		if len(u.parts) >= indexThreshold {
			u.seen = make(map[string]bool, 2*len(u.parts))
			for _, p := range u.parts {
				u.seen[p] = true
			}
			u.seen[t] = true
		}
	}
	u.parts = append(u.parts, t)
}

// String joins the collected types with " | "; no types at all is unknown.
func (u *union) String() string {
	if len(u.parts) == 0 {
		return "unknown"
	}
	return strings.Join(u.parts, " | ")
}

// indent shifts every line after the first by two spaces, so a multi-line
// type can be placed inside a member one level deeper.
func indent(t string) string {
	if !strings.Contains(t, "\n") {
		return t
	}
	return strings.ReplaceAll(t, "\n", "\n  ")
}

// nameSet answers membership questions about the required keyword.
type nameSet struct {
	list  []string
	index map[string]bool // used instead of list when there are many names
}

func requiredSet(r *node) nameSet {
	var s nameSet
	if !r.isArray() {
		return s
	}
	for _, item := range r.items {
		if name, ok := item.stringValue(); ok {
			s.list = append(s.list, name)
		}
	}
	if len(s.list) > indexThreshold {
		s.index = make(map[string]bool, len(s.list))
		for _, name := range s.list {
			s.index[name] = true
		}
	}
	return s
}

func (s nameSet) has(name string) bool {
	if s.index != nil {
		return s.index[name]
	}
	return slices.Contains(s.list, name)
}

// utf16Len is the length of s as a JavaScript string.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
