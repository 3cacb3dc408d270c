package exact

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// parallelMin is the table size from which loops are split in two halves
// that run concurrently. The split is the same on every machine, so results
// do not depend on the number of cores.
const parallelMin = 1 << 16

// tiny is the relative size below which normalised entries are flushed to
// zero; it keeps denormals (which are very slow) out of the tables.
const tiny = 1e-300

// geom is the loop structure over one clique table, shared by all operands
// of a step. Consecutive clique dimensions are merged where every operand is
// contiguous across them (or absent from both). The dimensions the written
// operand lacks (those summed over) go outermost; the others follow in the
// written operand's memory order, so it is swept sequentially. The last one
// or two dimensions form the block that a kernel call handles with plain
// loops: the innermost is the fastest dimension (or, if that is very short,
// the largest one), the row dimension is the largest of the rest.
type geom struct {
	size   []int   // loop dimensions, outer to inner
	stride [][]int // stride[op][dim]; 0 where the operand lacks the dimension
	split  int     // dimension whose range is shared between two workers; -1 for none
	nsum   int     // the first nsum dimensions are those the written operand lacks
	block  int     // 1 or 2: dimensions handled inside one kernel call
	// blas lets sumProduct run long inner loops through gonum's assembly
	// (Dasum, Daxpy, Ddot; their summation order differs from the loops',
	// so the elimination engine, whose samples must not move, keeps the
	// loops).
	blas bool
}

// minBLAS is the shortest inner loop given to gonum's level-1 routines.
const minBLAS = 16

// minInner is the shortest fastest dimension kept innermost; below it the
// largest dimension goes innermost instead (strided but long).
const minInner = 8

// newGeom builds the loop structure for a clique with dimension sizes cards
// and operand strides st[op][dim]. The operands listed in disjoint are
// written by the kernel, so only a dimension they all contain may be split.
// If sumOp >= 0, the dimensions that operand lacks (those summed over when
// writing it) are put outermost, so that every entry of it is first reached
// in the first sweep over the others and can be zeroed there instead of by
// a separate pass over the whole table. orderOp gives the memory order.
func newGeom(cards []int, st [][]int, disjoint []int, sumOp, orderOp int) *geom {
	return buildGeom(cards, st, disjoint, sumOp, orderOp, false)
}

// newReducingGeom is newGeom that keeps a summed dimension innermost (as a
// reduction along it) when the largest read operand is contiguous along it,
// rather than sweeping the written operand once per state of it.
func newReducingGeom(cards []int, st [][]int, disjoint []int, sumOp, orderOp int) *geom {
	g := buildGeom(cards, st, disjoint, sumOp, orderOp, true)
	g.blas = true
	return g
}

// buildGeom is newGeom, or with reduce newReducingGeom without its blas.
func buildGeom(cards []int, st [][]int, disjoint []int, sumOp, orderOp int, reduce bool) *geom {
	g := &geom{split: -1}
	total := 1
	for _, c := range cards {
		total *= c
	}
	g.size, g.stride = mergeDims(cards, st)
	var summed, rest []int
	for d := range g.size {
		if sumOp >= 0 && g.stride[sumOp][d] == 0 {
			summed = append(summed, d)
		} else {
			rest = append(rest, d)
		}
	}
	if len(rest) == 0 { // everything is summed: the innermost becomes a reduction
		g.orderSweep(summed[:len(summed)-1], summed[len(summed)-1:], orderOp)
	} else if d := g.unitDim(sumOp); reduce && d >= 0 && g.stride[sumOp][d] == 0 && g.size[d] >= minInner {
		// The largest read table is contiguous along a long enough summed
		// dimension: reduce along it innermost.
		g.orderReduce(summed, rest, d)
	} else {
		g.orderSweep(summed, rest, orderOp)
	}
	if total >= parallelMin {
		g.chooseSplit(disjoint)
	}
	return g
}

// orderReduce orders the dimensions for a reduction along the summed
// dimension d: the other summed ones outermost, then the kept ones, the
// longest of which gives the rows of a block, and d innermost.
func (g *geom) orderReduce(summed, rest []int, d int) {
	i := slices.Index(summed, d)
	summed = slices.Delete(summed, i, i+1)
	g.nsum = len(summed)
	r := 0
	for j, e := range rest {
		if g.size[e] > g.size[rest[r]] {
			r = j
		}
	}
	row := rest[r]
	rest = slices.Delete(rest, r, r+1)
	g.reorder(append(append(append(slices.Clone(summed), rest...), row), d))
	g.block = 2
}

