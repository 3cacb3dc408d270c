package mcmc

import (
	"math"
	"math/rand/v2"
)

// Binary pairwise models (every variable binary, every factor of two or more
// variables a pair factor with finite entries: the Ising models and spin
// glasses) take a faster sweep: every replica keeps, for every variable i,
// its field h_i = Σ over its pair factors a of a(0, x_j) - a(1, x_j), so
// that a draw reads one number, P(x_i = 1) = 1/(1 + exp(u_i(0) - u_i(1) +
// β·h_i)) (β·(u_i(0) - u_i(1) + h_i) under pt's temper "all", an
// infinite u_i(0) - u_i(1) kept as it is), and a flip of x_i moves its neighbours' fields and the replica's
// tempered log potential by precomputed amounts (no exponential, no factor
// tables). The fields and the log potential are recomputed from scratch
// every resyncSweeps sweeps, so rounding cannot accumulate.

// resyncSweeps is how often (in sweeps of a chain) the fields and log
// potentials of the binary pairwise path are recomputed exactly.
const resyncSweeps = 256

// ising is the binary pairwise part of a layout (nil if the model is not
// one). Incidence k (of layout's incStart lists) of variable i is its pair
// factor with neighbour nb[k], that factor's entries a(x_i, x_j):
// g0[k] = a(0,0) - a(1,0), g1[k] = a(0,1) - a(1,1); the field of the
// neighbour moves by dRev[k] when x_i goes from 0 to 1 (its own g1 - g0).
type ising struct {
	du []float64 // u_i(0) - u_i(1)
	// Under temper "all": du split into its finite part duS (tempered)
	// and its infinite part duH (0 or ±Inf: a state excluded at every
	// temperature).
	duS, duH     []float64
	nb           []int32
	g0, g1, dRev []float64
	// The pair factors' variables and strides, for the entry of factor
	// pairs[k] at a configuration: tOff + x[v0]·s0 + x[v1]·s1.
	v0, v1, s0, s1 []int32
}

// newIsing returns l's binary pairwise tables, or nil if l's model is not
// binary pairwise with finite pair entries.
func newIsing(l *layout) *ising {
	for _, c := range l.cards {
		if c != 2 {
			return nil
		}
	}
	for _, a := range l.pairs {
		if len(l.g.Scopes[a]) != 2 {
			return nil
		}
		for _, v := range l.m.Factors[a].LogTable {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil
			}
		}
	}
	n := len(l.cards)
	is := &ising{du: make([]float64, n)}
	for i := range n {
		is.du[i] = l.unary[l.uOff[i]] - l.unary[l.uOff[i]+1]
	}
	nInc := len(l.incFactor)
	is.nb = make([]int32, nInc)
	is.g0, is.g1, is.dRev = make([]float64, nInc), make([]float64, nInc), make([]float64, nInc)
	// entry returns factor a's log entry with variable i at xi and its
	// other variable at xj.
	entry := func(a, i, xi, xj int) (float64, int) {
		sc, ax := l.g.Scopes[a], l.g.Axes[a]
		p := 0
		if sc[1] == i {
			p = 1
		}
		return l.flat[l.tOff[a]+xi*ax[p].Stride+xj*ax[1-p].Stride], sc[1-p]
	}
	for i := range n {
		for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
			a := int(l.incFactor[k])
			a00, j := entry(a, i, 0, 0)
			a10, _ := entry(a, i, 1, 0)
			a01, _ := entry(a, i, 0, 1)
			a11, _ := entry(a, i, 1, 1)
			is.nb[k] = int32(j)
			is.g0[k], is.g1[k] = a00-a10, a01-a11
			// j's field term of this factor is a(x_i, 0) - a(x_i, 1) in
			// j's terms: x_i going 0 -> 1 moves it by
			// (a(1,0) - a(1,1)) - (a(0,0) - a(0,1)).
			is.dRev[k] = (a10 - a11) - (a00 - a01)
		}
	}
	for _, a := range l.pairs {
		sc, ax := l.g.Scopes[a], l.g.Axes[a]
		is.v0, is.v1 = append(is.v0, int32(sc[0])), append(is.v1, int32(sc[1]))
		is.s0, is.s1 = append(is.s0, int32(ax[0].Stride)), append(is.s1, int32(ax[1].Stride))
	}
	return is
}

// sync recomputes r's fields and tempered log potential from its states.
func (l *layout) sync(r *replica) {
	is := l.is
	for i := range l.cards {
		h := 0.0
		for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
			if r.x[is.nb[k]] == 0 {
				h += is.g0[k]
			} else {
				h += is.g1[k]
			}
		}
		r.h[i] = h
	}
	e := l.softEnergy(r)
	for k, a := range l.pairs {
		e += l.flat[l.tOff[a]+r.x[is.v0[k]]*int(is.s0[k])+r.x[is.v1[k]]*int(is.s1[k])]
	}
	r.e = e
}

// sweepIsing is sweep on a binary pairwise model: it keeps r.h and r.e up
// to date (not r.idx).
func (l *layout) sweepIsing(r *replica, beta float64, rng *rand.Rand) {
	is := l.is
	x, h := r.x, r.h
	temperAll := is.duS != nil
	for i, xi := range x {
		d := is.du[i]
		if temperAll {
			d = is.duH[i] + beta*(is.duS[i]+h[i])
		} else if beta != 0 {
			d += beta * h[i]
		}
		// P(x_i = 1) = 1/(1+e^d); an excluded state gets exactly 0.
		s := 0
		if rng.Float64()*(1+math.Exp(d)) < 1 {
			s = 1
		}
		if s == xi {
			continue
		}
		// E(x_i = 1) - E(x_i = 0) = -h_i.
		sign := 1.0
		if s == 0 {
			sign = -1
		}
		r.e -= sign * h[i]
		if temperAll {
			r.e -= sign * is.duS[i]
		}
		for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
			h[is.nb[k]] += sign * is.dRev[k]
		}
		x[i] = s
	}
}
