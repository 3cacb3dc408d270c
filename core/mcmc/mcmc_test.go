package mcmc

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// gridScopes are the edges of an L x L grid as scopes.
func gridScopes(t *testing.T, L int) [][]int {
	edges, err := mrf.GridEdges(L, false)
	if err != nil {
		t.Fatal(err)
	}
	var s [][]int
	for _, e := range edges {
		s = append(s, []int{e.I, e.J})
	}
	return s
}

// testModels are small models of every kind the samplers must handle.
func testModels(t *testing.T) map[string]*mrf.Model {
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		t.Fatal(err)
	}
	evid := infertest.RandomModel(9, gridScopes(t, 3), infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.8, Unary: true}, 5)
	if err := evid.Observe(4, 1); err != nil {
		t.Fatal(err)
	}
	if err := evid.Observe(0, 0); err != nil {
		t.Fatal(err)
	}
	return map[string]*mrf.Model{
		"ising 3x3":  mrf.RandomIsing(9, edges, 1, 1),
		"K=3 grid":   infertest.RandomModel(9, gridScopes(t, 3), infertest.Config{MinCard: 3, MaxCard: 3, Scale: 0.7, Unary: true}, 2),
		"arity 3":    infertest.RandomModel(7, infertest.RandomScopes(7, 5, 3, 3), infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.8, Unary: true}, 3),
		"zeros":      infertest.RandomModel(8, infertest.RandomScopes(8, 8, 2, 4), infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.8, ZeroProb: 0.1, Unary: true}, 4),
		"evidence":   evid,
		"noisy-or":   infertest.NoisyOR(4, 4, 6),
		"pedigree":   infertest.Pedigree(7, 7),
		"spin glass": infertest.SpinGlass(3, false, 3, 8),
	}
}

func gibbsOpts() Options {
	o := DefaultOptions()
	o.Sweeps, o.MaxSeconds = 20000, 0
	return o
}

func ptOpts() PTOptions {
	o := PTDefaultOptions()
	o.Sweeps, o.MaxSeconds, o.Temps, o.BetaMin = 4000, 0, 6, 0.05
	return o
}

// Against exact marginals: every variable state within a few standard
// errors, the answer passes the shared check, and pt's ln Z is near the
// exact one.
func TestAgainstExact(t *testing.T) {
	t.Parallel()
	for name, m := range testModels(t) {
		ex, err := infertest.BruteForce(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samplers(t) {
			t.Run(name+"/"+s.Name(), func(t *testing.T) {
				res, err := s.Infer(context.Background(), m)
				if err != nil {
					t.Fatal(err)
				}
				if why := infer.VerifyMarginals(m, res, nil); why != "" {
					t.Fatalf("shared check: %s", why)
				}
				se := s.StandardErrors()
				worst := 0.0
				for i, p := range res.Marginals.Vars {
					for x, q := range p {
						d := math.Abs(q - ex.Marginals.Vars[i][x])
						if d > 5*se[i][x]+1e-3 {
							t.Errorf("variable %d state %d: %.4f, exact %.4f, standard error %.4f", i, x, q, ex.Marginals.Vars[i][x], se[i][x])
						}
						worst = max(worst, d)
					}
				}
				if worst > 0.03 {
					t.Errorf("largest error %.3g", worst)
				}
				if !res.Converged() {
					t.Errorf("not converged: %v", res.Diagnostics)
				}
				if s.Name() == "gibbs" {
					if !math.IsNaN(res.LogZ) {
						t.Errorf("gibbs ln Z %v, want NaN", res.LogZ)
					}
					return
				}
				se0 := res.Diagnostics["log_z_se"]
				if d := math.Abs(res.LogZ - ex.LogZ); d > 5*se0+0.02 {
					t.Errorf("ln Z %.4f, exact %.4f, standard error %.4f", res.LogZ, ex.LogZ, se0)
				}
			})
		}
	}
}

func samplers(t *testing.T) []*Sampler {
	g, err := New(gibbsOpts())
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPT(ptOpts())
	if err != nil {
		t.Fatal(err)
	}
	return []*Sampler{g, p}
}

// A fixed seed and sweep budget give the same answer; another seed another.
func TestReproducible(t *testing.T) {
	t.Parallel()
	m := testModels(t)["zeros"]
	for _, s := range samplers(t) {
		a, err := s.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Marginals, b.Marginals) || !sameFloat(a.LogZ, b.LogZ) {
			t.Errorf("%s: two runs differ", s.Name())
		}
		o := gibbsOpts()
		o.Seed = 2
		other, _ := New(o)
		c, err := other.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(a.Marginals, c.Marginals) && s.Name() == "gibbs" {
			t.Errorf("seeds 1 and 2 give the same answer")
		}
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// Where zero potentials cut the support into pieces single-site moves cannot
// cross, the chains stay in their pieces: split-R̂ says so and the answer is
// not converged. Drawn as a block (blocks.go), the tied variables change
// together, and the answer is the exact one.
func TestReducible(t *testing.T) {
	t.Parallel()
	// x0 = x1 = x2 with a field: the two constant configurations are the
	// whole support.
	eq := []float64{0, math.Inf(-1), math.Inf(-1), 0}
	m := &mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: eq}, {Vars: []int{1, 2}, LogTable: eq}, {Vars: []int{0}, LogTable: []float64{0, 0.5}},
	}}
	o := gibbsOpts()
	o.Blocks = BlocksOff
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged() || !(res.Diagnostics["rhat_max"] > 1.5) {
		t.Errorf("blocks off: converged %v, diagnostics %v", res.Converged(), res.Diagnostics)
	}
	if why := infer.VerifyMarginals(m, res, nil); why != "" {
		t.Errorf("shared check: %s", why)
	}
	o.Blocks = BlocksAuto
	if s, err = New(o); err != nil {
		t.Fatal(err)
	}
	if res, err = s.Infer(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	p1 := math.Exp(0.5) / (1 + math.Exp(0.5))
	if d := math.Abs(res.Marginals.Vars[2][1] - p1); !res.Converged() || d > 5*s.StandardErrors()[2][1] || res.Diagnostics["block_vars"] != 3 {
		t.Errorf("blocks auto: P(x2 = 1) %.4f, exact %.4f, converged %v, diagnostics %v", res.Marginals.Vars[2][1], p1, res.Converged(), res.Diagnostics)
	}
}

