package auto

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
)

// families are small models of every UAI-like family of the project.
func families(t *testing.T) []struct {
	name string
	m    *mrf.Model
} {
	t.Helper()
	gen := func(family string, size int, seed int64) *mrf.Model {
		m, err := mrf.FactorFamily{Family: family, Size: size}.Generate(seed)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return []struct {
		name string
		m    *mrf.Model
	}{
		{"spin glass", infertest.SpinGlass(5, false, 5, 1)},
		{"spin torus", infertest.SpinGlass(4, true, 10, 2)},
		{"rbm", infertest.RBM(6, 4, 3, 3)},
		{"csp", gen(mrf.FamilyCSP, 12, 4)},
		{"noisy-or", gen(mrf.FamilyNoisyOR, 12, 5)},
		{"pedigree", gen(mrf.FamilyPedigree, 12, 6)},
		{"linkage", gen(mrf.FamilyLinkage, 8, 7)},
	}
}

// TestExactWhereItFits: with a budget exact inference fits, auto's answer
// is exact inference's, certified exact.
func TestExactWhereItFits(t *testing.T) {
	for _, f := range families(t) {
		want, err := exact.Solve(f.m, exact.DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		a, err := New(DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Infer(context.Background(), f.m)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if res.Certificate != infer.CertExact || res.LogZ != want.LogZ || infertest.MaxAbsDiff(res.Marginals.Vars, want.Marginals.Vars) != 0 {
			t.Errorf("%s: certificate %s, ln Z %v (exact %v)", f.name, res.Certificate, res.LogZ, want.LogZ)
		}
		if rec := res.Record.(*Record); len(rec.Runs) != 1 || !rec.Exact.Ran {
			t.Errorf("%s: %d runs beside exact inference: %+v", f.name, len(rec.Runs), rec.Runs)
		}
	}
}

// TestApproximateAgainstExact: without exact inference, on a short budget,
// auto's answer on every family is close to the exact one, passes the
// shared check when it claims more than bounds, its bounds hold, and it
// keeps to its budget.
func TestApproximateAgainstExact(t *testing.T) {
	const budget = 0.4
	for _, f := range families(t) {
		want, err := exact.Solve(f.m, exact.DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		o := DefaultOptions()
		o.MaxSeconds, o.Exact = budget, false
		a, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := a.Infer(context.Background(), f.m)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		secs := time.Since(start).Seconds()
		rec := res.Record.(*Record)
		h, _, err := metrics.MeanHellinger(f.m, want.Marginals, res.Marginals)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s (%s), hellinger %.4f, ln Z error %.3g, %.2f s: %s", f.name, rec.Chosen, res.Certificate, h, res.LogZ-want.LogZ, secs, rec.Reason)
		if h > 0.05 {
			t.Errorf("%s: hellinger %.4f from exact", f.name, h)
		}
		if secs > 1.1*budget+1 {
			t.Errorf("%s: %.2f s on a %.2g s budget", f.name, secs, budget)
		}
		switch res.Certificate {
		case infer.CertExact:
			t.Errorf("%s: certified exact without exact inference", f.name)
		case infer.CertConverged, infer.CertMonteCarlo:
			if why := infer.Verify(f.m, res, nil); why != "" || !res.Converged() {
				t.Errorf("%s: certified %s, converged %v, check %q", f.name, res.Certificate, res.Converged(), why)
			}
		}
		if b := rec.Bounds; b != nil && !(float64(b.Lower) <= want.LogZ+1e-9 && want.LogZ <= float64(b.Upper)+1e-9) {
			t.Errorf("%s: bounds [%v, %v] miss ln Z %v", f.name, b.Lower, b.Upper, want.LogZ)
		}
	}
}

// TestOptionsCheck: a budget that is not a positive finite number is
// refused, naming the option.
func TestOptionsCheck(t *testing.T) {
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		o := DefaultOptions()
		o.MaxSeconds = v
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), "max_seconds") {
			t.Errorf("max_seconds %v: %v", v, err)
		}
		if _, err := New(o); err == nil {
			t.Errorf("New with max_seconds %v: no error", v)
		}
	}
	if err := DefaultOptions().Check(); err != nil {
		t.Error(err)
	}
	if err := LearningOptions().Check(); err != nil {
		t.Error(err)
	}
}
