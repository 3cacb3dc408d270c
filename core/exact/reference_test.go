package exact

import (
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// solveElim is the exact solver before contraction planning: variable
// elimination along a greedy order with a Shafer-Shenoy downward pass over
// the elimination tree. The tests keep it as a reference for Solve.
func solveElim(m *mrf.Model, opt Options) (*Result, *engine, error) {
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
		Plan:      &Plan{Cost: Cost{LargestTable: plan.LargestTable, PeakMemory: plan.Memory}, Heuristic: plan.Heuristic},
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

// downward is the backward (Shafer-Shenoy) kernel of a step with children
// messages m, factor table fac and downward message r over the separator
// (operands 0..d-1, d and d+1 of g). Over the clique it computes
//
//	rho[i][·] = Σ fac · r · Π_{j≠i} m[j]   (the downward message to child i)
//	belief[·] = Σ fac · r · Π_j m[j]       (the clique belief summed onto fac's scope)
//
// rho[i] has m[i]'s layout, belief has fac's. With one child g must have
// been built with operand 0 as sumOp; with more, rho must come zeroed. The
// two workers split a dimension every child contains and keep private belief
// tables that are added at the end.
func downward(g *geom, m, rho [][]float64, fac, r, belief []float64) {
	d := len(m)
	ps := g.parts()
	beliefs := make([][]float64, len(ps))
	beliefs[0] = belief
	clear(belief)
	for p := 1; p < len(ps); p++ {
		beliefs[p] = make([]float64, len(belief))
	}
	g.run(func(part int, lo, hi []int) {
		bel := beliefs[part]
		pre := make([]float64, d+1)
		rows, n, rs, is := g.blockShape(lo, hi)
		sF, sR := is[d], is[d+1]
		g.walk(lo, hi, func(off []int, first, _ bool) {
			for i := range rows {
				oF, oR := off[d]+i*rs[d], off[d+1]+i*rs[d+1]
				if d == 1 && first {
					o0, s0 := off[0]+i*rs[0], is[0]
					if s0 == 0 {
						rho[0][o0] = 0
					} else {
						for j := range n {
							rho[0][o0+j*s0] = 0
						}
					}
				}
				switch {
				case d == 0 && sF == 0:
					bel[oF] += fac[oF] * sumStrided(r, oR, sR, n)
					continue
				case d == 1 && sF == 0 && is[0] != 0:
					f := fac[oF]
					if f == 0 {
						continue
					}
					mm, rh, o0, s0 := m[0], rho[0], off[0]+i*rs[0], is[0]
					var acc0, acc1 float64
					if s0 == 1 && sR == 1 {
						mm, rh, rr := mm[o0:o0+n], rh[o0:o0+n], r[oR:oR+n]
						j := 0
						for ; j+1 < n; j += 2 {
							t0, t1 := f*rr[j], f*rr[j+1]
							rh[j] += t0
							rh[j+1] += t1
							acc0 += t0 * mm[j]
							acc1 += t1 * mm[j+1]
						}
						if j < n {
							t := f * rr[j]
							rh[j] += t
							acc0 += t * mm[j]
						}
					} else {
						j := 0
						for ; j+1 < n; j += 2 {
							t0, t1 := f*r[oR+j*sR], f*r[oR+(j+1)*sR]
							i0, i1 := o0+j*s0, o0+(j+1)*s0
							rh[i0] += t0
							rh[i1] += t1
							acc0 += t0 * mm[i0]
							acc1 += t1 * mm[i1]
						}
						if j < n {
							t := f * r[oR+j*sR]
							rh[o0+j*s0] += t
							acc0 += t * mm[o0+j*s0]
						}
					}
					bel[oF] += acc0 + acc1
					continue
				}
				for j := range n {
					t := fac[oF+j*sF] * r[oR+j*sR]
					if t == 0 {
						continue
					}
					// pre[k] = Π_{l<k} m[l]; the suffix product runs backwards.
					pre[0] = 1
					for k := range d {
						pre[k+1] = pre[k] * m[k][off[k]+i*rs[k]+j*is[k]]
					}
					bel[oF+j*sF] += t * pre[d]
					suf := t
					for k := d - 1; k >= 0; k-- {
						o := off[k] + i*rs[k] + j*is[k]
						rho[k][o] += suf * pre[k]
						suf *= m[k][o]
					}
				}
			}
		})
	})
	for p := 1; p < len(ps); p++ {
		for i, x := range beliefs[p] {
			belief[i] += x
		}
	}
}
