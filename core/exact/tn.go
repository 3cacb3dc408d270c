package exact

import (
	"fmt"
	"math"
	"slices"
)

// cplan is a contraction tree laid out for execution: its contractions as
// steps in post-order, each with the variable order (layout) of the table it
// makes. Sliced variables are fixed to one state per run, so no layout holds
// them. Variables are the model's.
type cplan struct {
	nw       *network
	tree     *ctree
	sliced   []int   // model variables fixed in each slice
	leafVars [][]int // layout of every leaf's network tensor: open, unsliced variables
	steps    []cstep
	kern     [][3]*kernel // per step, made on first use: forward, adjoint of x, adjoint of y
	leafKern [][2]*kernel // per leaf, made on first use: its network tensor, its marginal
	ownPerm  []*permutation
	cache    kernelCache
}

// leafKernel returns leaf i's contraction j: 0 sums a slice of its table
// over its private variables (the network tensor), 1 multiplies it by the
// network tensor's adjoint (the marginal).
func (p *cplan) leafKernel(i, j int, subVars []int) *kernel {
	if p.leafKern == nil {
		p.leafKern = make([][2]*kernel, len(p.nw.leaves))
	}
	if kn := p.leafKern[i][j]; kn != nil {
		return kn
	}
	var kn *kernel
	if j == 0 {
		kn = p.cache.kernel(p.nw.card, subVars, nil, p.leafVars[i])
	} else {
		kn = p.cache.kernel(p.nw.card, subVars, p.leafVars[i], subVars)
	}
	p.leafKern[i][j] = kn
	return kn
}

// kernel returns step k's contraction i: 0 the forward one, 1 and 2 the
// adjoints of its operands x and y.
func (p *cplan) kernel(k, i int) *kernel {
	if p.kern == nil {
		p.kern = make([][3]*kernel, len(p.steps))
	}
	if kn := p.kern[k][i]; kn != nil {
		return kn
	}
	s := &p.steps[k]
	xv, yv := p.vars(s.x), p.vars(s.y)
	var kn *kernel
	switch i {
	case 0:
		kn = p.cache.kernel(p.nw.card, xv, yv, s.vars)
	case 1:
		kn = p.cache.kernel(p.nw.card, p.adjVars(k), yv, xv)
	default:
		kn = p.cache.kernel(p.nw.card, p.adjVars(k), xv, yv)
	}
	p.kern[k][i] = kn
	return kn
}

// adjVars returns the layout in which the backward contractions of step k
// read its adjoint: grouped as its own product (permuted once from its
// layout, for both of them).
func (p *cplan) adjVars(k int) []int {
	s := &p.steps[k]
	if s.parent < 0 || slices.Equal(s.own, s.vars) {
		return s.vars
	}
	return s.own
}

// ownPermutation returns the permutation of step k's adjoint into
// adjVars(k), nil if none is needed.
func (p *cplan) ownPermutation(k int) *permutation {
	s := &p.steps[k]
	if s.parent < 0 || slices.Equal(s.own, s.vars) {
		return nil
	}
	if p.ownPerm == nil {
		p.ownPerm = make([]*permutation, len(p.steps))
	}
	if p.ownPerm[k] == nil {
		p.ownPerm[k] = newPermutation(p.nw.card, s.vars, s.own)
	}
	return p.ownPerm[k]
}

// cstep contracts two operands, each a step (>= 0) or a leaf (-1-leaf).
type cstep struct {
	x, y   int
	parent int   // step consuming this one; -1 at the root
	kids   []int // the operands that are steps
	vars   []int // layout of the table made
	own    []int // the same variables grouped as this contraction's product lays them out
	size   int64
}

func (p *cplan) parentOf(j int) int     { return p.steps[j].parent }
func (p *cplan) entries(j int) int64    { return p.steps[j].size }
func (p *cplan) childrenOf(j int) []int { return p.steps[j].kids }

