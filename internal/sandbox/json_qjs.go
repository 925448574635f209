package sandbox

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/libquickjs"
)

// Tool outputs reach the program as JavaScript values built directly from
// their JSON, rather than as a string that the engine's JSON.parse reads:
// the engine's tokenizer, its conversion of every key to an atom and the
// cycle collections it runs while the value grows took most of the time of
// a program reading a large tool output. The value is the one JSON.parse
// makes, built with the same engine calls: objects with their keys in
// order (a repeated key keeps its first place and its last value, and
// __proto__ is an own property), arrays, strings, and numbers as integers
// where they fit. Whatever the builder does not handle itself it leaves to
// JSON.parse, which then fails as it always did: text that is not valid
// UTF-8 or not valid JSON, strings with unpaired surrogates, values nested
// more deeply than maxBuildDepth (or than the stack limit allows), and
// running out of memory.

// maxBuildDepth is the deepest nesting the builder handles itself.
const maxBuildDepth = 64

// buildPollEvery is how many values the builder makes between checks for an
// interrupt.
const buildPollEvery = 4096

// jsonBuilder builds a JavaScript value from JSON text.
type jsonBuilder struct {
	r     *qjsRealm
	tls   *libc.TLS
	ctx   uintptr
	s     string
	i     int
	depth int
	// maxDepth is maxBuildDepth, or less when the realm's stack is small.
	maxDepth int
	atoms    map[string]lib.TJSAtom
	// scratch is C memory the bytes of keys and strings are copied to for
	// the engine, which reads C memory only.
	scratch    uintptr
	scratchCap int
	unescaped  []byte
	made       int
	// failed is set when the builder gives up: the value is then left to
	// JSON.parse.
	failed bool
}

func (r *qjsRealm) buildJSON(s string) (jsValue, bool) {
	v, ok := r.build(s)
	if !ok {
		return nil, false
	}
	return &qjsValue{r: r, v: v}, true
}

// build returns the value of the JSON text s, or false when JSON.parse must
// make it instead. It never leaves an exception pending.
func (r *qjsRealm) build(s string) (v lib.TJSValue, ok bool) {
	if !fastJSON || !utf8.ValidString(s) {
		return jsUndefined, false
	}
	defer r.guard(new(error))
	r.enter()
	rt := cptr[lib.TJSRuntime](r.rt)
	b := &jsonBuilder{r: r, tls: r.tls, ctx: r.ctx, s: s, atoms: map[string]lib.TJSAtom{}}
	b.maxDepth = min(maxBuildDepth, int(stackSlots(r.stackBytes)/16))
	// Building only adds live values: a cycle collection would find
	// nothing to free. The next one comes when the heap has grown by half
	// again, as after a collection.
	threshold := rt.Fmalloc_gc_threshold
	rt.Fmalloc_gc_threshold = ^lib.Tsize_t(0)
	defer func() {
		size := rt.Fmalloc_ctx.Fmalloc_state.Fmalloc_size
		if ok {
			threshold = max(threshold, size+size/2)
		}
		rt.Fmalloc_gc_threshold = threshold
		for _, a := range b.atoms {
			lib.XJS_FreeAtom(b.tls, b.ctx, a)
		}
		if b.scratch != 0 {
			libc.Xfree(b.tls, b.scratch)
		}
	}()
	b.space()
	v, ok = b.value()
	if ok {
		b.space()
		if b.i != len(b.s) {
			lib.XFreeValue(b.tls, b.ctx, v)
			ok = false
		}
	}
	if !ok {
		if b.failed {
			// An exception the builder caused is not the program's.
			lib.XFreeValue(b.tls, b.ctx, lib.XJS_GetException(b.tls, b.ctx))
		}
		return jsUndefined, false
	}
	return v, true
}

func (b *jsonBuilder) space() {
	for b.i < len(b.s) {
		switch b.s[b.i] {
		case ' ', '\t', '\n', '\r':
			b.i++
		default:
			return
		}
	}
}

// fail gives up on the value; exception reports whether the engine has an
// exception pending.
func (b *jsonBuilder) fail(exception bool) (lib.TJSValue, bool) {
	if exception {
		b.failed = true
	}
	return jsUndefined, false
}

// made counts a value and reports whether building may go on.
func (b *jsonBuilder) count() bool {
	b.made++
	return b.made%buildPollEvery != 0 || !b.r.interrupted()
}

