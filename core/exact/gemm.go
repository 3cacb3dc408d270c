package exact

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// gemm computes c = a·b + beta·c (op(a) m×k, op(b) k×n, c m×n row-major
// with leading dimension ldc), the arguments as Dgemm's with alpha 1; see
// gatherGemm.
func gemm(micro microKernel, tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	buf := gemmBuffers.Get().(*gemmBuffer)
	defer gemmBuffers.Put(buf)
	ars, acs := lda, 1
	if tA == blas.Trans {
		ars, acs = 1, lda
	}
	brs, bcs := ldb, 1
	if tB == blas.Trans {
		brs, bcs = 1, ldb
	}
	ga := newGathered(a, group{step: ars}, group{step: acs})
	gb := newGathered(b, group{step: brs}, group{step: bcs})
	gatherGemm(micro, buf, m, n, k, ga, gb, beta, newGathered(c, group{step: ldc}, group{step: 1}), false)
}

// group gives the offsets of the joint states of some variables of a
// table (row-major, the last fastest) under their strides, or of one
// dimension of stride step when card is nil. A short group keeps them all
// (off), so the many small products of a batch do not recompute them.
type group struct {
	card, stride []int
	step         int
	off          []int
}

// maxKeptOffsets is the longest group that keeps its offsets.
const maxKeptOffsets = 256

// offsets returns the offsets of the len(dst) states from start: a part of
// off where the group keeps them, else dst filled.
func (g group) offsets(dst []int, start int) []int {
	if g.off != nil {
		return g.off[start : start+len(dst)]
	}
	g.fill(dst, start)
	return dst
}

// fill sets dst to the offsets of states start to start+len(dst)-1.
func (g group) fill(dst []int, start int) {
	if g.card == nil {
		for i := range dst {
			dst[i] = (start + i) * g.step
		}
		return
	}
	n := len(g.card)
	var idx [64]int // a table of 2^63 entries has at most 63 variables
	off := 0
	for d := n - 1; d >= 0; d-- {
		idx[d] = start % g.card[d]
		start /= g.card[d]
		off += idx[d] * g.stride[d]
	}
	for i := range dst {
		dst[i] = off
		for d := n - 1; d >= 0; d-- {
			idx[d]++
			off += g.stride[d]
			if idx[d] < g.card[d] {
				break
			}
			off -= g.stride[d] * idx[d]
			idx[d] = 0
		}
	}
}

// consecutive reports whether the offsets rise by one from state to state.
func (g group) consecutive() bool {
	if g.card == nil {
		return g.step == 1
	}
	step := 1
	for d := len(g.card) - 1; d >= 0; d-- {
		if g.card[d] > 1 && g.stride[d] != step {
			return false
		}
		step *= g.card[d]
	}
	return true
}

// gathered is a matrix whose entry (i, j) lies at s[rows(i)+cols(j)]: a
// table read as a matrix over two groups of its variables in any layout.
// unitRows and unitCols say that rows or columns are consecutive entries,
// which packing and storing read and write as runs.
type gathered struct {
	s                  []float64
	rows, cols         group
	unitRows, unitCols bool
}

func newGathered(s []float64, rows, cols group) gathered {
	return gathered{s, rows, cols, rows.consecutive(), cols.consecutive()}
}

func (g gathered) transpose() gathered {
	return gathered{g.s, g.cols, g.rows, g.unitCols, g.unitRows}
}

// gatherGemm computes c = a·b + beta·c (a m×k, b k×n, c m×n) by
// register-blocked tiles: both operands are packed into panels (which
// reads any layout, so tables need no permutation first), and micro
// computes each tile of mr×nr entries of c from a panel of mr rows and one
// of nr columns, summing over k in blocks of gemmKC. Every entry of c is
// summed in the same order whatever the tiling of the other dimensions,
// and large products are split between two workers by columns, so the
// result does not depend on the number of cores. buf is the caller's
// packing space. With track it returns the largest entry of c left (0 if
// none is positive), taken from each tile of c as it is written, so a
// normalisation need not read c again.
func gatherGemm(micro microKernel, buf *gemmBuffer, m, n, k int, a, b gathered, beta float64, c gathered, track bool) float64 {
	if m == 0 || n == 0 {
		return 0
	}
	// The tiles are mr rows by nr columns: computing c transposed (its
	// rows from b) pads less when m is the shorter side.
	if padded(m, gemmMR)*padded(n, gemmNR) > padded(n, gemmMR)*padded(m, gemmNR) {
		a, b, c = b.transpose(), a.transpose(), c.transpose()
		m, n = n, m
	}
	job := gemmJob{micro: micro, l: a, r: b, c: c, m: m, k: k, beta: beta, track: track}
	panels := padded(n, gemmNR) / gemmNR
	if m*n*k < gemmParallelMin || panels < 2 {
		job.columns(buf, 0, n)
		return job.mx
	}
	mid := panels / 2 * gemmNR
	other := job // a copy, so that job stays on the stack in the serial case
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b := gemmBuffers.Get().(*gemmBuffer)
		defer gemmBuffers.Put(b)
		other.columns(b, mid, n)
	}()
	job.columns(buf, 0, mid)
	wg.Wait()
	return max(job.mx, other.mx)
}

