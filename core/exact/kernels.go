package exact

import (
	"encoding/binary"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// kernel is one contraction out[ov] = Σ x[xv]·y[yv], prepared once for its
// layouts (contract, for the same operation). It runs as matrix products
// when the contraction is dense enough, and as strided sweeps (sumProduct)
// otherwise.
//
// As matrix products: the variables fall in four groups, B (in x, y and
// out: a batch of products), L (x and out), R (y and out) and K (x and y,
// summed), and for every state of B
//
//	out[L,R] = x[L,K] · y[K,R]
//
// is one matrix product. Products whose output is at least minTiledSide
// long on both sides run as gatherGemm on the tables where they lie (its
// packing reads any layout, by the offsets of each group's states). Thinner
// ones are gonum's Dgemm, on tables laid out with B outermost and each
// group's variables in one order: operands not so laid out are permuted
// into a scratch table first, and the product lands in a scratch table
// when the output is not laid out so (or when its fastest dimension would
// be short: Dgemm sweeps the output's rows).
type kernel struct {
	card       []int
	xv, yv, ov []int
	g          *geom // strided sweeps; nil for matrix products
	mm         *matmul
	bg         *blockGemm
	lnK        float64 // ln of the number of terms of each sum
}

type matmul struct {
	xp, yp, op     *permutation // into xs, ys and out of os; nil where not needed
	swap           bool         // x and y trade places (the output's rows are R)
	xs, ys, os     []int        // layouts the products need: B++L++K (or B++K++L), B++K++R (or B++R++K), B++L++R
	tA, tB         blas.Transpose
	lda, ldb       int
	nb, nl, nk, nr int
	groups         [4][]int // B, L, K, R (after swap)
	g              *gatherOffsets
	small          *smallGemm // the products of g by rows; nil where gatherGemm runs them
}

// gatherOffsets are the offsets of the states of each group in the tables
// as they lie (after swap): the batch in x, y and out, L and K in x, K and
// R in y, L and R in out. With them the products read and write the
// tables in place.
type gatherOffsets struct {
	bCard     []int    // the batch variables' states
	bStride   [3][]int // their strides in x, y and out
	x, y, out gathered // L×K, K×R and L×R, without their tables
}

// batch returns the offsets of batch b in x, y and out.
func (g *gatherOffsets) batch(b int) (ox, oy, oo int) {
	for d := len(g.bCard) - 1; d >= 0; d-- {
		i := b % g.bCard[d]
		b /= g.bCard[d]
		ox += i * g.bStride[0][d]
		oy += i * g.bStride[1][d]
		oo += i * g.bStride[2][d]
	}
	return ox, oy, oo
}

// groupIn returns the group of variables vs of a table laid out as layout.
func groupIn(card, vs, layout []int) group {
	c := make([]int, len(vs))
	for d, v := range vs {
		c[d] = card[v]
	}
	g := group{card: c, stride: stridesIn(card, layout, vs)}
	if n := tableSize(card, vs); n <= maxKeptOffsets {
		g.off = make([]int, n)
		g.fill(g.off, 0)
	}
	return g
}

// Thresholds of matrix products: the summed group and the output's rows
// (the longer of L and R) must be at least this long.
const (
	minGemmK   = 4
	minGemmRow = 8
	minGemmDot = 16
)

var blas64 gonum.Implementation

func newKernel(card []int, xv, yv, ov []int) *kernel {
	k := &kernel{card: card, xv: xv, yv: yv, ov: ov, lnK: lnSummed(card, xv, yv, ov)}
	dims, st := unionStrides(card, xv, yv, ov)
	cards := make([]int, len(dims))
	total := 1
	for d, v := range dims {
		cards[d] = card[v]
		total *= card[v]
	}
	// Matrix products need minBlock multiply-adds per call: a smaller
	// contraction is a sweep without weighing them.
	if total >= minBlock {
		if k.bg = newBlockGemm(card, xv, yv, ov); k.bg != nil {
			return k
		}
	}
	g := newReducingGeom(cards, st, []int{2}, 2, 2)
	if total >= minBlock {
		if m := newMatmul(card, xv, yv, ov); m != nil && m.cost(card, xv, yv, ov) < sweepCost(g) {
			m.prepare(card, xv, yv, ov)
			k.mm = m
			return k
		}
	}
	k.g = g
	return k
}

// prepare makes the permutations of the operands and the output into the
// layouts the products read and write, or, for products gemm tiles, the
// offsets it reads and writes them by in place.
func (m *matmul) prepare(card []int, xv, yv, ov []int) {
	if m.swap {
		xv, yv = yv, xv
	}
	if min(m.nl, m.nr) >= minTiledSide {
		b, l, k, r := m.groups[0], m.groups[1], m.groups[2], m.groups[3]
		bCard := make([]int, len(b))
		for d, v := range b {
			bCard[d] = card[v]
		}
		m.g = &gatherOffsets{bCard: bCard,
			bStride: [3][]int{stridesIn(card, xv, b), stridesIn(card, yv, b), stridesIn(card, ov, b)},
			x:       newGathered(nil, groupIn(card, l, xv), groupIn(card, k, xv)),
			y:       newGathered(nil, groupIn(card, k, yv), groupIn(card, r, yv)),
			out:     newGathered(nil, groupIn(card, l, ov), groupIn(card, r, ov)),
		}
		m.small = newSmallGemm(m.nl, m.nk, m.nr, m.g)
		return
	}
	if !slices.Equal(xv, m.xs) {
		m.xp = newPermutation(card, xv, m.xs)
	}
	if !slices.Equal(yv, m.ys) {
		m.yp = newPermutation(card, yv, m.ys)
	}
	if !slices.Equal(ov, m.os) {
		m.op = newPermutation(card, m.os, ov)
	}
}

// Rough costs in nanoseconds on the machine of cost.go's speeds, to choose
// between strided sweeps and matrix products with permutations: per entry
// swept, per inner loop of a sweep, per block of a sweep (the loop nest's
// step), per multiply-add of Dgemm on long runs and on short ones, per
// Dgemm call, per entry permuted. Measured on the Potts and Promedas
// stand-ins' contractions, one core.
const (
	nsSweepEntry = 1.0
	nsSweepRow   = 30
	nsSweepBlock = 40
	nsGemmFast   = 0.3
	nsGemmSlow   = 0.8
	nsGemmCall   = 100
	nsPermute    = 2
)

// sweepCost estimates the time of sumProduct over g.
func sweepCost(g *geom) float64 {
	total, n := 1.0, float64(g.size[len(g.size)-1])
	for _, s := range g.size {
		total *= float64(s)
	}
	block := n
	if g.block == 2 {
		block *= float64(g.size[len(g.size)-2])
	}
	return total*nsSweepEntry + total/n*nsSweepRow + total/block*nsSweepBlock
}

// cost estimates the time of the matrix products and of the permutations
// into their layouts, for operands over xv and yv and the output over ov.
func (m *matmul) cost(card []int, xv, yv, ov []int) float64 {
	flops := float64(m.nb) * float64(m.nl) * float64(m.nk) * float64(m.nr)
	per := nsGemmSlow
	if gemmEfficient(m.tB, m.nr, m.nk) {
		per = nsGemmFast
	}
	c := flops*per + float64(m.nb)*nsGemmCall
	if m.swap {
		xv, yv = yv, xv
	}
	for _, p := range [][2][]int{{xv, m.xs}, {yv, m.ys}, {ov, m.os}} {
		if !slices.Equal(p[0], p[1]) {
			c += float64(tableSize(card, p[1])) * nsPermute
		}
	}
	return c
}

// unionStrides returns the variables of ov, xv and yv (in that order of
// first appearance) and the strides of x, y and out over them.
func unionStrides(card, xv, yv, ov []int) ([]int, [][]int) {
	dims := make([]int, 0, len(ov)+len(xv)+len(yv))
	for _, vs := range [][]int{ov, xv, yv} {
		for _, v := range vs {
			if !slices.Contains(dims, v) {
				dims = append(dims, v)
			}
		}
	}
	return dims, [][]int{stridesIn(card, xv, dims), stridesIn(card, yv, dims), stridesIn(card, ov, dims)}
}

// newMatmul lays the contraction out as matrix products, or returns nil if
// it is too thin for them or has a variable that only one table holds.
func newMatmul(card []int, xv, yv, ov []int) *matmul {
	var b, l, r, k []int
	for _, v := range ov {
		inX, inY := slices.Contains(xv, v), slices.Contains(yv, v)
		switch {
		case inX && inY:
			b = append(b, v)
		case inX:
			l = append(l, v)
		case inY:
			r = append(r, v)
		default:
			return nil // broadcast
		}
	}
	for _, v := range xv {
		if !slices.Contains(ov, v) {
			if !slices.Contains(yv, v) {
				return nil // summed in x alone
			}
			k = append(k, v)
		}
	}
	for _, v := range yv {
		if !slices.Contains(ov, v) && !slices.Contains(xv, v) {
			return nil
		}
	}
	m := &matmul{nb: tableSize(card, b), nl: tableSize(card, l), nk: tableSize(card, k), nr: tableSize(card, r)}
	if m.nk < 2 || m.nl*m.nr*m.nk < minBlock {
		return nil
	}
	// The output's rows are the longer group, unless out is laid out with
	// the other one fastest and its rows are long enough.
	natural := slices.Equal(ov, concat(b, l, r))
	swapped := slices.Equal(ov, concat(b, r, l))
	switch {
	case natural && m.nr >= minGemmRow:
	case swapped && m.nl >= minGemmRow:
		m.swap = true
	default:
		m.swap = m.nl > m.nr
	}
	if m.swap {
		xv, yv, l, r = yv, xv, r, l
		m.nl, m.nr = m.nr, m.nl
	}
	m.os = concat(b, l, r)
	m.groups = [4][]int{b, l, k, r}
	// Dgemm sweeps rows of the output (x read L×K or K×L, y K×R) or, when
	// K is much longer, takes dot products along K (x L×K, y R×K).
	dot := m.nk >= minGemmDot && m.nk > 2*m.nr
	var kFirst bool
	m.xs, kFirst = operandLayout(xv, b, l, k, !dot, false)
	m.tA, m.lda = blas.NoTrans, m.nk
	if kFirst {
		m.tA, m.lda = blas.Trans, m.nl
	}
	if dot {
		m.ys = concat(b, r, k)
		m.tB, m.ldb = blas.Trans, m.nk
	} else {
		m.ys = concat(b, k, r)
		m.tB, m.ldb = blas.NoTrans, m.nr
	}
	return m
}

// operandLayout returns the layout the products read a table over vs in and
// whether K comes before the other group M in it: vs itself if it is
// B++M++K (or B++K++M where kFirstOK), else B++M++K or B++K++M as kFirst
// asks.
func operandLayout(vs, b, m, k []int, kFirstOK, kFirst bool) ([]int, bool) {
	switch {
	case slices.Equal(vs, concat(b, m, k)):
		return vs, false
	case kFirstOK && slices.Equal(vs, concat(b, k, m)):
		return vs, true
	case kFirst:
		return concat(b, k, m), true
	}
	return concat(b, m, k), false
}

func concat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// scratch returns the entries of the scratch tables run takes from the
// pool at once.
func (k *kernel) scratch() int64 {
	m := k.mm
	if m == nil || m.g != nil {
		return 0
	}
	var n int64
	for _, c := range []struct {
		p  *permutation
		vs []int
	}{{m.xp, m.xs}, {m.yp, m.ys}, {m.op, m.os}} {
		if c.p != nil {
			n += int64(tableSize(k.card, c.vs))
		}
	}
	return n
}

// fuseMin is the smallest table whose kernel takes its maximum as it
// writes it: a smaller one stays in the cache, where a pass of its own over
// it is cheaper.
const fuseMin = 1 << 16

// run computes out from x and y; scratch tables come from pl. It returns
// out's largest entry (for a large table taken as out was written, so a
// normalisation need not read out again).
func (k *kernel) run(x, y, out []float64, pl *pool) float64 {
	if len(out) < fuseMin {
		k.compute(x, y, out, pl, false)
		return maxOf(out)
	}
	return k.compute(x, y, out, pl, true)
}

// compute is run, the maximum returned only with track.
func (k *kernel) compute(x, y, out []float64, pl *pool, track bool) float64 {
	if k.bg != nil {
		return k.bg.run(x, y, out, track)
	}
	if k.mm == nil {
		return sumProduct(k.g, [][]float64{x, y}, out, track)
	}
	m := k.mm
	if m.swap {
		x, y = y, x
	}
	if m.g != nil {
		return m.gather(x, y, out, track)
	}
	xs, ys, os := x, y, out
	if m.xp != nil {
		xs = pl.get(len(x))
		m.xp.run(x, xs)
	}
	if m.yp != nil {
		ys = pl.get(len(y))
		m.yp.run(y, ys)
	}
	if m.op != nil {
		os = pl.get(len(out))
	}
	// The maximum does not depend on the layout: os's is out's.
	mx := m.multiply(xs, ys, os, track)
	if m.xp != nil {
		pl.put(xs)
	}
	if m.yp != nil {
		pl.put(ys)
	}
	if m.op != nil {
		m.op.run(os, out)
		pl.put(os)
	}
	return mx
}

// multiply runs the batch of products, the batches split between two
// workers when there are enough of them (each product is one worker's, so
// the result does not depend on the split). With track it returns out's
// largest entry, taken from each product as it is written, while it is in
// the cache.
func (m *matmul) multiply(x, y, out []float64, track bool) float64 {
	xl, yl, ol := m.nl*m.nk, m.nk*m.nr, m.nl*m.nr
	batches := func(lo, hi int) float64 {
		var mx float64
		for b := lo; b < hi; b++ {
			o := out[b*ol : (b+1)*ol]
			dgemm(m.tA, m.tB, m.nl, m.nr, m.nk, x[b*xl:(b+1)*xl], m.lda, y[b*yl:(b+1)*yl], m.ldb, 0, o, m.nr)
			if track {
				mx = maxAbove(mx, o)
			}
		}
		return mx
	}
	return splitBatches(m, batches)
}

// gather runs the batch of products on the tables in place, the batches
// split between two workers as multiply does. With track it returns the
// largest entry of out.
func (m *matmul) gather(x, y, out []float64, track bool) float64 {
	if m.small != nil {
		return m.gatherSmall(m.small, x, y, out)
	}
	g := m.g
	one := func(buf *gemmBuffer, b int) float64 {
		gx, gy, gout := g.x, g.y, g.out
		ox, oy, oo := g.batch(b)
		gx.s, gy.s, gout.s = x[ox:], y[oy:], out[oo:]
		return gatherGemm(nativeMicro, buf, m.nl, m.nr, m.nk, gx, gy, 0, gout, track)
	}
	return splitBatches(m, func(lo, hi int) float64 {
		buf := gemmBuffers.Get().(*gemmBuffer)
		defer gemmBuffers.Put(buf)
		var mx float64
		for b := lo; b < hi; b++ {
			mx = max(mx, one(buf, b))
		}
		return mx
	})
}

// splitBatches runs the batches of m by run, split in two halves between
// two workers when they are large enough (by a fixed rule, so the result
// does not depend on the number of cores), and returns the larger maximum.
func splitBatches(m *matmul, run func(lo, hi int) float64) float64 {
	if m.nb < 2 || m.nb*m.nl*m.nk*m.nr < parallelMin {
		return run(0, m.nb)
	}
	var wg sync.WaitGroup
	var mx1 float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		mx1 = run(m.nb/2, m.nb)
	}()
	mx0 := run(0, m.nb/2)
	wg.Wait()
	return max(mx0, mx1)
}

