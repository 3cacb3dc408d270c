//go:build !unix

package pipeline

import "os/exec"

// setProcessGroup keeps exec's default on systems without process groups:
// cancelling kills the job's own process.
func setProcessGroup(cmd *exec.Cmd) {}
