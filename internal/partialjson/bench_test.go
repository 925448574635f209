package partialjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigObject returns a JSON object of about n bytes: records with strings,
// numbers, booleans and nested arrays, the shape of a typical structured
// answer.
func bigObject(n int) string {
	var b strings.Builder
	b.WriteString(`{"title":"A long report","items":[`)
	for i := 0; b.Len() < n-100; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item number %d with a \"quoted\" word","price":%d.%02d,"ok":%v,"tags":["a","b\u00e9"]}`,
			i, i, i*7, i%100, i%2 == 0)
	}
	b.WriteString(`],"done":true}`)
	return b.String()
}

func deltas(s string, n int) []string {
	size := (len(s) + n - 1) / n
	return split(s, size)
}

// BenchmarkParser streams a 100 KB object in 1,000 pieces and takes a
// snapshot of every changed value, as StreamText does for each partial
// output.
func BenchmarkParser(b *testing.B) {
	doc := bigObject(100 << 10)
	pieces := deltas(doc, 1000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		var p Parser
		partials := 0
		for _, d := range pieces {
			if p.Write(d) {
				_ = p.Snapshot()
				partials++
			}
		}
		if p.State() != Successful || partials < 900 {
			b.Fatalf("state %s, %d partials", p.State(), partials)
		}
	}
}

// BenchmarkArrayScanner streams a 100 KB {"elements":[...]} object in
// 1,000 pieces, checking each element once.
func BenchmarkArrayScanner(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"elements":[`)
	for i := 0; sb.Len() < 100<<10; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"name":"element %d","price":%d.5}`, i, i, i)
	}
	sb.WriteString(`]}`)
	doc := sb.String()
	pieces := deltas(doc, 1000)
	check := func(e []byte) Verdict {
		if !json.Valid(e) {
			return NotJSON
		}
		return Accepted
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		a := ArrayScanner{Check: check}
		for _, d := range pieces {
			if _, fallback := a.Write(d); fallback {
				b.Fatal("fallback")
			}
		}
		if len(a.Elements()) < 1000 {
			b.Fatalf("%d elements", len(a.Elements()))
		}
	}
}

// BenchmarkParseWhole parses the whole 100 KB object once, for scale.
func BenchmarkParseWhole(b *testing.B) {
	doc := []byte(bigObject(100 << 10))
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, s := Parse(doc); s != Successful {
			b.Fatal(s)
		}
	}
}
