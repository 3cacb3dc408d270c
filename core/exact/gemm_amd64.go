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

// tile12x4to is directAVX2's assembly.
//
//go:noescape
func tile12x4to(k int, a, b, c *float64, rows *int, n int, add bool)

// directAVX2 computes a tile as microAVX2 does and writes it to c from the
// registers.
func directAVX2(k int, a, b, c []float64, rows []int, add bool) {
	if len(rows) == 0 || len(rows) > gemmMR {
		panic("exact: tile of no rows or too many")
	}
	for _, o := range rows {
		_ = c[o+gemmNR-1] // every row within c, as the assembly does not check
	}
	if k > 0 {
		_, _ = a[k*gemmMR-1], b[k*gemmNR-1]
	} else {
		a, b = make([]float64, 1), make([]float64, 1) // not read
	}
	tile12x4to(k, &a[0], &b[0], &c[0], &rows[0], len(rows), add)
}

// nativeMicro is the fastest micro kernel this CPU runs.
var nativeMicro = chooseMicro(cpu.X86.HasAVX2 && cpu.X86.HasFMA)

func chooseMicro(avx2 bool) microKernel {
	if avx2 {
		return microKernel{tile: microAVX2, direct: directAVX2}
	}
	return microKernel{tile: microGo}
}

// hasSmallRows says this CPU runs smallRows.
var hasSmallRows = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// smallRows computes m rows of a product: row i of out, at out[oRows[i]:]
// (n entries, nv vectors of four, the last vector's lanes within the row
// set in mask), is Σ_p x[xRows[i]+xCols[p]]·y[yRows[p]:] over p < k, a
// fused multiply-add per term in the order of p from zero. lanes gets the
// largest entry written in each lane (NaNs skipped, 0 if none is
// positive). It checks no offset: its callers do.
//
//go:noescape
func smallRows(x *float64, xRows, xCols *int, y *float64, yRows *int, out *float64, oRows *int, m, k, nv int, mask *int64, lanes *float64)
