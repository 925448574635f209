package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder keeps the failures of a check instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, f) }

// Equal bytes pass; a changed line fails, naming its number and both forms.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"))
	if len(r.errors) != 0 {
		t.Fatalf("equal bytes failed: %v", r.errors)
	}
	Check(r, path, []byte("a\nc\n"))
	if len(r.errors) != 1 {
		t.Fatalf("changed bytes passed")
	}
	if d := lineDiff([]byte("a\nb\n"), []byte("a\nc\n")); d != "line 2\n- b\n+ c\n" {
		t.Fatalf("diff %q", d)
	}
	if d := lineDiff([]byte("a"), []byte("a\nz")); !strings.Contains(d, "line 2\n- \n+ z") {
		t.Fatalf("diff of a longer output %q", d)
	}
}
