package tsgen

import (
	"strconv"
	"strings"
)

// isIdentifier reports whether s can be written as a bare property name:
// an ASCII letter, _ or $ followed by ASCII letters, digits, _ or $.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '$':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// propertyKey writes a property or tool name as an object key: bare when it
// is an identifier, otherwise as a string literal.
func propertyKey(name string) string {
	if isIdentifier(name) {
		return name
	}
	return quote(name)
}

// propertyAccess writes the access to a property: .name or ["name"].
func propertyAccess(name string) string {
	if isIdentifier(name) {
		return "." + name
	}
	return "[" + quote(name) + "]"
}

// isJSSpace reports the characters JavaScript treats as white space or line
// terminators (the \s class and String.prototype.trim).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029,
		0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// commentText prepares text for a /** ... */ comment: a closing "*/" is
// broken up, runs of white space become one space, and the ends are trimmed.
func commentText(s string) string {
	s = strings.ReplaceAll(s, "*/", "* /")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if isJSSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// reservedNames cannot be bound by the example's destructuring: JavaScript
// reserved words, names strict code may not bind, and the globals the example
// itself reads while the new bindings are not yet initialised.
var reservedNames = map[string]bool{
	"await": true, "break": true, "case": true, "catch": true, "class": true,
	"const": true, "continue": true, "debugger": true, "default": true,
	"delete": true, "do": true, "else": true, "enum": true, "export": true,
	"extends": true, "false": true, "finally": true, "for": true,
	"function": true, "if": true, "implements": true, "import": true,
	"in": true, "instanceof": true, "interface": true, "let": true,
	"new": true, "null": true, "package": true, "private": true,
	"protected": true, "public": true, "return": true, "static": true,
	"super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true,
	"with": true, "yield": true, "arguments": true, "eval": true,
	"tools": true, "Promise": true,
}

// variableBase derives a variable name from a tool name: every character
// other than an ASCII letter, digit, _ or $ becomes _ (two for characters
// outside the Basic Multilingual Plane, one per UTF-16 unit), leading digits
// are dropped, and an empty result becomes "tool".
func variableBase(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		switch {
		case r < 0x80 && (isIdentifier(string(r)) || (r >= '0' && r <= '9')):
			if b.Len() == 0 && r >= '0' && r <= '9' {
				continue
			}
			b.WriteRune(r)
		case r >= 0x10000:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "tool"
	}
	return b.String()
}

// variableNames derives one distinct variable name per tool name. A name
// already taken, or one that cannot be bound, gets the smallest numeric
// suffix from 2 up that makes it free.
func variableNames(toolNames []string) []string {
	out := make([]string, len(toolNames))
	taken := make(map[string]bool, len(toolNames))
	for i, name := range toolNames {
		base := variableBase(name)
		v := base
		for n := 2; taken[v] || reservedNames[v]; n++ {
			v = base + strconv.Itoa(n)
		}
		taken[v] = true
		out[i] = v
	}
	return out
}