// permutation moves a table over some variables into another order of
// them. The destination is cut into chunks of its fastest dimensions (at
// least chunkMin entries, or the whole table), and the source offset of
// every entry of a chunk relative to the chunk's start is computed once, so
// a chunk is one gather with no loop nest.
type permutation struct {
	idx   []int32   // source offsets within a chunk
	runs  []copyRun // the chunk as runs of entries contiguous in both tables; nil if short
	outer *geom     // the dimensions outside a chunk; operands src, dst
}

// copyRun is a stretch of a chunk contiguous in both tables: n entries from
// source offset src to destination offset dst.
type copyRun struct{ dst, src, n int32 }

// minRun is the shortest average run a chunk is copied by runs.
const minRun = 8

const chunkMin = 1 << 10

func newPermutation(card []int, sv, dv []int) *permutation {
	n := len(dv)
	chunk, c := n, 1
	for chunk > 0 && c < chunkMin {
		chunk--
		c *= card[dv[chunk]]
	}
	inner := dv[chunk:]
	sst := stridesIn(card, sv, inner)
	p := &permutation{idx: make([]int32, c)}
	odometer(card, inner, sst, func(i, off int) { p.idx[i] = int32(off) })
	var runs []copyRun
	for i, o := range p.idx {
		if l := len(runs) - 1; l >= 0 && o == runs[l].src+runs[l].n {
			runs[l].n++
			continue
		}
		runs = append(runs, copyRun{dst: int32(i), src: o, n: 1})
	}
	if len(p.idx) >= minRun*len(runs) {
		p.runs = runs
	}
	outerVars := dv[:chunk]
	oc := make([]int, len(outerVars))
	for d, v := range outerVars {
		oc[d] = card[v]
	}
	st := [][]int{stridesIn(card, sv, outerVars), stridesIn(card, dv, outerVars)}
	p.outer = newGeom(oc, st, []int{1}, -1, 1)
	p.outer.split = -1
	if tableSize(card, dv) >= parallelMin {
		p.outer.chooseSplit([]int{1})
	}
	return p
}

