package jsonvalid

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegressions pins down inputs on which the checker once disagreed
// with the general validator. valid is the general validator's verdict;
// fallback says the checker must defer to it rather than decide.
func TestRegressions(t *testing.T) {
	for _, tc := range []struct {
		name, schema, input string
		valid, fallback     bool
	}{
		// A later duplicate key replaces a value that does not match.
		{"duplicate after mismatch", `{"type":"object","properties":{"n":{"type":["integer","null"],"maximum":3}}}`,
			`{"n":256.0,"n":null}`, true, true},
		{"escaped duplicate after mismatch", `{"type":"object","properties":{"a":{"type":"integer"}}}`,
			`{"a":"x","\u0061":1}`, true, true},
		{"nested duplicate after mismatch", `{"properties":{"a":{"properties":{"b":{"type":"integer","maximum":0}},"required":["b"]}}}`,
			`{"a":{"b":26,"a":{},"b":0}}`, true, true},

		{"same keys in nested objects", `{"type":"object","properties":{"a":{"type":"object","required":["a","b"]}}}`,
			`{"a":{"a":1,"b":{"a":{"b":2}}},"b":{"a":{"a":1}}}`, true, false},

		// Keys with invalid UTF-8 decode to U+FFFD.
		{"invalid UTF-8 key is U+FFFD", `{"type":"object","properties":{"\ufffd":{"type":"integer"}}}`,
			"{\"\xff\":\"s\"}", false, true},
		{"invalid UTF-8 key is required U+FFFD", `{"required":["\ufffd"]}`, "{\"\xff\":1}", true, true},
		{"invalid UTF-8 keys collide", `{"type":"object","additionalProperties":{"type":"string"}}`,
			"{\"\xff\":1,\"\xfe\":\"s\"}", true, true},

		// Numbers out of the float64 range fail decoding wherever they are.
		{"huge number in unconstrained property", `{"type":"object"}`, `{"x":[1e400]}`, false, false},
		{"huge number in untyped array", `{}`, `[1E+309,false]`, false, false},
		{"huge negative number in skipped item", `{"type":"array"}`, `[{"a":-1e400}]`, false, false},
		{"310 digits in skipped property", `{"type":"object"}`, `{"x":1` + strings.Repeat("0", 309) + `}`, false, false},
		{"tiny number underflows to zero", `{"type":"object"}`, `{"x":1e-400}`, true, false},
		{"negative tiny number is an integer", `{"type":"integer","maximum":0}`, `-1e-400`, true, false},
		{"308 digits fit", `{"type":"array"}`, `[1` + strings.Repeat("0", 307) + `]`, true, false},

		// Negative upper bounds allow nothing.
		{"maxLength -1", `{"type":"string","maxLength":-1}`, `""`, false, false},
		{"maxItems -1", `{"type":"array","maxItems":-1}`, `[]`, false, false},
		{"maxLength -1 ignores numbers", `{"maxLength":-1}`, `1`, true, false},

		// Objects with more keys than the inline duplicate check holds.
		{"duplicate of an early key", `{"type":"object"}`,
			`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k1":10}`, true, true},
		{"duplicate of a late key", `{"type":"object"}`,
			`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k9":11}`, true, true},
		{"duplicate after whitespace and nested values", `{"type":"object"}`,
			"{ \"k0\" : [ 0 , { \"k9\" : 1 } ] ,\n\"k1\":\"}\",\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k0\":{}}", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.input)
			require.True(t, json.Valid(data))
			o := oracleFor(t, tc.schema)
			want := o.general(data)
			require.Equal(t, tc.valid, want == nil, "general validator: %v", want)
			got := o.checker.Check(data)
			if tc.fallback {
				require.True(t, ErrFallback(got), "want fallback, got %v", got)
				return
			}
			require.False(t, ErrFallback(got))
			require.Equal(t, tc.valid, got == nil, "checker: %v", got)
		})
	}
}

