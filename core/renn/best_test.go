package renn

import (
	"context"
	"math"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
)

// bandPotts returns n variables of k states with unary log potentials
// N(0, un²) and Potts couplings β[x_i = x_j], β ~ U(−beta, beta), between i
// and i+1 and, with probability 0.6 each, i+2 and i+3: short loops of
// many-state variables, as in object-detection models.
func bandPotts(n, k int, beta, un float64, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = k
		t := make([]float64, k)
		for x := range t {
			t[x] = un * r.NormFloat64()
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i}, LogTable: t})
	}
	for i := range n {
		for j := i + 1; j < min(n, i+4); j++ {
			if j > i+1 && r.Float64() >= 0.6 {
				continue
			}
			b := beta * (2*r.Float64() - 1)
			t := make([]float64, k*k)
			for x := range k {
				t[x*k+x] = b
			}
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i, j}, LogTable: t})
		}
	}
	return m
}

func family(t *testing.T, name string, size int, seed int64) *mrf.Model {
	t.Helper()
	m, err := mrf.FactorFamily{Family: name, Size: size}.Generate(seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mpOptions are renn-mp's inference options (core/methods) with a shorter
// step cap.
func mpOptions(steps int) Options {
	o := messageOptions()
	o.Name, o.Constraint, o.MaxSteps = "renn-mp", "auto", steps
	return o
}

// Where GBP converges, renn-mp's answer is no worse than GBP's: it passes
// the shared check, its region free energy is at most GBP's and its
// marginals are as close to the exact ones. The models: noisy-OR networks
// with evidence on which GBP converges (on most of the 16-finding ones it
// stalls, gbp.Stalled) and a soft CSP (zeros; constraint auto picked the
// plain penalty, whose minimiser is inconsistent), and a Potts model on
// which GBP is exact.
func TestNeverWorseThanFixedPoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *mrf.Model
	}{
		{"noisy-or 16 seed 41", family(t, mrf.FamilyNoisyOR, 16, 41)},
		{"noisy-or 16 seed 46", family(t, mrf.FamilyNoisyOR, 16, 46)},
		{"csp 12 seed 6", family(t, mrf.FamilyCSP, 12, 6)},
		{"potts 8x8 states seed 2", bandPotts(8, 8, 1.5, 1, 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			ex, err := exact.Solve(m, exact.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			g := build(t, m, "uai", "auto")
			want := runGBP(t, g, m)
			r, err := New(g, mpOptions(3000))
			if err != nil {
				t.Fatal(err)
			}
			got := mustInfer(t, r, m)
			if why := infer.Verify(m, got, r); why != "" || !got.Converged {
				t.Errorf("converged %v, check %q", got.Converged, why)
			}
			if got.FreeEnergy > want.FreeEnergy+1e-12*math.Abs(want.FreeEnergy) {
				t.Errorf("F %.9f above GBP's %.9f", got.FreeEnergy, want.FreeEnergy)
			}
			ge, err := metrics.CompareMarginals(m, ex.Marginals, want.Marginals)
			if err != nil {
				t.Fatal(err)
			}
			re, err := metrics.CompareMarginals(m, ex.Marginals, got.Marginals)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("mean |ΔP| %.3g (GBP %.3g), F %.9f (GBP %.9f), %d steps", re.VarMeanAbs, ge.VarMeanAbs, got.FreeEnergy, want.FreeEnergy, got.Iterations)
			if re.VarMeanAbs > 1.05*ge.VarMeanAbs+1e-15 {
				t.Errorf("mean |ΔP| %.3g, GBP's %.3g", re.VarMeanAbs, ge.VarMeanAbs)
			}
		})
	}
}

// readFixedPoint sets r up on m and reads message passing's fixed point.
func readFixedPoint(t *testing.T, r *RENN, m *mrf.Model) [][]float64 {
	t.Helper()
	if err := r.setup(m); err != nil {
		t.Fatal(err)
	}
	E, err := r.rb.Energies(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.setMask(E); err != nil {
		t.Fatal(err)
	}
	if read, err := r.readModel(context.Background(), r.net.(*nn.MessageNet), m, E); err != nil || !read {
		t.Fatalf("read a fixed point: %v, error %v", read, err)
	}
	return E
}

// The selection rule: message passing's fixed point is the incumbent at its
// free energy; an iterate of the network replaces the incumbent only if it
// is consistent and lower, after its inconsistency's weighted slack, by more
// than the relative tolerance Tol.
func TestSelectionAmongIterates(t *testing.T) {
	m := spinGlass(3, 1, 1)
	r, err := New(build(t, m, "grid", "faces"), messageOptions())
	if err != nil {
		t.Fatal(err)
	}
	E := readFixedPoint(t, r, m)
	var b best
	r.considerFixedPoint(&b, m, E)
	if !b.ok || !b.fixedPoint || b.step != 0 || b.score != r.rb.FreeEnergy(E, r.fixed) {
		t.Fatalf("start not recorded at its free energy: %+v", b)
	}
	r.gradient(m, E) // the net's own start: d of order 1e-10
	margin := r.opts.Tol * math.Abs(b.score)
	try := func(F, d, mu float64, step int, want bool) {
		t.Helper()
		for k := range r.d {
			clear(r.d[k])
			clear(r.mu[k])
		}
		r.d[0][0], r.mu[0][0] = d, mu
		before := b
		r.consider(&b, F, step)
		if got := b.step == step && !b.fixedPoint; got != want {
			t.Errorf("F %v (incumbent %v), mismatch %v, multiplier %v: recorded %v, want %v", F, before.score, d, mu, got, want)
		}
		if !want && (b.score != before.score || b.step != before.step) {
			t.Errorf("rejected iterate changed the incumbent: %+v -> %+v", before, b)
		}
	}
	try(b.score-margin/2, 0, 0, 1, false)                       // within the resolution
	try(b.score-10, 2*infer.ConsistencyTol, 0, 2, false)        // inconsistent
	try(math.Inf(-1), 0, 0, 3, false)                           // not finite
	try(b.score-0.4, 5e-4, 100, 4, false)                       // slack 0.05, weighted 0.5
	try(b.score-0.6, 5e-4, 100, 5, true)                        // lower after the slack
	try(b.score-slackWeight*0.05-margin/2, 5e-4, 100, 6, false) // ties with the new incumbent
}

// A run from GBP's fixed point that leaves the consistent set (λ kept at 5,
// where that fixed point of a noisy-OR network is a saddle of the loss)
// returns GBP's own answer: its marginals and free energy, converged.
func TestReturnsFixedPointAfterLeavingIt(t *testing.T) {
	m := family(t, mrf.FamilyNoisyOR, 16, 41)
	g := build(t, m, "uai", "auto")
	want := runGBP(t, g, m)
	o := mpOptions(1000)
	o.LambdaGrowth = 1
	r, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	left := 0.0
	r.trace = func(w window) { left = max(left, w.viol) }
	got := mustInfer(t, r, m)
	if left <= o.ConsTol {
		t.Fatalf("largest mismatch %.2g at window ends: the run did not leave the fixed point, the test needs one that does", left)
	}
	if got.Diagnostics["returned_fixed_point"] != 1 || !got.Converged {
		t.Errorf("diagnostics %v, converged %v; want GBP's fixed point returned", got.Diagnostics, got.Converged)
	}
	if d := maxVarDiff(got.Marginals.Vars, want.Marginals.Vars); d != 0 || got.FreeEnergy != want.FreeEnergy {
		t.Errorf("marginals differ from GBP's by %.2g, F %v against %v", d, got.FreeEnergy, want.FreeEnergy)
	}
}

// With LambdaGrowth the run raises λ when it leaves the consistent set, and
// the next call starts again from the λ given.
func TestLambdaRaisedPerCall(t *testing.T) {
	m := family(t, mrf.FamilyNoisyOR, 16, 41)
	g := build(t, m, "uai", "auto")
	o := mpOptions(600)
	r, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	for call := range 2 {
		got := mustInfer(t, r, m)
		k := got.Diagnostics["lambda_raised"]
		if want := o.Lambda * math.Pow(o.LambdaGrowth, k); k < 1 || got.Diagnostics["lambda"] != want {
			t.Errorf("call %d: λ raised %v times to %v, want at least once, to %v", call, k, got.Diagnostics["lambda"], want)
		}
		if got.Diagnostics["returned_fixed_point"] != 1 {
			t.Errorf("call %d: fixed point not returned: %v", call, got.Diagnostics)
		}
	}
}

// A run from a fixed point that neither settles nor finds a better answer
// stops readPatience windows after its last raise of λ, instead of running
// to the step cap.
func TestStopsWhenNothingBetter(t *testing.T) {
	m := family(t, mrf.FamilyNoisyOR, 16, 41)
	g := build(t, m, "uai", "auto")
	o := mpOptions(20000)
	r, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	got := mustInfer(t, r, m)
	bound := (int(got.Diagnostics["lambda_raised"]) + 1) * (readPatience + 2) * o.Window
	if got.Iterations > bound || got.Diagnostics["returned_fixed_point"] != 1 || !got.Converged {
		t.Errorf("%d steps (bound %d), diagnostics %v, converged %v", got.Iterations, bound, got.Diagnostics, got.Converged)
	}
}

// ferroRBM returns a complete bipartite Ising model of v and h units with
// every coupling J and every field h0.
func ferroRBM(v, h int, J, h0 float64) *mrf.Model {
	es, err := mrf.BipartiteEdges(v, h)
	if err != nil {
		panic(err)
	}
	hs := make([]float64, v+h)
	for i := range hs {
		hs[i] = h0
	}
	Js := make([]float64, len(es))
	for i := range Js {
		Js[i] = J
	}
	return mrf.Ising(v+h, es, hs, Js)
}

// A warm call (the previous model's messages) starts from the fixed point
// of lower region free energy of message passing from there and from
// uniform messages: after fields +0.3, the fields -0.05 leave the warm
// messages at a fixed point 0.006 above the one uniform messages reach.
func TestWarmCallStartsFromLowerFixedPoint(t *testing.T) {
	a, b := ferroRBM(12, 6, 0.4, 0.3), ferroRBM(12, 6, 0.4, -0.05)
	g := build(t, a, "uai", "auto")
	cold := runGBP(t, g, b)
	r, err := New(g, mpOptions(300))
	if err != nil {
		t.Fatal(err)
	}
	mustInfer(t, r, a)
	got := mustInfer(t, r, b)
	if got.FreeEnergy > cold.FreeEnergy+1e-9*math.Abs(cold.FreeEnergy) || !got.Converged {
		t.Errorf("F %.9f (converged %v), message passing from uniform messages %.9f", got.FreeEnergy, got.Converged, cold.FreeEnergy)
	}
}

// Where GBP stalls (gbp.Stalled: beliefs still, parent and child apart
// within the check's tolerance), renn-mp starts from the stall, not from
// uniform beliefs (mean |ΔP| 8e-3 and not converged in 2500 steps on this
// network), and never returns the stall itself as its answer.
func TestStartsFromStall(t *testing.T) {
	m := family(t, mrf.FamilyNoisyOR, 16, 4)
	ex, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	g := build(t, m, "uai", "auto")
	gb, err := gbp.New(g, gbp.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	stall, err := gb.Infer(context.Background(), m)
	if err != nil || stall.Converged || !gbp.Stalled(stall) {
		t.Fatalf("gbp: error %v, diagnostics %v: the test needs a stall", err, stall.Diagnostics)
	}
	r, err := New(g, mpOptions(3000))
	if err != nil {
		t.Fatal(err)
	}
	got := mustInfer(t, r, m)
	e, err := metrics.CompareMarginals(m, ex.Marginals, got.Marginals)
	if err != nil {
		t.Fatal(err)
	}
	if !(e.VarMeanAbs < 2e-4) || got.Diagnostics["returned_fixed_point"] != 0 {
		t.Errorf("mean |ΔP| %.3g (want below 2e-4), diagnostics %v", e.VarMeanAbs, got.Diagnostics)
	}
	if d := maxVarDiff(got.Marginals.Vars, stall.Marginals.Vars); d == 0 && got.FreeEnergy == stall.FreeEnergy {
		t.Error("returned GBP's stall")
	}
}
