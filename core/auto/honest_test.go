package auto

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// liar returns a fixed answer and claims it converged.
type liar struct{ res infer.Result }

func (liar) Name() string { return "liar" }
func (l liar) Infer(context.Context, *mrf.Model) (*infer.Result, error) {
	r := l.res
	return &r, nil
}

// The certificate never overstates: an answer that claims convergence but
// fails the shared check is not converged, so it is certified neither
// converged nor monte-carlo, and exact only comes from exact inference.
func TestCertificateNeverOverstates(t *testing.T) {
	m := twoVars()
	inconsistent := answer(0.3)
	inconsistent.Factors[0] = []float64{0, 0.5, 0, 0.5} // says p(x0 = 1) = 0.5, the variable 0.3
	excluded := answer(0.3)
	excluded.Vars[1] = []float64{0.5, 0.5} // mass on the state the evidence excludes
	for _, tc := range []struct {
		name string
		k    kind
		res  infer.Result
		want string // the certificate when chosen alone, with bounds
	}{
		{"region, inconsistent", kindRegion, infer.Result{Marginals: inconsistent, LogZ: 1, Status: infer.Converged}, infer.CertBounds},
		{"region, ln Z NaN", kindRegion, infer.Result{Marginals: answer(0.3), LogZ: math.NaN(), Status: infer.Converged}, infer.CertBounds},
		{"region, consistent", kindRegion, infer.Result{Marginals: answer(0.3), LogZ: 1, Status: infer.Converged}, infer.CertConverged},
		{"pt, inconsistent", kindMC, infer.Result{Marginals: inconsistent, LogZ: 1, Status: infer.Converged}, infer.CertBounds},
		{"pt, consistent", kindMC, infer.Result{Marginals: answer(0.3), LogZ: 1, Status: infer.Converged}, infer.CertMonteCarlo},
		// Exact inference that fails its check is passed over altogether.
		{"exact, inconsistent", kindExact, infer.Result{Marginals: inconsistent, LogZ: 1, Status: infer.Converged}, "not chosen: mf"},
	} {
		s := step{name: "liar", method: "liar", kind: tc.k, rank: 1}
		c := runMethod(context.Background(), m, s, 1, liar{tc.res})
		cands := []candidate{c, mfLow, trwHigh}
		if tc.k == kindMC {
			c.res.Diagnostics = map[string]float64{"rhat_max": 1}
			cands[0] = c
		}
		ch, err := choose(m, cands)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ch.cert
		if cands[ch.pick].name != "liar" {
			got = "not chosen: " + cands[ch.pick].name
		}
		if got != tc.want {
			t.Errorf("%s: certificate %q (check %q), want %q", tc.name, got, c.check, tc.want)
		}
	}
	// An answer with mass on an excluded state is no answer at all.
	c := runMethod(context.Background(), m, step{name: "liar", method: "liar", kind: kindRegion, rank: 1}, 1, liar{infer.Result{Marginals: excluded, LogZ: 1, Status: infer.Converged}})
	if c.usable(m) || c.converged() {
		t.Errorf("an answer on an excluded state is usable %v, converged %v", c.usable(m), c.converged())
	}
}

// Gibbs sampling's answer has no ln Z: it takes parallel tempering's, with
// its standard error, when that converged, else the best converged region
// run's.
func TestAnswerLogZFromSampler(t *testing.T) {
	m := twoVars()
	a, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		ptMixed   bool
		wantFrom  string
		wantLogZ  float64
		wantLogSE bool
	}{
		{"pt mixed", true, "pt", 1, true},
		{"pt did not mix", false, "gbp@faces", 2, false},
	} {
		gibbs := gibbsRun(0.31, 0.002, 1.001, true)
		gibbs.res.LogZ = math.NaN()
		pt := mc(0.3, 0.01, 1, tc.ptMixed)
		pt.res.Diagnostics["log_z_se"] = 0.05
		cands := []candidate{mfLow, trwHigh, fake("gbp@faces", kindRegion, 1, 0.4, 2, true, ""), gibbs, pt}
		res := a.answer(m, cands, choice{pick: 3, cert: infer.CertMonteCarlo, excess: 100, bounds: bounds(cands)}, &Record{})
		rec := res.Record.(*Record)
		_, hasSE := res.Diagnostics["log_z_se"]
		if res.LogZ != tc.wantLogZ || rec.LogZFrom != tc.wantFrom || hasSE != tc.wantLogSE {
			t.Errorf("%s: ln Z %v from %q (log_z_se %v), want %v from %s (%v)", tc.name, res.LogZ, rec.LogZFrom, hasSE, tc.wantLogZ, tc.wantFrom, tc.wantLogSE)
		}
		if se := a.StandardErrors(); len(se) != 2 || se[0][0] != 0.002 {
			t.Errorf("%s: standard errors %v, want Gibbs sampling's", tc.name, se)
		}
	}
}