func (p *permutation) run(src, dst []float64) {
	c := len(p.idx)
	g := p.outer
	g.run(func(_ int, lo, hi []int) {
		rows, n2, rs, is := g.blockShape(lo, hi)
		g.walk(lo, hi, func(off []int, _, _ bool) {
			for i := range rows {
				for j := range n2 {
					so := off[0] + i*rs[0] + j*is[0]
					do := off[1] + i*rs[1] + j*is[1]
					d := dst[do : do+c]
					s := src[so:]
					if p.runs != nil {
						for _, r := range p.runs {
							copy(d[r.dst:r.dst+r.n], s[r.src:r.src+r.n])
						}
						continue
					}
					for k, o := range p.idx {
						d[k] = s[o]
					}
				}
			}
		})
	})
}

// gemmEfficient reports whether Dgemm runs a product with op(B) = tB and n
// columns and k summed at speed: it sweeps rows of n entries (B not
// transposed) or takes dot products of k (B transposed), each call of its
// assembly kernels worth it only on long enough runs.
func gemmEfficient(tB blas.Transpose, n, k int) bool {
	if tB == blas.NoTrans {
		return n >= minGemmRun
	}
	return k >= minGemmRun
}

// minGemmRun is the shortest run of entries the matrix products sweep.
const minGemmRun = 16

