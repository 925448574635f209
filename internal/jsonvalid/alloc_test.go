package jsonvalid

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

// TestCheckDoesNotAllocate pins down that valid inputs without escapes are
// checked without allocating, including objects with more keys than are
// tracked inline, unicode strings under length bounds, and long arrays.
func TestCheckDoesNotAllocate(t *testing.T) {
	wide := map[string]int{}
	for i := range 40 {
		wide[fmt.Sprintf("key%02d", i)] = i
	}
	wideJSON, err := json.Marshal(wide)
	require.NoError(t, err)
	longArray := "[" + strings.Repeat("1.5e3, -2, 0.25, ", 100) + "7]"

	for _, tc := range []struct {
		name   string
		schema *jsonschema.Schema
		input  string
	}{
		{"weather", infer[weather](t), `{"city":"Berlin","days":3}`},
		{"struct", infer[everything](t), `{"id":7,"tags":["a","b"],"name":"Zoë","nick":null,"age":255,"delta":-128,
			"count":2147483647,"size":0,"score":-1.25e-3,"ok":true,"home":{"street":"Hauptstraße 1","zip":"10115"},
			"work":{"street":"x"},"matrix":[[1,2,3],[4,5,6]],"labels":{"k":"v","l":"w"},"extra":{"any":[1,{"x":null}]},
			"hist":[1,2.5,1e10],"when":"2024-01-01T00:00:00Z"}`},
		{"manyKeys", infer[manyKeys](t), `{"k0":0,"k1":1,"k2":"two","k3":"three","k4":true,"k5":false,"k6":6.5,"k7":7,
			"k8":-32768,"k9":65535,"k10":4294967295,"k11":-9007199254740992,"k12":null,"k13":[1,2,3]}`},
		{"wide-map", infer[map[string]int](t), string(wideJSON)},
		{"wide-untyped", parse(t, `{}`), string(wideJSON)},
		{"unicode-length", parse(t, `{"type":"string","minLength":2,"maxLength":4}`), `"日本語😀"`},
		{"long-array", parse(t, `{"type":"array","items":{"type":"number","minimum":-2}}`), longArray},
		{"skipped", parse(t, `{"type":"object"}`), `{"a":[1e300,{"b":-1E-300}],"c":"` + strings.Repeat("9", 200) + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compile(tc.schema)
			require.NotNil(t, c)
			data := []byte(tc.input)
			require.True(t, json.Valid(data))
			require.NoError(t, c.Check(data))
			allocs := testing.AllocsPerRun(100, func() {
				if err := c.Check(data); err != nil {
					t.Fatal(err)
				}
			})
			require.Zero(t, allocs)
		})
	}
}
