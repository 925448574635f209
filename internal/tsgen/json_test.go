package tsgen

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseAndWriteCompact(t *testing.T) {
	cases := []struct{ in, want string }{
		{` { "b" : [ 1 , 2.0 , -3e+2 ] , "a" : { } , "c" : [ ] } `, `{"b":[1,2.0,-3e+2],"a":{},"c":[]}`},
		{`{"z":1,"a":2,"z":3}`, `{"z":3,"a":2}`},
		{`{"\u0041":1,"A":2}`, `{"A":2}`},
		{`"tab\there"`, `"tab\there"`},
		{`"\u0000\u001f\u007f"`, `"\u0000\u001f` + "\x7f" + `"`},
		{`"\b\f\n\r\t\/\\\""`, `"\b\f\n\r\t/\\\""`},
		{`"<>&\u2028\u2029é😀"`, `"<>&` + "\u2028\u2029é😀" + `"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{"\"bad \xff byte\"", "\"bad \uFFFD byte\""},
		{`[true,false,null]`, `[true,false,null]`},
		{"\t\n 0 \r\n", `0`},
	}
	for _, tc := range cases {
		var b strings.Builder
		appendJSON(&b, parse([]byte(tc.in)))
		equal(t, tc.want, b.String(), "input %q", tc.in)
	}
}

func TestParseRejectsMalformed(t *testing.T) {
	for _, in := range []string{"", " ", "{", `{"a"}`, "[1,]", "01", "nul", `{"a":1}x`, "\"\x01\""} {
		if parse([]byte(in)) != nil {
			t.Errorf("parse(%q) accepted malformed input", in)
		}
	}
}

func TestParseManyKeys(t *testing.T) {
	// Objects past the index threshold still merge duplicates in place.
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%02d":%d`, i, i)
	}
	b.WriteString(`,"k00":"last","k39":"z"}`)
	n := parse([]byte(b.String()))
	equal(t, 40, len(n.members))
	equal(t, "k00", n.members[0].key)
	equal(t, "last", n.members[0].value.text)
	equal(t, "k39", n.members[39].key)
	equal(t, "z", n.get("k39").text)
}