// newCplan lays out tree t of network nw (shape sh) with the compact
// variables sliced fixed.
func newCplan(nw *network, sh *shape, t *ctree, sliced []int) *cplan {
	p := &cplan{nw: nw, tree: t, leafVars: make([][]int, len(nw.leaves)), cache: kernelCache{}}
	skip := make([]bool, len(nw.card))
	for _, c := range sliced {
		p.sliced = append(p.sliced, sh.vars[c])
		skip[sh.vars[c]] = true
	}
	slices.Sort(p.sliced)
	for i, lf := range nw.leaves {
		for _, v := range lf.vars {
			if nw.count[v] > 1 && !skip[v] {
				p.leafVars[i] = append(p.leafVars[i], v)
			}
		}
	}
	post := t.postOrder()
	stepOf := make(map[int32]int, len(post))
	for j, n := range post {
		stepOf[n] = j
	}
	operand := func(n int32) int {
		if t.leaf(n) {
			return -1 - int(n)
		}
		return stepOf[n]
	}
	p.steps = make([]cstep, len(post))
	for j, n := range post {
		s := &p.steps[j]
		s.x, s.y, s.parent = operand(t.left[n]), operand(t.right[n]), -1
		if par := t.parent[n]; par >= 0 {
			s.parent = stepOf[par]
		}
		for _, o := range []int{s.x, s.y} {
			if o >= 0 {
				s.kids = append(s.kids, o)
			}
		}
		var open []int
		for i, word := range t.set(n) {
			for ; word != 0; word &= word - 1 {
				v := sh.vars[i*64+trailingZeros(word)]
				if !skip[v] {
					open = append(open, v)
				}
			}
		}
		s.vars = open
		s.size = int64(tableSize(nw.card, s.vars))
	}
	p.arrange()
	return p
}

// vars returns the layout of operand o.
func (p *cplan) vars(o int) []int {
	if o < 0 {
		return p.leafVars[-1-o]
	}
	return p.steps[o].vars
}

// arrange lays out every table from the root down, for the contraction
// that consumes it: a contraction P of T and S groups T's variables as B
// (also in S and kept by P), M (kept, T's only) and K (summed), and S's as
// B, K and N, T being the operand whose kept group is the shorter, and lays
// them out B++M++K and B++K++N (B++N++K when K is much longer than N: dot
// products), so its matrix products read both in place. P's own product
// comes out B++M++N (own), permuted into P's layout if that differs. The
// operands of a contraction too thin for matrix products follow P's order
// instead, the summed variables last.
func (p *cplan) arrange() {
	card := p.nw.card
	for k := len(p.steps) - 1; k >= 0; k-- {
		s := &p.steps[k]
		xv, yv := p.vars(s.x), p.vars(s.y)
		var b, l, r, kk []int
		for _, v := range s.vars {
			inX, inY := slices.Contains(xv, v), slices.Contains(yv, v)
			switch {
			case inX && inY:
				b = append(b, v)
			case inX:
				l = append(l, v)
			default:
				r = append(r, v)
			}
		}
		for _, v := range xv {
			if slices.Contains(yv, v) && !slices.Contains(s.vars, v) {
				kk = append(kk, v)
			}
		}
		slices.Sort(kk)
		nl, nr, nk := tableSize(card, l), tableSize(card, r), tableSize(card, kk)
		if nk < minGemmK || (max(nl, nr) < minGemmRow && nk < minGemmDot) {
			// Too thin for matrix products: the operands follow this
			// table's order, summed variables last, so sweeps over them
			// run in step.
			s.own = s.vars
			for _, o := range []int{s.x, s.y} {
				var vs []int
				for _, v := range s.vars {
					if slices.Contains(p.vars(o), v) {
						vs = append(vs, v)
					}
				}
				p.setVars(o, append(vs, kk...))
			}
			continue
		}
		mOp, nOp, m, n := s.x, s.y, l, r
		if nl > nr {
			mOp, nOp, m, n = s.y, s.x, r, l
		}
		s.own = concat(b, m, n)
		p.setVars(mOp, concat(b, m, kk))
		if nk >= minGemmDot && nk > 2*max(nl, nr) {
			p.setVars(nOp, concat(b, n, kk))
		} else {
			p.setVars(nOp, concat(b, kk, n))
		}
	}
}

func (p *cplan) setVars(o int, vs []int) {
	if o < 0 {
		p.leafVars[-1-o] = vs
		return
	}
	p.steps[o].vars = vs
}

// slices returns the number of slices (the joint states of the sliced
// variables), saturating at MaxInt64.
func (p *cplan) numSlices() int64 {
	n := int64(1)
	for _, v := range p.sliced {
		n = satMul(n, int64(p.nw.card[v]))
	}
	return n
}

