package nn

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func TestSoftmax(t *testing.T) {
	for _, c := range []struct {
		name   string
		logits []float64
		want   []float64
	}{
		{"uniform", []float64{3, 3, 3, 3}, []float64{0.25, 0.25, 0.25, 0.25}},
		{"two", []float64{0, math.Log(3)}, []float64{0.25, 0.75}},
		{"large", []float64{1000, 1000 + math.Log(3)}, []float64{0.25, 0.75}},
		{"very negative", []float64{-1000, -1000}, []float64{0.5, 0.5}},
		{"zero potential", []float64{math.Inf(-1), 0, 0}, []float64{0, 0.5, 0.5}},
		{"single", []float64{-7}, []float64{1}},
	} {
		out := make([]float64, len(c.logits))
		Softmax(c.logits, out)
		for i := range out {
			if math.Abs(out[i]-c.want[i]) > 1e-12 {
				t.Errorf("%s: Softmax(%v) = %v, want %v", c.name, c.logits, out, c.want)
				break
			}
		}
	}
	// In place, and invariant to a shift of the logits.
	rng := mrf.NewRand(8)
	z := make([]float64, 7)
	fillNormal(rng, z)
	p := make([]float64, 7)
	Softmax(z, p)
	for i := range z {
		z[i] += 12.5
	}
	Softmax(z, z)
	for i := range z {
		if math.Abs(z[i]-p[i]) > 1e-15 {
			t.Fatalf("shifted in-place softmax %v differs from %v", z, p)
		}
	}
}

func TestSoftmaxGradient(t *testing.T) {
	rng := mrf.NewRand(9)
	z := make([]float64, 6)
	c := make([]float64, 6)
	fillNormal(rng, z)
	fillNormal(rng, c)
	p := make([]float64, 6)
	// A non-linear loss in p, so dp depends on p: Σ c·p + Σ p².
	loss := func() float64 {
		Softmax(z, p)
		s := 0.0
		for i, v := range p {
			s += c[i]*v + v*v
		}
		return s
	}
	loss()
	dp := make([]float64, 6)
	for i, v := range p {
		dp[i] = c[i] + 2*v
	}
	dz := make([]float64, 6)
	SoftmaxBackward(p, dp, dz)
	checkGradients(t, loss, target{"logits", z, dz})
	// Aliasing dp and dlogits gives the same result.
	loss() // restore p after the finite differences
	SoftmaxBackward(p, dp, dp)
	if !equalSlices(dp, dz) {
		t.Fatalf("in-place SoftmaxBackward %v, want %v", dp, dz)
	}
}

func TestSoftmaxLengthMismatchPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Softmax":         func() { Softmax(make([]float64, 3), make([]float64, 2)) },
		"SoftmaxBackward": func() { SoftmaxBackward(make([]float64, 3), make([]float64, 3), make([]float64, 4)) },
	} {
		if !panics(f) {
			t.Errorf("%s with mismatched lengths did not panic", name)
		}
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}
