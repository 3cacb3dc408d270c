package exact

import (
	"fmt"
	"math"
	"math/bits"
)

// engine runs the forward messages of an elimination tree and visits every
// step in reverse elimination order with its children's messages at hand,
// keeping the stored messages within a memory budget.
//
// The backward visit of step k needs the forward messages of k's children,
// which are produced earlier in the order. sweep(lo, hi) visits steps hi-1
// down to lo: if the messages it must produce fit the budget it computes and
// keeps them all; otherwise it cuts [lo, hi) into segments, runs forward up
// to the last segment keeping only the messages that cross a segment
// boundary (the checkpoints), and sweeps the segments last to first, each of
// which recomputes its own messages from the checkpoints. This is one
// mechanism for any elimination tree; on a chain of cliques with a budget of
// a few dozen messages it costs about one extra forward pass.
type engine struct {
	t        *tree
	fac      []*table // factor table of every step
	msg      []*table // forward messages held, by producing step
	down     []*table // downward messages held, by receiving step
	held     int64    // bytes held in msg and down
	budget   int64
	pool     pool
	forwards int               // forward steps computed, recomputations included
	visit    func(k int) error // backward visit of step k
}

func newEngine(t *tree, budget int64) (*engine, error) {
	n := len(t.steps)
	e := &engine{t: t, fac: make([]*table, n), msg: make([]*table, n), down: make([]*table, n),
		budget: budget, pool: pool{free: map[int][][]float64{}, limit: budget}}
	for k := range t.steps {
		f, err := t.factorTable(k)
		if err != nil {
			return nil, err
		}
		e.fac[k] = f
	}
	return e, nil
}

// geom returns the loop structure of step k over the operands: children's
// messages, the factor table, and the separator (the step's own message).
func (e *engine) geom(k int, backward bool) *geom {
	t := e.t
	s := &t.steps[k]
	cards := make([]int, len(s.clique))
	for i, v := range s.clique {
		cards[i] = t.cards[v]
	}
	d := len(s.children)
	st := make([][]int, 0, d+2)
	for _, c := range s.children {
		st = append(st, t.strides(t.steps[c].sep, s.clique))
	}
	st = append(st, t.strides(s.scope, s.clique), t.strides(s.sep, s.clique))
	if !backward {
		return newGeom(cards, st, []int{d + 1}, d+1, d+1)
	}
	// The downward messages are written; with one child its message is
	// zeroed in the first sweep, otherwise the separator sets the order.
	var disjoint []int
	for i := range d {
		disjoint = append(disjoint, i)
	}
	if d == 1 {
		return newGeom(cards, st, disjoint, 0, 0)
	}
	return newGeom(cards, st, disjoint, -1, d+1)
}

// inputs returns the children's messages of step k and the sum of their log
// scales plus the factor table's.
func (e *engine) inputs(k int) ([][]float64, float64, error) {
	s := &e.t.steps[k]
	in := make([][]float64, 0, len(s.children)+1)
	scale := e.fac[k].logScale
	for _, c := range s.children {
		m := e.msg[c]
		if m == nil {
			return nil, 0, fmt.Errorf("exact: internal error: message of step %d missing at step %d", c, k)
		}
		in = append(in, m.vals)
		scale += m.logScale
	}
	return in, scale, nil
}

// forward computes and stores the message of step k.
func (e *engine) forward(k int) error {
	s := &e.t.steps[k]
	in, scale, err := e.inputs(k)
	if err != nil {
		return err
	}
	in = append(in, e.fac[k].vals)
	out := e.pool.get(s.sepSize)
	sumProduct(e.geom(k, false), in, out)
	// A parent with many children multiplies many messages: normalise them.
	ls := normalise(out, len(e.t.steps[s.parent].children) > maxRawChildren)
	if math.IsInf(ls, -1) {
		e.pool.put(out)
		return fmt.Errorf("exact: %w (the message eliminating variable %d is zero)", ErrZeroPartition, s.v)
	}
	e.msg[k] = &table{vals: out, logScale: scale + ls}
	e.held += bytesOf(out)
	e.forwards++
	return nil
}

func bytesOf(v []float64) int64 { return 8 * int64(len(v)) }

func (e *engine) releaseMsg(k int) {
	if m := e.msg[k]; m != nil {
		e.held -= bytesOf(m.vals)
		e.pool.put(m.vals)
		e.msg[k] = nil
	}
}

func (e *engine) setDown(k int, tb *table) {
	e.down[k] = tb
	e.held += bytesOf(tb.vals)
}

func (e *engine) releaseDown(k int) {
	if m := e.down[k]; m != nil {
		e.held -= bytesOf(m.vals)
		e.pool.put(m.vals)
		e.down[k] = nil
	}
}

// run visits every step in reverse elimination order.
func (e *engine) run() error { return sweep(e, e.t, 0, len(e.t.steps)) }

