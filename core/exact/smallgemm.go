package exact

import (
	"slices"
	"sync"
)

// Batches of tiny products (a few columns, a short sum) spend more time in
// gatherGemm's per-product packing, offsets and padded tiles than in their
// multiply-adds. smallGemm runs each product by rows instead: one row of
// the output at a time, its entries in vector registers, summed over K by
// broadcasting an entry of x and adding it times a row of y. The offsets of
// every group are computed once per kernel; y and the output are read and
// written in place where their columns are consecutive, else through a
// small contiguous copy. Every entry is the same chain of fused
// multiply-adds over K, in the same order, from zero, as gatherGemm's micro
// kernels compute it, so the results are bit-identical.

// Bounds of the products smallGemm runs: at most smallMaxCols columns (four
// vectors of four), a sum of at most gemmKC terms (gatherGemm's one block of
// K, so no block sums to reproduce), and at most smallMaxRows rows (longer
// products amortise gatherGemm's packing over its larger tiles).
const (
	smallMaxCols = 16
	smallMaxRows = 256
)

// smallGemm is a batch of products out[L,R] = x[L,K]·y[K,R] read by rows,
// oriented (transposed where that reads more in place) so that the output's
// rows are m long and its columns n.
type smallGemm struct {
	m, n, k          int
	transposed       bool
	x, y, out        gathered // the oriented matrices, without their tables
	xRows, xCols     []int    // offsets of x's rows and columns
	yRows, yCols     []int    // offsets of y's rows and columns in its table
	oRows, oCols     []int    // offsets of the output's rows and columns
	packedRows       []int    // p·n: rows of y's contiguous copy
	packedOut        []int    // i·n: rows of the output's contiguous copy
	yAt, oAt         []int    // offsets of every entry of y and of the output where copied, row by row
	packY, packO     bool     // y's or the output's columns not consecutive
	nv               int      // vectors of four a row takes
	mask             [4]int64 // the lanes of the last vector within the row
	xMax, yMax, oMax int      // one past the largest offset read in x, y and out
}

// newSmallGemm returns the row kernel of a batch of nl×nk by nk×nr products
// over the groups of g, or nil if the products are too large for it or this
// CPU has no row kernel.
func newSmallGemm(nl, nk, nr int, g *gatherOffsets) *smallGemm {
	if !hasSmallRows || nk < 1 || nk > gemmKC {
		return nil
	}
	natural := &smallGemm{m: nl, n: nr, k: nk, x: g.x, y: g.y, out: g.out}
	flipped := &smallGemm{m: nr, n: nl, k: nk, transposed: true, x: g.y.transpose(), y: g.x.transpose(), out: g.out.transpose()}
	var best *smallGemm
	for _, s := range []*smallGemm{natural, flipped} {
		if s.n > smallMaxCols || s.m > smallMaxRows || s.m < 1 {
			continue
		}
		if best == nil || s.copied() < best.copied() {
			best = s
		}
	}
	if best != nil {
		best.prepare()
	}
	return best
}

// copied returns the entries a product copies to read y and write the output.
func (s *smallGemm) copied() int {
	c := 0
	if !s.y.unitCols {
		c += s.k * s.n
	}
	if !s.out.unitCols {
		c += s.m * s.n
	}
	return c
}

// prepare computes the offsets of every group, the copies needed and the
// last vector's mask.
func (s *smallGemm) prepare() {
	offsets := func(g group, n int) []int {
		o := make([]int, n)
		g.fill(o, 0)
		return o
	}
	s.xRows, s.xCols = offsets(s.x.rows, s.m), offsets(s.x.cols, s.k)
	s.yRows, s.yCols = offsets(s.y.rows, s.k), offsets(s.y.cols, s.n)
	s.oRows, s.oCols = offsets(s.out.rows, s.m), offsets(s.out.cols, s.n)
	s.packY, s.packO = !s.y.unitCols, !s.out.unitCols
	s.packedRows, s.packedOut = make([]int, s.k), make([]int, s.m)
	for p := range s.packedRows {
		s.packedRows[p] = p * s.n
	}
	for i := range s.packedOut {
		s.packedOut[i] = i * s.n
	}
	if s.packY {
		s.yAt = entryOffsets(s.yRows, s.yCols)
	}
	if s.packO {
		s.oAt = entryOffsets(s.oRows, s.oCols)
	}
	s.nv = (s.n + 3) / 4
	for l := range 4 {
		if (s.nv-1)*4+l < s.n {
			s.mask[l] = -1
		}
	}
	s.xMax = slices.Max(s.xRows) + slices.Max(s.xCols) + 1
	s.yMax = slices.Max(s.yRows) + slices.Max(s.yCols) + 1
	s.oMax = slices.Max(s.oRows) + slices.Max(s.oCols) + 1
}

// entryOffsets returns the offsets of the entries of a matrix, row by row.
func entryOffsets(rows, cols []int) []int {
	at := make([]int, 0, len(rows)*len(cols))
	for _, ro := range rows {
		for _, co := range cols {
			at = append(at, ro+co)
		}
	}
	return at
}

// smallScratch is one worker's contiguous copies of y and of the output.
type smallScratch struct {
	y   [gemmKC * smallMaxCols]float64
	out [smallMaxRows * smallMaxCols]float64
}

// product computes one product: x, y and out start at the batch's
// offsets. It returns the largest entry written (0 if none is positive).
func (s *smallGemm) product(sc *smallScratch, x, y, out []float64) float64 {
	// The row kernel does not check its reads and writes: every offset is
	// checked here against the tables.
	if len(x) < s.xMax || len(y) < s.yMax || len(out) < s.oMax {
		panic("exact: product beyond its tables")
	}
	// Consecutive columns start at offset 0 (a group's first state).
	yRows, ys := s.yRows, y
	if s.packY {
		packed := sc.y[:len(s.yAt)]
		for e, o := range s.yAt {
			packed[e] = y[o]
		}
		yRows, ys = s.packedRows, sc.y[:]
	}
	oRows, os := s.oRows, out
	if s.packO {
		oRows, os = s.packedOut, sc.out[:]
	}
	var lanes [4]float64
	smallRows(&x[0], &s.xRows[0], &s.xCols[0], &ys[0], &yRows[0], &os[0], &oRows[0], s.m, s.k, s.nv, &s.mask[0], &lanes[0])
	if s.packO {
		packed := sc.out[:len(s.oAt)]
		for e, o := range s.oAt {
			out[o] = packed[e]
		}
	}
	return maxAbove(0, lanes[:])
}

// gatherSmall runs the batch of products of m by smallGemm s, the batches
// split between two workers as gather does.
func (m *matmul) gatherSmall(s *smallGemm, x, y, out []float64) float64 {
	g := m.g
	run := func(lo, hi int) float64 {
		sc := smallScratches.Get().(*smallScratch)
		defer smallScratches.Put(sc)
		var mx float64
		for b := lo; b < hi; b++ {
			ox, oy, oo := g.batch(b)
			xs, ys := x[ox:], y[oy:]
			if s.transposed {
				xs, ys = ys, xs
			}
			mx = max(mx, s.product(sc, xs, ys, out[oo:]))
		}
		return mx
	}
	return splitBatches(m, run)
}

var smallScratches = sync.Pool{New: func() any { return new(smallScratch) }}
