package google

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// partialArg is one streamed piece of a function call's arguments: the
// JSON path of a value and the value (or the next piece of a string).
type partialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  *float64        `json:"numberValue"`
	BoolValue    *bool           `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue *bool           `json:"willContinue"`
}

func (a *partialArg) continues() bool { return a.WillContinue != nil && *a.WillContinue }

// Bounds on streamed arguments, which come from the network.
const (
	maxArgsBytes = 16 << 20
	maxArgsDepth = 64
)

var errArgsTooLarge = errors.New("streamed function-call arguments exceed the size or depth limit")

// valueKind is the JSON type of an argument value.
type valueKind uint8

const (
	kindObject valueKind = iota
	kindArray
	kindString
	kindScalar // number, boolean or null, kept as JSON text
)

// value is a node of the arguments built so far. Objects keep their keys
// in the order they arrived.
type value struct {
	kind   valueKind
	keys   []string
	fields map[string]*value
	items  []*value
	text   string // string content, or the JSON text of a scalar
}

func newContainer(array bool) *value {
	if array {
		return &value{kind: kindArray}
	}
	return &value{kind: kindObject, fields: map[string]*value{}}
}

// segment is one step of a path: an object key or an array index.
type segment struct {
	key     string
	index   int
	isIndex bool
}

// frame is an open container of the JSON text written so far.
type frame struct {
	seg      segment
	array    bool
	children int
}

// argsBuilder assembles a function call's arguments from streamed
// partialArgs. It writes JSON text as the pieces arrive, so that the text
// deltas joined form the arguments, and keeps the value they describe.
type argsBuilder struct {
	root       *value
	text       strings.Builder
	stack      []frame
	stringOpen bool
}

func newArgsBuilder() *argsBuilder { return &argsBuilder{root: newContainer(false)} }

// add applies pieces and returns the JSON text they add.
func (b *argsBuilder) add(args []partialArg) (string, error) {
	var delta strings.Builder
	for i := range args {
		arg := &args[i]
		path, arrayEnd := strings.CutSuffix(arg.JSONPath, "[]")
		raw := strings.TrimPrefix(path, "$.")
		if raw == "" || raw == "$" {
			continue
		}
		segs, ok := parsePath(raw)
		if len(segs) > maxArgsDepth {
			return "", errArgsTooLarge
		}
		if !ok || len(segs) == 0 {
			continue
		}
		if !b.normalize(segs) {
			continue
		}
		existing := b.get(segs)
		if arg.StringValue != nil && existing != nil {
			if existing.kind != kindString {
				continue
			}
			existing.text += *arg.StringValue
			delta.WriteString(escapedString(*arg.StringValue))
			if !arg.continues() {
				delta.WriteString(b.closeString())
			}
			continue
		}
		jsonValue, leaf, ok := resolveValue(arg)
		if !ok {
			// Without a value: a terminator of an existing string or array,
			// or an empty container.
			if existing != nil {
				if existing.kind == kindString && !arg.continues() {
					delta.WriteString(b.closeString())
				}
				continue
			}
			if arg.continues() {
				continue
			}
			if !b.set(segs, newContainer(arrayEnd)) {
				continue
			}
			delta.WriteString(b.container(segs, arrayEnd))
			continue
		}
		if !b.set(segs, leaf) {
			continue
		}
		delta.WriteString(b.navigate(segs, arg, jsonValue))
	}
	d := delta.String()
	if b.text.Len()+len(d) > maxArgsBytes {
		return "", errArgsTooLarge
	}
	b.text.WriteString(d)
	return d, nil
}

// finish returns the complete arguments and the text that closes what was
// written so far.
func (b *argsBuilder) finish() (final, closing string) {
	var buf bytes.Buffer
	writeValue(&buf, b.root)
	final = buf.String()
	if rest, ok := strings.CutPrefix(final, b.text.String()); ok {
		closing = rest
	}
	return final, closing
}

var indexPattern = regexp.MustCompile(`\[(\d+)\]`)

// parsePath splits "recipe.ingredients[0].name" into its segments.
func parsePath(raw string) ([]segment, bool) {
	var segs []segment
	for _, p := range strings.Split(raw, ".") {
		i := strings.IndexByte(p, '[')
		if i < 0 {
			segs = append(segs, segment{key: p})
			continue
		}
		if i > 0 {
			segs = append(segs, segment{key: p[:i]})
		}
		for _, m := range indexPattern.FindAllStringSubmatch(p, -1) {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, false
			}
			segs = append(segs, segment{index: n, isIndex: true})
		}
	}
	return segs, true
}

// normalize turns keys that index arrays into indexes, and reports whether
// every index is an existing element or the next one (arrays grow in order,
// so a far index cannot make the arguments huge).
func (b *argsBuilder) normalize(segs []segment) bool {
	cur := b.root
	for i := range segs {
		s := &segs[i]
		if cur != nil && cur.kind == kindArray && !s.isIndex {
			n, err := strconv.Atoi(s.key)
			if err != nil || n < 0 || strconv.Itoa(n) != s.key {
				return false
			}
			*s = segment{index: n, isIndex: true}
		}
		if s.isIndex {
			switch {
			case cur == nil:
				if s.index > 0 {
					return false
				}
			case cur.kind == kindArray:
				if s.index > len(cur.items) {
					return false
				}
			}
		}
		cur = child(cur, *s)
	}
	return true
}

func child(v *value, s segment) *value {
	if v == nil {
		return nil
	}
	switch v.kind {
	case kindArray:
		if s.isIndex && s.index < len(v.items) {
			return v.items[s.index]
		}
	case kindObject:
		return v.fields[s.keyString()]
	}
	return nil
}

func (s segment) keyString() string {
	if s.isIndex {
		return strconv.Itoa(s.index)
	}
	return s.key
}

func (b *argsBuilder) get(segs []segment) *value {
	cur := b.root
	for _, s := range segs {
		if cur = child(cur, s); cur == nil {
			return nil
		}
	}
	return cur
}

// set stores v at segs, creating the missing containers on the way; it
// reports false when the path runs through a string, number or boolean.
func (b *argsBuilder) set(segs []segment, v *value) bool {
	cur := b.root
	for i, s := range segs[:len(segs)-1] {
		next := child(cur, s)
		switch {
		case next == nil || next.kind == kindScalar && next.text == "null":
			next = newContainer(segs[i+1].isIndex)
			if !put(cur, s, next) {
				return false
			}
		case next.kind == kindString || next.kind == kindScalar:
			return false
		}
		cur = next
	}
	return put(cur, segs[len(segs)-1], v)
}

func put(parent *value, s segment, v *value) bool {
	switch parent.kind {
	case kindArray:
		if !s.isIndex || s.index > len(parent.items) {
			return false
		}
		if s.index == len(parent.items) {
			parent.items = append(parent.items, v)
		} else {
			parent.items[s.index] = v
		}
		return true
	case kindObject:
		k := s.keyString()
		if _, ok := parent.fields[k]; !ok {
			parent.keys = append(parent.keys, k)
		}
		parent.fields[k] = v
		return true
	}
	return false
}

// resolveValue returns the JSON text of an argument's value.
func resolveValue(a *partialArg) (string, *value, bool) {
	switch {
	case a.StringValue != nil:
		return quotedString(*a.StringValue), &value{kind: kindString, text: *a.StringValue}, true
	case a.NumberValue != nil:
		t, err := json.Marshal(*a.NumberValue)
		if err != nil {
			return "", nil, false
		}
		return string(t), &value{kind: kindScalar, text: string(t)}, true
	case a.BoolValue != nil:
		t := strconv.FormatBool(*a.BoolValue)
		return t, &value{kind: kindScalar, text: t}, true
	case a.NullValue != nil:
		return "null", &value{kind: kindScalar, text: "null"}, true
	}
	return "", nil, false
}

func (b *argsBuilder) closeString() string {
	if !b.stringOpen {
		return ""
	}
	b.stringOpen = false
	return `"`
}

