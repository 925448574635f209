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

// newControl returns a pipe: this system has no Unix sockets. Where a
// worker gets no control channel at all (see controlPipe), it is not used.
func newControl() (worker, host *os.File, err error) { return os.Pipe() }

// alive reports whether the worker process is still there; this system
// gives no cheap way to tell, so it is taken to be.
func (w *worker) alive() bool { return true }

// closeInheritedFiles has nothing to close on this system: a process
// inherits only the handles it is given.
func closeInheritedFiles(keep int) {}
