package dlgbp_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/renn-go/renn/core/dlgbp"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
)

// ticking returns a context whose clock advances a second at every read.
func ticking() context.Context {
	now := time.Time{}
	return infer.WithClock(context.Background(), func() time.Time {
		now = now.Add(time.Second)
		return now
	})
}

// The GBP run of a cold start is inside the time budget, and takes at most
// half of it: where GBP needs more sweeps, it is stopped, the outer loop
// starts from uniform beliefs and has the other half, and the call ends
// within the budget.
func TestBudgetCoversGBPStart(t *testing.T) {
	m := infertest.SpinGlass(4, false, 3, 11)
	g := build(t, m, "grid", "faces")
	// Unbudgeted, GBP converges here (in 44 sweeps; found among seeds 0-14
	// of 4x4 and 5x5 spin glasses), in more sweeps than the budget below.
	gm, err := gbp.New(g, gbp.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ref, err := gm.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 20.5
	if !ref.Converged || float64(ref.Iterations) <= budget+1 {
		t.Fatalf("GBP: converged %v in %d sweeps; want convergence after more than %v", ref.Converged, ref.Iterations, budget+1)
	}
	o := dlgbp.DefaultOptions()
	o.MaxSeconds = budget
	res, err := mustNew(t, g, o).Infer(ticking(), m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Diagnostics["gbp_start"] == 1 || res.Diagnostics["time_limit"] != 1 || res.Converged {
		t.Errorf("started at GBP's fixed point past the budget: diagnostics %v", res.Diagnostics)
	}
	if w := res.Diagnostics["gbp_sweeps"] + res.Diagnostics["inner_sweeps"] + float64(res.Iterations); w > budget+1 {
		t.Errorf("%v sweeps in a budget of %v: diagnostics %v", w, budget, res.Diagnostics)
	}
	if gs := res.Diagnostics["gbp_sweeps"]; gs < 1 || gs > budget/2+1 || res.Iterations < 1 {
		t.Errorf("GBP took %v sweeps of a budget of %v, the outer loop %d steps", gs, budget, res.Iterations)
	}
	if err := infertest.CheckResult(m, res); err != nil {
		t.Error(err)
	}
}

// The inner loops check the time budget before every sweep; an outer step
// the budget cuts short is undone, so the run returns the beliefs the cap
// on outer steps gives at the same count, bit for bit.
func TestBudgetCutsInnerLoops(t *testing.T) {
	m := frustrated()
	g := build(t, m, "grid", "faces")
	for _, budget := range []float64{0.5, 5.5, 30.5, 200.5} {
		o := dlgbp.DefaultOptions()
		o.GBPIter, o.MaxSeconds = 0, budget
		d := mustNew(t, g, o)
		res, err := d.Infer(ticking(), m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Converged || res.Diagnostics["time_limit"] != 1 {
			t.Errorf("budget %v: converged %v, diagnostics %v", budget, res.Converged, res.Diagnostics)
		}
		if w := res.Diagnostics["inner_sweeps"] + float64(res.Iterations); w > budget+1 {
			t.Errorf("budget %v: %d outer steps and %v inner sweeps", budget, res.Iterations, res.Diagnostics["inner_sweeps"])
		}
		if err := infertest.CheckResult(m, res); err != nil {
			t.Errorf("budget %v: %v", budget, err)
		}
		if res.Iterations == 0 {
			continue // the start: uniform beliefs
		}
		o.MaxSeconds, o.MaxIter = 0, res.Iterations
		c := mustNew(t, g, o)
		capped := infer1(t, c, m)
		if !reflect.DeepEqual(c.Beliefs(), d.Beliefs()) || capped.FreeEnergy != res.FreeEnergy || capped.Iterations != res.Iterations {
			t.Errorf("budget %v: stopped after %d outer steps (F %v), the cap at %d gives F %v after %d",
				budget, res.Iterations, res.FreeEnergy, res.Iterations, capped.FreeEnergy, capped.Iterations)
		}
	}
}
