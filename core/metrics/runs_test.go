package metrics

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func TestCompareFixedPoints(t *testing.T) {
	// Four unary factors (0, 1): BP's one fixed point is e/(1+e) per variable.
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 1}}, {Vars: []int{1}, LogTable: []float64{0, 1}}}}
	p := math.E / (1 + math.E)
	answer := func(q float64, conv bool, f, err float64) Answer {
		b := []float64{1 - q, q}
		return Answer{Converged: conv, F: f, MeanAbs: err, Beliefs: mrf.Marginals{Vars: [][]float64{b, b}, Factors: [][]float64{b, b}}}
	}
	f, ok := CompareFixedPoints(m, answer(p, true, -20, 0.05), answer(0.1, true, -18, 0.75), 1e-3)
	if !ok || !f.Both || !f.Different || !f.BHigher || !f.LowerFBetter || f.ResidualA > 1e-12 || f.ResidualB < 1 {
		t.Errorf("two points: %+v", f)
	}
	if f, _ := CompareFixedPoints(m, answer(p, true, -10, 0.02), answer(p+1e-8, true, -10, 0.02), 1e-3); f.Different || !f.Both || math.Abs(f.Distance-1e-8) > 1e-12 {
		t.Errorf("one point: %+v", f)
	}
	if f, _ := CompareFixedPoints(m, answer(p, true, -10, 0), answer(0.2, false, -5, 0), 1e-3); f.Both || f.Different {
		t.Errorf("one did not converge: %+v", f)
	}
	if _, ok := CompareFixedPoints(m, answer(p, true, 0, 0), Answer{}, 1e-3); ok {
		t.Error("compared without beliefs")
	}
}

func TestBeliefDistance(t *testing.T) {
	a := mrf.Marginals{Vars: [][]float64{{0.5, 0.5}}, Factors: [][]float64{{0.4, 0.1, 0.1, 0.4}}}
	b := mrf.Marginals{Vars: [][]float64{{0.5, 0.5}}, Factors: [][]float64{{0.4 + 1e-5, 0.1 - 1e-5, 0.1, 0.4}}}
	if d, ok := BeliefDistance(a, b); !ok || math.Abs(d-1e-5) > 1e-12 {
		t.Errorf("distance %g, %v; want 1e-5 (a factor belief)", d, ok)
	}
	if _, ok := BeliefDistance(a, mrf.Marginals{Vars: a.Vars}); ok {
		t.Error("a missing factor belief matched")
	}
}
