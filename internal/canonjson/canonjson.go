// Package canonjson writes JSON text in the canonical form that the
// TypeScript AI SDK hashes: the value as JavaScript's JSON.parse would read
// it, written back by JSON.stringify with the keys of every object sorted by
// their UTF-16 code units.
//
// The form matters wherever Go and TypeScript must agree on a digest of the
// same value (signed tool approvals): numbers are written as JavaScript
// writes doubles ("1.0" becomes "1", "1e21" becomes "1e+21"), strings escape
// only what JSON.stringify escapes, and a key repeated in one object keeps
// its last value.
package canonjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of the values Append accepts.
const MaxDepth = 10000

// ErrInvalid reports text that is not a single JSON value.
var ErrInvalid = errors.New("canonjson: invalid JSON")

// Append appends the canonical form of the JSON value in data to dst.
func Append(dst, data []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := decode(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, fmt.Errorf("%w: text after the value", ErrInvalid)
	}
	return appendValue(dst, v), nil
}

// AppendString appends s as JSON.stringify writes a string.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			// Not UTF-8: JavaScript would hold a lone surrogate or the
			// replacement character; Go strings from JSON are valid UTF-8,
			// so write the replacement character as TextEncoder would.
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// AppendNumber appends the double nearest to the decimal text num as
// JavaScript's Number.prototype.toString writes it.
func AppendNumber(dst []byte, num string) ([]byte, error) {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%w: number %q", ErrInvalid, num)
	}
	return AppendFloat(dst, f), nil
}

// AppendFloat appends f as JavaScript writes a number in JSON: NaN and
// infinities as null, shortest round-trip digits, fixed notation from 1e-7
// up to 1e21 and exponent notation outside.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0') // -0 too
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest digits d1..dk with value 0.d1..dk * 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	n := x + 1
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

type member struct {
	key string
	val any
}

// object keeps members in the order they were read; a repeated key
// replaces the earlier value, as JSON.parse does.
type object []member

func decode(d *json.Decoder, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested more than %d levels", ErrInvalid, MaxDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var o object
			idx := map[string]int{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
				}
				k, _ := kt.(string)
				v, err := decode(d, depth+1)
				if err != nil {
					return nil, err
				}
				if i, ok := idx[k]; ok {
					o[i].val = v
					continue
				}
				idx[k] = len(o)
				o = append(o, member{k, v})
			}
			if _, err := d.Token(); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
			}
			return o, nil
		case '[':
			a := []any{}
			for d.More() {
				v, err := decode(d, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
			}
			return a, nil
		}
		return nil, fmt.Errorf("%w: unexpected %v", ErrInvalid, t)
	default:
		return t, nil // nil, bool, json.Number, string
	}
}

func appendValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, v)
	case json.Number:
		out, err := AppendNumber(dst, string(v))
		if err != nil {
			return append(dst, "null"...) // the decoder only yields valid numbers
		}
		return out
	case string:
		return AppendString(dst, v)
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e)
		}
		return append(dst, ']')
	case object:
		slices.SortFunc(v, func(a, b member) int { return compareUTF16(a.key, b.key) })
		dst = append(dst, '{')
		for i, m := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.key)
			dst = append(dst, ':')
			dst = appendValue(dst, m.val)
		}
		return append(dst, '}')
	}
	return dst
}

// compareUTF16 orders strings by their UTF-16 code units, as JavaScript's
// default sort does. It differs from byte order only where a character
// above U+FFFF meets one from U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := units(ra), units(rb)
			for i := range 2 {
				if ua[i] != ub[i] {
					return int(ua[i]) - int(ub[i])
				}
			}
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// units returns the UTF-16 code units of r; the second is 0 for a
// character of the basic plane.
func units(r rune) [2]uint16 {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return [2]uint16{uint16(hi), uint16(lo)}
	}
	return [2]uint16{uint16(r), 0}
}

// Digest returns the unpadded base64url SHA-256 of the canonical form of
// the JSON value in data; text that is not JSON is digested as a JSON
// string holding it, and empty text as nothing at all (JavaScript's
// undefined).
func Digest(data []byte) string {
	var canon []byte
	if len(data) > 0 {
		var err error
		if canon, err = Append(nil, data); err != nil {
			canon = AppendString(nil, string(data))
		}
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Equal reports whether a and b hold the same JSON value, compared in
// canonical form (key order and number spelling do not matter). Text that
// is not JSON equals nothing.
func Equal(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return json.Valid(a)
	}
	ca, err1 := Append(nil, a)
	cb, err2 := Append(nil, b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}
