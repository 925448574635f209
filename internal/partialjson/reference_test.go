package partialjson

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// referenceCase is one input of testdata/reference.json with the state and
// value the TypeScript AI SDK's parsePartialJson returned for it.
type referenceCase struct {
	Input string          `json:"input"`
	State string          `json:"state"`
	Value json.RawMessage `json:"value"`
}

func loadReference(t testing.TB) []referenceCase {
	t.Helper()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 400 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	return cases
}

func decode(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%q is not JSON: %v", data, err)
	}
	return v
}

// checkCase compares a state and JSON value with a reference case.
func checkCase(t *testing.T, how string, c referenceCase, got []byte, state State) {
	t.Helper()
	if state.String() != c.State {
		t.Errorf("%s(%q): state %s, reference %s", how, c.Input, state, c.State)
		return
	}
	if state == Failed {
		if got != nil {
			t.Errorf("%s(%q): failed with value %q", how, c.Input, got)
		}
		return
	}
	if want, have := decode(t, c.Value), decode(t, got); !reflect.DeepEqual(want, have) {
		t.Errorf("%s(%q) = %s, reference %s", how, c.Input, got, c.Value)
	}
}

// TestParseMatchesReference checks Parse on every recorded input.
func TestParseMatchesReference(t *testing.T) {
	for _, c := range loadReference(t) {
		got, state := Parse([]byte(c.Input))
		checkCase(t, "Parse", c, got, state)
	}
}

// TestParserMatchesReference feeds every recorded input to a Parser in
// pieces of several sizes: the value after the last piece must be the
// reference's.
func TestParserMatchesReference(t *testing.T) {
	for _, c := range loadReference(t) {
		for _, size := range []int{1, 2, 3, 7, 1 << 20} {
			var p Parser
			in := c.Input
			for len(in) > 0 {
				n := min(size, len(in))
				p.Write(in[:n])
				in = in[n:]
			}
			checkCase(t, "Parser", c, p.Snapshot().JSON(), p.State())
		}
	}
}
