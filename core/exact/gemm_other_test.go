//go:build !amd64

package exact

// testMicros returns the micro kernels this machine runs.
func testMicros() map[string]microKernel { return map[string]microKernel{"go": {tile: microGo}} }
