package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// Gradient checks compare hand-written derivatives with central differences
// in float64: they agree when the relative error is below relTol or the
// absolute error below absTol.
const (
	fdStep = 1e-6
	relTol = 1e-6
	absTol = 1e-7
)

// target is a slice of inputs or parameters and its analytic gradient.
type target struct {
	name        string
	value, grad []float64
}

// checkGradients compares every entry of each target's grad with the central
// difference of loss with respect to that entry. loss must recompute
// everything from the current values.
func checkGradients(t *testing.T, loss func() float64, targets ...target) {
	t.Helper()
	for _, tg := range targets {
		if len(tg.value) != len(tg.grad) {
			t.Fatalf("%s: %d values but %d gradients", tg.name, len(tg.value), len(tg.grad))
		}
		bad := 0
		for i := range tg.value {
			old := tg.value[i]
			tg.value[i] = old + fdStep
			fp := loss()
			tg.value[i] = old - fdStep
			fm := loss()
			tg.value[i] = old
			num := (fp - fm) / (2 * fdStep)
			if !gradClose(tg.grad[i], num) {
				bad++
				if bad <= 5 {
					t.Errorf("%s[%d]: analytic %.12g, finite difference %.12g", tg.name, i, tg.grad[i], num)
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d of %d entries disagree", tg.name, bad, len(tg.value))
		}
	}
}

func gradClose(a, b float64) bool {
	d := math.Abs(a - b)
	return d < absTol || d < relTol*math.Max(math.Abs(a), math.Abs(b))
}

func randMat(rng *rand.Rand, rows, cols int) blas64.General {
	m := newMat(rows, cols)
	fillNormal(rng, m.Data)
	return m
}

func fillNormal(rng *rand.Rand, s []float64) {
	for i := range s {
		s[i] = rng.NormFloat64()
	}
}

// dot is the random linear functional used as a loss: Σ c ⊙ y.
func dot(c, y []float64) float64 {
	s := 0.0
	for i, v := range y {
		s += c[i] * v
	}
	return s
}

// randomizeParams overwrites params with Gaussian values of scale s, so
// checks do not depend on special initial values (unit gains, zero biases).
func randomizeParams(rng *rand.Rand, s float64, params ...*Param) {
	for _, p := range params {
		for i := range p.Value {
			p.Value[i] = s * rng.NormFloat64()
		}
	}
}

func paramTargets(params []*Param) []target {
	var ts []target
	for _, p := range params {
		ts = append(ts, target{p.Name, p.Value, p.Grad})
	}
	return ts
}

func TestGradClose(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want bool
	}{
		{1, 1 + 1e-7, true},
		{1, 1 + 1e-5, false},
		{0, 5e-8, true},
		{0, 2e-7, false},
		{-3, 3, false},
	} {
		if got := gradClose(c.a, c.b); got != c.want {
			t.Errorf("gradClose(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
