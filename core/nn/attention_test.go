package nn

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func TestAttentionGradient(t *testing.T) {
	for _, c := range []struct {
		d, heads int
		scale    bool
	}{
		{4, 1, false},
		{4, 1, true},
		{6, 2, false},
		{6, 2, true},
	} {
		rng := mrf.NewRand(int64(20 + c.d + c.heads))
		const n = 5
		s := 1.0
		if c.scale {
			s = 1 / math.Sqrt(float64(c.d/c.heads))
		}
		a := newSelfAttention("attn", n, c.d, c.heads, s, rng)
		x := randMat(rng, n, c.d)
		cv := randMat(rng, n, c.d).Data
		out := newMat(n, c.d)
		loss := func() float64 { a.forward(x, out); return dot(cv, out.Data) }

		zeroGrad(a.params())
		loss()
		dx := newMat(n, c.d)
		a.backward(x, asMat(cv, n, c.d), dx, 0)
		t.Logf("d=%d heads=%d scale=%v", c.d, c.heads, c.scale)
		checkGradients(t, loss, append(paramTargets(a.params()), target{"x", x.Data, dx.Data})...)
	}
}

// TestAttentionByHand recomputes two-head attention with plain loops.
func TestAttentionByHand(t *testing.T) {
	rng := mrf.NewRand(7)
	const n, d, heads = 4, 6, 2
	const dh = d / heads
	s := 1 / math.Sqrt(dh)
	a := newSelfAttention("attn", n, d, heads, s, rng)
	x := randMat(rng, n, d)
	out := newMat(n, d)
	a.forward(x, out)

	affine := func(l *linear, x []float64) []float64 {
		y := append([]float64(nil), l.b.Value...)
		for k, xv := range x {
			for j := range y {
				y[j] += xv * l.w.Value[k*l.out+j]
			}
		}
		return y
	}
	var Q, K, V [n][]float64
	for i := range n {
		Q[i], K[i], V[i] = affine(a.q, row(x, i)), affine(a.k, row(x, i)), affine(a.v, row(x, i))
	}
	for i := range n {
		ctx := make([]float64, d)
		for h := range heads {
			w := make([]float64, n)
			tot := 0.0
			for j := range n {
				sc := 0.0
				for k := h * dh; k < (h+1)*dh; k++ {
					sc += Q[i][k] * K[j][k]
				}
				w[j] = math.Exp(s * sc)
				tot += w[j]
			}
			for j := range n {
				for k := h * dh; k < (h+1)*dh; k++ {
					ctx[k] += w[j] / tot * V[j][k]
				}
			}
		}
		want := affine(a.o, ctx)
		for j, v := range row(out, i) {
			if math.Abs(v-want[j]) > 1e-12 {
				t.Fatalf("out[%d,%d] = %v, want %v", i, j, v, want[j])
			}
		}
	}
}
