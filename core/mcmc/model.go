package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// layout is a model prepared for sampling: the tempered part (factors of
// two or more variables) as flat incidence lists, the untempered part
// (unary factors) summed per variable, and where every variable state and
// factor entry is counted.
type layout struct {
	m     *mrf.Model
	g     *infer.FactorGraph
	cards []int
	// unary[uOff[i]+s] is the sum of variable i's unary factors at state s.
	unary []float64
	uOff  []int
	// The pair factors (arity >= 2) of variable i are incidences
	// incStart[i] to incStart[i+1]: factor incFactor[k], in whose table i's
	// state moves the entry by incStride[k].
	incStart  []int
	incFactor []int32
	incStride []int32
	pairs     []int // the factors of arity >= 2
	// flat holds the pair factors' tables one after the other, factor a's
	// from tOff[a], so that a replica's idx are positions in flat.
	flat     []float64
	tOff     []int
	constant float64 // the sum of the zero-arity factors' entries
	// Where record counts: unary factor k (of variable unaryVar[k]) at
	// unaryOff[k], pair factor pairs[k] at pairOff[k] + its idx (pairOff
	// net of tOff), the zero-arity
	// factors' single entries at constOff.
	unaryVar, unaryOff, pairOff, constOff []int
	// Counted states: variable i's state s at varOff[i]+s, factor a's
	// entry t at facOff[a]+t; width in all.
	varOff, facOff []int
	width          int
	// skip, when not nil, marks the variables single-site sweeps at a
	// temperature leave as they are: those Chains.Fix holds, or those of
	// blocks (relaxation rungs update every variable).
	skip []bool
	// blocks are the variables drawn jointly (blocks.go), after the
	// single-site updates of a sweep; every variable of one is fixed.
	blocks []*block
	// blockOf is every variable's block, -1 for none (nil without
	// blocks).
	blockOf []int
	// hardFactor[a] is whether factor a has two or more variables and a
	// zero potential (nHard of them); hardVar[i] whether i is in one: its
	// conditional reads them even at β = 0, where only their zeros count.
	hardFactor []bool
	hardVar    []bool
	nHard      int
	// is is the binary pairwise fast path (fields.go), nil if the model is
	// not binary pairwise.
	is *ising
	// soft, when not nil, is unary with its -Inf entries (evidence, zeros)
	// replaced by 0: pt's temper "all" tempers it along with the pair
	// factors, the -Inf entries staying excluded at every temperature
	// (setTemperAll).
	soft []float64
}

// setTemperAll makes sweeps and log potentials temper the finite unary
// entries too: p_β(x) ∝ [x allowed by the unary zeros]·exp(β·(U(x) + P(x))).
func (l *layout) setTemperAll() {
	l.soft = make([]float64, len(l.unary))
	for k, v := range l.unary {
		if !math.IsInf(v, -1) {
			l.soft[k] = v
		}
	}
	if is := l.is; is != nil {
		is.duS, is.duH = make([]float64, len(is.du)), make([]float64, len(is.du))
		for i, d := range is.du {
			if math.IsInf(d, 0) || math.IsNaN(d) {
				is.duH[i] = d
			} else {
				is.duS[i] = d
			}
		}
	}
}

// softEnergy is the sum of the tempered unary entries at r (0 unless
// temper "all").
func (l *layout) softEnergy(r *replica) float64 {
	if l.soft == nil {
		return 0
	}
	e := 0.0
	for i, x := range r.x {
		e += l.soft[l.uOff[i]+x]
	}
	return e
}