// orderSweep orders the dimensions so the written operand is swept in
// orderOp's memory order: the summed ones outermost, then rest slowest
// first, the largest of them as the rows of a block before the innermost.
func (g *geom) orderSweep(summed, rest []int, orderOp int) {
	// Memory order of orderOp, slowest first; dimensions it lacks go first.
	memStride := func(d int) int {
		if s := g.stride[orderOp][d]; s != 0 {
			return s
		}
		return math.MaxInt
	}
	slices.SortStableFunc(rest, func(a, b int) int { return cmp.Compare(memStride(b), memStride(a)) })
	inner := rest[len(rest)-1]
	rest = rest[:len(rest)-1]
	g.block = 1
	row := -1
	if len(rest) > 0 {
		b := len(rest) - 1 // the largest
		for i, d := range rest {
			if g.size[d] > g.size[rest[b]] {
				b = i
			}
		}
		row = rest[b]
		rest = slices.Delete(rest, b, b+1)
		if g.size[inner] < minInner && g.size[row] > g.size[inner] {
			inner, row = row, inner
		}
		g.block = 2
	}
	perm := append(append([]int(nil), summed...), rest...)
	if row >= 0 {
		perm = append(perm, row)
	}
	g.nsum = len(summed)
	g.reorder(append(perm, inner))
}

// reorder permutes the loop dimensions: dimension i becomes the former
// perm[i].
func (g *geom) reorder(perm []int) {
	g.size = permute(g.size, perm)
	for op := range g.stride {
		g.stride[op] = permute(g.stride[op], perm)
	}
}

// unitDim returns the dimension along which the largest operand other than
// written is contiguous, or -1.
func (g *geom) unitDim(written int) int {
	best, size := -1, 0
	for op, st := range g.stride {
		if op == written {
			continue
		}
		n := 1
		for d, s := range st {
			if s != 0 {
				n = max(n, s*g.size[d])
			}
		}
		if d := slices.Index(st, 1); d >= 0 && n > size {
			best, size = d, n
		}
	}
	return best
}

// mergeDims drops dimensions of size 1 and merges consecutive dimensions
// across which every operand is contiguous (or absent from both), so loops
// run over fewer, longer dimensions.
func mergeDims(cards []int, st [][]int) ([]int, [][]int) {
	var size []int
	stride := make([][]int, len(st))
	for d, c := range cards {
		if c == 1 {
			continue
		}
		if last := len(size) - 1; last >= 0 {
			merge := true
			for op := range st {
				if stride[op][last] != st[op][d]*c {
					merge = false
					break
				}
			}
			if merge {
				size[last] *= c
				for op := range st {
					stride[op][last] = st[op][d]
				}
				continue
			}
		}
		size = append(size, c)
		for op := range st {
			stride[op] = append(stride[op], st[op][d])
		}
	}
	if len(size) == 0 {
		size = []int{1}
		for op := range st {
			stride[op] = []int{0}
		}
	}
	return size, stride
}

// chooseSplit picks the largest dimension that every operand of disjoint
// holds as the one shared between two workers.
func (g *geom) chooseSplit(disjoint []int) {
	for d, sz := range g.size {
		ok := sz >= 2 && (g.split < 0 || sz > g.size[g.split])
		for _, op := range disjoint {
			ok = ok && g.stride[op][d] != 0
		}
		if ok {
			g.split = d
		}
	}
}

func permute(a, perm []int) []int {
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = a[p]
	}
	return out
}

// parts returns the loop ranges [lo, hi) of each worker.
func (g *geom) parts() [][2][]int {
	full := func() [2][]int {
		lo := make([]int, len(g.size))
		return [2][]int{lo, append([]int(nil), g.size...)}
	}
	if g.split < 0 {
		return [][2][]int{full()}
	}
	a, b := full(), full()
	mid := g.size[g.split] / 2
	a[1][g.split] = mid
	b[0][g.split] = mid
	return [][2][]int{a, b}
}

// run calls body once per worker range, concurrently when there are two.
func (g *geom) run(body func(part int, lo, hi []int)) {
	ps := g.parts()
	if len(ps) == 1 {
		body(0, ps[0][0], ps[0][1])
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		body(1, ps[1][0], ps[1][1])
	}()
	body(0, ps[0][0], ps[0][1])
	wg.Wait()
}