func (b *argsBuilder) ensureRoot() string {
	if len(b.stack) == 0 {
		b.stack = append(b.stack, frame{})
		return "{"
	}
	return ""
}

// navigate writes the text from the open containers to a new leaf value.
func (b *argsBuilder) navigate(segs []segment, arg *partialArg, jsonValue string) string {
	s := b.closeString() + b.ensureRoot()
	containers, leaf := segs[:len(segs)-1], segs[len(segs)-1]
	s += b.closeTo(b.common(containers))
	s += b.open(containers, leaf)
	top := &b.stack[len(b.stack)-1]
	if top.children > 0 {
		s += ","
	}
	top.children++
	if !leaf.isIndex {
		s += quotedString(leaf.key) + ":"
	}
	if arg.StringValue != nil && arg.continues() {
		s += jsonValue[:len(jsonValue)-1]
		b.stringOpen = true
	} else {
		s += jsonValue
	}
	return s
}

// container writes the text that opens an empty container at segs; it
// stays open for later children.
func (b *argsBuilder) container(segs []segment, array bool) string {
	s := b.closeString() + b.ensureRoot()
	s += b.closeTo(b.common(segs))
	leaf := segment{}
	if array {
		leaf = segment{isIndex: true}
	}
	return s + b.open(segs, leaf)
}

