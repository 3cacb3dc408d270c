package renn

import (
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// A run that starts from message passing's converged fixed point returns
// its best answer, not its last iterate: message passing's own beliefs (the
// start), or an iterate of the network whose region beliefs are consistent
// (every child within infer.ConsistencyTol of each parent's marginal, the
// shared check's tolerance) and whose region free energy is lower. Adam does
// not descend monotonically, and the loss it descends is not F: the penalty
// and the multiplier term trade free energy for inconsistency, so the last
// iterate can be worse than an earlier one, or than the start. (A run from
// uniform beliefs returns its last iterate: its early iterates are
// consistent and poor, and under the plain penalty nothing later is
// consistent.)
//
// Within the check's tolerance the mismatches d alone buy more free energy
// than the differences at stake, so an iterate of the network is scored by
// F + slackWeight·Σ|μ|·|d|, over every parent→child mismatch, with μ the
// multipliers in effect: Σ|μ|·|d| is what the mismatches buy in F to first
// order at a stationary point of F + <μ,d>, but the running multipliers lag
// the true ones. Measured on a 16-finding noisy-OR network (mrf family
// noisy-or, size 16, seed 4): an iterate with mismatches up to 3.4e-4 had F
// 0.0053 below GBP's answer and 0.0043 below the consistent minimum of F
// (double-loop GBP's, to 1e-11), with Σ|μ|·|d| 0.0041, and its marginals
// were 1.1x further from the exact ones than GBP's. The start's score is its
// F: it is the answer a challenger must beat, by more than the relative
// tolerance Tol of the convergence test (so that a step of Adam's noise away
// from it does not replace it).

// slackWeight weighs the first-order price of an iterate's inconsistency
// in its score (see above): an order of magnitude above what was needed.
const slackWeight = 10

// best is the best consistent iterate of a run so far.
type best struct {
	ok         bool
	score      float64 // F, plus the weighted slack of a network iterate's inconsistency
	step       int     // steps taken before the iterate (0: the start)
	fixedPoint bool    // the iterate is message passing's own beliefs (r.fixed), the start
	updates    int     // times the best iterate changed
	params     [][]float64
	mu         [][]float64
}

// keepFixedPoint copies the region beliefs of message passing's converged
// fixed point into r.fixed. They are the run's start. The net starts from
// their root beliefs, but the lower regions of its beliefs are the means of
// their parents' marginals, not message passing's own beliefs: the two
// differ where the fixed point's roots are consistent only within the check's
// tolerance (measured up to 4.5e-4 on noisy-OR networks with evidence), and
// the means have a higher region free energy. So the start the run must
// beat, and returns if it finds nothing better, is message passing's own
// answer.
func (r *RENN) keepFixedPoint(b [][]float64) {
	if len(r.fixed) != len(b) {
		r.fixed = newLike(b)
	}
	copyAll(r.fixed, b)
}

// considerFixedPoint records message passing's fixed point (r.fixed) in b
// as the run's start (the net at its start parameters), if its beliefs are
// consistent. Its score is its free energy alone: it is the answer a
// challenger must beat, and the slack makes the challengers' comparison
// conservative, not the incumbent's.
func (r *RENN) considerFixedPoint(b *best, m *mrf.Model, E [][]float64) {
	if r.stalled {
		return // a start, not an answer (see "Starts" in renn.go)
	}
	own := r.b
	r.b = r.fixed
	F, _, _ := r.loss(m, E)
	if r.consistent(F) {
		r.record(b, F, 0)
		b.fixedPoint = true
	}
	r.b = own
}

// slack returns Σ |μ|·|d| at the last loss evaluation.
func (r *RENN) slack() float64 {
	s := 0.0
	for k, d := range r.d {
		for x, v := range d {
			s += math.Abs(r.mu[k][x] * v)
		}
	}
	return s
}

// consider records the iterate of the last loss evaluation (free energy F,
// after step steps; the network's parameters not yet updated) in b if its
// beliefs are consistent and it beats b's.
func (r *RENN) consider(b *best, F float64, step int) {
	if r.consistent(F) {
		r.record(b, F+slackWeight*r.slack(), step)
	}
}

// consistent reports whether the last loss evaluation, of free energy F,
// passes the consistency check.
func (r *RENN) consistent(F float64) bool {
	return !math.IsNaN(F) && !math.IsInf(F, 0) && r.maxViolation() <= infer.ConsistencyTol
}

// record makes the iterate of score score after step steps (the network's
// parameters not yet updated) b's if it beats b's.
func (r *RENN) record(b *best, score float64, step int) {
	if b.ok && !(score < b.score-r.opts.Tol*max(1, math.Abs(b.score))) {
		return // not lower by more than the convergence test's resolution
	}
	ps := r.net.Params()
	if b.params == nil {
		b.params = make([][]float64, len(ps))
		for i, p := range ps {
			b.params[i] = make([]float64, len(p.Value))
		}
		b.mu = newLike(r.mu)
	}
	for i, p := range ps {
		copy(b.params[i], p.Value)
	}
	copyAll(b.mu, r.mu)
	b.ok, b.score, b.step, b.fixedPoint = true, score, step, false
	b.updates++
}

// restore sets the network and the multipliers back to b's iterate. Adam's
// moments, which point where the run went from there, are cleared.
func (r *RENN) restore(b *best) {
	for i, p := range r.net.Params() {
		copy(p.Value, b.params[i])
	}
	copyAll(r.mu, b.mu)
	r.adam.Reset()
}

// answer sets r.b to b's beliefs (the net restored to b's parameters, or
// message passing's own beliefs) and returns their loss terms.
func (r *RENN) answer(b *best, m *mrf.Model, E [][]float64) (F, pen, lin float64) {
	r.restore(b)
	if b.fixedPoint {
		copyAll(r.b, r.fixed)
		return r.loss(m, E)
	}
	return r.step(m, E, false)
}

// maxLambda caps the growth of λ in runs from a fixed point.
const maxLambda = 1e4

// raiseLambda sends a run from a fixed point that has left the consistent
// set back to its best iterate b and multiplies λ by LambdaGrowth, up to
// maxLambda; it reports whether it did. A consistent stationary point of F
// is a local minimum of the loss F + <μ,d> + λ||d||² only if λ outweighs the
// negative curvature of F + <μ,d> off the consistent set (the method of
// multipliers needs λ above a threshold), and the region free energy's
// negative counting numbers make that curvature large near small beliefs.
// Below it the fixed point is a saddle of the loss, and Adam, whose steps
// have about the learning rate's size whatever the gradient's, leaves it at
// once: on noisy-or60-0 (data/uai), λ 5 (auglag) and 3 (the plain penalty)
// left GBP's fixed point; 100 kept it.
func (r *RENN) raiseLambda(b *best) bool {
	g := r.opts.LambdaGrowth
	if !b.ok || g == 1 || r.lambda*g > maxLambda {
		return false
	}
	r.restore(b)
	r.lambda *= g
	r.adam.LR = r.opts.LR * readLRScale
	return true
}
