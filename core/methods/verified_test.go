package methods

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// hardModels are small models of the hard UAI-like kinds (infertest), each
// with the region graph its region methods run on.
func hardModels() []struct {
	name, graph, scheme string
	m                   *mrf.Model
} {
	return []struct {
		name, graph, scheme string
		m                   *mrf.Model
	}{
		{"pedigree", "uai", "cycles", infertest.Pedigree(12, 1)},
		{"pedigree 6", "uai", "bethe", infertest.Pedigree(12, 6)},
		{"noisy-or", "uai", "cycles", infertest.NoisyOR(6, 10, 2)},
		{"soft csp", "uai", "cycles", infertest.SoftCSP(9, 10, 3)},
		{"spin glass", "grid", "faces", infertest.SpinGlass(4, false, 10, 4)},
		{"spin torus", "torus", "faces", infertest.SpinGlass(4, true, 10, 5)},
		{"rbm", "bipartite", "cycles", infertest.RBM(4, 6, 3, 6)},
	}
}

// Every registered method, on every hard UAI-like kind of model: an answer
// reported converged passes the shared check, the reason of a failure is
// recorded, mean field puts no mass on a state a zero potential or the
// evidence excludes, and every method with a ln Z but GBP gives a finite
// one (Z > 0 on every model).
func TestHardModelsChecked(t *testing.T) {
	for _, hm := range hardModels() {
		ex, err := exact.Solve(hm.m, exact.DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", hm.name, err)
		}
		for _, e := range All() {
			t.Run(hm.name+"/"+e.Name, func(t *testing.T) {
				var g *region.Graph
				var err error
				switch e.Regions {
				case AnyRegions:
					g, err = region.Build(hm.m, hm.graph, hm.scheme)
				case BetheRegions:
					g, err = region.Build(hm.m, hm.graph, region.Bethe)
				}
				if err != nil {
					t.Fatal(err)
				}
				o := e.Options(false)
				steps := "300"
				if o.Has("net") { // the networks' optimisation steps
					steps = "200"
				}
				for name, v := range map[string]string{"max_iter": steps, "dim": "8", "sweeps": "2000"} {
					if o.Has(name) {
						if err := o.Set(name, v); err != nil {
							t.Fatal(err)
						}
					}
				}
				meth, err := e.New(o, g)
				if err != nil {
					t.Fatal(err)
				}
				res, err := meth.Infer(context.Background(), hm.m)
				if err != nil {
					t.Fatal(err)
				}
				inner := meth.(interface{ Unwrap() infer.Method }).Unwrap()
				rb, _ := inner.(infer.RegionBeliefs)
				if (e.Regions != NoRegions) != (rb != nil) {
					t.Errorf("region method %v, RegionBeliefs %v", e.Regions != NoRegions, rb != nil)
				}
				check := infer.Verify
				if e.LogZ == LogZNone {
					check = infer.VerifyMarginals
				}
				why := check(hm.m, res, rb)
				if !strings.HasPrefix(res.Check, why) || (why == "") != (res.Status != infer.CheckFailed) || (why == "") != (res.Check == "") {
					t.Errorf("status %v with check %q; Verify says %q", res.Status, res.Check, why)
				}
				switch e.Name {
				case "exact":
					if why != "" || !res.Converged() {
						t.Errorf("exact answer fails the check: %s", why)
					}
				case "mf":
					if why != "" {
						t.Errorf("mean field fails the check: %s", why)
					}
					if !(res.LogZ <= ex.LogZ+1e-9) {
						t.Errorf("mean-field ln Z %v above the exact %v", res.LogZ, ex.LogZ)
					}
				}
				if e.Name != "gbp" && e.LogZ != LogZNone && (math.IsInf(res.LogZ, 0) || math.IsNaN(res.LogZ)) {
					t.Errorf("ln Z %v (exact %v)", res.LogZ, ex.LogZ)
				}
			})
		}
	}
}

// badMethod returns a fixed answer, claimed converged.
type badMethod struct{ res infer.Result }

func (b badMethod) Name() string { return "bad" }
func (b badMethod) Infer(context.Context, *mrf.Model) (*infer.Result, error) {
	r := b.res
	return &r, nil
}

