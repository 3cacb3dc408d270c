//go:build !unix

package proc

import "os"

// usageOf reads the CPU time of an ended process; its peak memory is not
// known here (0).
func usageOf(ps *os.ProcessState) Usage {
	return Usage{CPUSeconds: (ps.UserTime() + ps.SystemTime()).Seconds()}
}
