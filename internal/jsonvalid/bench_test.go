package jsonvalid

import (
	"encoding/json"
	"testing"
)

var benchInput = []byte(`{"city":"Berlin","days":3}`)

func BenchmarkCheck(b *testing.B) {
	c := Compile(infer[weather](b))
	if c == nil {
		b.Fatal("schema not compiled")
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		if err := c.Check(benchInput); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGeneralValidate(b *testing.B) {
	rs, err := infer[weather](b).Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchInput)))
	for b.Loop() {
		var v any
		if err := json.Unmarshal(benchInput, &v); err != nil {
			b.Fatal(err)
		}
		if err := rs.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}
