package infer

import (
	"fmt"
	"math"
)

// TimeBudget is the option every method whose call can be cut short by
// time embeds in its options. The registry (core/methods) reads embedded
// options like the method's own: --set max_seconds=30.
type TimeBudget struct {
	// MaxSeconds is the time budget of one Infer call, all of its work
	// included (see BeginCall and Budget); 0 means no limit.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit); a run stopped by it returns its last iterate, not converged (status time_limit)."`
}

// Iteration is the options every iterative method embeds: its convergence
// tolerance, its iteration cap and its time budget. What an iteration is
// and what Tol measures is the method's own (its package comment says); the
// rule is the same everywhere: converged when the method's change measure
// falls below Tol, stopped after MaxIter iterations (status
// IterationLimit).
type Iteration struct {
	Tol     float64 `json:"tol" help:"Converged when the method's change between iterations (see its package documentation) falls below tol."`
	MaxIter int     `json:"max_iter" help:"Cap on the iterations (sweeps or optimisation steps) of a call; a run stopped by it returns its last iterate, not converged (status iteration_limit)."`
	TimeBudget
}

// Check validates a time budget: a finite number of seconds >= 0. The error
// names the option as --set does (max_seconds).
func (t TimeBudget) Check() error {
	if !(t.MaxSeconds >= 0) || math.IsInf(t.MaxSeconds, 1) {
		return fmt.Errorf("max_seconds %v, want a finite number of seconds >= 0 (0: no limit)", t.MaxSeconds)
	}
	return nil
}

// Check validates the iteration options: a positive finite tolerance, a cap
// of at least one iteration and a valid time budget. The error names the
// option as --set does (tol, max_iter, max_seconds). The registry runs it
// where options enter (methods.Options.Check); the methods' constructors
// check only their own options.
func (it Iteration) Check() error {
	switch {
	case !(it.Tol > 0) || math.IsInf(it.Tol, 1):
		return fmt.Errorf("tol %v, want a positive number", it.Tol)
	case it.MaxIter < 1:
		return fmt.Errorf("max_iter %d, want >= 1", it.MaxIter)
	}
	return it.TimeBudget.Check()
}

// Budget returns the stop rule of these options: MaxIter iterations,
// MaxSeconds seconds.
func (it Iteration) Budget() Budget {
	return Budget{MaxIter: it.MaxIter, MaxSeconds: it.MaxSeconds}
}

// CheckDamping checks a damping d of the message-passing methods:
// 0 <= d < 1. The error names method and the option as --set does.
func CheckDamping(method string, d float64) error {
	if !(d >= 0 && d < 1) {
		return fmt.Errorf("%s: damping %v, want 0 <= damping < 1", method, d)
	}
	return nil
}
