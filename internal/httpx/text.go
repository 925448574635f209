package httpx

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Text is a JSON string in a response that may be large, such as the text
// of an answer. Decoding it makes one copy of its bytes, where decoding
// into a string makes two when the string holds escapes (the unescaped
// bytes, then the string made of them). A null leaves it unchanged, as it
// leaves a string.
type Text string

// UnmarshalJSON implements json.Unmarshaler.
func (t *Text) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		// Not a string: let encoding/json say so in its own words.
		var s string
		err := json.Unmarshal(data, &s)
		if err == nil {
			*t = Text(s)
		}
		return err
	}
	inner := data[1 : len(data)-1]
	if !utf8.Valid(inner) {
		// encoding/json replaces invalid bytes; leave that to it.
		var s string
		err := json.Unmarshal(data, &s)
		if err == nil {
			*t = Text(s)
		}
		return err
	}
	var b strings.Builder
	b.Grow(len(inner))
	for len(inner) > 0 {
		i := 0
		for i < len(inner) && inner[i] != '\\' {
			i++
		}
		b.Write(inner[:i])
		inner = inner[i:]
		if len(inner) == 0 {
			break
		}
		// The data was checked by encoding/json before it reached here, so
		// every escape is complete; the checks below only keep a bad one
		// from panicking.
		if len(inner) < 2 {
			return &json.SyntaxError{}
		}
		switch c := inner[1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(inner[2:])
			if !ok {
				return &json.SyntaxError{}
			}
			inner = inner[6:]
			if utf16.IsSurrogate(r) {
				if r2, ok := lowSurrogate(inner); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b.WriteRune(dec)
						inner = inner[6:]
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			return &json.SyntaxError{}
		}
		inner = inner[2:]
	}
	*t = Text(b.String())
	return nil
}

// lowSurrogate reads a \uXXXX escape at the start of s.
func lowSurrogate(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	return hex4(s[2:])
}

// hex4 reads four hex digits.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
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
		r = r<<4 | rune(c)
	}
	return r, true
}
