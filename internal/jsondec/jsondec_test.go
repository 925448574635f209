package jsondec

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

type inner struct {
	N  int     `json:"n"`
	F  float32 `json:"f"`
	OK bool
}

type sample struct {
	City    string   `json:"city"`
	Days    int      `json:"days,omitempty"`
	Small   int8     `json:"small"`
	Count   uint16   `json:"count"`
	Ratio   float64  `json:"ratio"`
	Tags    []string `json:"tags"`
	Inner   inner    `json:"inner"`
	Ptr     *inner   `json:"ptr"`
	Name    *string  `json:"name"`
	Skipped string   `json:"-"`
	//lint:ignore SA5008 the decoder must read unusual tags like encoding/json
	Dash string `json:"-,"`
	//lint:ignore SA5008 the decoder must read unusual tags like encoding/json
	Bad     string `json:"a\"b"`
	Nums    []float64
	Nested  [][]int `json:"nested"`
	private string  //lint:ignore U1000 unexported fields are not decoded
}

type withTime struct {
	At time.Time `json:"at"`
}

type withString struct {
	N int `json:"n,string"`
}

type empty struct{}

// decodeBoth decodes data with the decoder and with encoding/json, and
// fails when they differ.
func decodeBoth[T any](t testing.TB, data string) {
	t.Helper()
	var want T
	wantErr := json.Unmarshal([]byte(data), &want)
	var got T
	gotErr := For(reflect.TypeFor[T]()).Decode(data, unsafe.Pointer(&got))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%q: error %v, encoding/json says %v", data, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: got %+v, encoding/json decodes %+v", data, got, want)
	}
}

var samples = []string{
	`{}`, ` { } `, `null`, `{"city":"Oslo"}`, `{"City":"Oslo"}`, `{"CITY":"x","city":"y"}`,
	`{"city":"O\"s\\lo\n\u00e9\ud83d\ude00\ud800x\u12"}`, `{"city":"\ud83d"}`, `{"city":"\ud83d\u0041"}`,
	`{"city":"é😀"}`, "{\"city\":\"\xff\"}", "{\"city\":\"a\tb\"}", `{"city":1}`, `{"city":null}`,
	`{"days":3,"small":-128,"count":65535,"ratio":1.5e3}`, `{"small":128}`, `{"count":-1}`, `{"days":1.0}`,
	`{"days":1e2}`, `{"days":01}`, `{"ratio":-0.0}`, `{"ratio":1e400}`, `{"days":9223372036854775808}`,
	`{"tags":["a","b"]}`, `{"tags":[]}`, `{"tags":null}`, `{"tags":[1]}`, `{"inner":{"n":1,"f":2.5,"OK":true}}`,
	`{"inner":{"ok":true}}`, `{"ptr":{"n":2}}`, `{"ptr":null}`, `{"name":"x"}`, `{"Skipped":"x","-":"dash"}`,
	`{"a\"b":"x","Bad":"y"}`, `{"Nums":[1,2.5,-3]}`, `{"nested":[[1,2],[],[3]]}`, `{"unknown":{"a":[1,{"b":null}],"c":"d"}}`,
	`{"city":"a","city":"b"}`, `{"private":"x"}`, `{"city":"a",}`, `{"city" "a"}`, `[1]`, `"s"`, `{"city":"a"} x`,
	`{"inner":{"n":1},"inner":{"f":1}}`, `{"days":true}`, `{"tags":"a"}`, `{"ſ":1}`, `{"K":1}`,
}

func TestAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range samples {
		decodeBoth[sample](t, s)
		decodeBoth[empty](t, s)
		decodeBoth[withTime](t, s)
		decodeBoth[withString](t, s)
		decodeBoth[[]sample](t, "["+s+"]")
	}
	decodeBoth[withTime](t, `{"at":"2026-01-02T03:04:05Z"}`)
	decodeBoth[withString](t, `{"n":"12"}`)
}

