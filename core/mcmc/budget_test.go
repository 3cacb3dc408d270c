package mcmc

import (
	"context"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
)

// spent returns a context of a call that began ten seconds ago on a clock
// that advances a second at every read.
func spent() context.Context {
	now := time.Time{}
	ctx := infer.BeginCall(infer.WithClock(context.Background(), func() time.Time {
		now = now.Add(time.Second)
		return now
	}))
	now = now.Add(10 * time.Second)
	return ctx
}

// Starting the chains is inside the time budget: once it is spent, chains
// whose start would need a search share the first chain's configuration
// (feasible, so the answer still respects the zeros), and the call runs
// its one sweep. With time left every chain searches its own start.
func TestStartsWithinBudget(t *testing.T) {
	m := infertest.SoftCSP(12, 16, 1)
	for _, tc := range []struct {
		name   string
		chains int
		new    func() (infer.Method, error)
	}{
		{"gibbs", 4, func() (infer.Method, error) {
			o := DefaultOptions()
			o.MaxSeconds = 5
			return New(o)
		}},
		{"pcd", 20, func() (infer.Method, error) {
			o := PCDDefaultOptions()
			o.Chains, o.MaxSeconds = 20, 5
			return NewPCD(o)
		}},
	} {
		for _, ctx := range []context.Context{spent(), context.Background()} {
			meth, err := tc.new()
			if err != nil {
				t.Fatal(err)
			}
			res, err := meth.Infer(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if why := infer.VerifyMarginals(m, res, nil); why != "" {
				t.Errorf("%s: %s", tc.name, why)
			}
			if ctx == context.Background() {
				if _, ok := res.Diagnostics["shared_starts"]; ok {
					t.Errorf("%s: shared starts with time left: %v", tc.name, res.Diagnostics)
				}
				continue
			}
			if res.Diagnostics["shared_starts"] != float64(tc.chains-1) || res.Iterations != 1 || res.Diagnostics["time_limit"] != 1 {
				t.Errorf("%s: %d sweeps, diagnostics %v", tc.name, res.Iterations, res.Diagnostics)
			}
		}
	}
}