// tnEngine runs one slice of a cplan: the forward contractions, then a
// backward pass that gives every table its adjoint (the derivative of Z
// with respect to it: the contraction of everything else), as reverse-mode
// differentiation does. A leaf's marginal is its table times its adjoint.
type tnEngine struct {
	p        *cplan
	leaf     []*table // network tensors of this slice
	val, adj []*table // by step
	held     int64
	budget   int64
	pool     *pool
	forwards int
	logZ     float64 // of this slice, set when the root is visited; -Inf if zero
	zero     bool    // the slice's Z is zero
	onLeaf   func(i int, adj []float64) error
	onRoot   func(logZ float64)
}

func (e *tnEngine) operand(o int) (*table, []int) {
	if o < 0 {
		return e.leaf[-1-o], e.p.leafVars[-1-o]
	}
	return e.val[o], e.p.steps[o].vars
}

// product contracts step k's operands into a new table.
func (e *tnEngine) product(k int) (*table, error) {
	s := &e.p.steps[k]
	x, _ := e.operand(s.x)
	y, _ := e.operand(s.y)
	if x == nil || y == nil {
		return nil, fmt.Errorf("exact: internal error: operand of step %d missing", k)
	}
	out := e.pool.get(int(s.size))
	kn := e.p.kernel(k, 0)
	ls, lmax := normaliseKnown(out, false, kn.run(x.vals, y.vals, out, e.pool))
	t := &table{vals: out, logScale: x.logScale + y.logScale + ls, lmax: lmax}
	if !bound(x, y, t, kn.lnK, ls) {
		e.pool.put(out)
		return nil, errImprecise
	}
	return t, nil
}

func (e *tnEngine) forward(k int) error {
	t, err := e.product(k)
	if err != nil {
		return err
	}
	if math.IsInf(t.logScale, -1) {
		e.zero = true
		e.pool.put(t.vals)
		return errZeroSlice
	}
	e.val[k] = t
	e.held += bytesOf(t.vals)
	e.forwards++
	return nil
}

// errZeroSlice stops a slice whose Z is zero.
var errZeroSlice = fmt.Errorf("exact: %w (slice)", ErrZeroPartition)

func (e *tnEngine) releaseMsg(k int) {
	if t := e.val[k]; t != nil {
		e.held -= bytesOf(t.vals)
		e.pool.put(t.vals)
		e.val[k] = nil
	}
}

func (e *tnEngine) releaseAdj(k int) {
	if t := e.adj[k]; t != nil {
		e.held -= bytesOf(t.vals)
		e.pool.put(t.vals)
		e.adj[k] = nil
	}
}

func (e *tnEngine) avail() int64 { return e.budget - e.held }

// backward gives step k's operands their adjoints: adj(x) = Σ adj(k)·y and
// adj(y) = Σ adj(k)·x, each over the operand's layout.
func (e *tnEngine) backward(k int) error {
	s := &e.p.steps[k]
	var ak *table
	if s.parent < 0 {
		root, err := e.product(k)
		if err != nil {
			return err
		}
		e.logZ = root.logScale + math.Log(root.vals[0])
		precise := root.precise(root.vals[0])
		e.pool.put(root.vals)
		if math.IsInf(e.logZ, -1) {
			e.zero = true
			return errZeroSlice
		}
		if !precise {
			return errImprecise
		}
		e.onRoot(e.logZ)
		ak = &table{vals: []float64{1}}
	} else if ak = e.adj[k]; ak == nil {
		return fmt.Errorf("exact: internal error: adjoint of step %d missing", k)
	}
	if pm := e.p.ownPermutation(k); pm != nil {
		own := e.pool.get(len(ak.vals))
		pm.run(ak.vals, own)
		e.releaseAdj(k)
		ak = &table{vals: own}
		defer e.pool.put(own)
	}
	for i, o := range []int{s.x, s.y} {
		other := s.y
		if i == 1 {
			other = s.x
		}
		y, _ := e.operand(other)
		_, ov := e.operand(o)
		out := e.pool.get(tableSize(e.p.nw.card, ov))
		mx := e.p.kernel(k, 1+i).run(ak.vals, y.vals, out, e.pool)
		if o < 0 {
			err := e.onLeaf(-1-o, out)
			e.pool.put(out)
			if err != nil {
				return err
			}
			continue
		}
		if ls, _ := normaliseKnown(out, false, mx); math.IsInf(ls, -1) {
			return fmt.Errorf("exact: internal error: adjoint of step %d is zero in a slice of positive Z", o)
		}
		e.adj[o] = &table{vals: out}
		e.held += bytesOf(out)
	}
	for _, c := range s.kids {
		e.releaseMsg(c)
	}
	e.releaseAdj(k)
	return nil
}