// The answer takes ln Z from the best converged region run when the chosen
// one's is not finite, and moves it into the bounds when it lies outside.
func TestAnswerLogZ(t *testing.T) {
	m := twoVars()
	a, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	pt := mc(0.3, 0.01, 1, true)
	pt.res.LogZ = math.Inf(-1)
	gbp := fake("gbp@faces", kindRegion, 1, 0.4, 2, true, "")
	cands := []candidate{mfLow, trwHigh, gbp, pt}
	res := a.answer(m, cands, choice{pick: 3, cert: infer.CertMonteCarlo, excess: 100, bounds: bounds(cands)}, &Record{})
	rec := res.Record.(*Record)
	if res.LogZ != 2 || rec.LogZFrom != "gbp@faces" || rec.LogZClamped {
		t.Errorf("ln Z %v from %q (clamped %v), want 2 from gbp@faces", res.LogZ, rec.LogZFrom, rec.LogZClamped)
	}
	if se := a.StandardErrors(); len(se) != 2 || se[0][0] != 0.01 {
		t.Errorf("standard errors %v, want parallel tempering's", se)
	}
	high := fake("gbp@faces", kindRegion, 1, 0.4, 7, true, "")
	cands = []candidate{mfLow, trwHigh, high}
	res = a.answer(m, cands, choice{pick: 2, cert: infer.CertConverged, excess: math.NaN(), bounds: bounds(cands)}, &Record{})
	rec = res.Record.(*Record)
	if res.LogZ != 3 || !rec.LogZClamped || res.FreeEnergy != high.res.FreeEnergy {
		t.Errorf("ln Z %v (clamped %v), want TRW's bound 3", res.LogZ, rec.LogZClamped)
	}
	if a.StandardErrors() != nil {
		t.Error("standard errors of a variational answer")
	}
	for _, k := range []string{"log_z_lower", "log_z_upper", "bounds_width", "budget"} {
		if _, ok := res.Diagnostics[k]; !ok {
			t.Errorf("diagnostics lack %s: %v", k, res.Diagnostics)
		}
	}
}

// A model where every method fails (Z = 0: the evidence contradicts a hard
// constraint) is an error naming the failures.
func TestEveryMethodFails(t *testing.T) {
	ninf := math.Inf(-1)
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{ninf, 0, 0, ninf}}, // x0 != x1
		{Vars: []int{0}, LogTable: []float64{0, ninf}},
		{Vars: []int{1}, LogTable: []float64{0, ninf}},
	}}
	o := DefaultOptions()
	o.MaxSeconds = 0.3
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Infer(context.Background(), m)
	if err == nil || !strings.Contains(err.Error(), "every method failed") || !strings.Contains(err.Error(), "exact:") {
		t.Errorf("error %v, want every method's failure", err)
	}
}

// On two cores parallel tempering runs beside the variational methods,
// Gibbs sampling after them on a model with hard constraints, and the call
// keeps to its budget on the wall clock.
func TestParallelWallTime(t *testing.T) {
	const budget = 0.5
	o := DefaultOptions()
	o.MaxSeconds, o.Exact = budget, false
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []int{1, 5} { // the torus, the pedigree
		fam := families(t)[f]
		start := time.Now()
		res, err := a.Infer(context.Background(), fam.m)
		if err != nil {
			t.Fatal(err)
		}
		if secs := time.Since(start).Seconds(); secs > 1.1*budget+1 {
			t.Errorf("%s: %.2f s on a %.2g s budget", fam.name, secs, budget)
		}
		var pt, sum float64
		ran := map[string]bool{}
		for _, r := range res.Record.(*Record).Runs {
			ran[r.Method] = true
			switch r.Method {
			case "pt":
				pt = r.Seconds
			case "pt2+pt", "gibbs+pt": // pools: no run of their own
			default:
				sum += r.Seconds
			}
		}
		if pt < 0.8*budget {
			t.Errorf("%s: parallel tempering ran %.2f s of a %.2g s budget", fam.name, pt, budget)
		}
		// After the variational methods, the first core runs Gibbs
		// sampling on the pedigree and a second parallel tempering on the
		// torus (recorded, if skipped for lack of time).
		if ran["gibbs"] != (f == 5) || ran["pt2"] != (f == 1) || sum > 1.1*budget+1 {
			t.Errorf("%s: gibbs recorded %v, pt2 %v, the first core's runs %.2f s of a %.2g s budget", fam.name, ran["gibbs"], ran["pt2"], sum, budget)
		}
	}
}

// Hard constraints are zero entries of factors over two or more variables;
// evidence alone is not one.
func TestDeterministic(t *testing.T) {
	for _, f := range families(t) {
		want := f.name == "csp" || f.name == "noisy-or" || f.name == "pedigree" || f.name == "linkage"
		if got := deterministic(f.m); got != want {
			t.Errorf("%s: deterministic %v, want %v", f.name, got, want)
		}
	}
	if deterministic(twoVars()) {
		t.Error("evidence alone counted as a hard constraint")
	}
}

// Each method auto runs has a budget of its own, counted from its own
// start, even when auto runs inside an enclosing call (infer.BeginCall):
// here the enclosing call began 100 s before auto, and GBP still converges.
func TestOwnBudgetInsideACall(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(0, 0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(100 * time.Microsecond) // time passes as the clock is read
		return now
	}
	ctx := infer.BeginCall(infer.WithClock(context.Background(), clock))
	mu.Lock()
	now = now.Add(100 * time.Second)
	mu.Unlock()
	o := DefaultOptions()
	o.MaxSeconds, o.Exact, o.Parallel = 2, false, false
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Infer(ctx, families(t)[0].m)
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record.(*Record)
	for _, r := range rec.Runs {
		if strings.HasPrefix(r.Method, "gbp@") && r.Converged {
			return
		}
	}
	t.Errorf("no GBP run converged inside an enclosing call: %+v", rec.Runs)
}
