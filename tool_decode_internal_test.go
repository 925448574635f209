package ai

import (
	"encoding/json"
	"testing"
	"time"
)

// Typed tool input keeps encoding/json's semantics, and its error messages
// for top-level fields, whatever decoder reads it. (Inside arrays the path
// is spelled more precisely: "in.tags.0" where encoding/json says "Go
// struct field in.tags".)
func TestTypedInputDecodesAsEncodingJSON(t *testing.T) {
	type in struct {
		City string          `json:"city"`
		Days int             `json:"days"`
		Tags []string        `json:"tags,omitempty"`
		Raw  json.RawMessage `json:"raw,omitempty"`
		When time.Time       `json:"when,omitzero"`
	}
	dec := decoderFor[in]()
	for _, text := range []string{
		`{"city":"Paris","days":3}`,
		`{"CITY":"Paris","Days":3}`,              // names match case-insensitively
		`{"city":"Paris","city":"Lyon"}`,         // the last duplicate wins
		`{"city":"Paris","days":3,"extra":true}`, // unknown names are ignored
		`{"city":"Paris","days":"3"}`,
		`{"city":"Paris","days":3.5}`,
		`{"tags":[1]}`,
		`{"city":"\ud800"}`,
		`{"raw":{"a":[1, 2]},"when":"2026-12-05T10:00:00Z"}`, // methods of the field types
		`{"when":"yesterday"}`,
	} {
		want := new(in)
		wantErr := json.Unmarshal([]byte(text), want)
		got, err := dec([]byte(text))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: error %v, encoding/json says %v", text, err, wantErr)
		}
		if err != nil {
			if text != `{"tags":[1]}` && err.Error() != wantErr.Error() {
				t.Errorf("%s: error %q, encoding/json says %q", text, err, wantErr)
			}
			continue
		}
		if g := *got.(*in); g.City != want.City || g.Days != want.Days || len(g.Tags) != len(want.Tags) ||
			string(g.Raw) != string(want.Raw) || !g.When.Equal(want.When) {
			t.Errorf("%s: decoded %+v, encoding/json %+v", text, g, *want)
		}
	}
}
