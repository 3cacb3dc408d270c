//go:build unix

package proc

import (
	"os"
	"runtime"
	"syscall"
)

// usageOf reads what an ended process used from its rusage. ru_maxrss is
// in KiB on Linux and the BSDs, in bytes on Darwin.
func usageOf(ps *os.ProcessState) Usage {
	u := Usage{CPUSeconds: (ps.UserTime() + ps.SystemTime()).Seconds()}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		u.MaxRSSKiB = int64(ru.Maxrss)
		if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
			u.MaxRSSKiB /= 1024
		}
	}
	return u
}
