// Package wirejson holds the small rules the JSON forms of packages ai and
// provider share: an absent JSON value is written as null, a nil list as [].
package wirejson

import "encoding/json"

// OrNull returns v, or the JSON null when v is empty, so that a field which
// must be present is never written as invalid JSON. Each null it returns is
// a new slice, so a caller may keep it in a value it hands out.
func OrNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return v
}

// NonNil returns s, or an empty list when s is nil, so that a list which
// must be present is written as [] rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