// A model without a configuration of non-zero probability is an error.
func TestInfeasible(t *testing.T) {
	t.Parallel()
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0, math.Inf(-1), math.Inf(-1), 0}},
	}}
	if err := m.Observe(0, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.Observe(1, 1); err != nil {
		t.Fatal(err)
	}
	empty := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{LogTable: []float64{math.Inf(-1)}}}}
	for _, s := range samplers(t) {
		for _, m := range []*mrf.Model{m, empty} {
			if _, err := s.Infer(context.Background(), m); err == nil || !strings.Contains(err.Error(), "non-zero probability") {
				t.Errorf("%s: %v", s.Name(), err)
			}
		}
	}
}

// Bad options are rejected with the option's name.
func TestBadOptions(t *testing.T) {
	t.Parallel()
	g := func(set func(*Options)) Options { o := DefaultOptions(); set(&o); return o }
	p := func(set func(*PTOptions)) PTOptions { o := PTDefaultOptions(); set(&o); return o }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"zero chains", g(func(o *Options) { o.Chains = 0 }).Check(), "chains"},
		{"negative sweeps", g(func(o *Options) { o.Sweeps = -1 }).Check(), "sweeps"},
		{"no end", g(func(o *Options) { o.Sweeps, o.MaxSeconds = 0, 0 }).Check(), "no end"},
		{"burn-in 1", g(func(o *Options) { o.BurnIn = 1 }).Check(), "burn_in"},
		{"negative burn-in", g(func(o *Options) { o.BurnIn = -0.1 }).Check(), "burn_in"},
		{"max_rhat 1", g(func(o *Options) { o.MaxRhat = 1 }).Check(), "max_rhat"},
		{"blocks unknown", g(func(o *Options) { o.Blocks = "all" }).Check(), "blocks"},
		{"pt blocks empty", p(func(o *PTOptions) { o.Blocks = "" }).Check(), "blocks"},
		{"pt zero chains", p(func(o *PTOptions) { o.Chains = 0 }).Check(), "chains"},
		{"pt negative chains", p(func(o *PTOptions) { o.Chains = -2 }).Check(), "chains"},
		{"pt negative sweeps", p(func(o *PTOptions) { o.Sweeps = -1 }).Check(), "sweeps"},
		{"pt no end", p(func(o *PTOptions) { o.Sweeps, o.MaxSeconds = 0, 0 }).Check(), "no end"},
		{"zero swaps", p(func(o *PTOptions) { o.Swaps = 0 }).Check(), "swaps"},
		{"swaps too many", p(func(o *PTOptions) { o.Swaps = maxSwaps + 1 }).Check(), "swaps"},
		{"temps too many", p(func(o *PTOptions) { o.Temps = maxTemps + 1 }).Check(), "temps"},
		{"beta_min NaN", p(func(o *PTOptions) { o.BetaMin = math.NaN() }).Check(), "beta_min"},
		{"betas infinite", p(func(o *PTOptions) { o.Betas = "1 Inf" }).Check(), "positive"},
		{"betas NaN", p(func(o *PTOptions) { o.Betas = "1 NaN" }).Check(), "betas"},
		{"one temperature", p(func(o *PTOptions) { o.Temps = 1 }).Check(), "temps"},
		{"no temperatures", p(func(o *PTOptions) { o.Temps = 0 }).Check(), "temps"},
		{"beta_min 0", p(func(o *PTOptions) { o.BetaMin = 0 }).Check(), "beta_min"},
		{"beta_min 1", p(func(o *PTOptions) { o.BetaMin = 1 }).Check(), "beta_min"},
		{"betas not from 1", p(func(o *PTOptions) { o.Betas = "0.9,0.5" }).Check(), "start at 1"},
		{"betas increasing", p(func(o *PTOptions) { o.Betas = "1,0.5,0.7" }).Check(), "decreasing"},
		{"betas repeated", p(func(o *PTOptions) { o.Betas = "1,0.5,0.5" }).Check(), "decreasing"},
		{"betas zero", p(func(o *PTOptions) { o.Betas = "1,0.5,0" }).Check(), "positive"},
		{"betas negative", p(func(o *PTOptions) { o.Betas = "1,-0.5" }).Check(), "positive"},
		{"betas only commas", p(func(o *PTOptions) { o.Betas = ", ," }).Check(), "betas"},
		{"betas not a number", p(func(o *PTOptions) { o.Betas = "1,x" }).Check(), "betas"},
		{"cluster unknown", p(func(o *PTOptions) { o.Cluster = "wolff" }).Check(), "cluster"},
		{"cluster empty", p(func(o *PTOptions) { o.Cluster = "" }).Check(), "cluster"},
		{"cluster odd chains", p(func(o *PTOptions) { o.Cluster, o.Chains = ClusterHoudayer, 3 }).Check(), "even"},
		{"temper unknown", p(func(o *PTOptions) { o.Temper = "unary" }).Check(), "temper"},
		{"temper empty", p(func(o *PTOptions) { o.Temper = "" }).Check(), "temper"},
		{"negative round trips", p(func(o *PTOptions) { o.MinRoundTrips = -1 }).Check(), "min_round_trips"},
		{"swap rate 1", p(func(o *PTOptions) { o.MinSwapRate = 1 }).Check(), "min_swap_rate"},
		{"swap rate NaN", p(func(o *PTOptions) { o.MinSwapRate = math.NaN() }).Check(), "min_swap_rate"},
		{"negative swap rate", p(func(o *PTOptions) { o.MinSwapRate = -0.1 }).Check(), "min_swap_rate"},
		{"relax unknown", p(func(o *PTOptions) { o.Relax = "yes" }).Check(), "relax"},
		{"relax rungs 0", p(func(o *PTOptions) { o.RelaxRungs = 0 }).Check(), "relax_rungs"},
		{"negative penalty", p(func(o *PTOptions) { o.PenaltyMax = -1 }).Check(), "penalty_max"},
		{"infinite penalty", p(func(o *PTOptions) { o.PenaltyMax = math.Inf(1) }).Check(), "penalty_max"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, tc.err, tc.want)
		}
	}
	o := PTDefaultOptions()
	o.Betas = "1 0.5, 0.1"
	s, err := NewPT(o)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Betas(); !reflect.DeepEqual(b, []float64{1, 0.5, 0.1, 0}) {
		t.Errorf("ladder %v", b)
	}
	d, _ := PTDefaultOptions().Ladder()
	if len(d) != 20 || d[0] != 1 || d[19] != 0.02 {
		t.Errorf("default ladder %v", d)
	}
}

