package infer

import (
	"fmt"
	"strings"
)

// Status says why a method's call ended: the one record of whether its
// answer converged and, if not, what stopped it. Every method sets it in
// its Result; the registry's check (methods.Entry.New) turns an answer that
// fails the shared check into CheckFailed.
type Status int

const (
	// NotConverged: the method's loop ended without its convergence test
	// passing, for a reason of its own that its diagnostics name (beliefs
	// settled but inconsistent, a certified Z = 0, ...). It is the zero
	// value, so a Result nobody set is never converged.
	NotConverged Status = iota
	// Converged: the convergence test passed (and, once checked, the
	// shared check too).
	Converged
	// IterationLimit: the iteration cap (max_iter, or a sampler's sweeps)
	// ended the call before the convergence test passed.
	IterationLimit
	// TimeLimit: the time budget (max_seconds) ended the call before the
	// convergence test passed.
	TimeLimit
	// Diverged: the iteration ran away (messages overflowed, a bound rose
	// beyond repair); the answer is the last sound iterate.
	Diverged
	// CheckFailed: the answer failed the shared check (Verify); Result.Check
	// holds the reason. Whatever stopped the method, the answer is not valid.
	CheckFailed
)

var statusNames = [...]string{
	NotConverged:   "not_converged",
	Converged:      "converged",
	IterationLimit: "iteration_limit",
	TimeLimit:      "time_limit",
	Diverged:       "diverged",
	CheckFailed:    "check_failed",
}

// String returns the status as written in estimates.parquet ("converged",
// "iteration_limit", ...).
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus reads a status as String writes it.
func ParseStatus(s string) (Status, error) {
	for st, name := range statusNames {
		if s == name {
			return Status(st), nil
		}
	}
	return 0, fmt.Errorf("unknown status %q (want one of %s)", s, strings.Join(statusNames[:], ", "))
}

// Converged reports whether the answer converged (Status Converged).
func (r *Result) Converged() bool { return r.Status == Converged }
