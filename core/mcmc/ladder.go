package mcmc

import "math"

// pt's ladder is a list of rungs, each a distribution a replica samples.
// Its temperature rungs come first, 1 = β_0 > ... > β_K = 0, every zero
// potential held (λ = +Inf). Relaxation rungs may follow (option relax),
// all at β = 0: there the zeros of the factors of two or more variables
// ("hard factors"; the unary zeros, evidence, always hold) become a
// penalty of λ per hard factor at a zero (V(x) of them),
//
//	p_λ(x) ∝ [unary zeros hold]·w_0(x)·exp(-λ·V(x)),
//
// with λ falling to 0, where every hard factor is gone. Single-site moves
// on the feasible set alone can be stuck: where zeros tie variables
// together (a child's allele is its parent's, chosen by a selector; x_0 =
// x_1 = x_2), no single change leaves a feasible configuration feasible,
// and every rung of the temperature ladder is stuck in the same piece. On
// the relaxation rungs a replica crosses infeasible configurations, and
// comes back up the ladder into another piece. The last rung's normaliser
// is a product over the variables (freeLogZ), so the stepping stones down
// the relaxation rungs also give ln Z where the feasible configurations are
// too many to count (reference.go); where they can be counted, that count
// is the reference and the relaxation rungs only help the chains mix.
//
// Swaps and stones between rungs a (above) and b: between temperature
// rungs as before, (β_a - β_b)·(E_b - E_a); between the β = 0 temperature
// rung and the first relaxation rung a swap is accepted exactly when the
// replica coming up is feasible (V = 0), and its stone is P_λ(V = 0);
// between relaxation rungs (λ_a - λ_b)·(V_a - V_b), and the stone
// -(λ_a - λ_b)·V.

// rung is one distribution of the ladder: inverse temperature beta of the
// finite entries and penalty lambda per hard factor at a zero (+Inf:
// zeros hold).
type rung struct{ beta, lambda float64 }

// relaxed reports whether the rung relaxes the hard factors.
func (r rung) relaxed() bool { return !math.IsInf(r.lambda, 1) }

// ladder returns the rungs of a call on l: the temperature ladder, then
// penalties if relax (see relaxPenalties).
func (s *Sampler) ladder(l *layout, relax bool) []rung {
	lad := make([]rung, 0, len(s.betas)+s.relaxRungs+1)
	for _, b := range s.betas {
		lad = append(lad, rung{beta: b, lambda: math.Inf(1)})
	}
	if relax {
		for _, lam := range relaxPenalties(l.penaltyMax(s.penaltyMax), s.relaxRungs) {
			lad = append(lad, rung{lambda: lam})
		}
	}
	return lad
}

// relaxPenalties returns the penalties of the relaxation rungs: n of them
// from top down, λ_j = top·((n-j)/n)², then 0. The spacing narrows towards
// 0, where many hard factors are at a zero and V varies most.
func relaxPenalties(top float64, n int) []float64 {
	p := make([]float64, 0, n+1)
	for j := range n {
		f := float64(n-j) / float64(n)
		p = append(p, top*f*f)
	}
	return append(p, 0)
}

// swapLog is the log acceptance of swapping the replicas a (at rung k) and
// b (at rung k+1).
func swapLog(lad []rung, k int, a, b *replica) float64 {
	ra, rb := lad[k], lad[k+1]
	switch {
	case !rb.relaxed():
		return (ra.beta - rb.beta) * (b.e - a.e)
	case !ra.relaxed(): // ra is β = 0, its replica feasible
		if b.v > 0 {
			return math.Inf(-1)
		}
		return 0
	}
	return (ra.lambda - rb.lambda) * float64(a.v-b.v)
}

// stoneLog is the log weight of replica r at rung k (>= 1) in the stone
// ln Z_{k-1}/Z_k = ln E_{p_k}[exp(stoneLog)].
func stoneLog(lad []rung, k int, r *replica) float64 {
	prev, cur := lad[k-1], lad[k]
	switch {
	case !cur.relaxed():
		return (prev.beta - cur.beta) * r.e
	case !prev.relaxed():
		if r.v > 0 {
			return math.Inf(-1)
		}
		return 0
	}
	return -(prev.lambda - cur.lambda) * float64(r.v)
}