// The wrapper Entry.New returns gives an answer that fails the check the
// status CheckFailed, records why, and keeps a passing answer converged.
func TestVerifiedWrapper(t *testing.T) {
	m := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, math.Inf(-1)}}}}
	good := infer.Result{Marginals: mrf.Marginals{Vars: [][]float64{{1, 0}}, Factors: [][]float64{{1, 0}}}, Status: infer.Converged}
	bad := good
	bad.Marginals = mrf.Marginals{Vars: [][]float64{{0.5, 0.5}}, Factors: [][]float64{{0.5, 0.5}}}
	noLogZ := good
	noLogZ.LogZ = math.NaN()
	for _, tc := range []struct {
		res    infer.Result
		noLogZ bool // the method makes no claim on ln Z
		pass   bool
	}{{good, false, true}, {bad, false, false}, {noLogZ, false, false}, {noLogZ, true, true}, {bad, true, false}} {
		res, err := verified{Method: badMethod{tc.res}, noLogZ: tc.noLogZ}.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Converged() != tc.pass || (res.Check == "") != tc.pass {
			t.Errorf("converged %v, check %q; want pass %v", res.Converged(), res.Check, tc.pass)
		}
	}
}

// An answer that fails the check keeps on record what had stopped the
// method, after the reason; one that passes keeps the method's status.
func TestVerifiedKeepsStopReason(t *testing.T) {
	m := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, math.Inf(-1)}}}}
	good := infer.Result{Marginals: mrf.Marginals{Vars: [][]float64{{1, 0}}, Factors: [][]float64{{1, 0}}}}
	bad := infer.Result{Marginals: mrf.Marginals{Vars: [][]float64{{0.5, 0.5}}, Factors: [][]float64{{0.5, 0.5}}}}
	for _, tc := range []struct {
		res    infer.Result
		status infer.Status
		want   infer.Status
		suffix string
	}{
		{good, infer.TimeLimit, infer.TimeLimit, ""},
		{good, infer.Diverged, infer.Diverged, ""},
		{bad, infer.Converged, infer.CheckFailed, "of zero potential"},
		{bad, infer.TimeLimit, infer.CheckFailed, "of zero potential (the method had stopped: time_limit)"},
		{bad, infer.IterationLimit, infer.CheckFailed, "(the method had stopped: iteration_limit)"},
	} {
		tc.res.Status = tc.status
		res, err := verified{Method: badMethod{tc.res}}.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != tc.want || !strings.HasSuffix(res.Check, tc.suffix) || (tc.suffix == "") != (res.Check == "") {
			t.Errorf("%v: status %v, check %q; want %v ending %q", tc.status, res.Status, res.Check, tc.want, tc.suffix)
		}
	}
}

// A certificate rests on the answer: one that fails the check keeps none
// but bounds (which rest on mean field and TRW, not on it); one that passes
// keeps its own.
func TestVerifiedCertificate(t *testing.T) {
	m := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, math.Inf(-1)}}}}
	good := infer.Result{Marginals: mrf.Marginals{Vars: [][]float64{{1, 0}}, Factors: [][]float64{{1, 0}}}, Status: infer.Converged}
	bad := good
	bad.Marginals = mrf.Marginals{Vars: [][]float64{{0.5, 0.5}}, Factors: [][]float64{{0.5, 0.5}}}
	for _, tc := range []struct {
		res        infer.Result
		cert, want string
	}{
		{good, infer.CertExact, infer.CertExact},
		{good, infer.CertConverged, infer.CertConverged},
		{bad, infer.CertExact, infer.CertNone},
		{bad, infer.CertConverged, infer.CertNone},
		{bad, infer.CertMonteCarlo, infer.CertNone},
		{bad, infer.CertBounds, infer.CertBounds},
		{bad, "", ""},
	} {
		r := tc.res
		r.Certificate = tc.cert
		res, err := verified{Method: badMethod{r}}.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if res.Certificate != tc.want {
			t.Errorf("certificate %q on an answer with check %q: got %q, want %q", tc.cert, res.Check, res.Certificate, tc.want)
		}
	}
}
