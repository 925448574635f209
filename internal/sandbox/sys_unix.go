//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// setWorkerAttrs puts a worker process in a process group of its own, so
// that a terminal's interrupt reaches the host, which ends its runs, and not
// the workers directly. A worker ends when the host closes its pipe.
func setWorkerAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// newPipe returns a pipe in blocking mode that the runtime's network poller
// does not watch. A read then wakes the reading thread directly, and a write
// wakes no other thread: a pipe made by os.Pipe stays registered with the
// poller even in blocking mode, and every write to it would also wake a
// thread waiting in the poller for nothing.
func newPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
