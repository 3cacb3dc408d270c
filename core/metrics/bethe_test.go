package metrics

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestBetheResidual checks the stationarity measure on a tree, where the
// exact marginals are BP's one fixed point: two spins with fields and a
// coupling, one unary factor each and one pairwise factor.
func TestBetheResidual(t *testing.T) {
	h0, h1, J := 0.3, -0.7, 1.2
	model := func() *mrf.Model {
		return &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
			{Vars: []int{0}, LogTable: []float64{-h0, h0}},
			{Vars: []int{1}, LogTable: []float64{-h1, h1}},
			{Vars: []int{0, 1}, LogTable: []float64{J, -J, -J, J}},
		}}
	}
	// Exact joint over (s0, s1), index 2*s0 + s1.
	var joint [4]float64
	z := 0.0
	for k := range 4 {
		x0, x1 := float64(2*(k/2)-1), float64(2*(k%2)-1)
		joint[k] = math.Exp(h0*x0 + h1*x1 + J*x0*x1)
		z += joint[k]
	}
	for k := range joint {
		joint[k] /= z
	}
	exact := func() mrf.Marginals {
		b0 := []float64{joint[0] + joint[1], joint[2] + joint[3]}
		b1 := []float64{joint[0] + joint[2], joint[1] + joint[3]}
		return mrf.Marginals{Vars: [][]float64{b0, b1}, Factors: [][]float64{append([]float64(nil), b0...), append([]float64(nil), b1...), joint[:]}}
	}
	for _, c := range []struct {
		name   string
		change func(m *mrf.Model, mg *mrf.Marginals)
		lo, hi float64 // the residual lies in [lo, hi]; NaN: want NaN
	}{
		{"exact marginals", nil, 0, 1e-12},
		{"a variable belief off by 0.01 (inconsistent)", func(_ *mrf.Model, mg *mrf.Marginals) {
			mg.Vars[0] = []float64{mg.Vars[0][0] - 0.01, mg.Vars[0][1] + 0.01}
		}, 0.01, 1},
		{"a product of the variable beliefs as the pair (consistent, not a reparametrisation)", func(_ *mrf.Model, mg *mrf.Marginals) {
			v := mg.Vars
			mg.Factors[2] = []float64{v[0][0] * v[1][0], v[0][0] * v[1][1], v[0][1] * v[1][0], v[0][1] * v[1][1]}
		}, J / 2, math.Inf(1)},
		{"a zero belief", func(_ *mrf.Model, mg *mrf.Marginals) { mg.Factors[2] = []float64{0, 0.5, 0.25, 0.25} }, math.NaN(), 0},
		{"a missing factor belief", func(_ *mrf.Model, mg *mrf.Marginals) { mg.Factors[1] = nil }, math.NaN(), 0},
		{"a factor of three variables", func(m *mrf.Model, mg *mrf.Marginals) {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{0, 1, 0}, LogTable: make([]float64, 8)})
			mg.Factors = append(mg.Factors, make([]float64, 8))
		}, math.NaN(), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, mg := model(), exact()
			if c.change != nil {
				c.change(m, &mg)
			}
			got := BetheResidual(m, mg)
			if math.IsNaN(c.lo) {
				if !math.IsNaN(got) {
					t.Errorf("residual %g, want NaN", got)
				}
				return
			}
			if !(got >= c.lo && got <= c.hi) {
				t.Errorf("residual %g, want it in [%g, %g]", got, c.lo, c.hi)
			}
		})
	}
}
