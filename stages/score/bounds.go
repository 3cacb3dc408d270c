package score

import (
	"math"

	"github.com/renn-go/renn/core/methods"
)

// Scores of the methods whose registry entry says their ln Z is a bound
// (methods.LogZLowerBound or methods.LogZUpperBound).
//
// BoundHeld is 1 when a bound method's ln Z lies on its side of the exact
// ln Z within BoundTol (at most exact + tol for a lower bound, at least
// exact - tol for an upper bound; -Inf and +Inf hold on their side), 0 when
// it does not or is NaN; its mean is the fraction of models where the bound
// held. Every answer is scored, converged or not: a bound must hold for both.
//
// SandwichWidth, on the row of an upper-bound method, is its ln Z minus the
// largest ln Z of the lower-bound methods run on the same model (mf's, say):
// the width of the interval the two bounds certify for ln Z. It is written
// only for models where some lower-bound method ran, and only when both
// ln Z are numbers.
const (
	BoundHeld     = "bound_held"
	SandwichWidth = "sandwich_width"
)

// boundMetrics are the scores only bound methods get.
var boundMetrics = []string{BoundHeld, SandwichWidth}

// BoundTol is the rounding allowance of BoundHeld: 1e-9·max(1, |exact ln Z|).
func BoundTol(exactLogZ float64) float64 { return 1e-9 * max(1, math.Abs(exactLogZ)) }

// boundKind returns what method's ln Z is; an unregistered method's is an
// estimate.
func boundKind(method string) methods.LogZKind {
	e, err := methods.Lookup(method)
	if err != nil {
		return methods.LogZEstimate
	}
	return e.LogZ
}

// boundHeld returns r's BoundHeld score against the exact run t, if r's
// method is a bound.
func boundHeld(r, t *run) []value {
	est, exact := r.est.LogZ, t.est.LogZ
	tol := BoundTol(exact)
	var held bool
	switch boundKind(r.method) {
	case methods.LogZLowerBound:
		held = est <= exact+tol
	case methods.LogZUpperBound:
		held = est >= exact-tol
	default:
		return nil
	}
	v := 0.0
	if held { // false for NaN
		v = 1
	}
	return []value{{BoundHeld, v}}
}

// addSandwich appends SandwichWidth to every upper-bound run whose model
// also has a lower-bound run.
func addSandwich(scored []scoredRun) {
	type modelKey struct {
		sha string
		id  int32
	}
	lower := map[modelKey]float64{}
	for _, s := range scored {
		l := s.est.LogZ
		if boundKind(s.method) != methods.LogZLowerBound || math.IsNaN(l) {
			continue
		}
		k := modelKey{s.shard.sha, s.model.ID}
		if prev, ok := lower[k]; !ok || l > prev {
			lower[k] = l
		}
	}
	for i := range scored {
		s := &scored[i]
		lo, ok := lower[modelKey{s.shard.sha, s.model.ID}]
		if boundKind(s.method) != methods.LogZUpperBound || !ok || math.IsNaN(s.est.LogZ) {
			continue
		}
		s.values = append(s.values, value{SandwichWidth, s.est.LogZ - lo})
	}
}
