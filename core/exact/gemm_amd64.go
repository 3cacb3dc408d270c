package exact

import "golang.org/x/sys/cpu"

// tile12x4 is microAVX2's assembly (AVX2 and FMA).
//
//go:noescape
func tile12x4(k int, a, b, t *float64)

// microAVX2 is the micro kernel in AVX2 and FMA registers.
func microAVX2(k int, a, b, t []float64) {
	_ = t[gemmMR*gemmNR-1]
	if k > 0 {
		_, _ = a[k*gemmMR-1], b[k*gemmNR-1]
		tile12x4(k, &a[0], &b[0], &t[0])
		return
	}
	clear(t[:gemmMR*gemmNR])
}

// nativeMicro is the fastest micro kernel this CPU runs.
var nativeMicro = chooseMicro(cpu.X86.HasAVX2 && cpu.X86.HasFMA)

func chooseMicro(avx2 bool) microKernel {
	if avx2 {
		return microAVX2
	}
	return microGo
}
