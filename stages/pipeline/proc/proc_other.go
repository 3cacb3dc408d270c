//go:build !unix

package proc

import (
	"fmt"
	"os"
	"os/exec"
)

// signalOf returns 0: no signals end processes here.
func signalOf(ps *os.ProcessState) int { return 0 }

func signalName(n int) string { return fmt.Sprintf("signal %d", n) }

// setProcessGroup keeps exec's default on systems without process groups:
// cancelling kills the job's own process.
func setProcessGroup(cmd *exec.Cmd) {}