// common returns the depth of the stack shared with a container path (at
// least 1: the root stays open).
func (b *argsBuilder) common(containers []segment) int {
	n := 0
	for i := 0; i < min(len(b.stack)-1, len(containers)); i++ {
		if b.stack[i+1].seg != containers[i] {
			break
		}
		n++
	}
	return n + 1
}

func (b *argsBuilder) closeTo(depth int) string {
	var s strings.Builder
	for len(b.stack) > depth {
		f := b.stack[len(b.stack)-1]
		b.stack = b.stack[:len(b.stack)-1]
		if f.array {
			s.WriteByte(']')
		} else {
			s.WriteByte('}')
		}
	}
	return s.String()
}

// open writes the text that opens the containers from the stack's depth
// down to the full path; leaf says whether the innermost one is an array.
func (b *argsBuilder) open(containers []segment, leaf segment) string {
	var s strings.Builder
	for i := len(b.stack) - 1; i < len(containers); i++ {
		seg := containers[i]
		parent := &b.stack[len(b.stack)-1]
		if parent.children > 0 {
			s.WriteByte(',')
		}
		parent.children++
		if !seg.isIndex {
			s.WriteString(quotedString(seg.key))
			s.WriteByte(':')
		}
		next := leaf
		if i+1 < len(containers) {
			next = containers[i+1]
		}
		if next.isIndex {
			s.WriteByte('[')
		} else {
			s.WriteByte('{')
		}
		b.stack = append(b.stack, frame{seg: seg, array: next.isIndex})
	}
	return s.String()
}

// quotedString renders s as a JSON string without HTML escaping.
func quotedString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

func escapedString(s string) string {
	q := quotedString(s)
	return q[1 : len(q)-1]
}

func writeValue(buf *bytes.Buffer, v *value) {
	switch v.kind {
	case kindObject:
		buf.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(quotedString(k))
			buf.WriteByte(':')
			writeValue(buf, v.fields[k])
		}
		buf.WriteByte('}')
	case kindArray:
		buf.WriteByte('[')
		for i, x := range v.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeValue(buf, x)
		}
		buf.WriteByte(']')
	case kindString:
		buf.WriteString(quotedString(v.text))
	default:
		buf.WriteString(v.text)
	}
}
