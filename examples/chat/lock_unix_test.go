//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// lockPage holds an exclusive lock on the page's folder while it is
// installed and built, so that two test runs do not build it at once.
func lockPage(t *testing.T, web string) (unlock func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(web, ".build-lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
