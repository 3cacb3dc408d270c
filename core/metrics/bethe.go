package metrics

import (
	"math"

	"github.com/renn-go/renn/core/mrf"
)

// BetheResidual measures how far beliefs mg of a binary model m with unary
// and pairwise factors are from a stationary point of its Bethe free
// energy, which is where BP's fixed points are (Yedidia, Freeman, Weiss
// 2005). Beliefs are stationary exactly when they are consistent (every
// factor belief sums to the beliefs of its variables) and reparametrise the
// model (Wainwright, Jaakkola, Willsky 2003):
// g(x) = Σ_a [ln b_a(x_a) − ln f_a(x_a)] − Σ_i (d_i − 1) ln b_i(x_i), with
// d_i the number of factors on variable i, is the same for every x. Written
// in spins x_i = ±1, g is a constant plus Σ_i h_i x_i plus Σ_ij w_ij x_i x_j,
// and these coefficients are unique, so g is constant exactly when every
// h_i and w_ij is 0. The residual is the largest of the consistency
// violations (probabilities) and of the |h_i| and |w_ij| (nats). It is NaN
// when it cannot be measured: a belief is missing or zero, or the model is
// not binary pairwise.
func BetheResidual(m *mrf.Model, mg mrf.Marginals) float64 {
	vars := mg.Vars
	if len(m.Factors) == 0 || len(vars) == 0 {
		return math.NaN()
	}
	for _, b := range vars {
		if !positivePair(b) {
			return math.NaN()
		}
	}
	degree := make([]int, len(vars))
	h := make([]float64, len(vars))
	w := map[[2]int]float64{}
	res := 0.0
	for k, f := range m.Factors {
		var b []float64
		if k < len(mg.Factors) {
			b = mg.Factors[k]
		}
		for _, v := range f.Vars {
			if v < 0 || v >= len(vars) {
				return math.NaN()
			}
			degree[v]++
		}
		r, ok := addFactorTerms(f, b, vars, h, w)
		if !ok {
			return math.NaN()
		}
		res = max(res, r)
	}
	for i, b := range vars {
		h[i] -= float64(degree[i]-1) * (math.Log(b[1]) - math.Log(b[0])) / 2
		res = max(res, math.Abs(h[i]))
	}
	for _, v := range w {
		res = max(res, math.Abs(v))
	}
	return res
}

// addFactorTerms adds factor f's share of the spin coefficients h and w of
// g(x) (see BetheResidual) for its belief b, and returns the largest
// consistency violation between b and the variable beliefs; ok is false
// when the factor or its belief cannot be measured.
func addFactorTerms(f mrf.Factor, b []float64, vars [][]float64, h []float64, w map[[2]int]float64) (res float64, ok bool) {
	switch len(f.Vars) {
	case 1:
		if len(f.LogTable) != 2 || !positivePair(b) {
			return 0, false
		}
		i := f.Vars[0]
		for s := range 2 {
			res = max(res, math.Abs(b[s]-vars[i][s]))
		}
		t0, t1 := math.Log(b[0])-f.LogTable[0], math.Log(b[1])-f.LogTable[1]
		h[i] += (t1 - t0) / 2
		return res, true
	case 2:
		if len(b) != 4 || len(f.LogTable) != 4 {
			return 0, false
		}
		i, j := f.Vars[0], f.Vars[1]
		var t [4]float64 // index 2*s_i + s_j
		for k := range 4 {
			if !(b[k] > 0) {
				return 0, false
			}
			t[k] = math.Log(b[k]) - f.LogTable[k]
		}
		for s := range 2 {
			res = max(res, math.Abs(b[2*s]+b[2*s+1]-vars[i][s]), math.Abs(b[s]+b[2+s]-vars[j][s]))
		}
		h[i] += (t[2] + t[3] - t[0] - t[1]) / 4
		h[j] += (t[1] + t[3] - t[0] - t[2]) / 4
		w[[2]int{min(i, j), max(i, j)}] += (t[0] + t[3] - t[1] - t[2]) / 4
		return res, true
	}
	return 0, false
}

// positivePair reports whether b is a belief over two states, both
// positive.
func positivePair(b []float64) bool { return len(b) == 2 && b[0] > 0 && b[1] > 0 }