// dgemm is c = a·b + beta·c: by gemm when c is at least minTiledSide long
// on both sides, else by gonum's Dgemm, which shares large products
// between goroutines in tiles of 64x64 entries of c, each tile a goroutine.
// Products that are large in c but thin in k (a few multiply-adds per
// entry) would spend more on the goroutines than on the arithmetic; they
// are cut into tiles here and run in turn. The tiles, and the order of the
// summation within each entry, are the same either way.
func dgemm(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if min(m, n) >= minTiledSide {
		gemm(nativeMicro, tA, tB, m, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if k >= denseK || m <= gemmTile || n <= gemmTile {
		if m*n <= 4*gemmTile*gemmTile || k >= denseK {
			blas64.Dgemm(tA, tB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
			return
		}
	}
	for i := 0; i < m; i += gemmTile {
		mi := min(gemmTile, m-i)
		ai := i * lda
		if tA == blas.Trans {
			ai = i
		}
		for j := 0; j < n; j += 2 * gemmTile {
			nj := min(2*gemmTile, n-j)
			bj := j
			if tB == blas.Trans {
				bj = j * ldb
			}
			blas64.Dgemm(tA, tB, mi, nj, k, 1, a[ai:], lda, b[bj:], ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}

// gemmTile is gonum's tile of parallel products; denseK the summed length
// from which its goroutines pay off.
const (
	gemmTile = 64
	denseK   = 64
)

// blockGemm runs a contraction as Dgemm calls on 2-D blocks of the tables
// where they lie, with no copies: the output's unit-stride dimension (N,
// kept from one operand), a kept dimension of the other operand (M, or
// none) and a summed dimension (K) form each call's matrices
//
//	out[M,N] += x[M,K] · y[K,N]
//
// (either operand read transposed where its unit stride is on the other
// dimension), and every other dimension is walked outside, the summed ones
// outermost: the first sweep writes the output, later ones add to it.
type blockGemm struct {
	swap          bool  // x and y trade places: N is x's
	outer         *geom // the other dimensions; operands x, y, out
	m, n, k       int
	tA, tB        blas.Transpose
	lda, ldb, ldc int
}

// minBlock is the least number of multiply-adds of one Dgemm call for a
// contraction to run as blocks.
const minBlock = 512

func newBlockGemm(card []int, xv, yv, ov []int) *blockGemm {
	dims, st := unionStrides(card, xv, yv, ov)
	cards := make([]int, len(dims))
	for d, v := range dims {
		cards[d] = card[v]
	}
	size, stride := mergeDims(cards, st)
	sx, sy, so := stride[0], stride[1], stride[2]
	nd := slices.Index(so, 1)
	if nd < 0 || (sx[nd] != 0 && sy[nd] != 0) {
		return nil // out is a scalar, or its fastest dimension is a batch
	}
	b := &blockGemm{swap: sx[nd] != 0}
	if b.swap {
		sx, sy = sy, sx
	}
	kd, md, work := blockDims(size, sx, sy, so, nd)
	if kd < 0 || work < minBlock || !b.layout(size, sx, sy, so, nd, kd, md) {
		return nil
	}
	var oc []int
	ost := make([][]int, 3)
	for d := range size {
		if d == nd || d == kd || d == md {
			continue
		}
		oc = append(oc, size[d])
		for op, s := range [][]int{sx, sy, so} {
			ost[op] = append(ost[op], s[d])
		}
	}
	b.outer = newGeom(oc, ost, []int{2}, 2, 2)
	b.outer.split = -1
	if outerN := tableSize(oc, seq(len(oc))); outerN*work >= parallelMin {
		b.outer.chooseSplit([]int{2})
	}
	return b
}

// blockDims picks the summed dimension kd and the kept dimension md of x
// (-1 for none) that, with the output's unit-stride dimension nd, make the
// largest block both operands can be read as in place: y with unit stride
// on nd or kd, x on kd or md. It returns kd -1 if there is none.
func blockDims(size []int, sx, sy, so []int, nd int) (kd, md, work int) {
	kd, md = -1, -1
	for k := range size {
		if sx[k] == 0 || sy[k] == 0 || so[k] != 0 || (sy[nd] != 1 && sy[k] != 1) {
			continue
		}
		for m := -1; m < len(size); m++ {
			if m >= 0 && (sx[m] == 0 || sy[m] != 0 || so[m] == 0) {
				continue
			}
			if sx[k] != 1 && (m < 0 || sx[m] != 1) {
				continue
			}
			w := size[k] * size[nd]
			if m >= 0 {
				w *= size[m]
			}
			if w > work {
				kd, md, work = k, m, w
			}
		}
	}
	return kd, md, work
}

// layout sets the block's sizes, transpositions and leading dimensions,
// and reports whether Dgemm runs it at speed: not with both operands
// transposed (its slow strided path; matrix products after a permutation
// do better), and only on long enough runs.
func (b *blockGemm) layout(size, sx, sy, so []int, nd, kd, md int) bool {
	b.n, b.k, b.m = size[nd], size[kd], 1
	b.ldc = b.n
	if md >= 0 {
		b.m, b.ldc = size[md], so[md]
	}
	if sx[kd] == 1 {
		b.tA, b.lda = blas.NoTrans, max(b.k, 1)
		if md >= 0 {
			b.lda = sx[md]
		}
	} else {
		b.tA, b.lda = blas.Trans, sx[kd]
	}
	if sy[nd] == 1 {
		b.tB, b.ldb = blas.NoTrans, sy[kd]
	} else {
		b.tB, b.ldb = blas.Trans, sy[nd]
	}
	if (b.tA == blas.Trans && b.tB == blas.Trans) || !gemmEfficient(b.tB, b.n, b.k) {
		return false
	}
	// Dgemm's own bounds on the leading dimensions.
	return !((b.tA == blas.NoTrans && b.lda < b.k) || (b.tA == blas.Trans && b.lda < b.m) ||
		(b.tB == blas.NoTrans && b.ldb < b.n) || (b.tB == blas.Trans && b.ldb < b.k) || b.ldc < b.n)
}

// seq returns 0..n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// run computes out from x and y and, with track, returns out's largest
// entry, taken from each block of out as its last product is added, while
// the block is in the cache.
func (b *blockGemm) run(x, y, out []float64, track bool) float64 {
	if b.swap {
		x, y = y, x
	}
	g := b.outer
	var mx [2]float64
	g.run(func(part int, lo, hi []int) {
		rows, n2, rs, is := g.blockShape(lo, hi)
		g.walk(lo, hi, func(off []int, first, last bool) {
			for i := range rows {
				for j := range n2 {
					ox := off[0] + i*rs[0] + j*is[0]
					oy := off[1] + i*rs[1] + j*is[1]
					oo := off[2] + i*rs[2] + j*is[2]
					// The first call on a block of out writes it, later
					// ones (other states of summed dimensions) add.
					beta := 1.0
					if first && (rs[2] != 0 || i == 0) && (is[2] != 0 || j == 0) {
						beta = 0
					}
					dgemm(b.tA, b.tB, b.m, b.n, b.k, x[ox:], b.lda, y[oy:], b.ldb, beta, out[oo:], b.ldc)
					if track && last {
						mx[part] = b.maxBlock(out[oo:], mx[part])
					}
				}
			}
		})
	})
	return max(mx[0], mx[1])
}

// maxBlock returns the largest of mx and the entries of a block of out
// (its b.m rows of b.n entries, b.ldc apart) from the start of c.
func (b *blockGemm) maxBlock(c []float64, mx float64) float64 {
	for r := range b.m {
		mx = maxAbove(mx, c[r*b.ldc:r*b.ldc+b.n])
	}
	return mx
}

// kernelCache holds the kernels of one plan by their shape: a kernel
// depends only on the cardinalities of the variables of its contraction and
// on where each table holds them, so contractions alike, as many of a
// model's factors are, share one.
type kernelCache map[string]*kernel

// kernel returns the kernel of out[ov] = Σ x[xv]·y[yv], made once per shape.
func (c kernelCache) kernel(card, xv, yv, ov []int) *kernel {
	key := shapeKey(card, xv, yv, ov)
	if k := c[string(key)]; k != nil {
		return k
	}
	k := newKernel(card, xv, yv, ov)
	c[string(key)] = k
	return k
}

// shapeKey encodes a contraction with its variables renamed by their first
// place in ov, xv and yv (the order newKernel's loops take them in): the
// three layouts, then the cardinality of each variable.
func shapeKey(card, xv, yv, ov []int) []byte {
	var names [16]int
	dims := names[:0]
	key := make([]byte, 0, 64)
	for _, vs := range [][]int{ov, xv, yv} {
		key = binary.AppendUvarint(key, uint64(len(vs)))
		for _, v := range vs {
			i := slices.Index(dims, v)
			if i < 0 {
				i = len(dims)
				dims = append(dims, v)
			}
			key = binary.AppendUvarint(key, uint64(i))
		}
	}
	for _, v := range dims {
		key = binary.AppendUvarint(key, uint64(card[v]))
	}
	return key
}
