//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
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
	// Marked close-on-exec before any other process can be started, as
	// os.Pipe does where the system cannot make it so at once.
	syscall.ForkLock.RLock()
	err = syscall.Pipe(p[:])
	if err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("pipe", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// newControl returns the two ends of a control socket: the worker's, in
// blocking mode, and the host's, watched by the runtime's network poller so
// that a goroutine can wait for the worker to end without a thread of its
// own.
func newControl() (worker, host *os.File, err error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("socketpair", err)
	}
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		_, _ = syscall.Close(fds[0]), syscall.Close(fds[1])
		return nil, nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control"), nil
}

// alive reports whether the worker process is still there: its end of the
// control socket is open. Without a control socket it is taken to be.
func (w *worker) alive() bool {
	if w.ctrl == nil {
		return true
	}
	rc, err := w.ctrl.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		gone = n == 0 && rerr == nil || rerr != nil && rerr != syscall.EAGAIN && rerr != syscall.EINTR
		return true
	})
	return err == nil && !gone
}

// closeInheritedFiles closes the file descriptors this process inherited
// beyond standard input, output and error and the keep descriptors after
// them: a descriptor the host opened without close-on-exec reaches a worker
// otherwise. Every descriptor a Go program opens itself is close-on-exec, so
// one without that flag was inherited.
func closeInheritedFiles(keep int) {
	first := 3 + keep
	var fds []int
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= first {
				fds = append(fds, fd)
			}
		}
		break
	}
	if fds == nil {
		var lim syscall.Rlimit
		n := uint64(1024)
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
			n = min(lim.Cur, 1<<16)
		}
		for fd := first; fd < int(n); fd++ {
			fds = append(fds, fd)
		}
	}
	for _, fd := range fds {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
			_ = syscall.Close(fd)
		}
	}
}
