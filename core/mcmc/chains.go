package mcmc

// Persistent chains: Gibbs chains that keep their configurations between
// calls, for persistent contrastive divergence (Tieleman 2008), where the
// chains follow the model as learning moves its tables instead of starting
// afresh for every gradient.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Chains are k single-site Gibbs chains on one model structure whose
// configurations persist between calls: SetModel swaps in new tables (same
// structure) and keeps every chain where it is; Sweep moves every chain and
// counts the configuration of each after every sweep, so that the counted
// frequencies of every variable state and every factor entry estimate the
// marginals (they are exact factor-configuration statistics: every factor
// marginal sums onto its variables' marginals). Fix holds chosen variables
// still (a clamped phase: the chains then sample p(z | x_fixed)).
// Chain c draws from its own generator, seeded from seed and c, so a run is
// reproducible. Chains are not safe for concurrent use.
type Chains struct {
	l      *layout
	reps   []*replica
	rngs   []*rand.Rand
	buf    []float64
	counts []float64 // per counted state (layout.width)
	n      int       // configurations counted since ClearStats
	sweeps int       // sweeps run since NewChains
}

// NewChains returns k chains on m, each started from its own random
// configuration of non-zero probability (uniform when m has no zero
// potential, else core/feasible's search with random preferences).
func NewChains(m *mrf.Model, k int, seed int64) (*Chains, error) {
	c, _, err := newChains(m, k, seed, func() bool { return false })
	return c, err
}

// newChains is NewChains, except that once expired reports the time budget
// spent, a chain whose start would need a search starts at an earlier
// chain's configuration (see Sampler.startWithin). It also returns how many
// chains share a start.
func newChains(m *mrf.Model, k int, seed int64, expired func() bool) (*Chains, int, error) {
	if m == nil {
		return nil, 0, errors.New("chains: nil model")
	}
	if k < 1 {
		return nil, 0, fmt.Errorf("chains: %d chains, want >= 1", k)
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		return nil, 0, fmt.Errorf("chains: %w", err)
	}
	l := newLayout(m, g)
	// Persistent chains take the general sweep: it keeps every factor's
	// entry index (the factor statistics count them), honours Fix, and
	// stays valid when SetModel swaps the tables (the binary pairwise
	// path's fields are built from the tables).
	l.is = nil
	if math.IsInf(l.constant, -1) {
		return nil, 0, errors.New("chains: the model has no configuration of non-zero probability (Z = 0)")
	}
	var dom feasible.Domains
	if feasible.HasZeros(m) {
		dom = feasible.Full(l.cards)
		if !feasible.Propagate(g, m, dom) {
			return nil, 0, errors.New("chains: the model has no configuration of non-zero probability (Z = 0)")
		}
	}
	c := &Chains{l: l, buf: make([]float64, g.MaxCard), counts: make([]float64, l.width)}
	var found [][]int // the configurations the searches found
	for k := range k {
		rng := mrf.NewRand(mrf.DeriveSeed(seed, k))
		x := sharedStart(found, k, dom, expired)
		if x == nil {
			if x, err = l.start(rng, dom, nil); err != nil {
				return nil, 0, fmt.Errorf("chains: chain %d: %w", k, err)
			}
			found = append(found, x)
		}
		c.rngs = append(c.rngs, rng)
		c.reps = append(c.reps, l.newReplica(append([]int(nil), x...)))
	}
	if dom == nil {
		return c, 0, nil
	}
	return c, len(c.reps) - len(found), nil
}

// Len returns the number of chains.
func (c *Chains) Len() int { return len(c.reps) }

// SweepsRun returns the sweeps every chain has run since NewChains.
func (c *Chains) SweepsRun() int { return c.sweeps }

// Counted returns the configurations counted since the last ClearStats
// (sweeps times chains).
func (c *Chains) Counted() int { return c.n }

// SameStructure reports whether m has the structure of the chains' model:
// the same variables and cardinalities, and the same factors over the same
// variables in the same order.
func (c *Chains) SameStructure(m *mrf.Model) bool {
	old := c.l.m
	if m == nil || len(m.Cards) != len(old.Cards) || len(m.Factors) != len(old.Factors) {
		return false
	}
	for i, k := range m.Cards {
		if old.Cards[i] != k {
			return false
		}
	}
	for a, f := range m.Factors {
		g := old.Factors[a]
		if len(f.Vars) != len(g.Vars) || len(f.LogTable) != len(g.LogTable) {
			return false
		}
		for p, v := range f.Vars {
			if g.Vars[p] != v {
				return false
			}
		}
	}
	return true
}

// SetModel replaces the chains' tables by m's (learning moved them) and
// keeps every chain's configuration; the counts are kept too (ClearStats
// drops them). m must have the same structure (SameStructure), and every
// chain's configuration non-zero probability under it: it is an error
// otherwise, and the chains are left on the old tables.
func (c *Chains) SetModel(m *mrf.Model) error {
	if !c.SameStructure(m) {
		return errors.New("chains: set model: the model's structure differs from the chains'")
	}
	l := c.l
	constant := 0.0
	unary := make([]float64, len(l.unary))
	for a := range m.Factors {
		f := &m.Factors[a]
		switch len(f.Vars) {
		case 0:
			constant += f.LogTable[0]
		case 1:
			u := unary[l.uOff[f.Vars[0]]:]
			for s, v := range f.LogTable {
				u[s] += v
			}
		}
	}
	for k, r := range c.reps {
		if s := c.score(m, unary, constant, r); math.IsInf(s, -1) || math.IsNaN(s) {
			return fmt.Errorf("chains: set model: chain %d's configuration has probability zero (score %v) under the new tables", k, s)
		}
	}
	l.m, l.constant, l.unary = m, constant, unary
	for _, a := range l.pairs {
		copy(l.flat[l.tOff[a]:], m.Factors[a].LogTable)
	}
	return nil
}