func (b *jsonBuilder) value() (lib.TJSValue, bool) {
	if b.i >= len(b.s) || !b.count() {
		return b.fail(false)
	}
	switch c := b.s[b.i]; {
	case c == '{':
		return b.object()
	case c == '[':
		return b.array()
	case c == '"':
		str, ok := b.str()
		if !ok {
			return b.fail(false)
		}
		v := b.newString(str)
		if isException(v) {
			return b.fail(true)
		}
		return v, true
	case c == 't' && b.literal("true"):
		return jsBool(true), true
	case c == 'f' && b.literal("false"):
		return jsBool(false), true
	case c == 'n' && b.literal("null"):
		return jsNull, true
	case c == '-' || c >= '0' && c <= '9':
		return b.number()
	}
	return b.fail(false)
}

func (b *jsonBuilder) literal(word string) bool {
	if len(b.s)-b.i >= len(word) && b.s[b.i:b.i+len(word)] == word {
		b.i += len(word)
		return true
	}
	return false
}

func (b *jsonBuilder) object() (lib.TJSValue, bool) {
	if b.depth >= b.maxDepth {
		return b.fail(false)
	}
	b.depth++
	defer func() { b.depth-- }()
	obj := lib.XJS_NewObject(b.tls, b.ctx)
	if isException(obj) {
		return b.fail(true)
	}
	b.i++
	b.space()
	if b.i < len(b.s) && b.s[b.i] == '}' {
		b.i++
		return obj, true
	}
	for {
		if b.i >= len(b.s) || b.s[b.i] != '"' {
			break
		}
		key, ok := b.str()
		if !ok {
			break
		}
		atom, ok := b.atom(key)
		if !ok {
			lib.XFreeValue(b.tls, b.ctx, obj)
			return b.fail(true)
		}
		b.space()
		if b.i >= len(b.s) || b.s[b.i] != ':' {
			break
		}
		b.i++
		b.space()
		v, ok := b.value()
		if !ok {
			lib.XFreeValue(b.tls, b.ctx, obj)
			return jsUndefined, false
		}
		// JS_DefinePropertyValue takes over v, also when it fails.
		if lib.XJS_DefinePropertyValue(b.tls, b.ctx, obj, atom, v, lib.MJS_PROP_C_W_E) < 0 {
			lib.XFreeValue(b.tls, b.ctx, obj)
			return b.fail(true)
		}
		b.space()
		if b.i < len(b.s) && b.s[b.i] == ',' {
			b.i++
			b.space()
			continue
		}
		if b.i < len(b.s) && b.s[b.i] == '}' {
			b.i++
			return obj, true
		}
		break
	}
	lib.XFreeValue(b.tls, b.ctx, obj)
	return b.fail(false)
}

func (b *jsonBuilder) array() (lib.TJSValue, bool) {
	if b.depth >= b.maxDepth {
		return b.fail(false)
	}
	b.depth++
	defer func() { b.depth-- }()
	arr := lib.XJS_NewArray(b.tls, b.ctx)
	if isException(arr) {
		return b.fail(true)
	}
	b.i++
	b.space()
	if b.i < len(b.s) && b.s[b.i] == ']' {
		b.i++
		return arr, true
	}
	for idx := uint32(0); ; idx++ {
		v, ok := b.value()
		if !ok {
			lib.XFreeValue(b.tls, b.ctx, arr)
			return jsUndefined, false
		}
		if lib.XJS_DefinePropertyValueUint32(b.tls, b.ctx, arr, idx, v, lib.MJS_PROP_C_W_E) < 0 {
			lib.XFreeValue(b.tls, b.ctx, arr)
			return b.fail(true)
		}
		b.space()
		if b.i < len(b.s) && b.s[b.i] == ',' {
			b.i++
			b.space()
			continue
		}
		if b.i < len(b.s) && b.s[b.i] == ']' {
			b.i++
			return arr, true
		}
		break
	}
	lib.XFreeValue(b.tls, b.ctx, arr)
	return b.fail(false)
}

