package mcmc

import (
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// The reference of pt's stepping stones is its β = 0 rung, p_0(x) ∝
// [x feasible]·w_0(x), w_0 = 1 under temper "all" and exp(U(x)) (the unary
// factors) under "pairs": every zero potential holds there as at every other
// rung. Its normaliser Z_0 is a weighted count of the feasible
// configurations, computed exactly: generalised arc consistency
// (core/feasible) first rules out the states no feasible configuration
// has; a variable left with one state is fixed and drops out; a factor of
// two or more variables whose restriction to the remaining states has no
// zero left constrains nothing. The variables the remaining constraints
// connect fall into independent pieces, and Z_0 is the product of each
// piece's weighted count (variable elimination, core/exact, on the piece's
// constraints as 0/1 tables over its remaining states) and of every other
// variable's own Σ w_0 over its remaining states. A piece whose elimination
// would need a table above maxRefTable entries, or more than maxRefCost
// operations in all, is too wide to count: then there is no reference
// normaliser and pt makes no ln Z (see errRefTooWide).

// Caps on the exact count of one piece of the reference: its largest table
// and its total cost (sums of table sizes), so that the count takes at most
// some milliseconds of a call's budget.
const (
	maxRefTable = 1 << 20
	maxRefCost  = 1 << 24
)

// errRefTooWide reports that the reference normaliser could not be counted
// within maxRefTable and maxRefCost.
var errRefTooWide = errors.New("the feasible configurations' constraints are too wide to count exactly")

// refLogZ returns ln Z_0 (see above) for the model of l with domains dom
// (propagated; nil when the model has no zero potential). An error wraps
// errRefTooWide, or says the model has no feasible configuration.
func (l *layout) refLogZ(dom feasible.Domains) (float64, error) {
	if dom == nil {
		dom = feasible.Full(l.cards)
	}
	w0 := l.refWeights()
	pcs, open := l.pieces(dom)
	lz := 0.0
	for i := range l.cards {
		if !open[i] {
			lz += w0At(w0, l.uOff[i], dom[i]) // fixed: its one state
		}
	}
	for _, p := range pcs {
		if len(p.vars) == 1 {
			lz += w0At(w0, l.uOff[p.vars[0]], dom[p.vars[0]])
			continue
		}
		z, err := l.countPiece(p.vars, p.cons, dom, w0)
		if err != nil {
			return math.NaN(), err
		}
		lz += z
	}
	return lz, nil
}

// piece is a set of open variables that the constraints left on them join
// (a single variable when none does), with those constraints.
type piece struct {
	vars []int
	cons []constraint
}

// pieces returns the pieces of the open variables (those dom leaves more
// than one state), in the order of their first variables, and which
// variables are open.
func (l *layout) pieces(dom feasible.Domains) ([]piece, []bool) {
	cons, open := l.constraints(dom)
	parent := make([]int, len(l.cards))
	for i := range parent {
		parent[i] = i
	}
	for _, c := range cons {
		for _, v := range c.vars[1:] {
			union(parent, c.vars[0], v)
		}
	}
	at := map[int]int{} // root -> its piece
	var pcs []piece
	for i := range l.cards {
		if !open[i] {
			continue
		}
		r := find(parent, i)
		k, ok := at[r]
		if !ok {
			k = len(pcs)
			at[r] = k
			pcs = append(pcs, piece{})
		}
		pcs[k].vars = append(pcs[k].vars, i)
	}
	for _, c := range cons {
		k := at[find(parent, c.vars[0])]
		pcs[k].cons = append(pcs[k].cons, c)
	}
	return pcs, open
}

// refWeights returns ln w_0 of every variable state, laid out like
// layout.unary: 0 under temper "all" (the unary zeros are in the domains),
// the unary sums under "pairs".
func (l *layout) refWeights() []float64 {
	if l.soft != nil {
		return make([]float64, len(l.unary))
	}
	return l.unary
}

// w0At returns ln Σ over the states d allows of exp(w0[off+s]).
func w0At(w0 []float64, off int, d []bool) float64 {
	var lse []float64
	for s, ok := range d {
		if ok {
			lse = append(lse, w0[off+s])
		}
	}
	return infer.LogSumExp(lse)
}

// constraint is a factor of two or more variables restricted to the
// domains: its open variables and, for every combination of their allowed
// states (row-major, the last fastest), whether it has a zero there.
type constraint struct {
	vars  []int
	cards []int // the states each of vars has left
	zero  []bool
}

// fixesOne reports whether c allows at most one state of one of its
// variables for every combination of the others' states (a deterministic
// constraint, such as a child's allele given its parent's and the
// selector).
func (c *constraint) fixesOne() bool {
	stride := len(c.zero)
	for _, card := range c.cards {
		stride /= card
		ax := infer.Axis{Stride: stride, Card: card}
		if card > 1 && fixesZeros(c.zero, ax) {
			return true
		}
	}
	return false
}

// fixesZeros reports whether a table of zeros allows at most one state of
// axis ax for every configuration of its other variables.
func fixesZeros(zero []bool, ax infer.Axis) bool {
	for base := range zero {
		if ax.State(base) != 0 {
			continue // visit each configuration of the others once, at state 0
		}
		allowed := 0
		for s := range ax.Card {
			if !zero[base+s*ax.Stride] {
				allowed++
			}
		}
		if allowed > 1 {
			return false
		}
	}
	return true
}

// constraints returns the factors that still constrain the open variables
// (those with more than one state left) once restricted to dom, and which
// variables are open.
func (l *layout) constraints(dom feasible.Domains) ([]constraint, []bool) {
	open := make([]bool, len(l.cards))
	for i, d := range dom {
		open[i] = count(d) > 1
	}
	var cons []constraint
	for _, a := range l.pairs {
		if !l.hardFactor[a] {
			continue
		}
		f := &l.m.Factors[a]
		if c, ok := restrict(l.g, a, f, dom, open); ok {
			cons = append(cons, c)
		}
	}
	return cons, open
}

// restrict returns factor a restricted to dom over its open variables, and
// whether it still has a zero there (a zero over one open variable cannot
// remain: arc consistency removed its state).
func restrict(g *infer.FactorGraph, a int, f *mrf.Factor, dom feasible.Domains, open []bool) (constraint, bool) {
	var c constraint
	var pos []int
	size := 1
	for p, v := range f.Vars {
		if open[v] {
			c.vars = append(c.vars, v)
			pos = append(pos, p)
			size *= count(dom[v])
		}
	}
	if len(c.vars) < 2 {
		return c, false
	}
	base := 0 // the fixed variables' part of the table index
	for p, v := range f.Vars {
		if !open[v] {
			base += first(dom[v]) * g.Axes[a][p].Stride
		}
	}
	states := make([][]int, len(c.vars))
	for k, v := range c.vars {
		for s, ok := range dom[v] {
			if ok {
				states[k] = append(states[k], s)
			}
		}
	}
	c.cards = make([]int, len(states))
	for k, st := range states {
		c.cards[k] = len(st)
	}
	c.zero = make([]bool, size)
	has := false
	at := make([]int, len(c.vars)) // the combination, as indices into states
	for t := range size {
		idx := base
		for k := range c.vars {
			idx += states[k][at[k]] * g.Axes[a][pos[k]].Stride
		}
		if math.IsInf(f.LogTable[idx], -1) {
			c.zero[t], has = true, true
		}
		for k := len(at) - 1; k >= 0; k-- {
			if at[k]++; at[k] < len(states[k]) {
				break
			}
			at[k] = 0
		}
	}
	return c, has
}

// countPiece returns the ln of the weighted count of the configurations of
// vars (one piece) over their domains that break none of cons.
func (l *layout) countPiece(vars []int, cons []constraint, dom feasible.Domains, w0 []float64) (float64, error) {
	local := make(map[int]int, len(vars))
	m := &mrf.Model{Cards: make([]int, len(vars))}
	for k, v := range vars {
		local[v] = k
		var u []float64
		for s, ok := range dom[v] {
			if ok {
				u = append(u, w0[l.uOff[v]+s])
			}
		}
		m.Cards[k] = len(u)
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{k}, LogTable: u})
	}
	for _, c := range cons {
		f := mrf.Factor{Vars: make([]int, len(c.vars)), LogTable: make([]float64, len(c.zero))}
		for k, v := range c.vars {
			f.Vars[k] = local[v]
		}
		for t, z := range c.zero {
			if z {
				f.LogTable[t] = math.Inf(-1)
			}
		}
		m.Factors = append(m.Factors, f)
	}
	opt := exact.DefaultOptions()
	opt.MaxTable, opt.Tries, opt.MaxMemory = maxRefTable, 2, 64*maxRefTable
	plan, err := exact.MakeOrder(m, opt)
	var wide *exact.TableTooLargeError
	switch {
	case errors.As(err, &wide):
		return 0, fmt.Errorf("%w: a piece of %d variables needs a table of %d entries (at most %d)", errRefTooWide, len(vars), wide.Order.LargestTable, maxRefTable)
	case err != nil:
		return 0, err
	case plan.TotalCost > maxRefCost:
		return 0, fmt.Errorf("%w: a piece of %d variables costs %.3g operations (at most %d)", errRefTooWide, len(vars), plan.TotalCost, maxRefCost)
	}
	res, err := exact.Solve(m, opt)
	var mem *exact.MemoryTooLargeError
	switch {
	case errors.As(err, &mem):
		return 0, fmt.Errorf("%w: %v", errRefTooWide, err)
	case errors.Is(err, exact.ErrZeroPartition):
		return 0, errNoFeasible
	case err != nil:
		return 0, err
	}
	return res.LogZ, nil
}

// errNoFeasible is the error of a model without a configuration of non-zero
// probability.
var errNoFeasible = errors.New("the model has no configuration of non-zero probability (Z = 0)")

func count(d []bool) int {
	n := 0
	for _, ok := range d {
		if ok {
			n++
		}
	}
	return n
}

func first(d []bool) int {
	for s, ok := range d {
		if ok {
			return s
		}
	}
	return -1
}

func find(parent []int, i int) int {
	for parent[i] != i {
		parent[i] = parent[parent[i]]
		i = parent[i]
	}
	return i
}

func union(parent []int, a, b int) {
	if ra, rb := find(parent, a), find(parent, b); ra != rb {
		parent[ra] = rb
	}
}
