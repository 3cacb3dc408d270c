//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// signalOf returns the signal that ended ps's process, or 0 if it exited.
func signalOf(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

// signalName is the system's name of signal n, e.g. "killed" for 9.
func signalName(n int) string { return syscall.Signal(n).String() }

// setProcessGroup puts the job in a process group of its own: a Ctrl-C at
// the terminal reaches only the runner, which then stops each job and
// everything the job started. Where the kernel can, the job is also killed
// when the runner dies without stopping it (SIGKILL, a crash).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithRunner(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
