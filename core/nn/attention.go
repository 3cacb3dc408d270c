package nn

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// selfAttention is multi-head self-attention over the n rows of its input:
//
//	Q, K, V = x Wq + bq, x Wk + bk, x Wv + bv
//	A_h = softmax_rows(scale · Q_h K_h^T)        (h-th block of d/heads columns)
//	out = concat_h(A_h V_h) Wo + bo
//
// Every variable attends to every other; there is no mask.
type selfAttention struct {
	n, d, heads int
	scale       float64
	q, k, v, o  *linear

	Q, K, V, C     blas64.General   // n x d
	A              []blas64.General // per head, n x n attention probabilities
	dQ, dK, dV, dC blas64.General
	dA             blas64.General // n x n work space
}

func newSelfAttention(name string, n, d, heads int, scale float64, rng *rand.Rand) *selfAttention {
	a := &selfAttention{n: n, d: d, heads: heads, scale: scale,
		q: newLinear(name+".q", d, d, rng), k: newLinear(name+".k", d, d, rng),
		v: newLinear(name+".v", d, d, rng), o: newLinear(name+".o", d, d, rng),
		Q: newMat(n, d), K: newMat(n, d), V: newMat(n, d), C: newMat(n, d),
		dQ: newMat(n, d), dK: newMat(n, d), dV: newMat(n, d), dC: newMat(n, d),
		dA: newMat(n, n)}
	for range heads {
		a.A = append(a.A, newMat(n, n))
	}
	return a
}

func (a *selfAttention) params() []*Param {
	var ps []*Param
	for _, l := range []*linear{a.q, a.k, a.v, a.o} {
		ps = append(ps, l.params()...)
	}
	return ps
}

// forward sets out = attention(x).
func (a *selfAttention) forward(x, out blas64.General) {
	a.q.forward(x, a.Q)
	a.k.forward(x, a.K)
	a.v.forward(x, a.V)
	dh := a.d / a.heads
	for h, A := range a.A {
		c := h * dh
		blas64.Gemm(blas.NoTrans, blas.Trans, a.scale, colView(a.Q, c, dh), colView(a.K, c, dh), 0, A)
		for i := 0; i < a.n; i++ {
			r := row(A, i)
			Softmax(r, r)
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, A, colView(a.V, c, dh), 0, colView(a.C, c, dh))
	}
	a.o.forward(a.C, out)
}

// backward sets dx = d/dx + beta·dx from dout, after forward on x, and
// accumulates the weight gradients.
func (a *selfAttention) backward(x, dout, dx blas64.General, beta float64) {
	a.o.backward(a.C, dout, a.dC, 0)
	dh := a.d / a.heads
	for h, A := range a.A {
		c := h * dh
		dCh := colView(a.dC, c, dh)
		// dA = dC_h V_h^T; dV_h = A^T dC_h.
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, dCh, colView(a.V, c, dh), 0, a.dA)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, A, dCh, 0, colView(a.dV, c, dh))
		// Through the row softmax: dS = A ⊙ (dA - rowsum(A ⊙ dA)), in place.
		for i := 0; i < a.n; i++ {
			p, g := row(A, i), row(a.dA, i)
			SoftmaxBackward(p, g, g)
		}
		// S = scale·Q_h K_h^T.
		blas64.Gemm(blas.NoTrans, blas.NoTrans, a.scale, a.dA, colView(a.K, c, dh), 0, colView(a.dQ, c, dh))
		blas64.Gemm(blas.Trans, blas.NoTrans, a.scale, a.dA, colView(a.Q, c, dh), 0, colView(a.dK, c, dh))
	}
	a.q.backward(x, a.dQ, dx, beta)
	a.k.backward(x, a.dK, dx, 1)
	a.v.backward(x, a.dV, dx, 1)
}
