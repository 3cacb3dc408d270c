//go:build unix

package pipeline

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the job in a process group of its own: a Ctrl-C at
// the terminal reaches only the runner, which then stops each job and
// everything the job started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
