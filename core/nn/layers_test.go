package nn

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"gonum.org/v1/gonum/blas/blas64"
)

func TestLinearGradient(t *testing.T) {
	rng := mrf.NewRand(1)
	const rows, in, out = 5, 4, 3
	l := newLinear("lin", in, out, rng)
	x := randMat(rng, rows, in)
	c := randMat(rng, rows, out).Data
	y := newMat(rows, out)
	loss := func() float64 { l.forward(x, y); return dot(c, y.Data) }

	zeroGrad(l.params())
	loss()
	dx := newMat(rows, in)
	l.backward(x, asMat(c, rows, out), dx, 0)
	checkGradients(t, loss, append(paramTargets(l.params()), target{"x", x.Data, dx.Data})...)

	// beta = 1 adds to dx; a nil dx is skipped; weight gradients accumulate.
	acc := newMat(rows, in)
	for i := range acc.Data {
		acc.Data[i] = 1
	}
	gw := append([]float64(nil), l.w.Grad...)
	l.backward(x, asMat(c, rows, out), acc, 1)
	l.backward(x, asMat(c, rows, out), blas64.General{}, 0)
	for i, v := range acc.Data {
		if math.Abs(v-(1+dx.Data[i])) > 1e-12 {
			t.Fatalf("accumulated dx[%d] = %v, want %v", i, v, 1+dx.Data[i])
		}
	}
	for i, v := range l.w.Grad {
		if math.Abs(v-3*gw[i]) > 1e-12 {
			t.Fatalf("dW[%d] after three backward passes = %v, want %v", i, v, 3*gw[i])
		}
	}
}

func TestLinearInit(t *testing.T) {
	rng := mrf.NewRand(2)
	l := newLinear("lin", 16, 8, rng)
	bound := 1 / math.Sqrt(16)
	for _, p := range l.params() {
		for _, v := range p.Value {
			if math.Abs(v) > bound {
				t.Fatalf("%s entry %v outside ±%v", p.Name, v, bound)
			}
		}
	}
}

func TestResBlockGradient(t *testing.T) {
	for _, depth := range []int{1, 2} {
		rng := mrf.NewRand(int64(10 + depth))
		const rows, width = 5, 6
		b := newResBlock("block", rows, width, depth, rng)
		x := randMat(rng, rows, width)
		c := randMat(rng, rows, width).Data
		y := newMat(rows, width)
		loss := func() float64 { b.forward(x, y); return dot(c, y.Data) }

		zeroGrad(b.params())
		loss()
		dx := newMat(rows, width)
		b.backward(x, asMat(c, rows, width), dx)
		if len(b.params()) != 2*depth {
			t.Fatalf("depth %d: %d parameter tensors, want %d", depth, len(b.params()), 2*depth)
		}
		active := 0
		for _, v := range b.act[depth-1].Data {
			if v > 0 {
				active++
			}
		}
		if active == 0 || active == rows*width {
			t.Fatalf("depth %d: %d of %d units active; the check would not exercise the ReLU", depth, active, rows*width)
		}
		checkGradients(t, loss, append(paramTargets(b.params()), target{"x", x.Data, dx.Data})...)
	}
}

func TestResBlockForm(t *testing.T) {
	// Depth 1 is y = x + ReLU(x W + b), computed here by hand.
	rng := mrf.NewRand(3)
	b := newResBlock("block", 2, 3, 1, rng)
	x := randMat(rng, 2, 3)
	y := newMat(2, 3)
	b.forward(x, y)
	w, bias := b.layers[0].w.Value, b.layers[0].b.Value
	for i := range 2 {
		for j := range 3 {
			a := bias[j]
			for k := range 3 {
				a += x.Data[i*3+k] * w[k*3+j]
			}
			want := x.Data[i*3+j] + math.Max(a, 0)
			if math.Abs(y.Data[i*3+j]-want) > 1e-12 {
				t.Errorf("y[%d,%d] = %v, want %v", i, j, y.Data[i*3+j], want)
			}
		}
	}
}

func TestLayerNormGradient(t *testing.T) {
	rng := mrf.NewRand(4)
	const rows, dim = 5, 6
	n := newLayerNorm("ln", rows, dim)
	randomizeParams(rng, 1, n.params()...)
	z := randMat(rng, rows, dim)
	c := randMat(rng, rows, dim).Data
	h := newMat(rows, dim)
	loss := func() float64 { n.forward(z, h); return dot(c, h.Data) }

	zeroGrad(n.params())
	loss()
	dz := newMat(rows, dim)
	n.backward(asMat(c, rows, dim), dz)
	checkGradients(t, loss, append(paramTargets(n.params()), target{"z", z.Data, dz.Data})...)
}

func TestLayerNormNormalises(t *testing.T) {
	rng := mrf.NewRand(5)
	n := newLayerNorm("ln", 3, 8)
	z := randMat(rng, 3, 8)
	for i := range z.Data {
		z.Data[i] = 10*z.Data[i] + 7
	}
	h := newMat(3, 8)
	n.forward(z, h)
	for i := range 3 {
		var mean, sq float64
		for _, v := range row(h, i) {
			mean += v
			sq += v * v
		}
		mean /= 8
		variance := sq/8 - mean*mean
		if math.Abs(mean) > 1e-12 || math.Abs(variance-1) > 1e-5 {
			t.Errorf("row %d: mean %v, variance %v; want 0 and 1", i, mean, variance)
		}
	}
}

func TestGatherScatterGradient(t *testing.T) {
	rng := mrf.NewRand(6)
	const numVars, d = 5, 3
	// Variable 1 is in three roots, so its gradient sums three blocks.
	vars := [][]int{{0, 1}, {1, 4}, {3, 1}}
	h := randMat(rng, numVars, d)
	x := newMat(len(vars), 2*d)
	c := randMat(rng, len(vars), 2*d).Data
	loss := func() float64 { gather(h, vars, x); return dot(c, x.Data) }
	loss()
	if got, want := x.Data[2*2*d+d:2*2*d+2*d], row(h, 1); !equalSlices(got, want) {
		t.Fatalf("gathered block %v, want row 1 of h %v", got, want)
	}
	dh := newMat(numVars, d)
	scatterAdd(asMat(c, len(vars), 2*d), vars, dh)
	checkGradients(t, loss, target{"h", h.Data, dh.Data})
	for _, v := range row(dh, 2) {
		if v != 0 {
			t.Fatalf("variable 2 is in no root but has gradient %v", row(dh, 2))
		}
	}
}

func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