// score is r's log weight under m's tables (unary sums and constant
// given), or under the chains' own tables when m is nil.
func (c *Chains) score(m *mrf.Model, unary []float64, constant float64, r *replica) float64 {
	l := c.l
	s := constant
	for i, x := range r.x {
		s += unary[l.uOff[i]+x]
	}
	for _, a := range l.pairs {
		if m == nil {
			s += l.flat[r.idx[a]]
		} else {
			s += m.Factors[a].LogTable[r.idx[a]-l.tOff[a]]
		}
	}
	return s
}

// Fix holds vars still: sweeps leave them in the states the chains have
// (set them with SetState). nil or empty frees every variable.
func (c *Chains) Fix(vars []int) error {
	if len(vars) == 0 {
		c.l.skip = nil
		return nil
	}
	fixed := make([]bool, len(c.l.cards))
	for _, v := range vars {
		if v < 0 || v >= len(fixed) {
			return fmt.Errorf("chains: fix: variable %d out of range 0..%d", v, len(fixed)-1)
		}
		fixed[v] = true
	}
	c.l.skip = fixed
	return nil
}

// SetState sets chain k's configuration to a copy of x, which must have
// non-zero probability under the current tables.
func (c *Chains) SetState(k int, x []int) error {
	if k < 0 || k >= len(c.reps) {
		return fmt.Errorf("chains: set state: chain %d out of range 0..%d", k, len(c.reps)-1)
	}
	if len(x) != len(c.l.cards) {
		return fmt.Errorf("chains: set state: %d values for %d variables", len(x), len(c.l.cards))
	}
	for i, s := range x {
		if s < 0 || s >= c.l.cards[i] {
			return fmt.Errorf("chains: set state: variable %d has state %d, want 0..%d", i, s, c.l.cards[i]-1)
		}
	}
	r := c.l.newReplica(append([]int(nil), x...))
	if s := c.score(nil, c.l.unary, c.l.constant, r); math.IsInf(s, -1) || math.IsNaN(s) {
		return fmt.Errorf("chains: set state: chain %d: the configuration has probability zero", k)
	}
	c.reps[k] = r
	return nil
}

// State returns a copy of chain k's configuration.
func (c *Chains) State(k int) []int { return append([]int(nil), c.reps[k].x...) }

// Sweep runs n sweeps of every chain and counts every chain's
// configuration after each. It checks ctx between sweeps.
func (c *Chains) Sweep(ctx context.Context, n int) error {
	if n < 0 {
		return fmt.Errorf("chains: %d sweeps, want >= 0", n)
	}
	for range n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("chains: stopped after %d sweeps: %w", c.sweeps, err)
		}
		for k, r := range c.reps {
			c.l.sweep(r, 1, c.rngs[k], c.buf)
			c.record(r)
		}
		c.sweeps++
	}
	return nil
}

// record counts r's variable states and factor entries.
func (c *Chains) record(r *replica) {
	l, row := c.l, c.counts
	for i, x := range r.x {
		row[l.varOff[i]+x]++
	}
	for k, v := range l.unaryVar {
		row[l.unaryOff[k]+r.x[v]]++
	}
	for k, a := range l.pairs {
		row[l.pairOff[k]+r.idx[a]]++
	}
	for _, off := range l.constOff {
		row[off]++
	}
	c.n++
}

// ClearStats drops the counts (the configurations stay).
func (c *Chains) ClearStats() {
	clear(c.counts)
	c.n = 0
}

// Marginals returns the counted frequencies of every variable state and
// every factor entry (laid out as the factor's LogTable); an error when
// nothing was counted.
func (c *Chains) Marginals() (mrf.Marginals, error) {
	if c.n == 0 {
		return mrf.Marginals{}, errors.New("chains: no configuration counted (sweep first)")
	}
	l, n := c.l, float64(c.n)
	mg := mrf.Marginals{Vars: make([][]float64, len(l.cards)), Factors: make([][]float64, len(l.m.Factors))}
	for i, k := range l.cards {
		mg.Vars[i] = scale(c.counts[l.varOff[i]:l.varOff[i]+k], n)
	}
	for a, f := range l.m.Factors {
		mg.Factors[a] = scale(c.counts[l.facOff[a]:l.facOff[a]+len(f.LogTable)], n)
	}
	return mg, nil
}

// AddFactorMarginals adds w times the counted factor frequencies into acc
// (one slice per factor, laid out as its LogTable); an error when nothing
// was counted or acc does not fit.
func (c *Chains) AddFactorMarginals(w float64, acc [][]float64) error {
	if c.n == 0 {
		return errors.New("chains: no configuration counted (sweep first)")
	}
	l := c.l
	if len(acc) != len(l.m.Factors) {
		return fmt.Errorf("chains: %d accumulators for %d factors", len(acc), len(l.m.Factors))
	}
	wn := w / float64(c.n)
	for a, f := range l.m.Factors {
		if len(acc[a]) != len(f.LogTable) {
			return fmt.Errorf("chains: factor %d: accumulator of %d entries, table of %d", a, len(acc[a]), len(f.LogTable))
		}
		for x, v := range c.counts[l.facOff[a] : l.facOff[a]+len(f.LogTable)] {
			acc[a][x] += wn * v
		}
	}
	return nil
}
