package report

// Comparisons of two methods' answers on every model (metrics.
// CompareFixedPoints, metrics.BeliefDistance), added to the model's facts
// under the comparison's name.

import (
	"fmt"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// compareSpec declares a comparison of the answers of methods A and B:
// "fixed_points", two runs of BP (the same fixed point, and each a
// stationary point of the Bethe free energy?), or "same_point", whether B
// converged where A did (and where A did not).
type compareSpec struct {
	Name, Kind, A, B string
	Same             float64 // the largest belief difference of one point
	Stationary       float64 // fixed_points: the largest Bethe residual of a stationary point
}

func (s *section) compareRuns(mo *obs, m *outputs.ScoredModel) {
	for _, c := range s.spec.Compare {
		a, b := m.Runs[c.A], m.Runs[c.B]
		if a == nil || b == nil || a.Est == nil || b.Est == nil {
			continue
		}
		set := func(name string, v bool) { mo.Num[c.Name+"_"+name] = b2f(v) }
		if c.Kind == "same_point" {
			c.samePoint(m, a, b, set, mo)
			continue
		}
		ma, mb := m.Answer(a), m.Answer(b)
		f, ok := metrics.CompareFixedPoints(m.Model, ma, mb, c.Same)
		if !ok {
			continue
		}
		convA, convB := a.Est.Converged, b.Est.Converged
		statA, statB := convA && f.ResidualA <= c.Stationary, convB && f.ResidualB <= c.Stationary
		mo.Num[c.Name+"_converged"], mo.Num[c.Name+"_stationary"] = b2f(convA)+b2f(convB), b2f(statA)+b2f(statB)
		mo.Num[c.Name+"_res_a"], mo.Num[c.Name+"_res_b"] = f.ResidualA, f.ResidualB
		set("both", f.Both)
		set("same", f.Both && !f.Different)
		set("different", f.Different)
		set("b_higher", f.BHigher)
		set("lower_f_better", f.LowerFBetter)
		mo.Text[c.Name+"_verdict"] = c.verdict(convA, convB, f.Distance, ma.F, mb.F, f.ResidualA, f.ResidualB)
	}
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
func (c compareSpec) samePoint(m *outputs.ScoredModel, a, b *outputs.ScoredRun, set func(string, bool), mo *obs) {
	miss := func(why string) { mo.Text[c.Name+"_miss"] = m.Info.Name + " (" + why + ")" }
	convA, convB := a.Est.Converged, b.Est.Converged
	set("models", true)
	set("a_converged", convA)
	set("a_not", !convA)
	set("rescued", !convA && convB)
	set("same", false)
	if !convA {
		if !convB {
			miss("neither converged")
		}
		return
	}
	d, ok := metrics.BeliefDistance(m.Answer(a).Beliefs, m.Answer(b).Beliefs)
	if ok {
		mo.Num[c.Name+"_distance"] = d
	}
	switch {
	case !convB:
		miss(c.A + " converged, " + c.B + " did not")
	case !ok:
		miss("beliefs missing")
	case d > c.Same:
		miss("another point: |Δb| " + numberFormats["e0"](d))
	default:
		set("same", true)
	}
}
