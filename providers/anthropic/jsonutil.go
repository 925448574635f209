package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/aisdkgo/ai/internal/claude"
)

// object is a JSON object that keeps its keys in insertion order, so request
// bodies come out in a stable, readable order.
type object = claude.Object

// compactJSON returns raw without insignificant whitespace, or raw unchanged
// when it is not valid JSON.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// isJSONObject reports whether raw holds a JSON object.
func isJSONObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

// isEmptyObject reports whether raw is absent, null or an object without
// keys.
func isEmptyObject(raw json.RawMessage) bool {
	if len(bytes.TrimSpace(raw)) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
	}
	return len(m) == 0
}

// toAny decodes raw into plain Go values (maps, slices, strings, float64,
// bools). It returns nil for absent or invalid JSON.
func toAny(raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	return v
}

// decodeInto converts a loosely typed value (for example a provider options
// map) into v through JSON. It reports whether the conversion worked.
func decodeInto(src any, v any) bool {
	if src == nil {
		return false
	}
	b, err := json.Marshal(src)
	if err != nil {
		return false
	}
	return json.Unmarshal(b, v) == nil
}
