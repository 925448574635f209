package rawjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

var corpus = []string{
	``, ` `, `null`, ` null `, `nul`, `true`, `false`, `0`, `-0`, `01`, `1.`, `1.5e+3`, `1E9`, `-`, `+1`,
	`""`, `"a b"`, `"\u0041"`, `"\ud800"`, `"\ud800\udc00"`, `"\x"`, `"\u12"`, "\"\xff\xfe\"", "\"a\tb\"", "\"\x01\"",
	`[]`, `[ ]`, `[1,]`, `[1 , 2]`, `{}`, `{ "a" : 1 , "a" : 2 }`, `{"a":}`, `{"a" 1}`, `{1:2}`,
	`[1] [2]`, `[1]x`, "\n{\"a\":[1,{\"b\":\"c d\"}]}\n", `{"a":[1,2,{"b":null}]`, `[[[[[[]]]]]]`,
	"\ufeff{}", `"\/"`, `"\b\f\n\r\t\\\""`,
}

func FuzzMatchesEncodingJSON(f *testing.F) {
	for _, s := range corpus {
		f.Add([]byte(s))
	}
	f.Add(bytes.Repeat([]byte("["), 10001))
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		out, ok := Compact(data)
		var want bytes.Buffer
		err := json.Compact(&want, data)
		if ok != (err == nil) {
			t.Fatalf("Compact(%q) ok = %v, encoding/json's error %v", data, ok, err)
		}
		if ok && !bytes.Equal(out, want.Bytes()) {
			t.Fatalf("Compact(%q) = %q, encoding/json gives %q", data, out, want.Bytes())
		}
		if !bytes.Equal(data, orig) {
			t.Fatalf("Compact modified its input %q to %q", orig, data)
		}
	})
}

func TestCompactReturnsCompactInputItself(t *testing.T) {
	data := []byte(`{"a":["b c",1]}`)
	out, ok := Compact(data)
	if !ok || &out[0] != &data[0] {
		t.Fatalf("Compact(%q) = %q, %v; want the input itself", data, out, ok)
	}
}
