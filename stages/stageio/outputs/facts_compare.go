package outputs

// Comparisons of two methods' answers on every scored model
// (metrics.CompareFixedPoints, metrics.BeliefDistance), recorded among the
// model's own facts under the comparison's name.

import (
	"strconv"

	"github.com/renn-go/renn/core/metrics"
)

// CompareSpec declares a comparison of the answers of methods A and B:
// "fixed_points", two runs of BP (the same fixed point, and each a
// stationary point of the Bethe free energy?), or "same_point", whether B
// converged where A did (and where A did not).
type CompareSpec struct {
	Name, Kind, A, B string
	Same             float64 // the largest belief difference of one point
	Stationary       float64 // fixed_points: the largest Bethe residual of a stationary point
}

// compare records the reader's comparisons of m's runs among mo's facts.
func (s *Reader) compare(mo *Fact, m *ScoredModel) {
	for _, c := range s.Compare {
		a, b := m.Runs[c.A], m.Runs[c.B]
		if a == nil || b == nil || a.Est == nil || b.Est == nil {
			continue
		}
		if c.Kind == "same_point" {
			c.samePoint(m, a, b, mo)
		} else {
			c.fixedPoints(m, a, b, mo)
		}
	}
}

// fixedPoints records whether A and B converged, to one point or two,
// and whether each is stationary (_conv_a, _distance, _f_a, _res_a, ...
// as counts and 0/1 facts).
func (c CompareSpec) fixedPoints(m *ScoredModel, a, b *ScoredRun, mo *Fact) {
	ma, mb := m.Answer(a), m.Answer(b)
	f, ok := metrics.CompareFixedPoints(m.Model, ma, mb, c.Same)
	if !ok {
		return
	}
	convA, convB := a.Est.Converged, b.Est.Converged
	statA, statB := convA && f.ResidualA <= c.Stationary, convB && f.ResidualB <= c.Stationary
	for name, v := range map[string]float64{
		"converged": b2f(convA) + b2f(convB), "stationary": b2f(statA) + b2f(statB),
		"conv_a": b2f(convA), "conv_b": b2f(convB), "res_a": f.ResidualA, "res_b": f.ResidualB,
		"distance": f.Distance, "f_a": ma.F, "f_b": mb.F, "both": b2f(f.Both), "same": b2f(f.Both && !f.Different),
		"different": b2f(f.Different), "b_higher": b2f(f.BHigher), "lower_f_better": b2f(f.LowerFBetter),
	} {
		mo.Num[c.Name+"_"+name] = v
	}
}

// samePoint records whether B converged at A's point where A converged,
// and converged where A did not; the models where it did not are named
// (_miss).
func (c CompareSpec) samePoint(m *ScoredModel, a, b *ScoredRun, mo *Fact) {
	set := func(name string, v bool) { mo.Num[c.Name+"_"+name] = b2f(v) }
	miss := func(why string) { mo.Text[c.Name+"_miss"] = m.Info.Name + " (" + why + ")" }
	convA, convB := a.Est.Converged, b.Est.Converged
	for name, v := range map[string]bool{"models": true, "a_converged": convA, "a_not": !convA, "rescued": !convA && convB, "same": false} {
		set(name, v)
	}
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
		miss("another point: |Δb| " + strconv.FormatFloat(d, 'e', 0, 64))
	default:
		set("same", true)
	}
}
