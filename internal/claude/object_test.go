package claude

import (
	"encoding/json"
	"testing"
)

// An object writes its keys in the order they were first set, a replaced
// key in its old place, and forgets removed keys.
func TestObjectOrder(t *testing.T) {
	o := &Object{}
	o.Set("z", 1)
	o.Set("a", "<b>")
	o.Set("m", nil)
	o.Set("z", 2)
	o.Remove("m")
	o.Remove("absent")
	got, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":2,"a":"\u003cb\u003e"}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if v, ok := o.Get("a"); !ok || v != "<b>" {
		t.Fatalf("Get(a) = %v, %v", v, ok)
	}
	if _, ok := o.Get("m"); ok {
		t.Fatal("a removed key is still there")
	}
}

// A decoded object keeps its key order and raw values; anything but an
// object is refused.
func TestDecodeObject(t *testing.T) {
	o, ok := DecodeObject([]byte(` {"b": "x", "a": [1, 2], "n": 3} `))
	if !ok {
		t.Fatal("object refused")
	}
	if o.Str("b") != "x" || o.Str("a") != "" || o.Str("missing") != "" {
		t.Fatalf("Str: %q %q", o.Str("b"), o.Str("a"))
	}
	got, _ := json.Marshal(o)
	if want := `{"b":"x","a":[1,2],"n":3}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	for _, in := range []string{`[1]`, `"s"`, `{"a":}`, `{"a":1`, ``} {
		if _, ok := DecodeObject([]byte(in)); ok {
			t.Errorf("%q accepted", in)
		}
	}
}
