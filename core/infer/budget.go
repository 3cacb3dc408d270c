package infer

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Budget is the stop rule every iterative method shares: at most MaxIter
// sweeps (or optimisation steps) per Infer call, and no new sweep once
// MaxSeconds have passed since the call began. A run stopped by either is
// not converged; it returns its last iterate, never an error.
type Budget struct {
	MaxIter int
	// MaxSeconds is the time budget of one Infer call, all of its work
	// included (see BeginCall); 0 means no limit. The first sweep of a call
	// always runs, so a run has an iterate to return: a call overruns its
	// budget by at most one sweep, or one inner iteration where inner
	// loops ask Expired.
	MaxSeconds float64
}

// Stop is one call's budget, from Budget.Start. Its loop asks Next before
// every sweep; inner loops and set-up between sweeps ask Expired.
type Stop struct {
	budget   Budget
	ctx      context.Context
	now      func() time.Time
	start    time.Time
	call     *call // the call the budget belongs to (BeginCall), or nil
	started  int   // sweeps Next has allowed
	timedOut bool  // the time budget ended the run
}

// call is what BeginCall records of a call: when it began, and whether any
// loop of it has run a sweep, so that the one sweep a budget always allows
// is one per call, not one per phase (a warm start, then the method's own
// loop).
type call struct {
	start time.Time
	swept bool
}

type callKey struct{}

// BeginCall marks ctx as the context of one call that began now (on ctx's
// clock), unless ctx already carries the mark of an enclosing call, which
// then stands. Every time budget started under the mark (Budget.Start)
// counts from the call's beginning, so that the work before a method's
// loop (binding the model, building a network, a warm start by another
// method it runs) is inside the budget. Methods call it first thing in
// Infer; the methods they run inside a call inherit the mark.
func BeginCall(ctx context.Context) context.Context {
	if _, ok := ctx.Value(callKey{}).(*call); ok {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, &call{start: Now(ctx)})
}

// BeginOwnCall marks ctx as the context of a call that begins now,
// whatever call ctx is part of: for a method that runs other methods one
// after another (auto), each within a budget of its own counted from its
// own beginning, with its own first sweep.
func BeginOwnCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, callKey{}, &call{start: Now(ctx)})
}

// CallStart returns when the call marked on ctx began (BeginCall), or now
// if ctx carries no mark.
func CallStart(ctx context.Context) time.Time {
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		return c.start
	}
	return Now(ctx)
}

// Start begins a call's budget: at the beginning of the call marked on ctx
// (BeginCall), else now, on ctx's clock (see WithClock). Without a mark the
// clock is read only when MaxSeconds is set.
func (b Budget) Start(ctx context.Context) *Stop {
	s := &Stop{budget: b, ctx: ctx, now: clockOf(ctx)}
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		s.call, s.start = c, c.start
	} else if b.MaxSeconds > 0 {
		s.start = s.now()
	}
	return s
}

// StartAt begins a call's budget as if it had started at began (from Now),
// for a method whose loop starts after other work of the same call.
func (b Budget) StartAt(ctx context.Context, began time.Time) *Stop {
	s := &Stop{budget: b, ctx: ctx, now: clockOf(ctx), start: began}
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		s.call = c
	}
	return s
}

// Now returns the time on ctx's clock (see WithClock).
func Now(ctx context.Context) time.Time { return clockOf(ctx)() }

// Next reports whether another sweep may run. It returns false once MaxIter
// sweeps have run, or once MaxSeconds have passed (then TimedOut is true),
// except for the first sweep of the call, which always runs so that the
// call has an iterate to return; otherwise it returns ctx.Err() if ctx is
// done.
func (s *Stop) Next() (bool, error) {
	if s.started >= s.budget.MaxIter {
		return false, nil
	}
	if err := s.ctx.Err(); err != nil {
		return false, err
	}
	first := s.started == 0 && (s.call == nil || !s.call.swept)
	if !first && s.Expired() {
		return false, nil
	}
	s.started++
	if s.call != nil {
		s.call.swept = true
	}
	return true, nil
}

// Expired reports whether MaxSeconds have passed (then TimedOut is true),
// for the work between the checks of Next: inner loops, and set-up that
// can be cut short. It counts no sweep and allows no first one.
func (s *Stop) Expired() bool {
	if !s.timedOut && s.budget.MaxSeconds > 0 && s.Elapsed() >= s.budget.MaxSeconds {
		s.timedOut = true
	}
	return s.timedOut
}

// Elapsed returns the seconds since Start on the call's clock, or 0 when no
// time budget is set (the clock is then never read).
func (s *Stop) Elapsed() float64 {
	if s.budget.MaxSeconds <= 0 {
		return 0
	}
	return s.now().Sub(s.start).Seconds()
}

// TimedOut reports whether the time budget ended the run.
func (s *Stop) TimedOut() bool { return s.timedOut }

// Reason returns why a loop that did not converge ended: TimeLimit when
// the time budget ended it, IterationLimit when it ran MaxIter sweeps, else
// NotConverged (the method stopped it for a reason of its own).
func (s *Stop) Reason() Status {
	switch {
	case s.timedOut:
		return TimeLimit
	case s.started >= s.budget.MaxIter:
		return IterationLimit
	}
	return NotConverged
}

// Status returns Converged if converged, else Reason.
func (s *Stop) Status(converged bool) Status {
	if converged {
		return Converged
	}
	return s.Reason()
}

// Iterate is the sweep loop of the message-passing methods: it runs sweep,
// which does one sweep and returns the largest change it made, until the
// change falls below tol (Converged) or the budget ends the run. It sets
// res.Iterations and res.Status (Converged, IterationLimit or TimeLimit),
// and returns the last change (+Inf if no sweep ran). When ctx is done before a sweep it returns an error naming method
// and wrapping ctx.Err().
func (b Budget) Iterate(ctx context.Context, method string, tol float64, res *Result, sweep func() float64) (float64, error) {
	return b.Start(ctx).Iterate(method, tol, res, sweep)
}

// Iterate is Budget.Iterate on a budget already started, for a call whose
// loop runs after other work of the same call (StartAt).
func (stop *Stop) Iterate(method string, tol float64, res *Result, sweep func() float64) (float64, error) {
	delta := math.Inf(1)
	for {
		more, err := stop.Next()
		if err != nil {
			return delta, fmt.Errorf("%s: stopped after %d sweeps: %w", method, res.Iterations, err)
		}
		if !more {
			break
		}
		delta = sweep()
		res.Iterations++
		if delta < tol {
			break
		}
	}
	res.Status = stop.Status(delta < tol)
	return delta, nil
}

type clockKey struct{}

// WithClock returns a context whose time budgets read now instead of the
// wall clock, so tests can run out a budget deterministically.
func WithClock(ctx context.Context, now func() time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, now)
}

func clockOf(ctx context.Context) func() time.Time {
	if now, ok := ctx.Value(clockKey{}).(func() time.Time); ok && now != nil {
		return now
	}
	return time.Now
}
