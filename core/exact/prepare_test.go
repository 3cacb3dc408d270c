package exact

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// TestPrepareSolveSameAsSolve: a prepared plan solves every model of the
// suite, a sliced one and one solved in log space to the same ln Z and
// marginals, bit for bit, as Solve with the same options, and a second
// run of the same plan gives them again.
func TestPrepareSolveSameAsSolve(t *testing.T) {
	ms := suiteModels(t)
	es, err := mrf.GridEdges(6, false)
	if err != nil {
		t.Fatal(err)
	}
	ms["grid 6x6 U(-400,400)"] = mrf.RandomIsingWith(36, es, mrf.Normal(1), mrf.Uniform(400), 1)
	sliced := infertest.With(DefaultOptions(), func(o *Options) { o.MaxTable, o.Memory, o.Seed = 64, 1<<12, 7 })
	for name, m := range ms {
		opts := map[string]Options{"default": DefaultOptions()}
		if name == "grid 7x7" || name == "pedigree kind" || name == "potts 24x5 tw3" {
			opts["sliced"] = sliced
		}
		for oname, opt := range opts {
			want, werr := Solve(m, opt)
			pr, err := Prepare(m, opt)
			if (err != nil) != (werr != nil) {
				t.Fatalf("%s, %s: Prepare error %v, Solve error %v", name, oname, err, werr)
			}
			if err != nil {
				continue
			}
			if oname == "sliced" && want.Plan.Slices < 2 {
				t.Errorf("%s: %d slices, want several", name, want.Plan.Slices)
			}
			for run := range 2 {
				got, err := pr.Solve(context.Background())
				if err != nil {
					t.Fatalf("%s, %s: %v", name, oname, err)
				}
				if math.Float64bits(got.LogZ) != math.Float64bits(want.LogZ) || !reflect.DeepEqual(got.Marginals, want.Marginals) ||
					!reflect.DeepEqual(got.Plan, want.Plan) {
					t.Errorf("%s, %s, run %d: prepared plan gives ln Z %v, Solve %v (or other marginals or plan)", name, oname, run, got.LogZ, want.LogZ)
				}
			}
		}
	}
}

// TestPrepareErrors: Prepare refuses what Solve refuses, with the plan in
// the error; OnPlan sees the plan; a cancelled context stops the run.
func TestPrepareErrors(t *testing.T) {
	m := gridModel(t, 8, 1, 2)
	slow := infertest.With(DefaultOptions(), func(o *Options) { o.MaxPlannedSeconds = 1e-12 })
	var tooSlow *TooSlowError
	if pr, err := Prepare(m, slow); pr != nil || !errors.As(err, &tooSlow) || tooSlow.Plan == nil {
		t.Errorf("plan over max_planned_seconds: %v, %v", pr, err)
	}
	var seen *Plan
	opt := infertest.With(DefaultOptions(), func(o *Options) { o.OnPlan = func(p *Plan) { seen = p } })
	pr, err := Prepare(m, opt)
	if err != nil || seen != pr.Plan {
		t.Fatalf("OnPlan saw %p, plan %p, error %v", seen, pr.Plan, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pr.Solve(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
