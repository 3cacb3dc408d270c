package infer

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// Tolerances of Verify. Probabilities are compared in absolute terms.
const (
	// NormTol bounds |Σ p - 1| for every variable and factor marginal.
	NormTol = 1e-6
	// ExcludedTol bounds the probability of a state a zero potential (or
	// evidence, imported as a point-mass unary factor) excludes. Every
	// method in the registry gives such states exactly 0; the tolerance only
	// absorbs rounding.
	ExcludedTol = 1e-9
	// ConsistencyTol bounds |Σ_{x_a \ x_i} b_a - b_i| between every factor
	// marginal and the marginals of its variables, and |Σ_{P\C} b_P - b_C|
	// between every parent and child region belief. It is RENN's default
	// cons_tol; converged GBP and BP are consistent to about their tol
	// (1e-9), far inside it.
	ConsistencyTol = 1e-3
	// ReadoutTol replaces ConsistencyTol between factor and variable
	// marginals of region methods, whose marginals are means over the
	// regions holding a scope: mismatches within ConsistencyTol on each
	// parent→child edge add up along the levels and over the states summed
	// out (measured up to 4e-3 for RENN runs whose edges met 1e-3). The
	// edges themselves are held to ConsistencyTol.
	ReadoutTol = 1e-2
)

// RegionBeliefs is the optional interface of region-based methods (gbp,
// renn, infnet): the region beliefs of the last Infer call and the
// parent→child edges of their region graph, so that Verify can check that
// every child belief is each parent's marginal. The slices belong to the
// method and are valid until its next call; callers must not change them.
type RegionBeliefs interface {
	RegionBeliefs() (beliefs [][]float64, edges []region.Edge)
}

// StandardErrors is the optional interface of Monte Carlo methods (gibbs,
// pt): the standard error of every state of every variable marginal of the
// last Infer call, laid out like Marginals.Vars (NaN where the method could
// not estimate one). The slices belong to the method and are valid until its
// next call.
type StandardErrors interface {
	StandardErrors() [][]float64
}

// LogZStandardError is the optional interface of a method whose ln Z is a
// Monte Carlo estimate (pt): the standard error of the last Infer call's ln
// Z, NaN where the method could not estimate one.
type LogZStandardError interface {
	LogZStandardError() float64
}

// LogZClaim is the optional interface of a method that may make no claim on
// ln Z (a sampler): ClaimsLogZ false means its Result.LogZ is NaN by design,
// not a failure. Methods without it claim an estimate.
type LogZClaim interface {
	ClaimsLogZ() bool
}

// Verify runs the checks an answer must pass to be reported converged and
// returns the first failure as a short reason, or "" when res passes:
//
//   - ln Z is finite. A model whose Z is 0 has no marginals, so no answer on
//     it can pass; a method that finds no configuration of non-zero
//     probability (ln Z = -Inf) fails too, whether Z is 0 or not.
//   - every variable and factor marginal has the model's shape, finite
//     non-negative entries, and sums to 1 within NormTol;
//   - every factor-table entry of zero potential (LogTable -Inf) has
//     probability at most ExcludedTol in the factor's marginal, and every
//     state of a variable that some factor excludes for all its other
//     states (evidence: a point-mass unary factor) at most ExcludedTol in
//     the variable's marginal;
//   - every factor marginal sums onto each of its variables' marginals
//     within ConsistencyTol (ReadoutTol for region methods);
//   - if rb is not nil, every child region belief equals each parent's
//     marginal within ConsistencyTol.
//
// A consistent answer at a wrong fixed point (a second fixed point of BP or
// GBP, a local minimum of the mean-field or region free energy) passes:
// Verify checks that the answer is well formed and self-consistent, not that
// it is exact.
func Verify(m *mrf.Model, res *Result, rb RegionBeliefs) string {
	if res == nil {
		return "no result"
	}
	if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
		return fmt.Sprintf("ln Z is %v", res.LogZ)
	}
	return VerifyMarginals(m, res, rb)
}

