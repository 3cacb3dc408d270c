package renn

import (
	"context"
	"fmt"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
)

// When RENN started from a family network reads the model through it, on
// calls that follow the model of the previous call (learning: one call per
// parameter update, warm-started).
const (
	// FamilyReadStart reads the model through the family network only when
	// the message net starts afresh (the first call, after a Reset or a new
	// structure). A warm call keeps the net's messages and multipliers and
	// gives it the new energies and, as its feature, the log messages into
	// the roots after the family's number of sweeps of message passing
	// continued from the previous call's messages: over the calls the
	// feature follows the model's fixed point of message passing, at a few
	// sweeps per call, and the refinement steps start from there.
	FamilyReadStart = "start"
	// FamilyReadEvery runs the sweeps and the family network's features on
	// every call and gives the warm net the new sweeps' feature (the
	// messages carry over; the family network's answer is used only on a
	// fresh start).
	FamilyReadEvery = "every"
)

// SetFamilyRead sets when r, started from a family network
// (NewWithFamily), reads the model through it: FamilyReadStart (the
// default) or FamilyReadEvery.
func (r *RENN) SetFamilyRead(mode string) error {
	if r.family == nil {
		return fmt.Errorf("family read %q: RENN was not started from a family network", mode)
	}
	switch mode {
	case FamilyReadStart, FamilyReadEvery:
		r.familyMode = mode
		return nil
	}
	return fmt.Errorf("family read: %q, want %s or %s", mode, FamilyReadStart, FamilyReadEvery)
}

// familyStart gives the message net its inputs on m and its starting point
// (see FamilyReadStart) and reports whether it restarted the net from the
// family network's answer.
func (r *RENN) familyStart(ctx context.Context, mn *nn.MessageNet, m *mrf.Model, E [][]float64) (restarted bool, err error) {
	if !r.warm || r.forwardOnly || r.familyMode == FamilyReadEvery {
		return r.readFamily(ctx, mn, m, E)
	}
	G, err := r.warmSweeps(ctx, m, E)
	if err != nil {
		return false, err
	}
	for k, id := range r.roots {
		r.rootE[k] = E[id]
	}
	return false, mn.SetInputs(r.rootE, [][][]float64{G})
}

// warmSweeps runs the family's number of sweeps of message passing on m,
// continued from the previous call's messages (from uniform messages on
// the first), and returns log b_R + E_R per root. A failed run (its
// messages overflowed) starts again from uniform messages next time, and
// the feature stays as it was.
func (r *RENN) warmSweeps(ctx context.Context, m *mrf.Model, E [][]float64) ([][]float64, error) {
	if r.mp == nil {
		o := gbp.DefaultOptions()
		o.MaxIter, o.MaxSeconds = r.family.Sweeps, r.opts.MaxSeconds
		mp, err := gbp.New(r.g, o)
		if err != nil {
			return nil, err
		}
		r.mp = mp
	}
	if _, err := r.mp.Infer(ctx, m); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		r.mp.Reset()
		return r.net.(*nn.MessageNet).Features()[0], nil
	}
	return r.logMessages(r.mp.Beliefs(), E), nil
}
