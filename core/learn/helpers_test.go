package learn

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"gonum.org/v1/gonum/mat"
)

// inverseFisherDiag returns the diagonal of the inverse Fisher information of
// the Ising parameters at m, by enumeration: the Fisher information of an
// exponential family is the covariance of its sufficient statistics (x_i and
// x_i x_j), and its inverse over N is the asymptotic covariance of the
// maximum-likelihood estimate from N samples.
func inverseFisherDiag(t *testing.T, p *Ising, m *mrf.Model) []float64 {
	t.Helper()
	theta, err := p.Params(m)
	if err != nil {
		t.Fatal(err)
	}
	n, k := len(m.Cards), p.Len()
	states := 1 << n
	feats := make([][]float64, states)
	logw := make([]float64, states)
	for s := range feats {
		f := make([]float64, k)
		for i := 0; i < n; i++ {
			f[i] = float64(2*((s>>(n-1-i))&1) - 1)
		}
		for e, ed := range p.Edges {
			f[n+e] = f[ed.I] * f[ed.J]
		}
		for j, v := range f {
			logw[s] += theta[j] * v
		}
		feats[s] = f
	}
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = max(mx, v)
	}
	w := make([]float64, states)
	z := 0.0
	for s, v := range logw {
		w[s] = math.Exp(v - mx)
		z += w[s]
	}
	mean := make([]float64, k)
	for s, f := range feats {
		for j, v := range f {
			mean[j] += w[s] / z * v
		}
	}
	cov := mat.NewSymDense(k, nil)
	for s, f := range feats {
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				cov.SetSym(a, b, cov.At(a, b)+w[s]/z*(f[a]-mean[a])*(f[b]-mean[b]))
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(cov); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, k)
	for j := range out {
		out[j] = inv.At(j, j)
	}
	return out
}