// The fast path covers the simple types and leaves the others to
// encoding/json.
func TestPlans(t *testing.T) {
	if For(reflect.TypeFor[sample]()).plan == nil {
		t.Error("sample has no fast plan")
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[withTime](), reflect.TypeFor[withString](),
		reflect.TypeFor[map[string]int](), reflect.TypeFor[any](), reflect.TypeFor[[]byte]()} {
		if For(typ).plan != nil {
			t.Errorf("%v has a fast plan", typ)
		}
	}
}

// A simple struct decodes without allocating beyond the value itself.
func TestDecodeAllocations(t *testing.T) {
	type in struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	d := For(reflect.TypeFor[in]())
	var v in
	n := testing.AllocsPerRun(100, func() {
		v = in{}
		if err := d.Decode(`{"city":"Paris","days":3}`, unsafe.Pointer(&v)); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per decode", n)
	}
}

func FuzzAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		decodeBoth[sample](t, data)
		decodeBoth[[]inner](t, data)
	})
}

// Nesting deeper than encoding/json allows is decided by encoding/json.
func TestDeepNesting(t *testing.T) {
	deep := `{"unknown":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	decodeBoth[sample](t, deep)
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	extra := []string{``, ` `, `1`, `-0`, `01`, `1.`, `.5`, `1e`, `1e+`, `-`, `"\u12G4"`, `"\x"`, "\"\xff\"", "\"a\x01\"",
		`[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `nul`, `true false`, `[` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `]`,
		`[` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `]`}
	for _, s := range append(samples, extra...) {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.60q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	for _, s := range prototypeSamples {
		f.Add(s.json)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
		checkValidKeys(t, s)
	})
}

// prototypeSamples are values with and without the strings ValidKeys
// looks for.
var prototypeSamples = []struct {
	json    string
	suspect bool
}{
	{`{"city":"Paris"}`, false},
	{`{"__proto__":{"x":1}}`, true},
	{`{"\u005f_proto__":{"x":1}}`, true},
	{`{"constructor":{"prototype":{}}}`, true},
	{`{"note":"constructor"}`, true},
	{`["__proto__x", "constructors", "a\nb"]`, false},
	{`{"a":"\u0041"}`, true},
}

// checkValidKeys checks ValidKeys against Valid and against the decoded
// value: a value whose decoded strings include "__proto__" or
// "constructor" must be suspect.
func checkValidKeys(t *testing.T, s string) {
	t.Helper()
	ok, suspect := ValidKeys([]byte(s))
	if ok != Valid([]byte(s)) {
		t.Fatalf("ValidKeys(%q) ok = %v, Valid disagrees", s, ok)
	}
	if !ok {
		return
	}
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("ValidKeys(%q) ok, but %v", s, err)
	}
	if hasPrototypeString(v) && !suspect {
		t.Fatalf("ValidKeys(%q) is not suspect", s)
	}
}

func hasPrototypeString(v any) bool {
	switch v := v.(type) {
	case string:
		return v == "__proto__" || v == "constructor"
	case map[string]any:
		for k, x := range v {
			if hasPrototypeString(k) || hasPrototypeString(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasPrototypeString(x) {
				return true
			}
		}
	}
	return false
}

func TestValidKeys(t *testing.T) {
	for _, c := range prototypeSamples {
		ok, suspect := ValidKeys([]byte(c.json))
		if !ok || suspect != c.suspect {
			t.Errorf("ValidKeys(%s) = %v, %v; want true, %v", c.json, ok, suspect, c.suspect)
		}
		checkValidKeys(t, c.json)
	}
	for _, s := range samples {
		checkValidKeys(t, s)
	}
}

func TestCompactAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range append(samples, ` {"a" : [1, 2]} `, "[\n1]", `"a b"`) {
		got, ok := Compact([]byte(s))
		var want bytes.Buffer
		err := json.Compact(&want, []byte(s))
		if ok != (err == nil) || ok && string(got) != want.String() {
			t.Errorf("Compact(%q) = %q, %v; encoding/json: %q, %v", s, got, ok, want.String(), err)
		}
	}
}