// VerifyMarginals runs every check of Verify except the one on ln Z, for
// methods that make no claim on it (samplers).
func VerifyMarginals(m *mrf.Model, res *Result, rb RegionBeliefs) string {
	if why := VerifyWellFormed(m, res); why != "" {
		return why
	}
	mg := res.Marginals
	tol := ConsistencyTol
	if rb != nil {
		tol = ReadoutTol
	}
	var buf [16]float64
	marg := func(c int) []float64 {
		if c > len(buf) {
			return make([]float64, c)
		}
		return buf[:c]
	}
	for a := range m.Factors {
		f := &m.Factors[a]
		for k, ax := range axes(m, f) {
			v := f.Vars[k]
			out := marg(ax.Card)
			SumAlong(mg.Factors[a], ax, out)
			for x, s := range out {
				if d := math.Abs(s - mg.Vars[v][x]); d > tol {
					return fmt.Sprintf("factor %d and variable %d marginals differ by %.3g at state %d", a, v, d, x)
				}
			}
		}
	}
	if rb != nil {
		return regionConsistency(rb)
	}
	return ""
}

// VerifyWellFormed runs the checks of VerifyMarginals that make an answer
// an answer at all, converged or not: every variable and factor marginal of
// the model's shape, finite, non-negative and normalised, and no mass on a
// state a zero potential or evidence excludes. It leaves out the
// consistency between marginals, which a run stopped before convergence
// may miss.
func VerifyWellFormed(m *mrf.Model, res *Result) string {
	if res == nil {
		return "no result"
	}
	mg := res.Marginals
	if len(mg.Vars) != len(m.Cards) || len(mg.Factors) != len(m.Factors) {
		return fmt.Sprintf("%d variable and %d factor marginals, want %d and %d", len(mg.Vars), len(mg.Factors), len(m.Cards), len(m.Factors))
	}
	for i, p := range mg.Vars {
		if why := distribution(p, m.Cards[i]); why != "" {
			return fmt.Sprintf("variable %d: %s", i, why)
		}
	}
	var buf [16]float64
	marg := func(c int) []float64 {
		if c > len(buf) {
			return make([]float64, c)
		}
		return buf[:c]
	}
	for a := range m.Factors {
		f := &m.Factors[a]
		p := mg.Factors[a]
		if why := distribution(p, len(f.LogTable)); why != "" {
			return fmt.Sprintf("factor %d: %s", a, why)
		}
		for t, l := range f.LogTable {
			if math.IsInf(l, -1) && p[t] > ExcludedTol {
				return fmt.Sprintf("factor %d: probability %.3g on entry %d of zero potential", a, p[t], t)
			}
		}
		for k, ax := range axes(m, f) {
			v := f.Vars[k]
			out := marg(ax.Card)
			LogSumAlong(f.LogTable, ax, out)
			for x, l := range out {
				if math.IsInf(l, -1) && mg.Vars[v][x] > ExcludedTol {
					return fmt.Sprintf("variable %d: probability %.3g on state %d, which factor %d excludes", v, mg.Vars[v][x], x, a)
				}
			}
		}
	}
	return ""
}

// axes locates every variable of f's scope in its table.
func axes(m *mrf.Model, f *mrf.Factor) []Axis {
	out := make([]Axis, len(f.Vars))
	stride := len(f.LogTable)
	for p, v := range f.Vars {
		stride /= m.Cards[v]
		out[p] = Axis{Stride: stride, Card: m.Cards[v]}
	}
	return out
}

// distribution checks that p is a probability vector of length n.
func distribution(p []float64, n int) string {
	if len(p) != n {
		return fmt.Sprintf("marginal of %d entries, want %d", len(p), n)
	}
	s := 0.0
	for x, v := range p {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Sprintf("probability %v at state %d", v, x)
		}
		s += v
	}
	if math.Abs(s-1) > NormTol {
		return fmt.Sprintf("marginal sums to %.9g", s)
	}
	return ""
}

// regionConsistency checks every edge of rb's region graph.
func regionConsistency(rb RegionBeliefs) string {
	b, edges := rb.RegionBeliefs()
	var buf []float64
	for _, e := range edges {
		if e.Parent < 0 || e.Parent >= len(b) || e.Child < 0 || e.Child >= len(b) || len(e.Map) != len(b[e.Parent]) {
			return fmt.Sprintf("region edge %d→%d does not fit the beliefs", e.Parent, e.Child)
		}
		child := b[e.Child]
		for _, v := range b[e.Parent] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Sprintf("region %d: belief %v", e.Parent, v)
			}
		}
		if cap(buf) < len(child) {
			buf = make([]float64, len(child))
		}
		buf = buf[:len(child)]
		region.Marginalize(b[e.Parent], e.Map, buf)
		for x, v := range child {
			if d := math.Abs(v - buf[x]); !(d <= ConsistencyTol) {
				return fmt.Sprintf("region %d and its parent %d differ by %.3g at state %d", e.Child, e.Parent, d, x)
			}
		}
	}
	return ""
}
