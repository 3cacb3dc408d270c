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
}

// cstep contracts two operands, each a step (>= 0) or a leaf (-1-leaf).
type cstep struct {
	x, y   int
	parent int   // step consuming this one; -1 at the root
	kids   []int // the operands that are steps
	vars   []int // layout of the table made
	size   int64
}

func (p *cplan) parentOf(j int) int     { return p.steps[j].parent }
func (p *cplan) entries(j int) int64    { return p.steps[j].size }
func (p *cplan) childrenOf(j int) []int { return p.steps[j].kids }

// newCplan lays out tree t of network nw (shape sh) with the compact
// variables sliced fixed.
func newCplan(nw *network, sh *shape, t *ctree, sliced []int) *cplan {
	p := &cplan{nw: nw, tree: t, leafVars: make([][]int, len(nw.leaves))}
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
		s.vars = p.layout(p.vars(s.x), p.vars(s.y), open)
		s.size = int64(tableSize(nw.card, s.vars))
	}
	return p
}

// vars returns the layout of operand o.
func (p *cplan) vars(o int) []int {
	if o < 0 {
		return p.leafVars[-1-o]
	}
	return p.steps[o].vars
}

// layout orders the variables open of a contraction of tables over xv and
// yv: the larger operand's order with its summed variables taken out and the
// other operand's new variables put where the first one was (at the end if
// none was), so a chain of contractions keeps its tables' layouts and its
// long contiguous runs.
func (p *cplan) layout(xv, yv, open []int) []int {
	if tableSize(p.nw.card, yv) > tableSize(p.nw.card, xv) {
		xv, yv = yv, xv
	}
	out := make([]int, 0, len(open))
	at := -1
	for _, v := range xv {
		if slices.Contains(open, v) {
			out = append(out, v)
		} else if at < 0 {
			at = len(out)
		}
	}
	var added []int
	for _, v := range yv {
		if slices.Contains(open, v) && !slices.Contains(xv, v) {
			added = append(added, v)
		}
	}
	if at < 0 {
		at = len(out)
	}
	return slices.Insert(out, at, added...)
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
	x, xv := e.operand(s.x)
	y, yv := e.operand(s.y)
	if x == nil || y == nil {
		return nil, fmt.Errorf("exact: internal error: operand of step %d missing", k)
	}
	out := e.pool.get(int(s.size))
	contract(e.p.nw.card, x.vals, xv, y.vals, yv, out, s.vars)
	ls := normalise(out, true)
	return &table{vals: out, logScale: x.logScale + y.logScale + ls}, nil
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
		e.pool.put(root.vals)
		if math.IsInf(e.logZ, -1) {
			e.zero = true
			return errZeroSlice
		}
		e.onRoot(e.logZ)
		ak = &table{vals: []float64{1}}
	} else if ak = e.adj[k]; ak == nil {
		return fmt.Errorf("exact: internal error: adjoint of step %d missing", k)
	}
	for i, o := range []int{s.x, s.y} {
		other := s.y
		if i == 1 {
			other = s.x
		}
		y, yv := e.operand(other)
		_, ov := e.operand(o)
		out := e.pool.get(tableSize(e.p.nw.card, ov))
		contract(e.p.nw.card, ak.vals, s.vars, y.vals, yv, out, ov)
		if o < 0 {
			err := e.onLeaf(-1-o, out)
			e.pool.put(out)
			if err != nil {
				return err
			}
			continue
		}
		if math.IsInf(normalise(out, true), -1) {
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
