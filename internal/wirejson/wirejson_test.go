package wirejson

import (
	"encoding/json"
	"testing"
)

func TestOrNull(t *testing.T) {
	for _, tc := range []struct {
		in   json.RawMessage
		want string
	}{
		{nil, "null"},
		{json.RawMessage{}, "null"},
		{json.RawMessage(`{"a":1}`), `{"a":1}`},
		{json.RawMessage(`""`), `""`},
	} {
		b, err := json.Marshal(struct {
			V json.RawMessage `json:"v"`
		}{OrNull(tc.in)})
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"v":` + tc.want + `}`; string(b) != want {
			t.Errorf("OrNull(%q) writes %s, want %s", tc.in, b, want)
		}
	}
}

// A null kept by one caller is not changed by another.
func TestOrNullFresh(t *testing.T) {
	a := OrNull(nil)
	a[0] = 'x'
	if b := OrNull(nil); string(b) != "null" {
		t.Fatalf("OrNull(nil) = %s after another caller changed its null", b)
	}
}

func TestNonNil(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, "[]"},
		{[]int{}, "[]"},
		{[]int{1, 2}, "[1,2]"},
	} {
		b, err := json.Marshal(NonNil(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("NonNil(%v) writes %s, want %s", tc.in, b, tc.want)
		}
	}
}
