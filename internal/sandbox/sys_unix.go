//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// setWorkerAttrs puts a worker process in a process group of its own, so
// that a terminal's interrupt reaches the host, which ends its runs, and not
// the workers directly. A worker ends when the host closes its pipe.
func setWorkerAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
