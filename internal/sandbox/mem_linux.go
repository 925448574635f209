package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// availableMemory returns the memory available to this process in bytes:
// the smaller of MemAvailable and the limit of its cgroup (version 2), or 0
// when neither is known.
func availableMemory() int64 {
	var avail int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				fs := strings.Fields(rest)
				if len(fs) > 0 {
					if kb, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
						avail = kb << 10
					}
				}
				break
			}
		}
		_ = f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64); err == nil && n > 0 && (avail == 0 || n < avail) {
			avail = n
		}
	}
	return avail
}

// growPipe enlarges the buffer of the pipe f writes to, so that the
// prelude's bytecode and typical tool outputs fit without waiting for the
// reader. Failure is harmless.
func growPipe(f *os.File) {
	const setPipeSize = 1031 // F_SETPIPE_SZ
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, setPipeSize, 1<<20)
		})
	}
}

// yieldThread lets other threads run on this thread's processor.
func yieldThread() { _, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
