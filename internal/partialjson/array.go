package partialjson

import (
	"unicode/utf8"
)

// Verdict is what an [ArrayScanner]'s check says of one element.
type Verdict int

const (
	// NotJSON means the element text is not JSON: the scanner gives up.
	NotJSON Verdict = iota
	// Rejected means the element is JSON but not a valid element: it is
	// skipped.
	Rejected
	// Accepted means the element is kept.
	Accepted
)

// ArrayScanner picks the elements out of a streamed object of the form
// {"elements":[...]}, checking each one once, when the next one starts or
// the object closes (the last element stays pending until then, as in the
// reference). It reads only the new text of each write. When the text
// takes another form it reports a fallback, and the caller parses the
// whole text instead.
type ArrayScanner struct {
	// Check decides on each element's JSON text.
	Check func(elem []byte) Verdict

	phase      int // 0 before '[', 1 in the array, 2 after ']', 3 after '}'
	prefix     []byte
	prefixLen  int    // in UTF-16 units, as the reference counts
	buf        []byte // the text read in the array
	elemStart  int    // start of the current element in buf, or -1
	depth      int
	inString   bool
	escaped    bool
	afterComma bool
	pending    []byte
	hasPending bool
	elements   [][]byte
	published  int // -1 until the first publication
	started    bool
}

// Elements returns the elements published so far. The slice and its
// elements must not be modified; later writes do not change them.
func (a *ArrayScanner) Elements() [][]byte { return a.elements[:len(a.elements):len(a.elements)] }

// Write reads a piece of text. publish reports that the list of elements
// grew (or appeared, when the array opened); fallback that the text is not
// of the form the scanner reads, after which the scanner must not be used.
func (a *ArrayScanner) Write(delta string) (publish, fallback bool) {
	if !a.started {
		a.started, a.published, a.elemStart = true, -1, -1
	}
	for k := 0; k < len(delta); {
		r, n := rune(delta[k]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(delta[k:])
		}
		chunk := delta[k : k+n]
		k += n
		switch a.phase {
		case 0:
			a.prefix = append(a.prefix, chunk...)
			a.prefixLen += utf16Len(r)
			if r == '[' {
				if !elementsPrefix(a.prefix) {
					return false, true
				}
				a.phase = 1
			} else if a.prefixLen > 256 {
				return false, true
			}
			continue
		case 2, 3:
			if jsSpace(r) {
				continue
			}
			if a.phase == 2 && r == '}' {
				a.publishPending()
				a.phase = 3
				continue
			}
			return false, true
		}
		if !a.inString && a.depth == 0 && (r == ',' || r == ']') {
			if a.elemStart >= 0 {
				if !a.finishElement() {
					return false, true
				}
			} else if r == ',' || a.afterComma {
				return false, true
			}
			a.afterComma = r == ','
			if r == ']' {
				a.phase = 2
			}
			continue
		}
		if a.elemStart < 0 {
			if jsSpace(r) {
				continue
			}
			a.publishPending()
			a.afterComma = false
			a.elemStart = len(a.buf)
		}
		a.buf = append(a.buf, chunk...)
		switch {
		case a.inString:
			if a.escaped {
				a.escaped = false
			} else if r == '\\' {
				a.escaped = true
			} else if r == '"' {
				a.inString = false
			}
		case r == '"':
			a.inString = true
		case r == '{' || r == '[':
			a.depth++
		case r == '}' || r == ']':
			a.depth--
		}
	}
	if a.phase == 0 || a.published == len(a.elements) {
		return false, false
	}
	a.published = len(a.elements)
	return true, false
}

func (a *ArrayScanner) finishElement() bool {
	n := len(a.buf)
	elem := a.buf[a.elemStart:n:n]
	switch a.Check(elem) {
	case NotJSON:
		return false
	case Accepted:
		a.pending, a.hasPending = elem, true
	}
	a.elemStart = -1
	return true
}

func (a *ArrayScanner) publishPending() {
	if a.hasPending {
		a.elements = append(a.elements, a.pending)
		a.pending, a.hasPending = nil, false
	}
}

// elementsPrefix reports whether p is `{"elements":[` with any
// whitespace between the tokens (and before the brace).
func elementsPrefix(p []byte) bool {
	s := string(p)
	next := func(want string) bool {
		for len(s) > 0 {
			r, n := utf8.DecodeRuneInString(s)
			if !jsSpace(r) {
				break
			}
			s = s[n:]
		}
		if len(s) < len(want) || s[:len(want)] != want {
			return false
		}
		s = s[len(want):]
		return true
	}
	return next("{") && next(`"elements"`) && next(":") && next("[") && s == ""
}

// jsSpace reports whether r is white space to JavaScript's \s.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
