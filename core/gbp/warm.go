package gbp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// EdgeMessage is the log message on one region-graph edge Parent→Child,
// over the child's joint states (row-major over its variables, last
// fastest). Only differences between entries matter; −Inf is a zero.
type EdgeMessage struct {
	Parent, Child int
	Log           []float64
}

// WarmStarter is the optional ability of a message-passing method to run
// from messages it is given, instead of uniform ones or its last call's:
// an amortized network predicts them (package renn). Every edge's message
// is given: the lower ones are not a function of the messages out of the
// roots alone (on a faces region graph the message from an edge region to
// one of its variables reads the messages into its other variable), so a
// caller that predicts only the root messages takes the others from a run
// of its own (EdgeMessages).
type WarmStarter interface {
	infer.Method
	// EdgeMessages returns copies of every message of the last call, in sweep
	// order, or nil before the first call.
	EdgeMessages() []EdgeMessage
	// InferFrom runs on m starting from msgs, one message per edge of the
	// region graph, in any order; it converges by the same rule as Infer.
	InferFrom(ctx context.Context, m *mrf.Model, msgs []EdgeMessage) (*infer.Result, error)
}

var _ WarmStarter = (*GBP)(nil)

// SetMaxSeconds sets the time budget of later calls (0: no limit).
func (gb *GBP) SetMaxSeconds(s float64) error {
	if err := infer.CheckMaxSeconds("gbp", s); err != nil {
		return err
	}
	gb.opts.MaxSeconds = s
	return nil
}

// EdgeMessages returns copies of every message of the last call, in sweep
// order (see WarmStarter), or nil before the first call or after Reset.
func (gb *GBP) EdgeMessages() []EdgeMessage {
	if gb.st == nil {
		return nil
	}
	out := make([]EdgeMessage, len(gb.st.edges))
	for e, ed := range gb.st.edges {
		out[e] = EdgeMessage{Parent: ed.parent, Child: ed.child, Log: append([]float64(nil), gb.message(e)...)}
	}
	return out
}

// InferFrom runs GBP on m from the given messages (see WarmStarter): it
// sets them, shifted to a largest entry of 0, and sweeps as Infer does
// (same tolerance, caps and checks). It fails, before changing any message,
// unless msgs holds, for every edge of the region graph, exactly one
// message of the right length with no NaN or +Inf entry and a finite one.
func (gb *GBP) InferFrom(ctx context.Context, m *mrf.Model, msgs []EdgeMessage) (*infer.Result, error) {
	ctx = infer.BeginCall(ctx) // the time budget covers binding the model
	if err := gb.prepare(m); err != nil {
		return nil, err
	}
	st := gb.st
	byEdge := make(map[[2]int]int, len(st.edges))
	for e, ed := range st.edges {
		byEdge[[2]int{ed.parent, ed.child}] = e
	}
	seen := make(map[int]bool, len(msgs))
	for _, msg := range msgs {
		e, ok := byEdge[[2]int{msg.Parent, msg.Child}]
		switch {
		case !ok:
			return nil, fmt.Errorf("gbp: warm start: %d→%d is not an edge of the region graph", msg.Parent, msg.Child)
		case seen[e]:
			return nil, fmt.Errorf("gbp: warm start: two messages on %d→%d", msg.Parent, msg.Child)
		case len(msg.Log) != st.size[msg.Child]:
			return nil, fmt.Errorf("gbp: warm start: message %d→%d has %d entries, want %d", msg.Parent, msg.Child, len(msg.Log), st.size[msg.Child])
		}
		finite := false
		for _, v := range msg.Log {
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("gbp: warm start: message %d→%d has an entry %v", msg.Parent, msg.Child, v)
			}
			finite = finite || !math.IsInf(v, -1)
		}
		if !finite {
			return nil, fmt.Errorf("gbp: warm start: message %d→%d is zero everywhere", msg.Parent, msg.Child)
		}
		seen[e] = true
	}
	if len(seen) != len(st.edges) {
		return nil, errors.New("gbp: warm start: not every edge has a message")
	}
	for _, msg := range msgs {
		dst := gb.message(byEdge[[2]int{msg.Parent, msg.Child}])
		copy(dst, msg.Log)
		infer.ShiftMax(dst)
	}
	gb.diverged = false
	gb.support()
	return gb.run(ctx)
}

// Sweep runs n >= 1 sweeps of the schedule on m from the current messages
// (those of the last call on a model of m's structure, else uniform), with
// neither a convergence test nor a read-out, and leaves the beliefs after
// the last sweep for Beliefs: the inputs of an amortized network (package
// renn) are the beliefs after a fixed number of sweeps. It fails if the
// messages overflow (see "Divergence" in the package comment); the next
// call then starts afresh, as Infer does.
func (gb *GBP) Sweep(ctx context.Context, m *mrf.Model, n int) error {
	if n < 1 {
		return fmt.Errorf("gbp: %d sweeps, want >= 1", n)
	}
	if err := gb.prepare(m); err != nil {
		return err
	}
	gb.support()
	if gb.diverged {
		clear(gb.msg)
		gb.diverged = false
	}
	for k := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		if gb.sweep(); gb.diverged {
			return fmt.Errorf("gbp: the messages overflowed in sweep %d", k+1)
		}
	}
	gb.beliefs(gb.belief)
	return nil
}
