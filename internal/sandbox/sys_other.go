//go:build !unix

package sandbox

import "os/exec"

// setWorkerAttrs has nothing to set on this system.
func setWorkerAttrs(cmd *exec.Cmd) {}
