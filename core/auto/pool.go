package auto

import (
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// withPool returns cands with the pool of its two Monte Carlo runs appended
// (see pool), when both are credible and agree within their joint noise
// (their excess over each other, the spread, at most excessHigh: see
// agree); else cands as they are. Two independent runs differ by their
// noise alone, so a spread above 1 shows their standard errors too small:
// the pool's are scaled up by its square root, and so are both runs' when
// both are parallel tempering (a Gibbs run may differ by sitting in a
// mode, which says nothing of parallel tempering's noise). Standard errors
// are never scaled down: the spread of runs that agree closely is left to
// the choice (noiseScale).
func withPool(m *mrf.Model, cands []candidate) []candidate {
	var mcs []int
	for i := range cands {
		c := &cands[i]
		if c.kind == kindMC && c.usable(m) && isCredible(c) && finite(seSquared(m, c.se)) {
			mcs = append(mcs, i)
		}
	}
	if len(mcs) != 2 {
		return cands
	}
	a, b := &cands[mcs[0]], &cands[mcs[1]]
	spread := excess(m, a.res.Marginals, b.res.Marginals, a.se, b.se)
	if !(spread >= 0) {
		return cands
	}
	if a.name != gibbsName && b.name != gibbsName && spread > 1 {
		for _, c := range []*candidate{a, b} {
			c.se = scaled(c.se, math.Sqrt(spread))
			c.res.Diagnostics["se_scale"] = math.Sqrt(spread)
		}
	}
	if !(spread <= excessHigh) {
		return cands
	}
	p, ok := pool(m, a, b)
	if !ok {
		return cands
	}
	if a.name == gibbsName || b.name == gibbsName {
		p.se = scaled(p.se, math.Sqrt(max(spread, 1)))
		p.gibbs = true
	}
	p.spread = min(spread, 1) // the spread left after the scaling
	p.res.Diagnostics["spread"] = spread
	p.res.Diagnostics["se_scale"] = math.Sqrt(max(spread, 1))
	return append(cands, p)
}

// scaled returns a copy of se with every entry times f.
func scaled(se [][]float64, f float64) [][]float64 {
	out := make([][]float64, len(se))
	for i := range se {
		out[i] = make([]float64, len(se[i]))
		for k, e := range se[i] {
			out[i][k] = f * e
		}
	}
	return out
}

// pool combines the answers of two independent Monte Carlo runs a and b
// into one: the average of their marginals (variables and factors alike)
// weighted by the inverse of each run's Σ se² (seSquared: one weight per
// run, so the pooled marginals stay consistent and normalised), with
// standard errors sqrt(wa² sea² + wb² seb²) / (wa + wb). Two runs of
// parallel tempering on two cores thus halve the squared error of one;
// Gibbs sampling's smaller errors weigh more beside parallel tempering's.
// ln Z is the inverse-variance average of the runs' finite ln Z (by their
// "log_z_se"), or the one run's that has one. The pool converged when both
// runs did (it is credible either way: see withPool); ok is false when the
// pooled answer fails the shared check.
func pool(m *mrf.Model, a, b *candidate) (candidate, bool) {
	wa, wb := 1/seSquared(m, a.se), 1/seSquared(m, b.se)
	if math.IsInf(wa, 1) || math.IsInf(wb, 1) { // an exact sampler: no noise to average away
		wa, wb = 1, 1
	}
	fa, fb := wa/(wa+wb), wb/(wa+wb)
	mix := func(x, y [][]float64) [][]float64 {
		out := make([][]float64, len(x))
		for i := range x {
			out[i] = make([]float64, len(x[i]))
			for k := range x[i] {
				out[i][k] = fa*x[i][k] + fb*y[i][k]
			}
		}
		return out
	}
	ra, rb := a.res, b.res
	res := &infer.Result{
		Marginals:   mrf.Marginals{Vars: mix(ra.Marginals.Vars, rb.Marginals.Vars), Factors: mix(ra.Marginals.Factors, rb.Marginals.Factors)},
		Iterations:  ra.Iterations + rb.Iterations,
		Status:      infer.NotConverged,
		Diagnostics: map[string]float64{"pool_weight_" + a.name: fa, "pool_weight_" + b.name: fb, "rhat_max": math.Max(ra.Diagnostics["rhat_max"], rb.Diagnostics["rhat_max"])},
	}
	if a.converged() && b.converged() {
		res.Status = infer.Converged
	}
	res.LogZ, res.Diagnostics["log_z_se"] = poolLogZ(ra, rb)
	res.FreeEnergy = -res.LogZ
	se := make([][]float64, len(a.se))
	for i := range a.se {
		se[i] = make([]float64, len(a.se[i]))
		for k := range a.se[i] {
			se[i][k] = math.Hypot(fa*a.se[i][k], fb*b.se[i][k])
		}
	}
	c := candidate{name: a.name + "+" + b.name, kind: kindMC, pooled: true, res: res, se: se,
		limit: math.Max(a.limit, b.limit), seconds: math.Max(a.seconds, b.seconds)}
	if c.check = infer.VerifyMarginals(m, res, nil); c.check != "" {
		return c, false
	}
	return c, true
}

// poolLogZ returns the inverse-variance average of a's and b's finite ln Z
// and its standard error: the one that is finite if only one is, NaN if
// neither; with a standard error missing (or not finite) on either side,
// their plain average and NaN.
func poolLogZ(a, b *infer.Result) (logZ, se float64) {
	sa, sb := seOf(a), seOf(b)
	switch {
	case !finite(a.LogZ) && !finite(b.LogZ):
		return math.NaN(), math.NaN()
	case !finite(b.LogZ):
		return a.LogZ, sa
	case !finite(a.LogZ):
		return b.LogZ, sb
	case !(sa > 0 && finite(sa) && sb > 0 && finite(sb)):
		return (a.LogZ + b.LogZ) / 2, math.NaN()
	}
	wa, wb := 1/(sa*sa), 1/(sb*sb)
	return (wa*a.LogZ + wb*b.LogZ) / (wa + wb), 1 / math.Sqrt(wa+wb)
}

// seOf returns r's "log_z_se", NaN when it has none.
func seOf(r *infer.Result) float64 {
	if se, ok := r.Diagnostics["log_z_se"]; ok {
		return se
	}
	return math.NaN()
}
