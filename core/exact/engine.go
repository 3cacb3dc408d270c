package exact

import (
	"fmt"
	"math"
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
	// logSpace: every table holds the logs of its entries (logStep), so
	// no value leaves float64's range.
	logSpace bool
	// vouch (linear space only): forward fails with errImprecise, before
	// computing, when a product of step k's operands might leave float64's
	// normal range (vouched); ranges holds every message's log range once
	// computed, kept after the message is released.
	vouch  bool
	ranges [][2]float64
}

func newEngine(t *tree, budget int64) (*engine, error) { return newEngineIn(t, budget, false) }

// newEngineIn is newEngine with tables of logs if logSpace.
func newEngineIn(t *tree, budget int64, logSpace bool) (*engine, error) {
	n := len(t.steps)
	e := &engine{t: t, fac: make([]*table, n), msg: make([]*table, n), down: make([]*table, n),
		budget: budget, pool: pool{free: map[int][][]float64{}, limit: budget}, logSpace: logSpace}
	for k := range t.steps {
		var f *table
		var err error
		if logSpace {
			var logs []float64
			logs, err = t.factorLogs(k)
			f = &table{vals: logs}
		} else {
			f, err = t.factorTable(k)
		}
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
	if e.vouch && !e.vouched(k) {
		return errImprecise
	}
	in = append(in, e.fac[k].vals)
	out := e.pool.get(s.sepSize)
	var ls float64
	if e.logSpace {
		ls = logStep(e.t, k, in, out)
	} else {
		mx := sumProduct(e.geom(k, false), in, out, len(out) >= fuseMin)
		if len(out) < fuseMin {
			mx = maxOf(out)
		}
		// A parent with many children multiplies many messages: normalise them.
		var lmax float64
		ls, lmax = normaliseKnown(out, len(e.t.steps[s.parent].children) > maxRawChildren, mx)
		if e.vouch {
			e.ranges[k] = [2]float64{logMinPositive(out), lmax}
		}
	}
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

// The elimination tree is the engine's schedule: step j sends its message
// to its parent.
func (t *tree) parentOf(j int) int     { return t.steps[j].parent }
func (t *tree) entries(j int) int64    { return int64(t.steps[j].sepSize) }
func (t *tree) childrenOf(j int) []int { return t.steps[j].children }

func (e *engine) backward(k int) error { return e.visit(k) }
func (e *engine) avail() int64         { return e.budget - e.held }