func oracleFor(t *testing.T, schema string) *oracle {
	t.Helper()
	s := parse(t, schema)
	rs, err := s.Resolve(nil)
	require.NoError(t, err)
	c := Compile(s)
	require.NotNil(t, c)
	return &oracle{name: schema, schema: s, checker: c, resolved: rs}
}

// TestManyDistinctKeys checks that objects with many keys, where the Bloom
// filter reports false positives and then a map takes over, are checked
// without falling back, in linear time, and that duplicates are still found.
func TestManyDistinctKeys(t *testing.T) {
	o := oracleFor(t, `{"type":"object","additionalProperties":{"type":"integer"}}`)
	var b strings.Builder
	b.WriteByte('{')
	for i := range 50000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"key%d":%d`, i, i)
	}
	b.WriteByte('}')
	data := []byte(b.String())
	require.NoError(t, o.checker.Check(data))
	require.NoError(t, o.general(data))

	for _, k := range []string{"key0", "key7", "key8", "key63", "key64", "key49999"} {
		dup := append(data[:len(data)-1:len(data)-1], `,"`+k+`":0}`...)
		require.True(t, ErrFallback(o.checker.Check(dup)), k)
	}
	for n := 9; n <= 65; n++ {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		fmt.Fprintf(&b, `"k%d":0}`, n/2)
		require.True(t, ErrFallback(o.checker.Check([]byte(b.String()))), n)
	}
}

// TestErrorPath checks the location reported in errors, also deeper than
// the scanner tracks inline.
func TestErrorPath(t *testing.T) {
	for _, tc := range []struct{ schema, input, path string }{
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`, `{"a":[1,2,"x"]}`, "/a/2"},
		{`{"type":"object","additionalProperties":false}`, `{"b":1}`, "/"},
		{`{"required":["z"]}`, `{}`, "/"},
	} {
		err := oracleFor(t, tc.schema).checker.Check([]byte(tc.input))
		require.ErrorContains(t, err, "at "+tc.path+":")
	}

	schema, input, path := `{"type":"integer"}`, `1.5`, ""
	for i := range 20 {
		schema = fmt.Sprintf(`{"type":"object","properties":{"p%d":%s}}`, i, schema)
		input = fmt.Sprintf(`{"p%d":%s}`, i, input)
		path = fmt.Sprintf("/p%d%s", i, path)
	}
	err := oracleFor(t, schema).checker.Check([]byte(input))
	require.ErrorContains(t, err, "at "+path+": number 1.5 is not allowed, want integer")
}

// TestNestedKeyStack checks duplicate detection when the keys of the open
// objects outgrow the scanner's inline storage.
func TestNestedKeyStack(t *testing.T) {
	// Five levels of objects whose values are checked, hence read.
	schema := `{"type":"integer"}`
	for range 6 {
		schema = `{"type":["object","integer","boolean"],"additionalProperties":` + schema + `}`
	}
	o := oracleFor(t, schema)
	// nest writes five objects of 30 keys, each holding the next; dupAt
	// repeats a key of one level before its nested object (0 to 4) or
	// after it (10 to 14).
	nest := func(dupAt int) []byte {
		var b strings.Builder
		for level := range 5 {
			b.WriteByte('{')
			for i := range 30 {
				fmt.Fprintf(&b, `"k%d":%d,`, i, i)
			}
			if level == dupAt {
				b.WriteString(`"k3":0,`)
			}
			b.WriteString(`"next":`)
		}
		b.WriteString(`{"k1":1}`)
		for level := 4; level >= 0; level-- {
			if level+10 == dupAt {
				b.WriteString(`,"k3":0`)
			}
			fmt.Fprintf(&b, `,"after%d":true}`, level)
		}
		return []byte(b.String())
	}
	for dupAt := range 5 {
		for _, at := range []int{dupAt, dupAt + 10} {
			data := nest(at)
			require.True(t, json.Valid(data), "%s", data)
			require.True(t, ErrFallback(o.checker.Check(data)), at)
		}
	}
	data := nest(-1)
	require.True(t, json.Valid(data), "%s", data)
	require.NoError(t, o.checker.Check(data))
	require.NoError(t, o.general(data))
}