func newLayout(m *mrf.Model, g *infer.FactorGraph) *layout {
	n := g.NumVars()
	l := &layout{m: m, g: g, cards: g.Cards, uOff: make([]int, n+1), incStart: make([]int, n+1),
		varOff: make([]int, n), facOff: make([]int, g.NumFactors()), tOff: make([]int, g.NumFactors())}
	for i, c := range g.Cards {
		l.uOff[i+1] = l.uOff[i] + c
		l.varOff[i] = l.width
		l.width += c
	}
	l.unary = make([]float64, l.uOff[n])
	for a := range m.Factors {
		f := &m.Factors[a]
		l.facOff[a] = l.width
		l.width += len(f.LogTable)
		switch len(f.Vars) {
		case 0:
			l.constant += f.LogTable[0]
			l.constOff = append(l.constOff, l.facOff[a])
		case 1:
			l.unaryVar = append(l.unaryVar, f.Vars[0])
			l.unaryOff = append(l.unaryOff, l.facOff[a])
			u := l.unary[l.uOff[f.Vars[0]]:]
			for s, v := range f.LogTable {
				u[s] += v
			}
		default:
			l.pairs = append(l.pairs, a)
			l.tOff[a] = len(l.flat)
			l.flat = append(l.flat, f.LogTable...)
			l.pairOff = append(l.pairOff, l.facOff[a]-l.tOff[a])
		}
	}
	for i := range n {
		l.incStart[i] = len(l.incFactor)
		for _, inc := range g.VarFactors[i] {
			if len(g.Scopes[inc.Factor]) < 2 {
				continue
			}
			l.incFactor = append(l.incFactor, int32(inc.Factor))
			l.incStride = append(l.incStride, int32(g.Axes[inc.Factor][inc.Pos].Stride))
		}
	}
	l.incStart[n] = len(l.incFactor)
	l.markHard()
	l.is = newIsing(l)
	return l
}

// replica is one configuration of the chain: the states and, for every
// factor, the index of its table entry at them.
type replica struct {
	x []int
	// idx is the position in layout.flat of every pair factor's entry (0
	// for the others); not kept on the binary pairwise path, which keeps
	// the fields h instead (fields.go).
	idx []int
	h   []float64
	e   float64
	v   int // hard factors at a zero (relaxation rungs; 0 elsewhere)
	// hot is set while the replica is on its way down from β = 0 (pt's
	// round trips).
	hot bool
}

func (l *layout) newReplica(x []int) *replica {
	if l.is != nil {
		r := &replica{x: x, h: make([]float64, len(x))}
		l.sync(r)
		return r
	}
	r := &replica{x: x, idx: make([]int, len(l.m.Factors))}
	for _, a := range l.pairs {
		t := l.tOff[a]
		for p, v := range l.g.Scopes[a] {
			t += x[v] * l.g.Axes[a][p].Stride
		}
		r.idx[a] = t
	}
	r.e = l.energy(r)
	return r
}

// energy is the tempered log potential of r: the sum of its pair factors'
// entries (-Inf on a zero potential).
func (l *layout) energy(r *replica) float64 {
	if l.is != nil {
		return r.e // kept up to date by sweepIsing
	}
	e := l.softEnergy(r)
	for _, a := range l.pairs {
		e += l.flat[r.idx[a]]
	}
	return e
}

// sweep updates every variable of r once, in order, from its conditional
// under p_β (tempered): the finite entries tempered, every zero potential
// held at every β, so that at β = 0 the conditional still reads the pair
// factors of a variable that has zeros among them (hardVar). buf holds at
// least the largest cardinality. It allocates nothing.
func (l *layout) sweep(r *replica, beta float64, rng *rand.Rand, buf []float64) {
	if l.is != nil {
		l.sweepIsing(r, beta, rng)
		return
	}
	idx, x, t := r.idx, r.x, l.flat
	for i, c := range l.cards {
		if l.skip != nil && l.skip[i] {
			continue
		}
		xi := x[i]
		lo, hi := l.incStart[i], l.incStart[i+1]
		cond := hi // the incidences the conditional reads
		if beta == 0 && !l.hardVar[i] {
			cond = lo
		}
		u := l.unary[l.uOff[i]:l.uOff[i+1]]
		var s int
		if c == 2 {
			p0, p1 := 0.0, 0.0
			for k := lo; k < cond; k++ {
				st := int(l.incStride[k])
				base := idx[l.incFactor[k]] - xi*st
				p0 += t[base]
				p1 += t[base+st]
			}
			var l0, l1 float64
			switch { // as tempered, inline on the hot path
			case beta == 0:
				l0, l1 = temperedZero(u[0], p0, l.soft != nil), temperedZero(u[1], p1, l.soft != nil)
			case l.soft != nil:
				l0, l1 = beta*(u[0]+p0), beta*(u[1]+p1)
			default:
				l0, l1 = u[0]+beta*p0, u[1]+beta*p1
			}
			// P(x_i = 1) = 1/(1+e^(l0-l1)); an excluded state gets exactly 0.
			if rng.Float64()*(1+math.Exp(l0-l1)) < 1 {
				s = 1
			}
		} else {
			s = l.draw(u, idx, xi, lo, cond, beta, rng, buf[:c])
		}
		if s != xi {
			for k := lo; k < hi; k++ {
				idx[l.incFactor[k]] += (s - xi) * int(l.incStride[k])
			}
			x[i] = s
		}
	}
}

