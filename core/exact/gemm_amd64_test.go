package exact

import "golang.org/x/sys/cpu"

// testMicros returns the micro kernels this machine runs.
func testMicros() map[string]microKernel {
	ms := map[string]microKernel{"go": {tile: microGo}}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ms["avx2"] = microKernel{tile: microAVX2}
		ms["avx2 direct"] = microKernel{tile: microAVX2, direct: directAVX2}
	}
	return ms
}