func (e *engine) backward(k int) error { return e.visit(k) }
func (e *engine) avail() int64         { return e.budget - e.held }

// stepper is what sweep drives: the engine, or the sizer that predicts the
// engine's memory without allocating.
type stepper interface {
	forward(k int) error  // compute and hold step k's message
	releaseMsg(k int)     // drop step k's message
	backward(k int) error // backward visit of step k
	avail() int64         // budget left for held messages
}

// sweep visits steps hi-1 down to lo. On entry the messages of steps below
// lo whose parent is in [lo, hi) are held.
func sweep(e stepper, t *tree, lo, hi int) error {
	needed := func(j int) bool {
		p := t.steps[j].parent
		return p >= 0 && p < hi
	}
	var total int64
	count := 0
	for j := lo; j < hi; j++ {
		if needed(j) {
			total += 8 * int64(t.steps[j].sepSize)
			count++
		}
	}
	avail := e.avail()
	if total <= avail || count <= 1 {
		for j := lo; j < hi; j++ {
			if needed(j) {
				if err := e.forward(j); err != nil {
					return err
				}
			}
		}
		for k := hi - 1; k >= lo; k-- {
			if err := e.backward(k); err != nil {
				return err
			}
		}
		return nil
	}
	// Segments of about three quarters of the available memory each, so a
	// segment fits next to the checkpoints; without memory to spare, about
	// sqrt(count) segments, which recurse.
	segs := int(math.Ceil(math.Sqrt(float64(count))))
	if q := avail * 3 / 4; q > 0 {
		segs = min(segs, int((total+q-1)/q))
	}
	segs = max(segs, 2)
	bounds := []int{lo}
	var acc int64
	lastNeeded := lo
	for j := lo; j < hi; j++ {
		if !needed(j) {
			continue
		}
		lastNeeded = j
		acc += 8 * int64(t.steps[j].sepSize)
		if len(bounds) < segs && acc*int64(segs) >= total*int64(len(bounds)) && j+1 < hi {
			bounds = append(bounds, j+1)
		}
	}
	if len(bounds) == 1 {
		// All the weight is on the last needed step: cut just before it.
		bounds = append(bounds, lastNeeded)
	}
	bounds = append(bounds, hi)
	seg := make([]int, hi-lo)
	for i := 0; i+1 < len(bounds); i++ {
		for j := bounds[i]; j < bounds[i+1]; j++ {
			seg[j-lo] = i
		}
	}
	// Forward through all but the last segment, keeping only the messages
	// that cross into a later segment.
	for j := lo; j < bounds[len(bounds)-2]; j++ {
		if !needed(j) {
			continue
		}
		if err := e.forward(j); err != nil {
			return err
		}
		for _, c := range t.steps[j].children {
			if c >= lo && seg[c-lo] == seg[j-lo] {
				e.releaseMsg(c)
			}
		}
	}
	for i := len(bounds) - 2; i >= 0; i-- {
		if err := sweep(e, t, bounds[i], bounds[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// pool recycles table buffers by capacity class, so the big per-step tables
// are not reallocated and the garbage collector has little to do (garbage of
// this size would let the heap grow well past the memory budget).
type pool struct {
	free  map[int][][]float64 // by capacity, most recently released last
	bytes int64               // bytes held in free
	limit int64               // above this, the smallest buffers are let go
}

// capClass rounds n up to one of eight capacities per power of two (at most
// 12.5% waste), so tables of similar size share buffers.
func capClass(n int) int {
	if n <= 16 {
		return n
	}
	step := 1 << (bits.Len(uint(n-1)) - 3)
	return (n + step - 1) / step * step
}

// get returns a buffer of length n, reusing one of capacity up to 2n.
func (p *pool) get(n int) []float64 {
	for c := capClass(n); c <= 2*n; c = capClass(c + 1) {
		if l := p.free[c]; len(l) > 0 {
			b := l[len(l)-1]
			p.free[c] = l[:len(l)-1]
			p.bytes -= 8 * int64(c)
			return b[:n]
		}
	}
	return make([]float64, n, capClass(n))
}

// put keeps b for reuse, letting the smallest buffers go if the pool would
// exceed its limit.
func (p *pool) put(b []float64) {
	c := cap(b)
	need := 8 * int64(c)
	for p.bytes+need > p.limit {
		small := 0
		for k, l := range p.free {
			if len(l) > 0 && (small == 0 || k < small) {
				small = k
			}
		}
		if small == 0 || small >= c {
			return // b is the smallest: let it go instead
		}
		l := p.free[small]
		l[0] = nil
		p.free[small] = l[1:]
		p.bytes -= 8 * int64(small)
	}
	p.free[c] = append(p.free[c], b[:0])
	p.bytes += need
}
