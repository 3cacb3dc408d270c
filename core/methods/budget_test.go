package methods

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// iterative are the entries with a time budget that stops one loop: every
// method but exact, and but auto, whose budget is shared among the methods
// it runs (core/auto tests it).
func iterative(t *testing.T) []*Entry {
	var out []*Entry
	for _, e := range All() {
		if e.Name == "auto" {
			continue
		}
		if e.Options(false).Has("max_seconds") {
			out = append(out, e)
		} else if e.Name != "exact" {
			t.Errorf("%s has no max_seconds option", e.Name)
		}
	}
	return out
}

// The cap on sweeps (steps for RENN) of an entry's options.
func capName(o *Options) string {
	if o.Has("max_steps") {
		return "max_steps"
	}
	if o.Has("sweeps") {
		return "sweeps"
	}
	return "max_iter"
}

// A time budget that runs out returns the last iterate, not converged, with
// the time_limit diagnostic; it is the answer the iteration cap gives at the
// same count, bit for bit (renn-mp aside: its message passing runs under the
// same budget, so a run stopped by time starts elsewhere).
func TestTimeBudget(t *testing.T) {
	edges, err := mrf.GridEdges(4, false)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsing(16, edges, 1, 3)
	for _, e := range iterative(t) {
		t.Run(e.Name, func(t *testing.T) {
			var g *region.Graph
			switch e.Regions {
			case AnyRegions:
				g, err = region.Build(m, "grid", "faces")
			case BetheRegions:
				g, err = region.Build(m, "grid", region.Bethe)
			}
			if err != nil {
				t.Fatal(err)
			}
			run := func(ctx context.Context, set ...string) *infer.Result {
				t.Helper()
				o := e.Options(false)
				if o.Has("tol") {
					set = append(set, "tol", "1e-15") // no convergence within a few sweeps
				}
				for i := 0; i < len(set); i += 2 {
					if err := o.Set(set[i], set[i+1]); err != nil {
						t.Fatal(err)
					}
				}
				meth, err := e.New(o, g)
				if err != nil {
					t.Fatal(err)
				}
				res, err := meth.Infer(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			// The clock advances a second at every read: the budget of 2.5 s
			// ends the run after a few sweeps, whatever the machine.
			clock := time.Unix(0, 0)
			ctx := infer.WithClock(context.Background(), func() time.Time {
				clock = clock.Add(time.Second)
				return clock
			})
			res := run(ctx, "max_seconds", "2.5")
			if res.Converged || res.Diagnostics["time_limit"] != 1 || res.Diagnostics["max_seconds"] != 2.5 {
				t.Fatalf("converged %v, diagnostics %v", res.Converged, res.Diagnostics)
			}
			if res.Iterations < 1 || res.Iterations > 3 {
				t.Errorf("%d iterations in 2.5 s of one read a second", res.Iterations)
			}
			for i, p := range res.Marginals.Vars {
				if s := p[0] + p[1]; math.Abs(s-1) > 1e-9 || math.IsNaN(s) {
					t.Errorf("variable %d: marginal %v", i, p)
				}
			}
			if e.LogZ != LogZNone && (math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0)) {
				t.Errorf("ln Z %v", res.LogZ)
			}
			if e.Name == "renn-mp" {
				return
			}
			capped := run(context.Background(), capName(e.Options(false)), strconv.Itoa(res.Iterations))
			if capped.Converged || capped.Iterations != res.Iterations || !sameLogZ(capped.LogZ, res.LogZ) ||
				!reflect.DeepEqual(capped.Marginals, res.Marginals) {
				t.Errorf("time stop after %d sweeps: ln Z %v; the cap at %d: ln Z %v, %d sweeps",
					res.Iterations, res.LogZ, res.Iterations, capped.LogZ, capped.Iterations)
			}
			if _, ok := capped.Diagnostics["time_limit"]; ok {
				t.Errorf("the cap reported as a time limit: %v", capped.Diagnostics)
			}
		})
	}
}

// A budget that does not run out changes nothing.
func TestTimeBudgetNotHit(t *testing.T) {
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsing(9, edges, 0.5, 1)
	for _, name := range []string{"mf", "bp", "gbp"} {
		e, _ := Lookup(name)
		var g *region.Graph
		if e.Regions == AnyRegions {
			if g, err = region.Build(m, "grid", "faces"); err != nil {
				t.Fatal(err)
			}
		}
		var res [2]*infer.Result
		for k, secs := range []string{"0", "3600"} {
			o := e.Options(false)
			if err := o.Set("max_seconds", secs); err != nil {
				t.Fatal(err)
			}
			meth, err := e.New(o, g)
			if err != nil {
				t.Fatal(err)
			}
			if res[k], err = meth.Infer(context.Background(), m); err != nil {
				t.Fatal(err)
			}
		}
		if !res[1].Converged || !reflect.DeepEqual(res[0], res[1]) {
			t.Errorf("%s: a budget of an hour changed the result: %+v vs %+v", name, res[0], res[1])
		}
	}
}

// Negative, NaN and infinite budgets are rejected, naming the option; 0 is
// no limit, except for auto, which needs a budget to plan by.
func TestTimeBudgetRejected(t *testing.T) {
	auto, err := Lookup("auto")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(iterative(t), auto) {
		for _, v := range []string{"-1", "-0.5", "Inf", "+Inf", "-Inf"} {
			o := e.Options(false)
			if err := o.Set("max_seconds", v); err != nil {
				t.Fatal(err)
			}
			err := o.Check()
			if err == nil || !(strings.Contains(err.Error(), "max_seconds") || strings.Contains(err.Error(), "max-seconds")) {
				t.Errorf("%s: max_seconds %s: %v", e.Name, v, err)
			}
		}
		if err := e.Options(false).Set("max_seconds", "NaN"); err == nil || !strings.Contains(err.Error(), "max_seconds") {
			t.Errorf("%s: max_seconds NaN: %v", e.Name, err)
		}
		o := e.Options(false)
		if err := o.Set("max_seconds", "0"); err != nil {
			t.Fatal(err)
		}
		if err := o.Check(); (err != nil) != (e == auto) {
			t.Errorf("%s: max_seconds 0: %v", e.Name, err)
		}
	}
}

// sameLogZ compares two ln Z bit for bit, NaN (no claim) included.
func sameLogZ(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