// The conditional log weight of a state of unary entry u and pair entries
// summing to p ("tempered") is -Inf if either is (a zero potential holds
// at every temperature), else β·(u + p) under temper "all" and u + β·p
// under "pairs"; for β > 0 the arithmetic keeps -Inf by itself, and at
// β = 0 (temperedZero) the finite entries are left out, never the zeros.

// temperedZero is tempered at β = 0.
func temperedZero(u, p float64, all bool) float64 {
	switch {
	case math.IsInf(u, -1) || math.IsInf(p, -1):
		return math.Inf(-1)
	case all:
		return 0
	}
	return u
}

// draw samples variable i's state from its conditional (any cardinality).
func (l *layout) draw(u []float64, idx []int, xi, lo, hi int, beta float64, rng *rand.Rand, lp []float64) int {
	t := l.flat
	clear(lp)
	for k := lo; k < hi; k++ {
		st := int(l.incStride[k])
		base := idx[l.incFactor[k]] - xi*st
		for s := range lp {
			lp[s] += t[base+s*st]
		}
	}
	for s := range lp {
		switch { // as tempered
		case beta == 0:
			lp[s] = temperedZero(u[s], lp[s], l.soft != nil)
		case l.soft != nil:
			lp[s] = beta * (u[s] + lp[s])
		default:
			lp[s] = u[s] + beta*lp[s]
		}
	}
	return drawLog(lp, xi, rng)
}

// start returns a configuration of non-zero probability for chain rng: each
// variable uniform among its states if the model has no zero potential,
// else the result of the feasible search with random state preferences, so
// that chains start apart. The blocks' variables are drawn first (blocks.go:
// each block exactly, at β = 0, so they satisfy their constraints), and the
// search fixes them: it then has only the variables outside blocks to
// place (on genetic-linkage pedigrees of 432 variables the search over
// every variable can exhaust its choices).
func (l *layout) start(rng *rand.Rand, dom feasible.Domains, stop func() bool) ([]int, error) {
	x := make([]int, len(l.cards))
	if dom == nil {
		for i, c := range l.cards {
			x[i] = rng.IntN(c)
		}
		return x, nil
	}
	pref := make([]float64, l.uOff[len(l.cards)])
	for k := range pref {
		pref[k] = rng.Float64()
	}
	d := dom
	if len(l.blocks) > 0 {
		var ok bool
		if d, ok = l.blockStart(rng, dom); !ok {
			return nil, errNoFeasible
		}
	}
	x, stopped := feasible.SearchUntil(l.g, l.m, d, func(i, s int) float64 { return pref[l.uOff[i]+s] }, stop)
	if stopped {
		return nil, errors.New("the time budget ran out before the search found a configuration of non-zero probability")
	}
	if x == nil {
		return nil, fmt.Errorf("found no configuration of non-zero probability within %d search steps", feasible.MaxSearchNodes)
	}
	return x, nil
}

// blockStart draws every block's variables at β = 0 from a configuration
// within dom and returns dom with them fixed at the draw and propagated,
// false when that leaves a variable no state (a block without a feasible
// configuration: the model has none).
func (l *layout) blockStart(rng *rand.Rand, dom feasible.Domains) (feasible.Domains, bool) {
	x := make([]int, len(l.cards))
	for i, d := range dom {
		var allowed []int
		for s, ok := range d {
			if ok {
				allowed = append(allowed, s)
			}
		}
		x[i] = allowed[rng.IntN(len(allowed))]
	}
	r := l.newReplica(x)
	l.sweepBlocks(r, 0, rng, newBlockWork(l.blocks, l.g.MaxCard))
	d := dom.Clone()
	for _, b := range l.blocks {
		for _, v := range b.vars {
			for s := range d[v] {
				d[v][s] = s == x[v]
			}
		}
	}
	return d, feasible.Propagate(l.g, l.m, d)
}
