package nn

import (
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// newMat returns a zero rows x cols row-major matrix.
func newMat(rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: make([]float64, rows*cols)}
}

// asMat views the flat slice s as a rows x cols row-major matrix.
func asMat(s []float64, rows, cols int) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: s[:rows*cols]}
}

// colView views columns [c0, c0+n) of m.
func colView(m blas64.General, c0, n int) blas64.General {
	return blas64.General{Rows: m.Rows, Cols: n, Stride: m.Stride, Data: m.Data[c0:]}
}

func row(m blas64.General, i int) []float64 {
	return m.Data[i*m.Stride : i*m.Stride+m.Cols]
}

// addColSums adds the column sums of m to s.
func addColSums(m blas64.General, s []float64) {
	for i := 0; i < m.Rows; i++ {
		for j, v := range row(m, i) {
			s[j] += v
		}
	}
}

// linear is the affine map y = x W + b on the rows of x, W in x out.
type linear struct {
	in, out int
	w, b    *Param
}

// newLinear initialises W and b uniformly in ±1/sqrt(in), the default of
// PyTorch's nn.Linear that the paper's code used.
func newLinear(name string, in, out int, rng *rand.Rand) *linear {
	l := &linear{in: in, out: out, w: newParam(name+".w", in*out), b: newParam(name+".b", out)}
	a := 1 / math.Sqrt(float64(in))
	for _, p := range []*Param{l.w, l.b} {
		for i := range p.Value {
			p.Value[i] = a * (2*rng.Float64() - 1)
		}
	}
	return l
}

func (l *linear) params() []*Param { return []*Param{l.w, l.b} }

// forward sets y = x W + b.
func (l *linear) forward(x, y blas64.General) {
	for i := 0; i < y.Rows; i++ {
		copy(row(y, i), l.b.Value)
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, x, asMat(l.w.Value, l.in, l.out), 1, y)
}

// backward adds x^T dy to dW and the column sums of dy to db, and sets
// dx = dy W^T + beta·dx. It skips dx when dx.Data is nil.
func (l *linear) backward(x, dy, dx blas64.General, beta float64) {
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, x, dy, 1, asMat(l.w.Grad, l.in, l.out))
	addColSums(dy, l.b.Grad)
	if dx.Data != nil {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, dy, asMat(l.w.Value, l.in, l.out), beta, dx)
	}
}

// resBlock is a residual ReLU block of constant width on a fixed number of
// rows. With two layers it is the paper code's ResidualLayer,
//
//	y = x + ReLU(ReLU(x W1 + b1) W2 + b2),
//
// and with one layer y = x + ReLU(x W1 + b1).
type resBlock struct {
	layers []*linear
	act    []blas64.General // ReLU output of each layer; > 0 exactly where the pre-activation is
	d, tmp blas64.General   // gradient work space
}

func newResBlock(name string, rows, width, depth int, rng *rand.Rand) *resBlock {
	b := &resBlock{d: newMat(rows, width), tmp: newMat(rows, width)}
	for k := range depth {
		b.layers = append(b.layers, newLinear(name+".lin"+strconv.Itoa(k+1), width, width, rng))
		b.act = append(b.act, newMat(rows, width))
	}
	return b
}

func (b *resBlock) params() []*Param {
	var ps []*Param
	for _, l := range b.layers {
		ps = append(ps, l.params()...)
	}
	return ps
}

func relu(m blas64.General) {
	for i, v := range m.Data {
		if v < 0 {
			m.Data[i] = 0
		}
	}
}

// reluMask zeroes d wherever act is not positive.
func reluMask(d, act blas64.General) {
	for i, a := range act.Data {
		if a <= 0 {
			d.Data[i] = 0
		}
	}
}

// forward sets y = x + block(x); y must not alias x.
func (b *resBlock) forward(x, y blas64.General) {
	in := x
	for k, l := range b.layers {
		l.forward(in, b.act[k])
		relu(b.act[k])
		in = b.act[k]
	}
	copy(y.Data, x.Data)
	blas64.Axpy(1, blas64.Vector{N: len(in.Data), Inc: 1, Data: in.Data}, blas64.Vector{N: len(y.Data), Inc: 1, Data: y.Data})
}

// backward sets dx from dy, after forward on x, and accumulates the weight
// gradients.
func (b *resBlock) backward(x, dy, dx blas64.General) {
	last := len(b.layers) - 1
	copy(b.d.Data, dy.Data)
	reluMask(b.d, b.act[last])
	for k := last; k > 0; k-- {
		b.layers[k].backward(b.act[k-1], b.d, b.tmp, 0)
		reluMask(b.tmp, b.act[k-1])
		b.d, b.tmp = b.tmp, b.d
	}
	b.layers[0].backward(x, b.d, dx, 0)
	blas64.Axpy(1, blas64.Vector{N: len(dy.Data), Inc: 1, Data: dy.Data}, blas64.Vector{N: len(dx.Data), Inc: 1, Data: dx.Data})
}

// layerNormEps is added to the variance, as in PyTorch's LayerNorm.
const layerNormEps = 1e-5

// layerNorm normalises each row to zero mean and unit (population) variance
// and applies a learned gain and bias per column.
type layerNorm struct {
	gain, bias *Param
	xhat       blas64.General
	rstd       []float64
}

func newLayerNorm(name string, rows, dim int) *layerNorm {
	n := &layerNorm{gain: newParam(name+".gain", dim), bias: newParam(name+".bias", dim),
		xhat: newMat(rows, dim), rstd: make([]float64, rows)}
	for i := range n.gain.Value {
		n.gain.Value[i] = 1
	}
	return n
}

func (n *layerNorm) params() []*Param { return []*Param{n.gain, n.bias} }

// forward sets h = LayerNorm(z).
func (n *layerNorm) forward(z, h blas64.General) {
	g, b := n.gain.Value, n.bias.Value
	for i := 0; i < z.Rows; i++ {
		zi, xi, hi := row(z, i), row(n.xhat, i), row(h, i)
		mean := 0.0
		for _, v := range zi {
			mean += v
		}
		mean /= float64(len(zi))
		variance := 0.0
		for _, v := range zi {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(len(zi))
		r := 1 / math.Sqrt(variance+layerNormEps)
		n.rstd[i] = r
		for j, v := range zi {
			xi[j] = (v - mean) * r
			hi[j] = g[j]*xi[j] + b[j]
		}
	}
}

// backward sets dz from dh, after forward, and accumulates the gain and
// bias gradients. With u = dh⊙gain, dz = rstd·(u - mean(u) - xhat·mean(u⊙xhat)).
func (n *layerNorm) backward(dh, dz blas64.General) {
	g, dg, db := n.gain.Value, n.gain.Grad, n.bias.Grad
	for i := 0; i < dh.Rows; i++ {
		di, xi, dzi := row(dh, i), row(n.xhat, i), row(dz, i)
		var su, sux float64
		for j, d := range di {
			dg[j] += d * xi[j]
			db[j] += d
			u := d * g[j]
			su += u
			sux += u * xi[j]
		}
		m := float64(len(di))
		su /= m
		sux /= m
		r := n.rstd[i]
		for j, d := range di {
			dzi[j] = r * (d*g[j] - su - xi[j]*sux)
		}
	}
}
