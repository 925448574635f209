package tsgen

import (
	"fmt"
	"testing"
)

// equal fails the test when got differs from want, quoting both so that
// white space differences are visible.
func equal[T comparable](t testing.TB, want, got T, context ...any) {
	t.Helper()
	if got == want {
		return
	}
	msg := ""
	if len(context) > 0 {
		msg = fmt.Sprintf(fmt.Sprint(context[0]), context[1:]...) + ": "
	}
	if ws, ok := any(want).(string); ok {
		t.Errorf("%smismatch\nwant: %q\ngot:  %q\n--- want\n%s\n--- got\n%s", msg, ws, any(got).(string), ws, any(got).(string))
		return
	}
	t.Errorf("%swant %v, got %v", msg, want, got)
}
