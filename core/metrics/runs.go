package metrics

import "github.com/renn-go/renn/core/mrf"

// Two answers on one model compared through their beliefs.

// Answer is a method's answer on one model: whether it converged, its free
// energy, its mean |error| of the variable marginals and its beliefs (a
// marginal it lacks is nil).
type Answer struct {
	Converged  bool
	F, MeanAbs float64
	Beliefs    mrf.Marginals
}

// FixedPoints compares two runs of BP (say undamped and damped) on one
// model: whether both converged, to two points (variable beliefs further
// than the tolerance apart); of two, whether b's has the higher Bethe free
// energy and whether the one of lower free energy is the more accurate;
// and how far each is from a stationary point of the Bethe free energy.
type FixedPoints struct {
	Distance                 float64 // the largest difference of their variable beliefs
	Both, Different, BHigher bool
	LowerFBetter             bool
	ResidualA, ResidualB     float64 // their BetheResidual
}

// CompareFixedPoints compares a and b on model m; ok is false when their
// variable beliefs are missing or do not match.
func CompareFixedPoints(m *mrf.Model, a, b Answer, same float64) (f FixedPoints, ok bool) {
	if a.Beliefs.Vars == nil || b.Beliefs.Vars == nil {
		return f, false
	}
	if f.Distance, ok = MaxAbsDiff(a.Beliefs.Vars, b.Beliefs.Vars); !ok {
		return f, false
	}
	f.Both = a.Converged && b.Converged
	f.Different = f.Both && f.Distance > same
	f.BHigher = f.Different && b.F > a.F
	f.LowerFBetter = f.Different && (a.F < b.F) == (a.MeanAbs < b.MeanAbs)
	f.ResidualA, f.ResidualB = BetheResidual(m, a.Beliefs), BetheResidual(m, b.Beliefs)
	return f, true
}

// BeliefDistance is the largest difference between two answers' variable
// and factor beliefs; ok is false when either lacks its variable beliefs
// or they do not match (a marginal both lack is skipped).
func BeliefDistance(a, b mrf.Marginals) (float64, bool) {
	if a.Vars == nil || b.Vars == nil {
		return 0, false
	}
	dv, okv := MaxAbsDiff(a.Vars, b.Vars)
	df, okf := MaxAbsDiff(a.Factors, b.Factors)
	return max(dv, df), okv && okf
}
