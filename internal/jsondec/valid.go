package jsondec

import (
	"bytes"
	"encoding/json"
)

// Valid reports whether data is one JSON value (with surrounding white
// space), exactly as encoding/json's Valid does, without allocating.
func Valid(data []byte) bool {
	ok, _ := check(data)
	return ok
}

// ValidKeys reports, like Valid, whether data is one JSON value, and
// whether one of its strings is "__proto__" or "constructor" or has a \u
// escape (which could spell either): only then can the value hold a key
// that a JavaScript consumer would take as a prototype change.
func ValidKeys(data []byte) (ok, suspect bool) {
	v := validator{data: data}
	v.ws()
	if !v.value() {
		return false, false
	}
	v.ws()
	return v.pos == len(v.data), v.suspect
}

// Compact returns data without insignificant white space, as
// encoding/json's Compact writes it, or ok false when data is not JSON.
// Data that has no such space is returned as it is.
func Compact(data []byte) (out []byte, ok bool) {
	ok, spaced := check(data)
	if !ok || !spaced {
		return data, ok
	}
	var b bytes.Buffer
	b.Grow(len(data))
	if json.Compact(&b, data) != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// check validates data and reports whether it holds white space outside
// strings.
func check(data []byte) (ok, spaced bool) {
	v := validator{data: data}
	v.ws()
	if !v.value() {
		return false, false
	}
	v.ws()
	return v.pos == len(v.data), v.spaced
}

type validator struct {
	data    []byte
	pos     int
	depth   int
	spaced  bool // white space was skipped
	suspect bool // see ValidKeys
}

func (v *validator) ws() {
	for v.pos < len(v.data) {
		switch v.data[v.pos] {
		case ' ', '\t', '\n', '\r':
			v.pos++
			v.spaced = true
		default:
			return
		}
	}
}

func (v *validator) value() bool {
	if v.pos >= len(v.data) {
		return false
	}
	switch c := v.data[v.pos]; c {
	case '{', '[':
		v.depth++
		if v.depth > maxDepth {
			return false
		}
		ok := v.composite(c)
		v.depth--
		return ok
	case '"':
		return v.string()
	case 't':
		return v.word("true")
	case 'f':
		return v.word("false")
	case 'n':
		return v.word("null")
	default:
		return v.number()
	}
}

func (v *validator) word(w string) bool {
	if len(v.data)-v.pos < len(w) || string(v.data[v.pos:v.pos+len(w)]) != w {
		return false
	}
	v.pos += len(w)
	return true
}

func (v *validator) composite(open byte) bool {
	closing := byte('}')
	if open == '[' {
		closing = ']'
	}
	v.pos++
	v.ws()
	if v.pos < len(v.data) && v.data[v.pos] == closing {
		v.pos++
		return true
	}
	for {
		v.ws()
		if open == '{' {
			if v.pos >= len(v.data) || v.data[v.pos] != '"' || !v.string() {
				return false
			}
			v.ws()
			if v.pos >= len(v.data) || v.data[v.pos] != ':' {
				return false
			}
			v.pos++
			v.ws()
		}
		if !v.value() {
			return false
		}
		v.ws()
		if v.pos >= len(v.data) {
			return false
		}
		switch v.data[v.pos] {
		case ',':
			v.pos++
		case closing:
			v.pos++
			return true
		default:
			return false
		}
	}
}

// string passes over a string literal. Like encoding/json's scanner it
// checks escapes and control characters, not UTF-8.
func (v *validator) string() bool {
	v.pos++
	start := v.pos
	for v.pos < len(v.data) {
		c := v.data[v.pos]
		switch {
		case c == '"':
			if s := v.data[start:v.pos]; len(s) == 9 && string(s) == "__proto__" || len(s) == 11 && string(s) == "constructor" {
				v.suspect = true
			}
			v.pos++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if v.pos+1 >= len(v.data) {
				return false
			}
			switch v.data[v.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.pos += 2
			case 'u':
				if v.pos+6 > len(v.data) {
					return false
				}
				v.suspect = true
				for _, h := range v.data[v.pos+2 : v.pos+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				v.pos += 6
			default:
				return false
			}
		default:
			v.pos++
		}
	}
	return false
}

func (v *validator) number() bool {
	if v.pos < len(v.data) && v.data[v.pos] == '-' {
		v.pos++
	}
	if v.pos >= len(v.data) {
		return false
	}
	switch c := v.data[v.pos]; {
	case c == '0':
		v.pos++
	case '1' <= c && c <= '9':
		for v.pos < len(v.data) && '0' <= v.data[v.pos] && v.data[v.pos] <= '9' {
			v.pos++
		}
	default:
		return false
	}
	if v.pos < len(v.data) && v.data[v.pos] == '.' {
		v.pos++
		start := v.pos
		for v.pos < len(v.data) && '0' <= v.data[v.pos] && v.data[v.pos] <= '9' {
			v.pos++
		}
		if v.pos == start {
			return false
		}
	}
	if v.pos < len(v.data) && (v.data[v.pos] == 'e' || v.data[v.pos] == 'E') {
		v.pos++
		if v.pos < len(v.data) && (v.data[v.pos] == '+' || v.data[v.pos] == '-') {
			v.pos++
		}
		start := v.pos
		for v.pos < len(v.data) && '0' <= v.data[v.pos] && v.data[v.pos] <= '9' {
			v.pos++
		}
		if v.pos == start {
			return false
		}
	}
	return true
}
