package methods

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
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
	if o.Has("sweeps") {
		return "sweeps"
	}
	return "max_iter"
}

// runEntry builds e with its defaults, tol 1e-15 where it has one (no
// convergence within a few sweeps) and set (name, value pairs), on region
// graph g, and runs it on m under ctx.
func runEntry(t *testing.T, ctx context.Context, e *Entry, g *region.Graph, m *mrf.Model, set ...string) *infer.Result {
	t.Helper()
	o := e.Options(false)
	if o.Has("tol") {
		set = append([]string{"tol", "1e-15"}, set...)
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

// budgetRun is runEntry for the budget tests, where a sampler on a model
// with zeros may also end with the error that its budget ran out during
// the search for a feasible start (the search reads the clock at every
// choice and stops there, rather than overrun the budget): ok is then
// false.
func budgetRun(t *testing.T, ctx context.Context, e *Entry, g *region.Graph, m *mrf.Model, set ...string) (res *infer.Result, ok bool) {
	t.Helper()
	o := e.Options(false)
	if o.Has("tol") {
		set = append([]string{"tol", "1e-15"}, set...)
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
	res, err = meth.Infer(ctx, m)
	switch {
	case err == nil:
		return res, true
	case o.Has("chains") && feasible.HasZeros(m) && strings.Contains(err.Error(), "time budget ran out before the search"):
		return nil, false
	}
	t.Fatal(err)
	return nil, false
}

// regionsFor returns the region graph e runs on for m (graph and scheme
// for the caller's), nil for a method without one.
func regionsFor(t *testing.T, e *Entry, m *mrf.Model, graph, scheme string) *region.Graph {
	t.Helper()
	var g *region.Graph
	var err error
	switch e.Regions {
	case AnyRegions:
		g, err = region.Build(m, graph, scheme)
	case BetheRegions:
		g, err = region.Build(m, graph, region.Bethe)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// tickingClock returns a context whose clock advances a second at every
// read, and the clock's time, which the test may move on.
func tickingClock() (context.Context, *time.Time) {
	now := new(time.Time)
	return infer.WithClock(context.Background(), func() time.Time {
		*now = now.Add(time.Second)
		return *now
	}), now
}

// checkTimeStop checks that res was stopped by the time budget maxSeconds
// and is a usable answer: normalised variable marginals, and a finite ln Z
// where the method claims one (but pt's on models with zeros, a matter of
// its ladder, not of its budget).
func checkTimeStop(t *testing.T, e *Entry, m *mrf.Model, res *infer.Result, maxSeconds float64) {
	t.Helper()
	// A few steps may leave an answer that fails the shared check; what
	// stopped the method is then named beside the reason.
	if res.Status != infer.TimeLimit && !(res.Status == infer.CheckFailed && strings.HasSuffix(res.Check, "(the method had stopped: time_limit)")) {
		t.Errorf("status %v (budget %v s), check %q, diagnostics %v", res.Status, maxSeconds, res.Check, res.Diagnostics)
	}
	for i, p := range res.Marginals.Vars {
		s := 0.0
		for _, v := range p {
			s += v
		}
		if math.Abs(s-1) > 1e-9 || math.IsNaN(s) {
			t.Errorf("variable %d: marginal %v", i, p)
		}
	}
	if e.LogZ != LogZNone && (math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0)) {
		t.Errorf("ln Z %v", res.LogZ)
	}
}

// A time budget that runs out returns the last iterate, not converged, with
// status time_limit; it is the answer the iteration cap gives at the
// same count, bit for bit. dlgbp runs here without its GBP start and with a
// longer budget, as its inner loops read the clock at every sweep (a step
// the budget cuts short is undone); renn-mp without its message passing,
// whose run shares the budget and would leave the network another start.
func TestTimeBudget(t *testing.T) {
	edges, err := mrf.GridEdges(4, false)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsing(16, edges, 1, 3)
	for _, e := range iterative(t) {
		t.Run(e.Name, func(t *testing.T) {
			g := regionsFor(t, e, m, "grid", "faces")
			budget, set := 2.5, []string(nil)
			switch e.Name {
			case "dlgbp":
				budget, set = 40.5, []string{"gbp_iter", "0"}
			case "renn-mp":
				set = []string{"rounds", "0"}
			}
			// The clock advances a second at every read: the budget ends
			// the run after a few sweeps, whatever the machine.
			ctx, _ := tickingClock()
			res := runEntry(t, ctx, e, g, m, append(set, "max_seconds", strconv.FormatFloat(budget, 'g', -1, 64))...)
			checkTimeStop(t, e, m, res, budget)
			if res.Iterations < 1 || float64(res.Iterations) > budget+1 {
				t.Errorf("%d iterations in %v s of one read a second", res.Iterations, budget)
			}
			capped := runEntry(t, context.Background(), e, g, m, append(set, capName(e.Options(false)), strconv.Itoa(res.Iterations))...)
			if capped.Converged() || capped.Iterations != res.Iterations || !sameLogZ(capped.LogZ, res.LogZ) ||
				!reflect.DeepEqual(capped.Marginals, res.Marginals) {
				t.Errorf("time stop after %d sweeps: ln Z %v; the cap at %d: ln Z %v, %d sweeps",
					res.Iterations, res.LogZ, res.Iterations, capped.LogZ, capped.Iterations)
			}
			if capped.Status == infer.TimeLimit {
				t.Errorf("the cap reported as a time limit: %v", capped.Diagnostics)
			}
		})
	}
}

// slowModels are models no method converges on within a few sweeps, with
// the graph kind and scheme of their region graphs: a spin glass with
// strong couplings, and a soft CSP whose zeros make mean field and the
// samplers search for feasible configurations before their loops.
func slowModels() []struct {
	name, graph, scheme string
	m                   *mrf.Model
} {
	return []struct {
		name, graph, scheme string
		m                   *mrf.Model
	}{
		{"spin glass", "grid", "faces", infertest.SpinGlass(5, false, 10, 1)},
		{"soft csp", "uai", region.Auto, infertest.SoftCSP(12, 16, 1)},
	}
}

// work counts the units of work a result reports: its sweeps (or steps),
// and the work some methods do between them: dlgbp's inner sweeps and the
// sweeps of its GBP start, the samplers' searches for feasible starts
// beyond the first (a sampler needs one start, as it needs one sweep; a
// search the budget cuts short ends the call with an error: budgetRun).
func work(m *mrf.Model, res *infer.Result) float64 {
	w := float64(res.Iterations) + res.Diagnostics["inner_sweeps"] + res.Diagnostics["gbp_sweeps"]
	if chains, ok := res.Diagnostics["chains"]; ok && feasible.HasZeros(m) {
		w += chains - res.Diagnostics["shared_starts"] - 1
	}
	return w
}

// Every method's time budget holds to within one unit of work, all of its
// work counted (warm starts, inner loops, set-up), on models slow for it:
// with a clock that advances a second at every read and methods that read
// it before every unit of work but the call's first, a budget of 6.5 s
// allows 7 units.
func TestBudgetHolds(t *testing.T) {
	const budget = 6.5
	for _, sm := range slowModels() {
		for _, e := range iterative(t) {
			t.Run(sm.name+"/"+e.Name, func(t *testing.T) {
				g := regionsFor(t, e, sm.m, sm.graph, sm.scheme)
				ctx, _ := tickingClock()
				res, ok := budgetRun(t, ctx, e, g, sm.m, "max_seconds", "6.5")
				if !ok {
					return
				}
				checkTimeStop(t, e, sm.m, res, budget)
				if w := work(sm.m, res); w > budget+1 {
					t.Errorf("%v units of work in a budget of %v (diagnostics %v)", w, budget, res.Diagnostics)
				}
			})
		}
	}
}

// The budget counts from the beginning of the call (infer.BeginCall): a
// call whose budget was spent before the method's loop (by a caller's
// set-up, or a warm start by another method) does at most one unit of work,
// and returns a usable answer.
func TestBudgetCountsFromCallStart(t *testing.T) {
	for _, sm := range slowModels() {
		for _, e := range iterative(t) {
			t.Run(sm.name+"/"+e.Name, func(t *testing.T) {
				g := regionsFor(t, e, sm.m, sm.graph, sm.scheme)
				ctx, now := tickingClock()
				ctx = infer.BeginCall(ctx)
				*now = now.Add(10 * time.Second) // the set-up before the method
				res, ok := budgetRun(t, ctx, e, g, sm.m, "max_seconds", "5")
				if !ok {
					return
				}
				checkTimeStop(t, e, sm.m, res, 5)
				if w := work(sm.m, res); res.Iterations > 1 || w > 1 {
					t.Errorf("%d iterations, %v units of work after the budget was spent (diagnostics %v)", res.Iterations, w, res.Diagnostics)
				}
			})
		}
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
		if !res[1].Converged() || !reflect.DeepEqual(res[0], res[1]) {
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
