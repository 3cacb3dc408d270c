package exact

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

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

// TestSolveGivesUpBehindDeadline: a sliced solve on a fake clock whose
// slices after the first project its end past ctx's deadline stops after
// the second slice; one whose projection fits runs to the end, however slow
// its first slice (which also allocates); so does an unsliced one, which
// has nothing to project.
func TestSolveGivesUpBehindDeadline(t *testing.T) {
	m := gridModel(t, 7, 1, 3)
	opt := infertest.With(DefaultOptions(), func(o *Options) { o.MaxTable, o.Memory, o.Seed = 16, 1<<10, 7 })
	pr, err := Prepare(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(pr.Plan.Slices)
	if n < 4 {
		t.Fatalf("%d slices, want at least 4", pr.Plan.Slices)
	}
	cases := []struct {
		name     string
		opt      Options
		first    float64 // seconds of the first slice; the others take 1
		deadline float64 // seconds after the start
		behind   bool
	}{
		{"sliced, one second short", opt, 1, n - 1, true},
		{"sliced, just in time", opt, 1, n, false},
		{"sliced, slow first slice, in time", opt, 5, n + 4, false},
		{"sliced, slow first slice, short", opt, 5, n + 3, true},
		{"unsliced", DefaultOptions(), 1, 0.5, false},
	}
	for _, c := range cases {
		pr, err := Prepare(m, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Unix(0, 0)
		reads := 0
		// The clock reads the start, then once after each slice.
		pr.now = func() time.Time {
			reads++
			if reads == 1 {
				return t0
			}
			return t0.Add(time.Duration((c.first + float64(reads-2)) * float64(time.Second)))
		}
		ctx := deadlineAt{context.Background(), t0.Add(time.Duration(c.deadline * float64(time.Second)))}
		_, err = pr.Solve(ctx)
		switch {
		case c.behind && !errors.Is(err, ErrBehindDeadline):
			t.Errorf("%s: %v, want ErrBehindDeadline", c.name, err)
		case c.behind && reads != 3:
			t.Errorf("%s: gave up after %d clock reads, want 3 (the start and two slices)", c.name, reads)
		case !c.behind && err != nil:
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// deadlineAt is a context whose deadline is on a fake clock.
type deadlineAt struct {
	context.Context
	at time.Time
}

func (d deadlineAt) Deadline() (time.Time, bool) { return d.at, true }