// walk visits the dimensions outside the block within the range [lo, hi)
// with an odometer and calls block with every operand's offset at the start
// of the block; first is true until one of the g.nsum summed dimensions
// moves, last once they all reach their last states.
func (g *geom) walk(lo, hi []int, block func(off []int, first, last bool)) {
	nd := len(g.size)
	for d := range nd {
		if hi[d] <= lo[d] {
			return
		}
	}
	off := make([]int, len(g.stride))
	idx := append([]int(nil), lo...)
	for op, st := range g.stride {
		for d := range nd {
			off[op] += st[d] * lo[d]
		}
	}
	first, last := true, g.lastSummed(idx, hi)
	for {
		block(off, first, last)
		d := nd - g.block - 1
		for ; d >= 0; d-- {
			idx[d]++
			for op, st := range g.stride {
				off[op] += st[d]
			}
			if idx[d] < hi[d] {
				break
			}
			for op, st := range g.stride {
				off[op] -= st[d] * (hi[d] - lo[d])
			}
			idx[d] = lo[d]
		}
		if d < 0 {
			return
		}
		if d < g.nsum {
			first, last = false, g.lastSummed(idx, hi)
		}
	}
}

// lastSummed reports whether the summed dimensions are at their last
// states.
func (g *geom) lastSummed(idx, hi []int) bool {
	for d := range g.nsum {
		if idx[d] != hi[d]-1 {
			return false
		}
	}
	return true
}

// blockShape returns the block of the range [lo, hi): its number of rows,
// the row length, and every operand's row and inner strides.
func (g *geom) blockShape(lo, hi []int) (rows, n int, rs, is []int) {
	last := len(g.size) - 1
	n = hi[last] - lo[last]
	rows = 1
	rs = make([]int, len(g.stride))
	is = make([]int, len(g.stride))
	for op, st := range g.stride {
		is[op] = st[last]
		if g.block == 2 {
			rs[op] = st[last-1]
		}
	}
	if g.block == 2 {
		rows = hi[last-1] - lo[last-1]
	}
	return rows, n, rs, is
}

// sumProduct writes into out the product of the operands in summed over the
// dimensions out lacks: out[s] = Σ Π_i in[i][·], with out operand len(in) of
// g, which must have been built with that operand as sumOp. Two workers
// write disjoint parts of out. With track it returns out's largest entry,
// taken from each row as its last sum is added, while the row is in the
// cache.
func sumProduct(g *geom, in [][]float64, out []float64, track bool) float64 {
	var mx [2]float64
	g.run(func(part int, lo, hi []int) {
		p := productPart{in: in, out: out, blas: g.blas}
		p.rows, p.n, p.rs, p.is = g.blockShape(lo, hi)
		var scal, vec []int // operands constant along a row, and the others
		for op := range in {
			if p.is[op] == 0 {
				scal = append(scal, op)
			} else {
				vec = append(vec, op)
			}
		}
		// scal and vec are passed apart from p so they stay on the stack.
		if len(vec) <= 1 {
			g.walk(lo, hi, func(off []int, first, last bool) { p.blockUpToOne(scal, vec, off, first, track && last) })
		} else {
			g.walk(lo, hi, func(off []int, first, last bool) { p.blockTwoOrMore(scal, vec, off, first, track && last) })
		}
		mx[part] = p.mx
	})
	return max(mx[0], mx[1])
}

// productPart is one worker's share of a sumProduct: the operands and the
// block shape of its range.
type productPart struct {
	in      [][]float64
	out     []float64 // operand len(in)
	rows, n int       // rows of a block, and their length
	rs, is  []int     // every operand's row and inner strides
	blas    bool      // from the geom
	mx      float64   // the largest entry of out finished so far
}

