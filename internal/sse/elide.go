package sse

import "bytes"

// elider copies JSON text while leaving out string values longer than
// maxString: such a value becomes "" and the key it belongs to is recorded.
// It tracks just enough of the JSON structure to tell keys from values, and
// works on text that arrives in pieces. Text that is not JSON comes out
// mangled but bounded.
type elider struct {
	maxString int
	out       bytes.Buffer
	keys      []string

	// stack holds the open containers, '{' or '['.
	stack []byte
	// expectKey is set where the next string of an object is a key.
	expectKey bool
	// lastKey is the most recent object key.
	lastKey string

	inString bool
	escaped  bool
	isKey    bool
	// str holds the current string, quotes included, while it is short.
	str bytes.Buffer
	// dropped is set once the current string is too long to keep.
	dropped bool
}

func (e *elider) write(p []byte) {
	for len(p) > 0 {
		if e.inString {
			n := e.scanString(p)
			p = p[n:]
			continue
		}
		c := p[0]
		p = p[1:]
		switch c {
		case '"':
			e.inString, e.escaped, e.dropped = true, false, false
			e.isKey = e.expectKey && len(e.stack) > 0 && e.stack[len(e.stack)-1] == '{'
			e.str.Reset()
			e.str.WriteByte('"')
			continue
		case '{':
			e.stack = append(e.stack, '{')
			e.expectKey = true
		case '[':
			e.stack = append(e.stack, '[')
			e.expectKey = false
		case '}', ']':
			if len(e.stack) > 0 {
				e.stack = e.stack[:len(e.stack)-1]
			}
			e.expectKey = false
		case ',':
			e.expectKey = len(e.stack) > 0 && e.stack[len(e.stack)-1] == '{'
		case ':':
			e.expectKey = false
		}
		e.out.WriteByte(c)
	}
}

// scanString consumes string bytes up to and including the closing quote
// and returns how many it consumed. It searches for quotes with
// bytes.IndexByte, so that long strings are skipped quickly.
func (e *elider) scanString(p []byte) int {
	start := 0
	if e.escaped {
		if len(p) == 0 {
			return 0
		}
		// The previous piece ended with a backslash: p[0] is escaped.
		e.escaped = false
		start = 1
	}
	for {
		j := bytes.IndexByte(p[start:], '"')
		if j < 0 {
			e.escaped = oddBackslashes(p[start:])
			e.keep(p)
			return len(p)
		}
		q := start + j
		if oddBackslashes(p[start:q]) {
			start = q + 1
			continue
		}
		e.keep(p[:q+1])
		e.endString()
		return q + 1
	}
}

// oddBackslashes reports whether b ends with an odd number of backslashes,
// which escape the byte that follows.
func oddBackslashes(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// keep adds string bytes, giving up on the string once it is too long.
func (e *elider) keep(p []byte) {
	if e.dropped {
		return
	}
	if e.str.Len()+len(p) > e.maxString+2 {
		e.dropped = true
		e.str.Reset()
		return
	}
	e.str.Write(p)
}

func (e *elider) endString() {
	e.inString = false
	if e.dropped {
		e.out.WriteString(`""`)
		key := e.lastKey
		if e.isKey {
			key = ""
		}
		e.keys = append(e.keys, key)
	} else {
		e.out.Write(e.str.Bytes())
		if e.isKey {
			e.lastKey = unquote(e.str.Bytes())
		}
	}
	e.str.Reset()
	e.expectKey = false
}

// flush ends the text: a string still open is closed.
func (e *elider) flush() {
	if !e.inString {
		return
	}
	if !e.dropped {
		e.out.Write(e.str.Bytes())
		e.str.Reset()
		e.inString = false
		return
	}
	e.endString()
}

// unquote returns the text of a short JSON string literal without its
// quotes; escapes are kept as they are, which is enough for the key names
// this is used for.
func unquote(b []byte) string {
	if len(b) >= 2 {
		b = b[1 : len(b)-1]
	}
	return string(b)
}
