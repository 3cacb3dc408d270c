package report

// Comparisons of two runs on one model, from their beliefs: whether two
// BP runs stopped at one fixed point (and whether each is a stationary
// point of the Bethe free energy), or whether a second minimiser of a free
// energy stopped where the first did. Each adds facts to the model's obs,
// named after the comparison.

import (
	"fmt"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// compareSpec declares a comparison of the runs of methods A and B.
type compareSpec struct {
	Name string // the prefix of the facts it adds
	// Kind: "fixed_points" compares two runs of BP (a fixed point is a
	// stationary point of the Bethe free energy, measured by
	// metrics.BetheResidual); "same_point" asks whether B converged where A
	// did, and where A did not.
	Kind       string
	A, B       string
	Same       float64 // the largest belief difference of one point
	Stationary float64 // fixed_points: the largest Bethe residual of a stationary point
}

func (s *section) compareRuns(mo *obs, m *scored) {
	for _, c := range s.spec.Compare {
		a, b := m.runs[c.A], m.runs[c.B]
		if a == nil || b == nil || a.est == nil || b.est == nil {
			continue
		}
		f := func(name string, v float64) { mo.num[c.Name+"_"+name] = v }
		switch c.Kind {
		case "fixed_points":
			c.fixedPoints(m, a, b, f, mo)
		case "same_point":
			c.samePoint(m, a, b, f, mo)
		}
	}
}

// fixedPoints compares two BP runs: both converged, to the same point or
// to two, and of those whether the one of lower Bethe free energy is the
// more accurate, and whether each converged run is a stationary point.
func (c compareSpec) fixedPoints(m *scored, a, b *scoredRun, f func(string, float64), mo *obs) {
	dist, ok := metrics.MaxAbsDiff(a.vars, b.vars)
	if a.vars == nil || b.vars == nil || !ok {
		return
	}
	resA := metrics.BetheResidual(modelOf(m.info.Cards, m.factors, a.vars, a.factors))
	resB := metrics.BetheResidual(modelOf(m.info.Cards, m.factors, b.vars, b.factors))
	convA, convB := a.est.Converged, b.est.Converged
	fA, fB := a.est.FreeEnergy, b.est.FreeEnergy
	both := convA && convB
	different := both && dist > c.Same
	f("res_a", resA)
	f("res_b", resB)
	f("converged", b2f(convA)+b2f(convB))
	f("stationary", b2f(convA && resA <= c.Stationary)+b2f(convB && resB <= c.Stationary))
	f("both", b2f(both))
	f("same", b2f(both && !different))
	f("different", b2f(different))
	f("b_higher", b2f(different && fB > fA))
	f("lower_f_better", b2f(different && (fA < fB) == (a.metrics[metrics.VarMeanAbs] < b.metrics[metrics.VarMeanAbs])))
	mo.text[c.Name+"_verdict"] = c.verdict(convA, convB, dist, fA, fB, resA, resB)
}

func (c compareSpec) verdict(convA, convB bool, dist, fA, fB, resA, resB float64) string {
	switch {
	case !convA && !convB:
		return "neither converged"
	case !convA:
		return c.A + " did not converge"
	case !convB:
		return c.B + " did not converge"
	case dist <= c.Same:
		return fmt.Sprintf("same fixed point (beliefs within %s)", smallE(dist))
	}
	what := "two stationary points of the Bethe F"
	if !(resA <= c.Stationary) || !(resB <= c.Stationary) {
		what = "two different converged points, not both stationary"
	}
	if fB > fA {
		return fmt.Sprintf("%s: %s's F higher by %s", what, c.B, formatNumber("", fB-fA))
	}
	return fmt.Sprintf("%s: %s's F higher by %s", what, c.A, formatNumber("", fA-fB))
}

// samePoint asks whether B converged at A's point where A converged, and
// converged where A did not; the models where it did not are named.
func (c compareSpec) samePoint(m *scored, a, b *scoredRun, f func(string, float64), mo *obs) {
	miss := func(why string) { mo.text[c.Name+"_miss"] = m.info.Name + " (" + why + ")" }
	f("models", 1)
	convA, convB := a.est.Converged, b.est.Converged
	f("a_converged", b2f(convA))
	f("a_not", b2f(!convA))
	f("rescued", b2f(!convA && convB))
	f("same", 0)
	if !convA {
		if !convB {
			miss("neither converged")
		}
		return
	}
	d, ok := beliefDistance(a, b)
	if ok {
		f("distance", d)
	}
	switch {
	case !convB:
		miss(c.A + " converged, " + c.B + " did not")
	case !ok:
		miss("beliefs missing")
	case d > c.Same:
		miss("another point: |Δb| " + orDashE(d, 0))
	default:
		f("same", 1)
	}
}

// beliefDistance is the largest |Δb| between two runs' variable and factor
// marginals; ok is false when either lacks them or they do not match.
func beliefDistance(a, b *scoredRun) (float64, bool) {
	if a.vars == nil || b.vars == nil || len(a.factors) != len(b.factors) {
		return 0, false
	}
	dv, okv := metrics.MaxAbsDiff(a.vars, b.vars)
	var fa, fb [][]float64
	for id, x := range a.factors {
		fa, fb = append(fa, x), append(fb, b.factors[id])
	}
	df, okf := metrics.MaxAbsDiff(fa, fb)
	for i := range a.vars {
		if len(a.vars[i]) == 0 {
			return 0, false
		}
	}
	for i := range fa {
		if len(fa[i]) == 0 {
			return 0, false
		}
	}
	return max(dv, df), okv && okf
}

// modelOf is the model of factor rows with cards, and the factor beliefs
// facs (by factor id) laid out as its marginals.
func modelOf(cards []int32, factors []formats.FactorRow, vars [][]float64, facs map[int32][]float64) (*mrf.Model, mrf.Marginals) {
	m := &mrf.Model{}
	for _, c := range cards {
		m.Cards = append(m.Cards, int(c))
	}
	mg := mrf.Marginals{Vars: vars}
	for _, f := range factors {
		vs := make([]int, len(f.Vars))
		for i, v := range f.Vars {
			vs[i] = int(v)
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vs, LogTable: f.LogTable})
		mg.Factors = append(mg.Factors, facs[f.FactorID])
	}
	return m, mg
}

func mrfShape(m *mrf.Model) mrf.Shape { return mrf.ShapeOf(m) }