// blockUpToOne adds into out the products of the block whose operands start
// at off, when at most one operand (vec) varies along a row and the others
// (scal) are constant along it. Entries of out reached for the first time
// are written (the products of non-negative tables added to zero are the
// same numbers), or zeroed first where the row is strided.
func (p *productPart) blockUpToOne(scal, vec, off []int, first, last bool) {
	in, out, oop := p.in, p.out, len(p.in)
	rows, n, rs, is := p.rows, p.n, p.rs, p.is
	so := is[oop]
	set := first && so == 1 && (len(vec) == 0 || is[vec[0]] == 1)
	for i := range rows {
		oo := off[oop] + i*rs[oop]
		if first && !set {
			zeroStrided(out, oo, so, n)
		}
		f := rowFactor(in, scal, off, rs, i)
		if set {
			setRow(out[oo:oo+n], f, in, vec, off, rs, i)
			continue
		}
		if f == 0 {
			continue
		}
		if len(vec) == 0 {
			if so == 0 {
				out[oo] += f * float64(n)
				continue
			}
			for j := range n {
				out[oo+j*so] += f
			}
			continue
		}
		a, sa := in[vec[0]], is[vec[0]]
		oa := off[vec[0]] + i*rs[vec[0]]
		switch {
		case p.blas && n >= minBLAS && so == 0:
			// The tables are non-negative: Dasum is their sum.
			out[oo] += f * blas64.Dasum(n, a[oa:], sa)
		case p.blas && n >= minBLAS:
			blas64.Daxpy(n, f, a[oa:], sa, out[oo:], so)
		case so == 0:
			out[oo] += f * sumStrided(a, oa, sa, n)
		case so == 1 && sa == 1:
			o, a := out[oo:oo+n], a[oa:oa+n]
			for j, x := range a {
				o[j] += f * x
			}
		default:
			for j := range n {
				out[oo+j*so] += f * a[oa+j*sa]
			}
		}
	}
	if last {
		for i := range rows {
			p.mx = maxStrided(out, off[oop]+i*rs[oop], so, n, p.mx)
		}
	}
}

// blockTwoOrMore is blockUpToOne for two or more operands varying along a
// row.
func (p *productPart) blockTwoOrMore(scal, vec, off []int, first, last bool) {
	in, out, oop := p.in, p.out, len(p.in)
	rows, n, rs, is := p.rows, p.n, p.rs, p.is
	so := is[oop]
	set := first && so == 1 && len(vec) == 2 && is[vec[0]] == 1 && is[vec[1]] == 1
	for i := range rows {
		oo := off[oop] + i*rs[oop]
		if first && !set {
			zeroStrided(out, oo, so, n)
		}
		f := rowFactor(in, scal, off, rs, i)
		if set {
			setRow(out[oo:oo+n], f, in, vec, off, rs, i)
			continue
		}
		if f == 0 {
			continue
		}
		if len(vec) > 2 {
			for j := range n {
				q := f
				for _, op := range vec {
					q *= in[op][off[op]+i*rs[op]+j*is[op]]
				}
				out[oo+j*so] += q
			}
			continue
		}
		a, sa := in[vec[0]], is[vec[0]]
		b, sb := in[vec[1]], is[vec[1]]
		oa, ob := off[vec[0]]+i*rs[vec[0]], off[vec[1]]+i*rs[vec[1]]
		switch {
		case p.blas && n >= minBLAS && so == 0:
			out[oo] += f * blas64.Ddot(n, a[oa:], sa, b[ob:], sb)
		case so == 0:
			var acc0, acc1 float64
			j := 0
			for ; j+1 < n; j += 2 {
				acc0 += a[oa+j*sa] * b[ob+j*sb]
				acc1 += a[oa+(j+1)*sa] * b[ob+(j+1)*sb]
			}
			if j < n {
				acc0 += a[oa+j*sa] * b[ob+j*sb]
			}
			out[oo] += f * (acc0 + acc1)
		case so == 1 && sa == 1 && sb == 1:
			o, a, b := out[oo:oo+n], a[oa:oa+n], b[ob:ob+n]
			for j, x := range a {
				o[j] += f * x * b[j]
			}
		default:
			for j := range n {
				out[oo+j*so] += f * a[oa+j*sa] * b[ob+j*sb]
			}
		}
	}
	if last {
		for i := range rows {
			p.mx = maxStrided(out, off[oop]+i*rs[oop], so, n, p.mx)
		}
	}
}

// setRow writes into o, row i of a block, f times the contiguous rows of
// the operands vec (none, one or two) at off, as zero plus them would be.
func setRow(o []float64, f float64, in [][]float64, vec, off, rs []int, i int) {
	switch {
	case f == 0:
		clear(o)
	case len(vec) == 0:
		for j := range o {
			o[j] = f
		}
	case len(vec) == 1:
		oa := off[vec[0]] + i*rs[vec[0]]
		a := in[vec[0]][oa : oa+len(o)]
		for j, x := range a {
			o[j] = f * x
		}
	default:
		oa, ob := off[vec[0]]+i*rs[vec[0]], off[vec[1]]+i*rs[vec[1]]
		a, b := in[vec[0]][oa:oa+len(o)], in[vec[1]][ob:ob+len(o)]
		for j, x := range a {
			o[j] = f * x * b[j]
		}
	}
}

// rowFactor is the product of the operands scal, constant along row i of
// the block at off.
func rowFactor(in [][]float64, scal, off, rs []int, i int) float64 {
	f := 1.0
	for _, op := range scal {
		f *= in[op][off[op]+i*rs[op]]
	}
	return f
}