// microKernel computes tiles from a packed panel of rows and one of
// columns: tile sets t[i*gemmNR+j] = Σ_p a[p*gemmMR+i]·b[p*gemmNR+j] over p
// < k; direct, where there is one, writes the tile's first len(rows) rows
// to c[rows[i]:rows[i]+gemmNR] (adds them, add) from its registers.
type microKernel struct {
	tile   func(k int, a, b, t []float64)
	direct func(k int, a, b, c []float64, rows []int, add bool)
}

// The tile's rows and columns, and the blocks of the summed dimension, of
// the columns and of the rows that are packed at once: a worker's packed
// blocks take under 100 KiB (they stay in the L2 cache, and the few
// workers' buffers add little to a solve's peak memory; larger blocks were
// no faster on the Potts and grid stand-ins).
const (
	gemmMR          = 12
	gemmNR          = 4
	gemmKC          = 64
	gemmNC          = 64
	gemmMC          = 120
	gemmParallelMin = 1 << 20
)

type gemmJob struct {
	micro   microKernel
	l, r, c gathered
	m, k    int
	beta    float64
	mx      float64 // the largest entry of c written so far, if track
	track   bool
}

var gemmBuffers = sync.Pool{New: func() any { return new(gemmBuffer) }}

// gemmBuffer is one worker's packing space, with the offsets of the rows
// and columns of a block in l, r and c.
type gemmBuffer struct {
	l, r         []float64
	lRows, cRows [gemmMC]int
	lCols, rRows [gemmKC]int
	rCols, cCols [gemmNC]int
	t            [gemmMR * gemmNR]float64
}

// columns computes the columns j0 to j1 of c.
func (g *gemmJob) columns(buf *gemmBuffer, j0, j1 int) {
	for jc := j0; jc < j1; jc += gemmNC {
		nc := min(gemmNC, j1-jc)
		rCols := g.r.cols.offsets(buf.rCols[:nc], jc)
		cCols := g.c.cols.offsets(buf.cCols[:nc], jc)
		for pc := 0; pc < max(g.k, 1); pc += gemmKC {
			kc := min(gemmKC, g.k-pc)
			beta := g.beta
			if pc > 0 {
				beta = 1
			}
			lCols := g.l.cols.offsets(buf.lCols[:kc], pc)
			buf.r = packColumns(buf.r, g.r, g.r.rows.offsets(buf.rRows[:kc], pc), rCols)
			for ic := 0; ic < g.m; ic += gemmMC {
				mc := min(gemmMC, g.m-ic)
				buf.l = packRows(buf.l, g.l, g.l.rows.offsets(buf.lRows[:mc], ic), lCols)
				g.block(buf, g.c.rows.offsets(buf.cRows[:mc], ic), cCols, kc, beta, g.track && pc+gemmKC >= g.k)
			}
		}
	}
}

// block adds the tiles of a block of c (its rows and columns at offsets
// cRows and cCols) from the packed panels, summed over kc. On the last
// panel (last) it takes the largest entry of each tile into g.mx as the
// tile is written, while it is in the L1 cache.
func (g *gemmJob) block(buf *gemmBuffer, cRows, cCols []int, kc int, beta float64, last bool) {
	mc, nc := len(cRows), len(cCols)
	direct := g.micro.direct != nil && g.c.unitCols && (beta == 0 || beta == 1)
	for jr := 0; jr < nc; jr += gemmNR {
		rp := buf.r[jr*kc : (jr+gemmNR)*kc]
		for ir := 0; ir < mc; ir += gemmMR {
			lp := buf.l[ir*kc : (ir+gemmMR)*kc]
			if direct && jr+gemmNR <= nc {
				rows := cRows[ir : ir+min(gemmMR, mc-ir)]
				g.micro.direct(kc, lp, rp, g.c.s[cCols[jr]:], rows, beta == 1)
				if last {
					g.mx = maxRows(g.c.s[cCols[jr]:], rows, g.mx)
				}
				continue
			}
			g.micro.tile(kc, lp, rp, buf.t[:])
			g.store(buf.t[:], cRows[ir:ir+min(gemmMR, mc-ir)], cCols[jr:jr+min(gemmNR, nc-jr)], beta, last)
		}
	}
}

// maxRows returns the largest of mx and the gemmNR entries of c from each
// offset of rows, a running maximum per column so the comparisons do not
// wait on each other.
func maxRows(c []float64, rows []int, mx float64) float64 {
	m0, m1, m2, m3 := mx, mx, mx, mx
	for _, ro := range rows {
		r := c[ro : ro+gemmNR : ro+gemmNR]
		if r[0] > m0 {
			m0 = r[0]
		}
		if r[1] > m1 {
			m1 = r[1]
		}
		if r[2] > m2 {
			m2 = r[2]
		}
		if r[3] > m3 {
			m3 = r[3]
		}
	}
	return maxAbove(m0, []float64{m1, m2, m3})
}

