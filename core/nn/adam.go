package nn

import "math"

// Adam is the Adam optimiser (Kingma and Ba, 2015) with bias correction, in
// the form PyTorch uses:
//
//	m ← β1·m + (1-β1)·g,  v ← β2·v + (1-β2)·g²
//	θ ← θ - LR · (m/(1-β1^t)) / (sqrt(v/(1-β2^t)) + Eps)
//
// The fields may be changed between steps.
type Adam struct {
	LR, Beta1, Beta2, Eps float64

	params []*Param
	m, v   [][]float64
	t      int
}

// NewAdam returns Adam over params with learning rate lr and the usual
// defaults β1 = 0.9, β2 = 0.999, ε = 1e-8.
func NewAdam(params []*Param, lr float64) *Adam {
	a := &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, params: params}
	for _, p := range params {
		a.m = append(a.m, make([]float64, len(p.Value)))
		a.v = append(a.v, make([]float64, len(p.Value)))
	}
	return a
}

// adamBlock is the number of entries Step updates at a time.
const adamBlock = 256

// Step updates every parameter from its Grad. It does not clear the
// gradients.
//
// It works through each parameter in blocks of adamBlock entries, one array
// written per pass over the block. A single pass writing m, v and the value
// together ran 4x slower on large parameters (the 65536-state head of a
// 16-variable root): their arrays are allocated at addresses equal modulo
// the page size, so the interleaved stores and loads alias in the cache.
// The arithmetic per entry is unchanged.
func (a *Adam) Step() {
	a.t++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.t))
	step := a.LR / bc1
	rbc2 := 1 / math.Sqrt(bc2)
	b1, b2, eps := a.Beta1, a.Beta2, a.Eps
	for k, p := range a.params {
		m, v := a.m[k], a.v[k]
		for lo := 0; lo < len(p.Grad); lo += adamBlock {
			hi := min(lo+adamBlock, len(p.Grad))
			g, mb, vb, w := p.Grad[lo:hi], m[lo:hi], v[lo:hi], p.Value[lo:hi]
			mb, vb, w = mb[:len(g)], vb[:len(g)], w[:len(g)]
			for i, gi := range g {
				mb[i] = b1*mb[i] + (1-b1)*gi
			}
			for i, gi := range g {
				vb[i] = b2*vb[i] + (1-b2)*gi*gi
			}
			for i, mi := range mb {
				w[i] -= step * mi / (math.Sqrt(vb[i])*rbc2 + eps)
			}
		}
	}
}

// Steps returns the number of steps taken since creation or Reset.
func (a *Adam) Steps() int { return a.t }

// Reset forgets the moment estimates, as for a fresh optimiser.
func (a *Adam) Reset() {
	a.t = 0
	for k := range a.m {
		clear(a.m[k])
		clear(a.v[k])
	}
}
