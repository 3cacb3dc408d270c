package exact

import "slices"

// csizer runs a contraction plan's schedule (sweep) on sizes only, as the
// sizer does for the elimination engine: it mirrors tnEngine's tables in
// bytes and counts its multiply-adds, recomputed contractions included.
type csizer struct {
	p           *cplan
	budget      int64
	val, adj    []int64
	fixed, held int64
	pool        int64
	peak        int64
	flops       float64 // multiply-adds
	written     float64 // entries written by contractions
	union       []float64
	scratch     bool // count the kernels' scratch tables (which prepares the kernels)
}

// kernelBytes is about the size of one prepared kernel (its loop structure
// and strides).
const kernelBytes = 2 << 10

// sizeSlice returns the peak bytes, multiply-adds and entries written of
// one slice of p with a budget for held tables. Without scratch it leaves
// out the kernels' scratch tables, whose sizes take preparing the kernels.
func sizeSlice(p *cplan, budget int64, scratch bool) (peak int64, flops, written float64) {
	z := &csizer{p: p, budget: budget, val: make([]int64, len(p.steps)), adj: make([]int64, len(p.steps)),
		union: make([]float64, len(p.steps)), scratch: scratch}
	card := p.nw.card
	for k := range p.steps {
		s := &p.steps[k]
		u := slices.Clone(p.vars(s.x))
		for _, v := range p.vars(s.y) {
			if !slices.Contains(u, v) {
				u = append(u, v)
			}
		}
		z.union[k] = tableSizeF(card, u)
	}
	var biggest int64
	for i, lf := range p.nw.leaves {
		full := 8 * int64(tableSize(card, lf.vars))
		// The model's tables, the marginals' accumulators and this slice's
		// network tensors; leaf work is counted as entries written.
		z.fixed = satAdd(z.fixed, satAdd(2*full, 8*int64(tableSize(card, p.leafVars[i]))))
		z.written += 3 * float64(full/8)
		biggest = max(biggest, full)
	}
	// The prepared kernels of the contractions and leaves stay for the run.
	z.fixed = satAdd(z.fixed, kernelBytes*int64(3*len(p.steps)+2*len(p.nw.leaves)))
	z.note(biggest) // a leaf's slice and its marginal, one leaf at a time
	_ = sweep(z, p, 0, len(p.steps))
	return z.peak, z.flops, z.written
}

func tableSizeF(card []int, vars []int) float64 {
	x := 1.0
	for _, v := range vars {
		x *= float64(card[v])
	}
	return x
}

func (z *csizer) note(transient int64) {
	z.peak = max(z.peak, satAdd(satAdd(z.fixed, z.held), satAdd(z.pool, transient)))
}

func (z *csizer) get(b int64) {
	if z.pool >= b {
		z.pool -= b
	}
}

func (z *csizer) put(b int64) {
	if z.pool+b <= z.budget {
		z.pool += b
	}
}

func (z *csizer) bytes(o int) int64 { return 8 * int64(tableSize(z.p.nw.card, z.p.vars(o))) }

func (z *csizer) forward(k int) error {
	b := 8 * z.p.steps[k].size
	z.get(b)
	z.val[k] = b
	z.held = satAdd(z.held, b)
	z.flops += z.union[k]
	z.written += float64(z.p.steps[k].size)
	z.note(z.kernelScratch(k, 0))
	return nil
}

// kernelScratch returns the bytes of scratch tables of step k's kernel i.
func (z *csizer) kernelScratch(k, i int) int64 {
	if !z.scratch {
		return 0
	}
	return 8 * z.p.kernel(k, i).scratch()
}

func (z *csizer) releaseMsg(k int) {
	if b := z.val[k]; b > 0 {
		z.held -= b
		z.put(b)
		z.val[k] = 0
	}
}

func (z *csizer) backward(k int) error {
	s := &z.p.steps[k]
	var own int64 // the adjoint permuted for this step's contractions
	if s.parent < 0 {
		z.flops += z.union[k]
		z.note(z.kernelScratch(k, 0))
	} else if z.p.ownPermutation(k) != nil {
		own = 8 * s.size
		z.written += float64(s.size)
	}
	for i, o := range []int{s.x, s.y} {
		b := z.bytes(o)
		z.flops += z.union[k]
		z.written += float64(b / 8)
		z.get(b)
		scratch := satAdd(own, z.kernelScratch(k, 1+i))
		if o < 0 {
			z.note(satAdd(scratch, satAdd(b, 8*int64(tableSize(z.p.nw.card, z.p.nw.leaves[-1-o].vars)))))
			z.put(b)
			continue
		}
		z.adj[o] = b
		z.held = satAdd(z.held, b)
		z.note(scratch)
	}
	for _, c := range s.kids {
		z.releaseMsg(c)
	}
	if b := z.adj[k]; b > 0 {
		z.held -= b
		z.put(b)
		z.adj[k] = 0
	}
	return nil
}

func (z *csizer) avail() int64 { return z.budget - z.held }
