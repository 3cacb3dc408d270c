//go:build unix && !linux

package proc

import "syscall"

// dieWithRunner does nothing where the kernel cannot kill a job with its
// runner: there a runner killed with SIGKILL leaves its jobs running.
func dieWithRunner(*syscall.SysProcAttr) {}