// str reads a string literal and returns its contents as UTF-8: a slice of
// the text when it has no escapes. It fails on anything JSON does not
// allow and on unpaired surrogates, which UTF-8 cannot hold.
func (b *jsonBuilder) str() (string, bool) {
	b.i++
	start := b.i
	for b.i < len(b.s) {
		c := b.s[b.i]
		switch {
		case c == '"':
			s := b.s[start:b.i]
			b.i++
			return s, true
		case c == '\\':
			return b.escaped(start)
		case c < 0x20:
			return "", false
		}
		b.i++
	}
	return "", false
}

// escaped reads the rest of a string literal that has escapes.
func (b *jsonBuilder) escaped(start int) (string, bool) {
	out := append(b.unescaped[:0], b.s[start:b.i]...)
	defer func() { b.unescaped = out[:0] }()
	for b.i < len(b.s) {
		c := b.s[b.i]
		switch {
		case c == '"':
			b.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			b.i++
			continue
		}
		if b.i+1 >= len(b.s) {
			return "", false
		}
		e := b.s[b.i+1]
		b.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := b.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || !b.literal(`\u`) {
					return "", false
				}
				r2, ok := b.hex4()
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (b *jsonBuilder) hex4() (rune, bool) {
	if len(b.s)-b.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(b.s[b.i : b.i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	b.i += 4
	return r, true
}

// number reads a number with the grammar of JSON and makes the value
// JSON.parse makes: an integer when the number is one that fits in 32 bits
// (and is not -0), else a double.
func (b *jsonBuilder) number() (lib.TJSValue, bool) {
	start := b.i
	if b.s[b.i] == '-' {
		b.i++
	}
	digits := func() int {
		n := 0
		for b.i < len(b.s) && b.s[b.i] >= '0' && b.s[b.i] <= '9' {
			b.i++
			n++
		}
		return n
	}
	intStart := b.i
	n := digits()
	if n == 0 || n > 1 && b.s[intStart] == '0' {
		return b.fail(false)
	}
	integer := true
	if b.i < len(b.s) && b.s[b.i] == '.' {
		b.i++
		if digits() == 0 {
			return b.fail(false)
		}
		integer = false
	}
	if b.i < len(b.s) && (b.s[b.i] == 'e' || b.s[b.i] == 'E') {
		b.i++
		if b.i < len(b.s) && (b.s[b.i] == '+' || b.s[b.i] == '-') {
			b.i++
		}
		if digits() == 0 {
			return b.fail(false)
		}
		integer = false
	}
	text := b.s[start:b.i]
	if integer && n <= 9 {
		v, _ := strconv.Atoi(text)
		if v != 0 || text[0] != '-' {
			return jsInt(int32(v)), true
		}
	}
	d, err := strconv.ParseFloat(text, 64)
	if ne, ok := err.(*strconv.NumError); err != nil && (!ok || ne.Err != strconv.ErrRange) {
		return b.fail(false)
	}
	return jsNumber(d), true
}

// atom returns the atom of key, made once per value built.
func (b *jsonBuilder) atom(key string) (lib.TJSAtom, bool) {
	if a, ok := b.atoms[key]; ok {
		return a, true
	}
	p, ok := b.cbytes(key)
	if !ok {
		return 0, false
	}
	a := lib.XJS_NewAtomLen(b.tls, b.ctx, p, lib.Tsize_t(len(key)))
	if a == lib.MJS_ATOM_NULL {
		return 0, false
	}
	b.atoms[key] = a
	return a, true
}

// newString makes a string of s.
func (b *jsonBuilder) newString(s string) lib.TJSValue {
	p, ok := b.cbytes(s)
	if !ok {
		return jsException
	}
	return lib.XJS_NewStringLen(b.tls, b.ctx, p, lib.Tsize_t(len(s)))
}

// cbytes copies s to the scratch memory and returns its address. On
// failure an exception is pending.
func (b *jsonBuilder) cbytes(s string) (uintptr, bool) {
	if len(s) > b.scratchCap {
		n := max(len(s), 2*b.scratchCap, 256)
		p := libc.Xrealloc(b.tls, b.scratch, libc.Tsize_t(n))
		if p == 0 {
			lib.XJS_ThrowOutOfMemory(b.tls, b.ctx)
			return 0, false
		}
		b.scratch, b.scratchCap = p, n
	}
	if len(s) == 0 {
		return cEmpty, true
	}
	copy(unsafe.Slice(cptr[byte](b.scratch), len(s)), s)
	return b.scratch, true
}
