package provider

// Header holds HTTP header fields: the extra request headers of a call and
// the headers of a response. It has the semantics of net/http's Header (keys
// in canonical form, Get and Values case-insensitive) without making the
// contract depend on net/http; convert with Header(h) and http.Header(h).
type Header map[string][]string

// Get returns the first value of key, or "".
func (h Header) Get(key string) string {
	if v := h[CanonicalHeaderKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Values returns all values of key.
func (h Header) Values(key string) []string { return h[CanonicalHeaderKey(key)] }

// Set replaces the values of key with value.
func (h Header) Set(key, value string) { h[CanonicalHeaderKey(key)] = []string{value} }

// Add appends value to the values of key.
func (h Header) Add(key, value string) {
	key = CanonicalHeaderKey(key)
	h[key] = append(h[key], value)
}

// Clone returns a copy of h, or nil when h is nil.
func (h Header) Clone() Header {
	if h == nil {
		return nil
	}
	c := make(Header, len(h))
	for k, v := range h {
		c[k] = append([]string(nil), v...)
	}
	return c
}

// CanonicalHeaderKey returns the canonical form of a header key, as
// net/http writes it: the first letter and every letter after a hyphen in
// upper case, the rest in lower case. Keys with characters that are not
// valid in a header name are returned unchanged.
func CanonicalHeaderKey(s string) string {
	upper := true
	ok := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !validHeaderKeyByte(c) {
			return s
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			ok = false
		}
		upper = c == '-'
	}
	if ok {
		return s
	}
	b := []byte(s)
	upper = true
	for i, c := range b {
		if upper && 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
		upper = c == '-'
	}
	return string(b)
}

func validHeaderKeyByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
