package exact

import (
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// Result holds the exact quantities of a model.
type Result struct {
	LogZ      float64
	Marginals mrf.Marginals // every variable's and every factor's marginal
	Plan      *Plan
}

// Solve computes log Z, every variable marginal and every factor marginal of
// m exactly. It fails on an invalid model, on a plan whose largest table is
// above opt.MaxTable (a *TableTooLargeError) or an estimated peak memory above
// opt.MaxMemory (a *MemoryTooLargeError), both before any table is allocated,
// and on a model whose partition function is zero.
func Solve(m *mrf.Model, opt Options) (*Result, error) {
	res, _, err := solve(m, opt)
	return res, err
}

// solve is Solve that also returns the engine, for tests that inspect the
// amount of recomputation.
func solve(m *mrf.Model, opt Options) (*Result, *engine, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, nil, err
	}
	t, plan, err := newTree(m, opt)
	if err != nil {
		return nil, nil, err
	}
	if err := checkMemory(t, plan, opt, true, 0); err != nil {
		return nil, nil, err
	}
	e, err := newEngine(t, opt.Memory)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{
		Marginals: mrf.Marginals{Vars: make([][]float64, len(m.Cards)), Factors: make([][]float64, len(m.Factors))},
		Plan:      plan,
		LogZ:      t.constant,
	}
	root := &table{vals: []float64{1}}
	e.visit = func(k int) error {
		s := &t.steps[k]
		in, scale, err := e.inputs(k)
		if err != nil {
			return err
		}
		r := root
		if s.parent >= 0 {
			if r = e.down[k]; r == nil {
				return fmt.Errorf("exact: internal error: downward message of step %d missing", k)
			}
		}
		rho := make([][]float64, len(s.children))
		for i, c := range s.children {
			rho[i] = e.pool.get(t.steps[c].sepSize)
			if len(s.children) > 1 {
				clear(rho[i])
			}
		}
		fac := e.fac[k]
		belief := make([]float64, len(fac.vals))
		downward(e.geom(k, true), in, rho, fac.vals, r.vals, belief)
		for i, c := range s.children {
			e.releaseMsg(c)
			// Only the shape of a downward message matters: the belief it
			// leads to is normalised, so its scale is dropped.
			if math.IsInf(normalise(rho[i], false), -1) {
				return fmt.Errorf("exact: %w (downward message to variable %d is zero)", ErrZeroPartition, t.steps[c].v)
			}
			e.setDown(c, &table{vals: rho[i]})
		}
		e.releaseDown(k)
		sum := 0.0
		for _, x := range belief {
			sum += x
		}
		if sum == 0 || math.IsNaN(sum) {
			return fmt.Errorf("exact: %w (belief of variable %d is zero)", ErrZeroPartition, s.v)
		}
		if s.parent < 0 {
			res.LogZ += math.Log(sum) + scale
		}
		for i := range belief {
			belief[i] /= sum
		}
		t.marginals(k, belief, res)
		return nil
	}
	if err := e.run(); err != nil {
		return nil, nil, err
	}
	for a, sc := range t.scopes {
		if len(sc) == 0 {
			res.Marginals.Factors[a] = []float64{1}
		}
	}
	return res, e, nil
}

// marginals reads the variable marginal of step k's variable and the factor
// marginals of its factors off the normalised belief over its scope.
func (t *tree) marginals(k int, belief []float64, res *Result) {
	s := &t.steps[k]
	// The variable marginal: belief summed onto v's dimension of scope.
	vst := make([]int, len(s.scope))
	vst[slices.Index(s.scope, s.v)] = 1
	vm := make([]float64, t.cards[s.v])
	odometer(t.cards, s.scope, vst, func(i, off int) { vm[off] += belief[i] })
	res.Marginals.Vars[s.v] = vm
	for _, a := range s.factors {
		// Strides of the factor's table in its own variable order (the
		// dropped cardinality-1 variables do not change them), on scope.
		st := make([]int, len(s.scope))
		stride := 1
		for i := len(t.scopes[a]) - 1; i >= 0; i-- {
			u := t.scopes[a][i]
			st[slices.Index(s.scope, u)] = stride
			stride *= t.cards[u]
		}
		fm := make([]float64, stride)
		odometer(t.cards, s.scope, st, func(i, off int) { fm[off] += belief[i] })
		res.Marginals.Factors[a] = fm
	}
}
