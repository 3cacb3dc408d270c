package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAdamFirstSteps checks two steps against the update written out by hand.
func TestAdamFirstSteps(t *testing.T) {
	p := newParam("x", 3)
	copy(p.Value, []float64{1, -2, 0.5})
	g1 := []float64{0.3, -4, 1e-9}
	g2 := []float64{-0.1, 2, 5}
	a := NewAdam([]*Param{p}, 0.01)
	if a.LR != 0.01 || a.Beta1 != 0.9 || a.Beta2 != 0.999 || a.Eps != 1e-8 {
		t.Fatalf("defaults %v %v %v %v", a.LR, a.Beta1, a.Beta2, a.Eps)
	}
	want := append([]float64(nil), p.Value...)
	m := make([]float64, 3)
	v := make([]float64, 3)
	for step, g := range [][]float64{g1, g2} {
		copy(p.Grad, g)
		a.Step()
		k := float64(step + 1)
		for i := range want {
			m[i] = 0.9*m[i] + 0.1*g[i]
			v[i] = 0.999*v[i] + 0.001*g[i]*g[i]
			mhat := m[i] / (1 - math.Pow(0.9, k))
			vhat := v[i] / (1 - math.Pow(0.999, k))
			want[i] -= 0.01 * mhat / (math.Sqrt(vhat) + 1e-8)
		}
		if step == 0 {
			// Bias correction makes the first step LR·g/(|g|+ε): LR·sign(g)
			// for large g, and smaller for g near ε.
			for i, g := range g1 {
				first := 0.01 * g / (math.Abs(g) + 1e-8)
				if math.Abs((p.Value[i]-[]float64{1, -2, 0.5}[i])+first) > 1e-15 {
					t.Errorf("first step of entry %d: %v, want %v", i, p.Value[i]-[]float64{1, -2, 0.5}[i], -first)
				}
			}
		}
		for i := range want {
			if math.Abs(p.Value[i]-want[i]) > 1e-15 {
				t.Errorf("step %d entry %d: %v, want %v", step+1, i, p.Value[i], want[i])
			}
		}
	}
	if a.Steps() != 2 {
		t.Errorf("Steps() = %d, want 2", a.Steps())
	}
}

// TestAdamQuadratic minimises Σ_i s_i (x_i - c_i)², badly scaled: Adam's
// per-coordinate step sizes must handle curvatures four decades apart.
func TestAdamQuadratic(t *testing.T) {
	s := []float64{1, 100, 0.01, 3}
	c := []float64{1, -2, 3, 0.5}
	p := newParam("x", 4)
	p.Value[2] = 2 // start 1 away even on the flat axis
	a := NewAdam([]*Param{p}, 0.05)
	for range 3000 {
		for i, x := range p.Value {
			p.Grad[i] = 2 * s[i] * (x - c[i])
		}
		a.Step()
	}
	for i, x := range p.Value {
		if math.Abs(x-c[i]) > 1e-6 {
			t.Errorf("x[%d] = %v, want %v within 1e-6", i, x, c[i])
		}
	}
}

func TestAdamReset(t *testing.T) {
	p := newParam("x", 1)
	a := NewAdam([]*Param{p}, 0.1)
	p.Grad[0] = 1
	a.Step()
	a.Step()
	a.Reset()
	if a.Steps() != 0 {
		t.Fatalf("Steps() after Reset = %d", a.Steps())
	}
	// After a reset the step is again the bias-corrected first step.
	before := p.Value[0]
	p.Grad[0] = -3
	a.Step()
	if got, want := p.Value[0]-before, 0.1*3/(3+1e-8); math.Abs(got-want) > 1e-15 {
		t.Errorf("first step after Reset moved %v, want %v", got, want)
	}
}

// TestAdamBlocksMatchPlainLoop checks that the blocked update gives, bit for
// bit, the textbook per-entry update, on sizes around the block size.
func TestAdamBlocksMatchPlainLoop(t *testing.T) {
	for _, n := range []int{1, adamBlock - 1, adamBlock, adamBlock + 1, 3*adamBlock + 17} {
		p := newParam("x", n)
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		for i := range p.Value {
			p.Value[i] = rng.NormFloat64()
		}
		want := append([]float64(nil), p.Value...)
		m, v := make([]float64, n), make([]float64, n)
		lr, b1, b2 := 0.01, 0.9, 0.99 // variables: Go folds constant expressions exactly
		a := NewAdam([]*Param{p}, lr)
		a.Beta2 = 0.99
		for step := 1; step <= 3; step++ {
			for i := range p.Grad {
				p.Grad[i] = rng.NormFloat64()
			}
			a.Step()
			bc1 := 1 - math.Pow(b1, float64(step))
			rbc2 := 1 / math.Sqrt(1-math.Pow(b2, float64(step)))
			for i, g := range p.Grad {
				m[i] = b1*m[i] + (1-b1)*g
				v[i] = b2*v[i] + (1-b2)*g*g
				want[i] -= lr / bc1 * m[i] / (math.Sqrt(v[i])*rbc2 + 1e-8)
			}
			for i := range want {
				if p.Value[i] != want[i] {
					t.Fatalf("n %d step %d entry %d: %v, want %v", n, step, i, p.Value[i], want[i])
				}
			}
		}
	}
}
