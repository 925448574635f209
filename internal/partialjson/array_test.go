package partialjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func checkJSON(elem []byte) Verdict {
	var v any
	if json.Unmarshal(elem, &v) != nil {
		return NotJSON
	}
	if _, ok := v.(float64); !ok {
		return Rejected
	}
	return Accepted
}

func TestArrayScanner(t *testing.T) {
	type step struct {
		piece    string
		publish  bool
		fallback bool
		elements string
	}
	cases := map[string][]step{
		"elements as they end": {
			{`{"elem`, false, false, ``},
			{`ents": [`, true, false, ``},
			{`1, 2`, true, false, `1`},
			{`, `, false, false, `1`},
			{`3`, true, false, `1,2`},
			{`]`, false, false, `1,2`},
			{` }`, true, false, `1,2,3`},
			{` `, false, false, `1,2,3`},
		},
		"invalid elements are skipped": {
			{`{"elements":["a", 1, {"b":[2]}, 3]}`, true, false, `1,3`},
		},
		"another form falls back": {
			{`{"other":[`, false, true, ``},
		},
		"text after the object falls back": {
			{`{"elements":[1]}`, true, false, `1`},
			{`x`, false, true, `1`},
		},
		"an element that is not JSON falls back": {
			{`{"elements":[1, tru,`, false, true, ``},
		},
		"an empty element falls back": {
			{`{"elements":[1,,`, false, true, ``},
		},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			a := ArrayScanner{Check: checkJSON}
			for _, s := range steps {
				publish, fallback := a.Write(s.piece)
				if publish != s.publish || fallback != s.fallback {
					t.Fatalf("Write(%q) = %v, %v; want %v, %v", s.piece, publish, fallback, s.publish, s.fallback)
				}
				if fallback {
					return
				}
				var got []string
				for _, e := range a.Elements() {
					got = append(got, string(e))
				}
				if g := strings.Join(got, ","); g != s.elements {
					t.Fatalf("after %q: elements %q, want %q", s.piece, g, s.elements)
				}
			}
		})
	}
}
