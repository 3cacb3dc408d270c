package learn

import (
	"context"
	"errors"
	"fmt"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Exact is exact inference (core/exact) as an infer.Method, so learning can
// use the true ln Z and marginals like any other method. It keeps no state.
type Exact struct {
	Opts exact.Options
}

// NewExact returns the exact method with opts.
func NewExact(opts exact.Options) *Exact { return &Exact{Opts: opts} }

// Name returns "exact".
func (e *Exact) Name() string { return "exact" }

// Infer solves m exactly.
func (e *Exact) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	if m == nil {
		return nil, errors.New("exact: nil model")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := exact.Solve(m, e.Opts)
	if err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	return &infer.Result{
		Marginals:   res.Marginals,
		LogZ:        res.LogZ,
		FreeEnergy:  -res.LogZ,
		Iterations:  1,
		Status:      infer.Converged,
		Diagnostics: map[string]float64{"largest_table": float64(res.Plan.LargestTable)},
	}, nil
}
