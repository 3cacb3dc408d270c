package exact

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// gemm computes c = a·b + beta·c (op(a) m×k, op(b) k×n, c m×n row-major
// with leading dimension ldc), the arguments as Dgemm's with alpha 1, by
// register-blocked tiles: both operands are packed into panels (which
// makes transposition free), and micro computes each tile of mr×nr
// entries of c from a panel of mr rows and one of nr columns, summing over
// k in blocks of gemmKC. Every entry of c is summed in the same order
// whatever the tiling of the other dimensions, and large products are
// split between two workers by columns, so the result does not depend on
// the number of cores.
func gemm(micro microKernel, tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	l := operand{a, lda, 1}
	if tA == blas.Trans {
		l = operand{a, 1, lda}
	}
	r := operand{b, ldb, 1}
	if tB == blas.Trans {
		r = operand{b, 1, ldb}
	}
	out := operand{c, ldc, 1}
	// The tiles are mr rows by nr columns: computing c transposed (its
	// rows from b) pads less when m is the shorter side.
	if padded(m, gemmMR)*padded(n, gemmNR) > padded(n, gemmMR)*padded(m, gemmNR) {
		l, r = operand{b, r.cs, r.rs}, operand{a, l.cs, l.rs}
		out = operand{c, 1, ldc}
		m, n = n, m
	}
	job := gemmJob{micro: micro, l: l, r: r, c: out, m: m, k: k, beta: beta}
	panels := padded(n, gemmNR) / gemmNR
	if m*n*k < gemmParallelMin || panels < 2 {
		job.columns(0, n)
		return
	}
	mid := panels / 2 * gemmNR
	other := job // a copy, so that job stays on the stack in the serial case
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		other.columns(mid, n)
	}()
	job.columns(0, mid)
	wg.Wait()
}

// microKernel sets t[i*gemmNR+j] = Σ_p a[p*gemmMR+i]·b[p*gemmNR+j] over p <
// k: a tile from a packed panel of rows and one of columns.
type microKernel func(k int, a, b, t []float64)

// The tile's rows and columns, and the blocks of the summed dimension and
// of the columns that are packed at once (a block of b's columns is
// gemmKC×gemmNC entries, 512 KiB: it stays in the L2 cache).
const (
	gemmMR          = 12
	gemmNR          = 4
	gemmKC          = 256
	gemmNC          = 256
	gemmMC          = 120
	gemmParallelMin = 1 << 20
)

// operand is a matrix: entry (i, j) at s[i*rs+j*cs].
type operand struct {
	s      []float64
	rs, cs int
}

type gemmJob struct {
	micro   microKernel
	l, r, c operand
	m, k    int
	beta    float64
}

var gemmBuffers = sync.Pool{New: func() any { return new(gemmBuffer) }}

type gemmBuffer struct {
	l, r []float64
	t    [gemmMR * gemmNR]float64
}

// columns computes the columns j0 to j1 of c.
func (g *gemmJob) columns(j0, j1 int) {
	buf := gemmBuffers.Get().(*gemmBuffer)
	defer gemmBuffers.Put(buf)
	for jc := j0; jc < j1; jc += gemmNC {
		nc := min(gemmNC, j1-jc)
		for pc := 0; pc < max(g.k, 1); pc += gemmKC {
			kc := min(gemmKC, g.k-pc)
			beta := g.beta
			if pc > 0 {
				beta = 1
			}
			buf.r = packColumns(buf.r, g.r, pc, kc, jc, nc)
			for ic := 0; ic < g.m; ic += gemmMC {
				mc := min(gemmMC, g.m-ic)
				buf.l = packRows(buf.l, g.l, ic, mc, pc, kc)
				g.block(buf, ic, mc, jc, nc, kc, beta)
			}
		}
	}
}

// block adds the tiles of rows ic to ic+mc and columns jc to jc+nc of c
// from the packed panels, summed over kc.
func (g *gemmJob) block(buf *gemmBuffer, ic, mc, jc, nc, kc int, beta float64) {
	for jr := 0; jr < nc; jr += gemmNR {
		rp := buf.r[jr*kc : (jr+gemmNR)*kc]
		for ir := 0; ir < mc; ir += gemmMR {
			lp := buf.l[ir*kc : (ir+gemmMR)*kc]
			g.micro(kc, lp, rp, buf.t[:])
			g.store(buf.t[:], ic+ir, jc+jr, min(gemmMR, mc-ir), min(gemmNR, nc-jr), beta)
		}
	}
}