// Chains run in parallel give the answer they give one after the other,
// and SetParallel(false) keeps them in one goroutine.
func TestParallelChains(t *testing.T) {
	t.Parallel()
	m := testModels(t)["evidence"]
	run := func(set func(*Sampler)) *infer.Result {
		o := ptOpts()
		o.Sweeps = 300
		s, err := NewPT(o)
		if err != nil {
			t.Fatal(err)
		}
		set(s)
		res, err := s.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a := run(func(s *Sampler) { s.parallelWork = 0 })
	b := run(func(s *Sampler) { s.parallelWork = math.MaxInt })
	if !reflect.DeepEqual(a.Marginals, b.Marginals) || a.LogZ != b.LogZ {
		t.Error("parallel and serial chains differ")
	}
	var work [2]int
	run(func(s *Sampler) {
		s.SetParallel(false)
		work[0] = s.parallelWork
		s.SetParallel(true)
		work[1] = s.parallelWork
	})
	if work != [2]int{math.MaxInt, defaultParallelWork} {
		t.Errorf("SetParallel(false), (true): sweep work thresholds %v, want [MaxInt %d]", work, defaultParallelWork)
	}
}

// The binary pairwise path keeps every replica's fields and log potential
// equal to those recomputed from its states, at every temperature, with
// evidence among the unary factors, and the general path's sweep leaves the
// same distribution (TestAgainstExact runs both).
func TestIsingFields(t *testing.T) {
	t.Parallel()
	m := infertest.SpinGlass(4, true, 5, 3)
	if err := m.Observe(5, 1); err != nil {
		t.Fatal(err)
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	l := newLayout(m, g)
	if l.is == nil {
		t.Fatal("a spin glass did not take the binary pairwise path")
	}
	rng := mrf.NewRand(1)
	x := make([]int, len(m.Cards))
	x[5] = 1
	r := l.newReplica(x)
	for sweep, beta := range []float64{1, 0.5, 0, 0.1, 1, 2} {
		l.sweep(r, beta, rng, nil)
		if r.x[5] != 1 {
			t.Fatalf("sweep %d: the observed variable left its state", sweep)
		}
		h, e := append([]float64(nil), r.h...), r.e
		l.sync(r)
		for i := range h {
			if math.Abs(h[i]-r.h[i]) > 1e-9 {
				t.Fatalf("sweep %d: field %d is %v, recomputed %v", sweep, i, h[i], r.h[i])
			}
		}
		if math.Abs(e-r.e) > 1e-9 {
			t.Fatalf("sweep %d: log potential %v, recomputed %v", sweep, e, r.e)
		}
	}
	for name, m := range map[string]*mrf.Model{"K=3": testModels(t)["K=3 grid"], "zeros": testModels(t)["zeros"]} {
		g, err := infer.NewFactorGraph(m)
		if err != nil {
			t.Fatal(err)
		}
		if newLayout(m, g).is != nil {
			t.Errorf("%s: took the binary pairwise path", name)
		}
	}
}

// On a small strongly coupled spin glass (couplings U(-10,10), where modes
// are far apart and rare states come in bursts) the standard errors cover
// twice the true error on most variables: coverage 0.9 or more on a seeded
// run, so a 2-standard-error interval can be trusted.
func TestSECoverage(t *testing.T) {
	t.Parallel()
	m := infertest.SpinGlass(4, false, 10, 2)
	ex, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []int64{1, 2, 3} {
		o := PTDefaultOptions()
		o.Seed, o.Sweeps, o.MaxSeconds, o.Temps, o.BetaMin = seed, 10000, 0, 10, 0.05
		s, res := inferPT(t, o, m)
		se := s.StandardErrors()
		covered := 0
		for i, p := range res.Marginals.Vars {
			ok := true
			for x, q := range p {
				ok = ok && math.Abs(q-ex.Marginals.Vars[i][x]) <= 2*se[i][x]
			}
			if ok {
				covered++
			}
		}
		if f := float64(covered) / float64(len(m.Cards)); f < 0.9 {
			t.Errorf("seed %d: standard errors cover %.2f of the variables, want >= 0.9", seed, f)
		}
	}
}

// A ladder that does not mix is not converged, however well its β = 1
// replicas agree: on a strongly coupled ferromagnetic chain with a strong
// field (one mode, which Gibbs at β = 1 samples well) and the ladder {1, 0},
// no swap is ever accepted and no replica makes a round trip; the default
// ladder mixes and is converged.
func TestLadderMustMix(t *testing.T) {
	t.Parallel()
	const n = 30
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range n {
		m.Cards[i] = 2
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i}, LogTable: []float64{0, 2}})
		if i > 0 {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i - 1, i}, LogTable: []float64{3, 0, 0, 3}})
		}
	}
	o := ptOpts()
	o.Betas, o.Sweeps = "1", 3000
	_, res := inferPT(t, o, m)
	d := res.Diagnostics
	if res.Converged() || d["round_trips"] != 0 || d["swap_rate_min"] > 0.001 || !(d["rhat_max"] <= o.MaxRhat) {
		t.Errorf("ladder {1, 0}: converged %v, diagnostics %v", res.Converged(), d)
	}
	o.Betas, o.Temps = "", 10
	_, res = inferPT(t, o, m)
	if d := res.Diagnostics; !res.Converged() || d["round_trips_min"] < float64(o.MinRoundTrips) {
		t.Errorf("default ladder: converged %v, diagnostics %v", res.Converged(), d)
	}
}
