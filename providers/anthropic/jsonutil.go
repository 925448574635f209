package anthropic

import (
	"bytes"
	"encoding/json"
)

// object is a JSON object that keeps its keys in insertion order, so request
// bodies come out in a stable, readable order.
type object struct {
	keys   []string
	values map[string]any
}

// set adds or replaces key; a replaced key keeps its position.
func (o *object) set(key string, v any) {
	if o.values == nil {
		o.values = map[string]any{}
	}
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

// get returns the value of key.
func (o *object) get(key string) (any, bool) {
	v, ok := o.values[key]
	return v, ok
}

// MarshalJSON writes the keys in insertion order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.values[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

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

// mustJSON marshals v, which is known to be marshallable.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
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

// remove deletes key.
func (o *object) remove(key string) {
	if _, ok := o.values[key]; !ok {
		return
	}
	delete(o.values, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// decodeObject decodes a JSON object keeping the order of its keys. Values
// stay raw JSON. ok is false when raw is not an object.
func decodeObject(raw []byte) (*object, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	o := &object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := tok.(string)
		if !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		o.set(key, v)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return o, true
}

// str returns the string value of key, or "" when it is absent or not a
// string.
func (o *object) str(key string) string {
	switch v := o.values[key].(type) {
	case string:
		return v
	case json.RawMessage:
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return ""
}