// store writes the corner of tile t that c has, at the offsets of its rows
// and columns; on the last panel (last) it takes the largest entry written
// into g.mx.
func (g *gemmJob) store(t []float64, rowOff, cols []int, beta float64, last bool) {
	c := g.c
	nr := len(cols)
	mx := g.mx
	for i, ro := range rowOff {
		row := t[i*gemmNR : i*gemmNR+nr]
		if c.unitCols && (beta == 0 || beta == 1) {
			dst := c.s[ro+cols[0] : ro+cols[0]+nr]
			if nr == gemmNR {
				storeFour(dst, row, beta == 1)
			} else if beta == 0 {
				copySmall(dst, row)
			} else {
				for j, v := range row {
					dst[j] += v
				}
			}
			if last {
				mx = maxAbove(mx, dst)
			}
			continue
		}
		switch beta {
		case 0:
			for j, co := range cols {
				c.s[ro+co] = row[j]
			}
		case 1:
			for j, co := range cols {
				c.s[ro+co] += row[j]
			}
		default:
			for j, co := range cols {
				c.s[ro+co] = beta*c.s[ro+co] + row[j]
			}
		}
		if last {
			for _, co := range cols {
				if v := c.s[ro+co]; v > mx {
					mx = v
				}
			}
		}
	}
	g.mx = mx
}

// storeFour writes (add: adds) the gemmNR entries of row to dst.
func storeFour(dst, row []float64, add bool) {
	dst, row = dst[:gemmNR], row[:gemmNR]
	if add {
		dst[0], dst[1], dst[2], dst[3] = dst[0]+row[0], dst[1]+row[1], dst[2]+row[2], dst[3]+row[3]
		return
	}
	dst[0], dst[1], dst[2], dst[3] = row[0], row[1], row[2], row[3]
}

// maxAbove returns the largest of mx and the entries of vals.
func maxAbove(mx float64, vals []float64) float64 {
	for _, v := range vals {
		if v > mx {
			mx = v
		}
	}
	return mx
}

// packRows packs the rows and columns of l at offsets allRows and cols
// into panels of gemmMR rows, each laid out column after column
// (kc×gemmMR), rows past the last zero.
func packRows(dst []float64, l gathered, allRows, cols []int) []float64 {
	m, kc := len(allRows), len(cols)
	dst = grow(dst, padded(m, gemmMR)*kc)
	for ir := 0; ir < m; ir += gemmMR {
		panel := dst[ir*kc : (ir+gemmMR)*kc]
		rows := min(gemmMR, m-ir)
		if rows < gemmMR {
			clear(panel)
		}
		rowOff := allRows[ir : ir+rows]
		switch {
		case l.unitCols && kc > 0:
			for i, ro := range rowOff {
				for p, v := range l.s[ro+cols[0] : ro+cols[0]+kc] {
					panel[p*gemmMR+i] = v
				}
			}
		case l.unitRows:
			for p, co := range cols {
				col := panel[p*gemmMR : p*gemmMR+rows]
				copySmall(col, l.s[rowOff[0]+co:rowOff[0]+co+rows])
			}
		default:
			for i, ro := range rowOff {
				for p, co := range cols {
					panel[p*gemmMR+i] = l.s[ro+co]
				}
			}
		}
	}
	return dst
}

// packColumns packs the rows and columns of r at offsets rows and allCols
// into panels of gemmNR columns, each laid out row after row (kc×gemmNR),
// columns past the last zero.
func packColumns(dst []float64, r gathered, rows, allCols []int) []float64 {
	kc, nc := len(rows), len(allCols)
	dst = grow(dst, padded(nc, gemmNR)*kc)
	for jr := 0; jr < nc; jr += gemmNR {
		panel := dst[jr*kc : (jr+gemmNR)*kc]
		cols := allCols[jr:min(jr+gemmNR, nc)]
		if len(cols) == gemmNR && r.unitCols {
			c0 := cols[0]
			for p, ro := range rows {
				src := r.s[ro+c0 : ro+c0+gemmNR]
				row := panel[p*gemmNR : p*gemmNR+gemmNR]
				row[0], row[1], row[2], row[3] = src[0], src[1], src[2], src[3]
			}
			continue
		}
		if len(cols) == gemmNR {
			c0, c1, c2, c3 := cols[0], cols[1], cols[2], cols[3]
			for p, ro := range rows {
				row := panel[p*gemmNR : p*gemmNR+gemmNR]
				row[0], row[1], row[2], row[3] = r.s[ro+c0], r.s[ro+c1], r.s[ro+c2], r.s[ro+c3]
			}
			continue
		}
		clear(panel)
		for j, co := range cols {
			for p, ro := range rows {
				panel[p*gemmNR+j] = r.s[ro+co]
			}
		}
	}
	return dst
}

// copySmall copies src to dst: a loop, cheaper than copy's call on the
// few entries of a panel's column.
func copySmall(dst, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = v
	}
}

// grow returns s resized to n entries, reallocated when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
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
