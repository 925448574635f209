package jsonvalid

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// fuzzSeeds are JSON texts that exercise the spellings where a byte-level
// checker and a decoder may part ways.
var fuzzSeeds = []string{
	// Numbers.
	`1.0`, `1e2`, `1E+2`, `-0`, `-0.0`, `0e-5`, `1e400`, `-1e400`, `1e-400`, `-1e-400`,
	`4.9e-324`, `1.7976931348623157e308`, `1.7976931348623159e308`, `9007199254740993`,
	`255.00000000000003`, `-128.0`, `4294967295e0`, `{"days":3.0,"city":"x"}`,
	`{"days":1e400,"city":"x"}`, `{"x":[1e400]}`, `[1, 2.5, -3e-2, 1E1]`,
	// Strings and keys.
	`"\u0041\u00e9\u65e5"`, `"\ud83d\ude00"`, `"😀"`, `"\ud800"`, `"\udc00\ud800"`, `"\/"`,
	`"日本語"`, "\"\xff\xfe\"", "\"\xed\xa0\x80\"", `{"\u0063ity":"x","days":1}`,
	`{"city\/":"x"}`, "{\"\xff\":1}", `{"\ufffd":1}`, `{"":0}`, `{"é":"é"}`,
	// Duplicate keys.
	`{"city":1,"city":"x","days":2}`, `{"days":"x","days":3,"city":"y"}`,
	`{"a":{"b":1,"b":2}}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k0":9}`,
	// Shapes.
	`{}`, `[]`, `[[]]`, `{"a":{}}`, `[{}]`, ` { "city" : "Berlin" , "days" : 3 } `,
	"\t\n\r[\t1\n,\r2 ]\n", `null`, `[null]`, `{"a":null}`, `{"city":null,"days":null}`,
	`[null,null,[null,{"a":null}]]`, `true`, `false`, `[true,false]`,
	strings.Repeat("[", 100) + strings.Repeat("]", 100),
	strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50),
}

// FuzzCheckerMatchesValidator checks fuzzed JSON texts against every
// accepted schema with both validators.
func FuzzCheckerMatchesValidator(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	all := oracles(f)
	// A few documents shaped by each schema give the fuzzer structure to
	// mutate.
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	for _, o := range all {
		for range 3 {
			f.Add(append([]byte(nil), g.document(o.schema)...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			t.Skip()
		}
		for i := range all {
			if _, err := all[i].compare(data); err != nil {
				t.Fatal(err)
			}
		}
	})
}