// zeroStrided sets a[o+j*s] to zero for j < n (just a[o] if s is 0).
func zeroStrided(a []float64, o, s, n int) {
	if s == 0 {
		a[o] = 0
		return
	}
	for j := range n {
		a[o+j*s] = 0
	}
}

// maxStrided returns the largest of mx and a[o+j*s] for j < n (just a[o]
// if s is 0).
func maxStrided(a []float64, o, s, n int, mx float64) float64 {
	if s == 0 {
		n = 1
	}
	for j := range n {
		if v := a[o+j*s]; v > mx {
			mx = v
		}
	}
	return mx
}

// sumStrided returns Σ_j a[o+j*s] for j < n, with two accumulators to
// break the dependency chain of the additions.
func sumStrided(a []float64, o, s, n int) float64 {
	var acc0, acc1 float64
	j := 0
	for ; j+1 < n; j += 2 {
		acc0 += a[o+j*s]
		acc1 += a[o+(j+1)*s]
	}
	if j < n {
		acc0 += a[o+j*s]
	}
	return acc0 + acc1
}

// maxOf returns the largest entry of non-negative vals (0 if empty).
func maxOf(vals []float64) float64 {
	halves := [][]float64{vals}
	if len(vals) >= parallelMin {
		halves = [][]float64{vals[:len(vals)/2], vals[len(vals)/2:]}
	}
	maxes := make([]float64, len(halves))
	both(len(halves), func(h int) {
		// Four running maxima keep the comparisons independent.
		v := halves[h]
		var m0, m1, m2, m3 float64
		i := 0
		for ; i+3 < len(v); i += 4 {
			if v[i] > m0 {
				m0 = v[i]
			}
			if v[i+1] > m1 {
				m1 = v[i+1]
			}
			if v[i+2] > m2 {
				m2 = v[i+2]
			}
			if v[i+3] > m3 {
				m3 = v[i+3]
			}
		}
		for ; i < len(v); i++ {
			if v[i] > m0 {
				m0 = v[i]
			}
		}
		maxes[h] = max(m0, m1, m2, m3)
	})
	return max(maxes[0], maxes[len(maxes)-1])
}

// scale multiplies vals by inv and flushes entries below tiny to zero.
func scale(vals []float64, inv float64) {
	halves := [][]float64{vals}
	if len(vals) >= parallelMin {
		halves = [][]float64{vals[:len(vals)/2], vals[len(vals)/2:]}
	}
	both(len(halves), func(h int) {
		v := halves[h]
		for i, x := range v {
			x *= inv
			if x < tiny {
				x = 0
			}
			v[i] = x
		}
	})
}

// rawRange bounds the maxima of tables left unnormalised: a product of up
// to maxRawChildren such tables with normalised ones stays far inside the
// float64 range (losing at most 2^-80 of its relative range at the bottom),
// so the normalising pass is only needed outside it.
const (
	rawRange       = 0x1p20
	maxRawChildren = 4
)

// normalise rescales vals so their maximum is 1 if it is outside
// [1/rawRange, rawRange] or force is set, and returns the log of the factor
// taken out (0 if none, -Inf if every entry is zero).
func normalise(vals []float64, force bool) float64 {
	ls, _ := normaliseMax(vals, force)
	return ls
}

// normaliseMax is normalise that also returns the log of the maximum left.
func normaliseMax(vals []float64, force bool) (ls, lmax float64) {
	return normaliseKnown(vals, force, maxOf(vals))
}

// normaliseKnown is normaliseMax given vals' largest entry mx (taken by the
// kernel that wrote vals).
func normaliseKnown(vals []float64, force bool, mx float64) (ls, lmax float64) {
	switch {
	case mx == 0:
		return math.Inf(-1), math.Inf(-1)
	case !force && mx >= 1/rawRange && mx <= rawRange:
		return 0, math.Log(mx)
	case mx < minNormal:
		// 1/mx overflows for a subnormal maximum: lift the table by an
		// exact power of two first.
		scale(vals, 0x1p600)
		scale(vals, 1/(mx*0x1p600))
		return math.Log(mx), 0
	}
	scale(vals, 1/mx)
	return math.Log(mx), 0
}

// minNormal is the smallest positive normal float64.
const minNormal = 0x1p-1022

// both runs f(0..n-1) with n ≤ 2, the second one concurrently.
func both(n int, f func(int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(1)
	}()
	f(0)
	wg.Wait()
}
