//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
)

// setWorkerAttrs has nothing to set on this system.
func setWorkerAttrs(cmd *exec.Cmd) {}

// newPipe returns a pipe.
func newPipe() (r, w *os.File, err error) { return os.Pipe() }

// newControl returns a pipe; there is no control pipe on this system.
func newControl() (worker, host *os.File, err error) { return os.Pipe() }
