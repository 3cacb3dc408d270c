package auto

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// TestExactPlannedOnce: auto runs the plan it estimated, so its exact
// answer is, bit for bit, exact inference's with the options it estimated
// with; and the exact step given a plan runs it without planning (options
// that could not plan do not matter).
func TestExactPlannedOnce(t *testing.T) {
	for _, f := range families(t) {
		a, err := New(DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var planned []exactPlan
		estimate := a.estimate
		a.estimate = func(m *mrf.Model) (exactPlan, error) {
			ep, err := estimate(m)
			planned = append(planned, ep)
			return ep, err
		}
		res, err := a.Infer(context.Background(), f.m)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if len(planned) != 1 || planned[0].plan == nil {
			t.Fatalf("%s: %d plans, want one ready to run", f.name, len(planned))
		}
		o := a.exactOptions()
		o.MaxPlannedSeconds = a.opts.MaxSeconds
		want, err := exact.Solve(f.m, o)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(res.LogZ) != math.Float64bits(want.LogZ) || !reflect.DeepEqual(res.Marginals, want.Marginals) {
			t.Errorf("%s: auto's ln Z %v, exact inference's %v (or other marginals)", f.name, res.LogZ, want.LogZ)
		}
		unplannable := exactMethod{opts: exact.Options{}, plan: planned[0].plan}
		if _, err := unplannable.Infer(context.Background(), f.m); err != nil {
			t.Errorf("%s: the exact step with a plan planned again: %v", f.name, err)
		}
	}
}

// TestExactStepDeadline: the exact step gives a sliced plan the time left as
// its deadline, so a plan that cannot end by then stops with an error
// instead of running over the budget; with no limit it solves.
func TestExactStepDeadline(t *testing.T) {
	es, err := mrf.GridEdges(7, false)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsingWith(49, es, mrf.Normal(1), mrf.Normal(1), 3)
	o := exact.DefaultOptions()
	o.MaxTable, o.Memory = 16, 1<<10
	pr, err := exact.Prepare(m, o)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Plan.Slices < 2 {
		t.Fatalf("%d slices, want several", pr.Plan.Slices)
	}
	_, err = exactMethod{plan: pr, limit: 1e-9}.Infer(context.Background(), m)
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, exact.ErrBehindDeadline) {
		t.Errorf("a limit of 1 ns: %v, want a deadline error", err)
	}
	if _, err := (exactMethod{plan: pr}).Infer(context.Background(), m); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
