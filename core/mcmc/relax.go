package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
)

// The relaxation rungs' side of the layout (ladder.go): the hard factors
// (two or more variables, some zero), their sweep under a penalty, and the
// normaliser of the last rung.

// markHard sets hardFactor and hardVar from the pair factors' zeros.
func (l *layout) markHard() {
	l.hardFactor = make([]bool, len(l.m.Factors))
	l.hardVar = make([]bool, len(l.cards))
	for _, a := range l.pairs {
		for _, v := range l.m.Factors[a].LogTable {
			if math.IsInf(v, -1) {
				l.hardFactor[a] = true
				l.nHard++
				break
			}
		}
		if l.hardFactor[a] {
			for _, v := range l.m.Factors[a].Vars {
				l.hardVar[v] = true
			}
		}
	}
}

// penaltyMax returns the top penalty of the relaxation rungs: given if
// positive, else ln(H·ρ) + 2 (at least 2), H the number of hard factors
// and ρ the largest ratio of zero to non-zero entries in one: if every hard
// factor were at a zero with odds ρ·e^-λ independently, the top rung would
// be feasible with probability about exp(-e^-2) = 0.87.
func (l *layout) penaltyMax(given float64) float64 {
	if given > 0 {
		return given
	}
	rho := 1.0
	for a, hard := range l.hardFactor {
		if !hard {
			continue
		}
		zeros := 0
		t := l.m.Factors[a].LogTable
		for _, v := range t {
			if math.IsInf(v, -1) {
				zeros++
			}
		}
		rho = max(rho, float64(zeros)/float64(max(len(t)-zeros, 1)))
	}
	return max(2, math.Log(float64(max(l.nHard, 1))*rho)+2)
}

// deterministic reports whether some constraint left on the domains dom
// (reference.go) fixes one of its variables given the others, outside the
// blocks (blocks.go): the structure on which single-site moves on the
// feasible set stall (a child's allele given its parent's and the
// selector). Inside a block its variables change together.
func (l *layout) deterministic(dom feasible.Domains) bool {
	if dom == nil {
		return false
	}
	pcs, _ := l.pieces(dom)
	for _, p := range pcs {
		if l.blockOf != nil && l.blockOf[p.vars[0]] >= 0 {
			continue
		}
		for _, c := range p.cons {
			if c.fixesOne() {
				return true
			}
		}
	}
	return false
}

// freeLogZ is ln of the normaliser of the rung λ = 0: Π_i Σ over the
// states i's unary zeros allow of w_0.
func (l *layout) freeLogZ() float64 {
	w0 := l.refWeights()
	lz := 0.0
	var terms []float64
	for i := range l.cards {
		terms = terms[:0]
		for k := l.uOff[i]; k < l.uOff[i+1]; k++ {
			if !math.IsInf(l.unary[k], -1) {
				terms = append(terms, w0[k])
			}
		}
		lz += infer.LogSumExp(terms)
	}
	return lz
}

// violations returns the number of hard factors at a zero in r.
func (l *layout) violations(r *replica) int {
	v := 0
	for _, a := range l.pairs {
		if l.hardFactor[a] && math.IsInf(l.flat[r.idx[a]], -1) {
			v++
		}
	}
	return v
}

// sweepRelaxed updates every variable of r once, in order, from its
// conditional at the relaxation rung of penalty lambda: the unary zeros
// hold, the finite entries are left out (β = 0), and each hard factor at a
// zero costs lambda. buf holds at least the largest cardinality.
func (l *layout) sweepRelaxed(r *replica, lambda float64, rng *rand.Rand, buf []float64) {
	idx, x, t := r.idx, r.x, l.flat
	w0 := l.refWeights()
	for i, c := range l.cards {
		xi := x[i]
		lo, hi := l.incStart[i], l.incStart[i+1]
		lp := buf[:c]
		for s := range lp {
			lp[s] = w0[l.uOff[i]+s]
			if math.IsInf(l.unary[l.uOff[i]+s], -1) {
				lp[s] = math.Inf(-1)
			}
		}
		if l.hardVar[i] && lambda > 0 {
			for k := lo; k < hi; k++ {
				a := l.incFactor[k]
				if !l.hardFactor[a] {
					continue
				}
				st := int(l.incStride[k])
				base := idx[a] - xi*st
				for s := range lp {
					if math.IsInf(t[base+s*st], -1) {
						lp[s] -= lambda
					}
				}
			}
		}
		s := drawLog(lp, xi, rng)
		if s != xi {
			for k := lo; k < hi; k++ {
				idx[l.incFactor[k]] += (s - xi) * int(l.incStride[k])
			}
			x[i] = s
		}
	}
	r.v = l.violations(r)
}

// drawLog draws a state from log weights lp (overwritten), cur if rounding
// leaves none.
func drawLog(lp []float64, cur int, rng *rand.Rand) int {
	mx := math.Inf(-1)
	for _, v := range lp {
		mx = max(mx, v)
	}
	tot := 0.0
	for s := range lp {
		lp[s] = math.Exp(lp[s] - mx)
		tot += lp[s]
	}
	u := rng.Float64() * tot
	last := cur
	for s, w := range lp {
		if w == 0 {
			continue
		}
		last = s
		if u < w {
			return s
		}
		u -= w
	}
	return last
}
