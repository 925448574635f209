// Package golden compares what a test produced with a file of the bytes it
// must produce. Run the test with -update-golden to rewrite the files from
// what the code produces now.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"
)

var update = flag.Bool("update-golden", false, "rewrite the golden files")

// Check fails t unless got is byte for byte the content of the file at
// path, naming the lines that differ.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", path, lineDiff(want, got))
	}
}

// CheckJSON checks the JSON encodings of values, one line each after the
// value's Go type, against the file at path (see [Check]).
func CheckJSON(t testing.TB, path string, values []any) {
	t.Helper()
	var got bytes.Buffer
	for _, v := range values {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		fmt.Fprintf(&got, "%T %s\n", v, data)
	}
	Check(t, path, got.Bytes())
}

// lineDiff lists the lines of want and got that differ.
func lineDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	var out bytes.Buffer
	for i := range max(len(w), len(g)) {
		var a, b []byte
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if !bytes.Equal(a, b) {
			fmt.Fprintf(&out, "line %d\n- %s\n+ %s\n", i+1, a, b)
		}
	}
	return out.String()
}
