package mcptools_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: a call that
// never returns would show here.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