// store writes the valid mr×nr corner of tile t to c at (i0, j0).
func (g *gemmJob) store(t []float64, i0, j0, mr, nr int, beta float64) {
	c := g.c
	for i := range mr {
		row := t[i*gemmNR : i*gemmNR+nr]
		o := (i0+i)*c.rs + j0*c.cs
		switch {
		case c.cs == 1 && beta == 0 && nr == gemmNR:
			dst := c.s[o : o+gemmNR]
			dst[0], dst[1], dst[2], dst[3] = row[0], row[1], row[2], row[3]
		case c.cs == 1 && beta == 1:
			dst := c.s[o : o+nr]
			for j, v := range row {
				dst[j] += v
			}
		case beta == 0:
			for j, v := range row {
				c.s[o+j*c.cs] = v
			}
		case beta == 1:
			for j, v := range row {
				c.s[o+j*c.cs] += v
			}
		default:
			for j, v := range row {
				c.s[o+j*c.cs] = beta*c.s[o+j*c.cs] + v
			}
		}
	}
}

// packRows packs rows i0 to i0+m, columns p0 to p0+kc of l into panels of
// gemmMR rows, each laid out column after column (kc×gemmMR), rows past m
// zero. It reads l along its unit stride.
func packRows(dst []float64, l operand, i0, m, p0, kc int) []float64 {
	dst = grow(dst, padded(m, gemmMR)*kc)
	for ir := 0; ir < m; ir += gemmMR {
		panel := dst[ir*kc : (ir+gemmMR)*kc]
		rows := min(gemmMR, m-ir)
		if rows < gemmMR {
			clear(panel)
		}
		o := (i0+ir)*l.rs + p0*l.cs
		if l.cs == 1 {
			for i := range rows {
				src := l.s[o+i*l.rs : o+i*l.rs+kc]
				for p, v := range src {
					panel[p*gemmMR+i] = v
				}
			}
			continue
		}
		for p := range kc {
			col := panel[p*gemmMR : p*gemmMR+rows]
			src := l.s[o+p*l.cs : o+p*l.cs+rows]
			for i, v := range src {
				col[i] = v
			}
		}
	}
	return dst
}

// packColumns packs rows p0 to p0+kc, columns j0 to j0+nc of r into panels
// of gemmNR columns, each laid out row after row (kc×gemmNR), columns past
// nc zero. It reads r along its unit stride.
func packColumns(dst []float64, r operand, p0, kc, j0, nc int) []float64 {
	dst = grow(dst, padded(nc, gemmNR)*kc)
	for jr := 0; jr < nc; jr += gemmNR {
		panel := dst[jr*kc : (jr+gemmNR)*kc]
		cols := min(gemmNR, nc-jr)
		o := p0*r.rs + (j0+jr)*r.cs
		switch {
		case r.cs == 1 && cols == gemmNR:
			for p := range kc {
				src := r.s[o+p*r.rs : o+p*r.rs+gemmNR]
				row := panel[p*gemmNR : p*gemmNR+gemmNR]
				row[0], row[1], row[2], row[3] = src[0], src[1], src[2], src[3]
			}
		case r.rs == 1:
			if cols < gemmNR {
				clear(panel)
			}
			for j := range cols {
				src := r.s[o+j*r.cs : o+j*r.cs+kc]
				for p, v := range src {
					panel[p*gemmNR+j] = v
				}
			}
		default:
			clear(panel)
			for p := range kc {
				row := panel[p*gemmNR : p*gemmNR+cols]
				src := r.s[o+p*r.rs : o+p*r.rs+cols]
				for j, v := range src {
					row[j] = v
				}
			}
		}
	}
	return dst
}

// grow returns s resized to n entries, reallocated (at least doubling)
// when too short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, max(n, 2*cap(s)))[:n]
	}
	return s[:n]
}

// padded rounds n up to a multiple of b.
func padded(n, b int) int { return (n + b - 1) / b * b }

// microGo is the portable micro kernel.
func microGo(k int, a, b, t []float64) {
	var acc [gemmMR * gemmNR]float64
	for p := range k {
		ap := a[p*gemmMR : (p+1)*gemmMR]
		bp := b[p*gemmNR : (p+1)*gemmNR]
		for i, x := range ap {
			row := acc[i*gemmNR : (i+1)*gemmNR]
			row[0] += x * bp[0]
			row[1] += x * bp[1]
			row[2] += x * bp[2]
			row[3] += x * bp[3]
		}
	}
	copy(t, acc[:])
}

// minTiledSide is the shortest side of c that gemm computes: thinner
// products (a vector times a matrix) would be mostly padding in its tiles.
const minTiledSide = 4
