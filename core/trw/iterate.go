package trw

import (
	"context"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Safeguards of the message iteration (see the package comment).
const (
	// checkEvery is the number of sweeps between two evaluations of the
	// bound. One evaluation (a sum-product pass over every forest) costs
	// about 3.7 sweeps on a 20x20 grid with 16 forests (0.64 ms a sweep,
	// 2.4 ms the bound, best of 4 runs), so the checks add about 18 %.
	checkEvery = 20
	// explodeLimit bounds the magnitude of a finite log-message entry
	// (messages are shifted so their largest entry is 0). A message of a
	// factor without zeros spans at most the range of the factor's
	// log-potentials divided by ρ_a, so only log-potentials spanning
	// millions reach it; a zero's influence grows the messages only
	// logarithmically in the sweeps. Beyond it the bound's rounding
	// (about 1e8 · 2^-53 per term) would begin to matter, and diverging
	// messages would soon overflow to -Inf, which reads as an exclusion.
	explodeLimit = 1e8
	// maxDamping ends the damping increases: a run that diverges even at
	// this damping stops.
	maxDamping = 0.999
)

// riseTol is how far above the lowest bound b of the run a checkpoint's
// bound may be before the iteration counts as diverging.
func riseTol(b float64) float64 { return max(1, 1e-3*math.Abs(b)) }

// iterate runs damped sweeps from the current messages until no belief
// changes by more than Tol in a sweep (Converged) or the budget ends the
// run, keeping the messages of the lowest bound seen. Every checkEvery
// sweeps, and after any sweep that left a message entry beyond
// explodeLimit, it checks the bound (diverging); when the iteration
// diverges the run goes back to the lowest bound's messages and halves
// 1 - damping. A run that is not converged ends on the lowest bound's
// messages. iterate returns the bound at the messages it ends on.
func (t *TRW) iterate(ctx context.Context, m *mrf.Model, res *infer.Result) (float64, error) {
	stop := t.opts.Budget().Start(ctx)
	d := t.opts.Damping
	t.keep(t.bound(m)) // φ is current: Infer computed the beliefs
	delta, restarts, diverged, converged := math.Inf(1), 0, false, false
	for since := 0; !math.IsInf(t.bestBound, -1); { // -Inf: Z = 0, certified
		more, err := stop.Next()
		if err != nil {
			return 0, fmt.Errorf("trw: stopped after %d sweeps: %w", res.Iterations, err)
		}
		if !more {
			break
		}
		t.sweep(m, d)
		delta = t.beliefs(t.next)
		t.belief, t.next = t.next, t.belief
		res.Iterations++
		if converged = delta < t.opts.Tol && !t.exploded; converged {
			break
		}
		if since++; since < checkEvery && !t.exploded {
			continue
		}
		since = 0
		if !t.diverging(m) {
			continue
		}
		restarts++
		t.restore()
		if d >= maxDamping {
			diverged = true
			break
		}
		d = (1 + d) / 2
	}
	res.Status = stop.Status(converged)
	res.Diagnostics["max_delta"] = delta
	res.Diagnostics["damping"] = d
	res.Diagnostics["restarts"] = float64(restarts)
	if diverged {
		res.Diagnostics["diverged"] = 1
		res.Status = infer.Diverged
	}
	b := t.bound(m)
	if !converged && !(b <= t.bestBound) {
		t.restore()
		b = t.bestBound
	}
	return b, nil
}

// diverging evaluates the bound at the current messages (φ current), keeps
// them if their bound is the lowest so far, and reports whether the
// iteration diverges: a bound above the lowest by more than riseTol, one
// that is not a number, or a message entry beyond explodeLimit.
func (t *TRW) diverging(m *mrf.Model) bool {
	b := t.bound(m)
	if b < t.bestBound {
		t.keep(b)
		return false
	}
	return t.exploded || !(b <= t.bestBound+riseTol(t.bestBound))
}

// keep records the current messages as those of the lowest bound b.
func (t *TRW) keep(b float64) {
	t.bestBound = b
	copy(t.bestMsg, t.msg)
}

// restore goes back to the messages of the lowest bound and recomputes φ
// and the beliefs from them.
func (t *TRW) restore() {
	copy(t.msg, t.bestMsg)
	t.beliefs(t.belief)
}
