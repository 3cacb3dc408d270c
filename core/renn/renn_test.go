package renn

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

func grid(t *testing.T, L int, gamma float64, seed int64) *mrf.Model {
	t.Helper()
	es, err := mrf.GridEdges(L, false)
	if err != nil {
		t.Fatal(err)
	}
	return mrf.RandomIsing(L*L, es, gamma, seed)
}

func build(t *testing.T, m *mrf.Model, graph, scheme string) *region.Graph {
	t.Helper()
	g, err := region.Build(m, graph, scheme)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustInfer(t *testing.T, r *RENN, m *mrf.Model) *infer.Result {
	t.Helper()
	out, err := r.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := infertest.CheckResult(m, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// totalLoss recomputes F + λ·penalty + Σ<μ,d> from scratch at the network's
// current weights, independently of the gradient code.
func totalLoss(r *RENN, m *mrf.Model, E [][]float64) float64 {
	r.beliefs()
	L := r.rb.FreeEnergy(E, r.b) + r.opts.Lambda*r.rb.Penalty(r.edges, r.b)
	buf := make([]float64, 0)
	for k, e := range r.edges {
		child := r.b[e.Child]
		buf = append(buf[:0], make([]float64, len(child))...)
		region.Marginalize(r.b[e.Parent], e.Map, buf)
		for x, v := range child {
			L += r.mu[k][x] * (v - buf[x])
		}
	}
	return L
}

// TestLossGradient checks the whole chain (free energy, penalty and
// multiplier term, the parent means, the softmax, the network) against
// central differences of the loss in every parameter tensor of small
// networks.
func TestLossGradient(t *testing.T) {
	m3 := grid(t, 3, 1, 3)
	// A model with a 3-state variable, a 3-ary factor and a zero potential.
	mix := &mrf.Model{Cards: []int{2, 3, 2, 2}}
	mix.Factors = []mrf.Factor{
		{Vars: []int{1, 0}, LogTable: []float64{0.3, -0.2, 0.5, 0.1, math.Inf(-1), 0.7}},
		{Vars: []int{2, 1, 3}, LogTable: []float64{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0, 0.2, 0.3}},
		{Vars: []int{0, 3}, LogTable: []float64{0.5, -0.5, -0.5, 0.5}},
		{Vars: []int{2}, LogTable: []float64{0.2, -0.1}},
	}
	tests := []struct {
		name   string
		m      *mrf.Model
		graph  string
		scheme string
		net    string
		depth  int
	}{
		{"grid3 faces direct", m3, "grid", "faces", "direct", 1},
		{"grid3 faces attention", m3, "grid", "faces", "attention", 1},
		{"grid3 faces attention depth 2", m3, "grid", "faces", "attention", 2},
		{"grid3 bethe attention", m3, "grid", "bethe", "attention", 1},
		{"mixed cycles attention", mix, "uai", "cycles", "attention", 2},
		{"mixed bethe direct", mix, "uai", "bethe", "direct", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.m, tt.graph, tt.scheme)
			r, err := New(g, opt(func(o *Options) { o.Net = tt.net; o.Dim = 4; o.BlockDepth = tt.depth; o.Lambda = 3; o.Seed = 5 }))
			if err != nil {
				t.Fatal(err)
			}
			if err := r.setup(tt.m); err != nil {
				t.Fatal(err)
			}
			E, err := r.rb.Energies(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.setMask(E); err != nil {
				t.Fatal(err)
			}
			rng := mrf.NewRand(9)
			for _, mu := range r.mu {
				for x := range mu {
					mu[x] = rng.NormFloat64()
				}
			}
			r.beliefs()
			r.loss(tt.m, E)
			for k, id := range r.roots {
				for _, x := range r.mask[k] {
					r.gr[id][x] = 0
				}
				softmaxBack(r.b[id], r.gr[id], r.dlogit[k])
			}
			r.net.ZeroGrad()
			r.net.Backward(r.dlogit)
			const h = 1e-6
			checked := 0
			for _, p := range r.net.Params() {
				stride := max(1, len(p.Value)/40) // a spread of entries of every tensor
				for i := 0; i < len(p.Value); i += stride {
					old := p.Value[i]
					p.Value[i] = old + h
					up := totalLoss(r, tt.m, E)
					p.Value[i] = old - h
					down := totalLoss(r, tt.m, E)
					p.Value[i] = old
					num := (up - down) / (2 * h)
					if d := math.Abs(num - p.Grad[i]); d > 1e-6*math.Max(1, math.Abs(num)) {
						t.Fatalf("%s[%d]: analytic %.9g, numeric %.9g", p.Name, i, p.Grad[i], num)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("no parameters checked")
			}
		})
	}
}

// softmaxBack is the softmax's backward pass written out, independently of
// nn.SoftmaxBackward.
func softmaxBack(p, dp, out []float64) {
	s := 0.0
	for i := range p {
		s += p[i] * dp[i]
	}
	for i := range p {
		out[i] = p[i] * (dp[i] - s)
	}
}

// On a tree the Bethe free energy is exact, and the cycles scheme of a tree
// is the Bethe graph (every edge a root of its own), so RENN and Inference
// Net must reach the exact marginals and ln Z at their default settings.
func TestTreeIsExact(t *testing.T) {
	es := []mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}, {I: 1, J: 3}, {I: 3, J: 4}, {I: 3, J: 5}}
	h := []float64{0.3, -0.5, 0.2, 0.1, -0.4, 0.6}
	J := []float64{0.8, -0.6, 0.5, 1.0, -1.2}
	ising := mrf.Ising(6, es, h, J)
	// A tree with 3-state variables and zero potentials.
	mixed := infertest.RandomTree(6, infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, ZeroProb: 0.1, Unary: true}, 4)
	for _, tc := range []struct {
		name, method, scheme, net string
		m                         *mrf.Model
	}{
		{"renn cycles", "renn", "cycles", "attention", ising},
		{"infnet", "infnet", "bethe", "attention", ising},
		{"infnet direct", "infnet", "bethe", "direct", ising},
		{"renn mixed", "renn", "cycles", "attention", mixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exact, err := infertest.BruteForce(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			g := build(t, tc.m, "uai", tc.scheme)
			r, err := New(g, opt(func(o *Options) { o.Name = tc.method; o.Net = tc.net }))
			if err != nil {
				t.Fatal(err)
			}
			res := mustInfer(t, r, tc.m)
			if !res.Converged {
				t.Errorf("not converged after %d steps", res.Iterations)
			}
			if d := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); d > 1e-3 {
				t.Errorf("variable marginals off by %.3g after %d steps", d, res.Iterations)
			}
			if d := infertest.MaxAbsDiff(res.Marginals.Factors, exact.Marginals.Factors); d > 1e-3 {
				t.Errorf("factor marginals off by %.3g", d)
			}
			if d := math.Abs(res.LogZ - exact.LogZ); d > 1e-3 {
				t.Errorf("ln Z %.6f, exact %.6f", res.LogZ, exact.LogZ)
			}
		})
	}
}

// The plain penalty leaves the beliefs inconsistent by O(1/λ); the
// multipliers remove that.
func TestMultipliersRemoveInconsistency(t *testing.T) {
	m := grid(t, 3, 1, 2)
	g := build(t, m, "grid", "faces")
	viol := map[string]float64{}
	for _, c := range []string{"penalty", "auglag"} {
		r, err := New(g, opt(func(o *Options) { o.Constraint = c }))
		if err != nil {
			t.Fatal(err)
		}
		res := mustInfer(t, r, m)
		if !res.Converged {
			t.Errorf("%s: not converged after %d steps", c, res.Iterations)
		}
		viol[c] = res.Diagnostics["max_violation"]
	}
	t.Logf("largest inconsistency: penalty %.3g, auglag %.3g", viol["penalty"], viol["auglag"])
	if viol["auglag"] > DefaultOptions().ConsTol || viol["penalty"] < 10*viol["auglag"] {
		t.Errorf("largest inconsistency: penalty %.3g, auglag %.3g; want auglag below %g and ten times below penalty",
			viol["penalty"], viol["auglag"], DefaultOptions().ConsTol)
	}
}

// On small grids RENN's error against exact inference is close to GBP's on
// the same region graph: both sit at a stationary point of the same region
// free energy.
func TestGridCloseToGBP(t *testing.T) {
	for _, seed := range []int64{1, 2} {
		m := grid(t, 4, 1, seed)
		exact, err := infertest.BruteForce(m)
		if err != nil {
			t.Fatal(err)
		}
		g := build(t, m, "grid", "faces")
		gb, err := gbp.New(g, gbp.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		gres, err := gb.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(g, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res := mustInfer(t, r, m)
		rerr := meanAbsDiff(res.Marginals.Vars, exact.Marginals.Vars)
		gerr := meanAbsDiff(gres.Marginals.Vars, exact.Marginals.Vars)
		t.Logf("seed %d: mean |ΔP| renn %.3g (%d steps), gbp %.3g", seed, rerr, res.Iterations, gerr)
		// The bound: twice GBP's error, or the accuracy the convergence
		// test aims at when GBP is nearly exact.
		if bound := max(2*gerr, 5e-4); rerr > bound || !res.Converged {
			t.Errorf("seed %d: mean |ΔP| renn %.3g (converged %v, %d steps), gbp %.3g; want renn below %.3g",
				seed, rerr, res.Converged, res.Iterations, gerr, bound)
		}
	}
}

func meanAbsDiff(a, b [][]float64) float64 {
	s, n := 0.0, 0
	for i := range a {
		for x := range a[i] {
			s += math.Abs(a[i][x] - b[i][x])
			n++
		}
	}
	return s / float64(n)
}

// A second call on the same model starts from the trained network and
// stops after a couple of windows; a model of another structure gets a new
// network.
func TestWarmStart(t *testing.T) {
	m := grid(t, 3, 1, 4)
	g := build(t, m, "grid", "faces")
	r, err := New(g, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	first := mustInfer(t, r, m)
	net := r.net
	again := mustInfer(t, r, m)
	if r.net != net || !again.Converged || again.Iterations > 3*r.opts.Window || again.Iterations >= first.Iterations {
		t.Errorf("warm start: %d steps (converged %v) after %d, same network %v", again.Iterations, again.Converged,
			first.Iterations, r.net == net)
	}
	if d := infertest.MaxAbsDiff(again.Marginals.Vars, first.Marginals.Vars); d > 1e-3 {
		t.Errorf("warm start moved the marginals by %.3g", d)
	}

	// The same factors with one scope reversed (and its table transposed):
	// the region graph still fits, the structure differs.
	flipped := &mrf.Model{Cards: m.Cards, Factors: append([]mrf.Factor(nil), m.Factors...)}
	for a, f := range flipped.Factors {
		if len(f.Vars) == 2 {
			tab := []float64{f.LogTable[0], f.LogTable[2], f.LogTable[1], f.LogTable[3]}
			flipped.Factors[a] = mrf.Factor{Vars: []int{f.Vars[1], f.Vars[0]}, LogTable: tab}
			break
		}
	}
	cold := mustInfer(t, r, flipped)
	if r.net == net || cold.Iterations <= again.Iterations {
		t.Errorf("changed structure: %d steps, same network %v", cold.Iterations, r.net == net)
	}
	if d := infertest.MaxAbsDiff(cold.Marginals.Vars, first.Marginals.Vars); d > 2e-3 {
		t.Errorf("the flipped model has the same marginals, got them off by %.3g", d)
	}

	// WarmSteps caps a warm call.
	r2, err := New(g, opt(func(o *Options) { o.WarmSteps = 10 }))
	if err != nil {
		t.Fatal(err)
	}
	mustInfer(t, r2, m)
	if res := mustInfer(t, r2, grid(t, 3, 1, 5)); res.Iterations != 10 {
		t.Errorf("warm call on a new model took %d steps, want the cap 10", res.Iterations)
	}
}

// Zero potentials (log -Inf) mask states: their beliefs stay exactly zero,
// and nothing turns NaN.
func TestZeroPotentials(t *testing.T) {
	m := grid(t, 3, 1, 6)
	m.Factors = append(m.Factors,
		mrf.Factor{Vars: []int{4}, LogTable: []float64{math.Inf(-1), 0}},
		mrf.Factor{Vars: []int{0, 1}, LogTable: []float64{0, math.Inf(-1), 0.5, 0}})
	exact, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"faces", "bethe"} {
		g := build(t, m, "grid", scheme)
		r, err := New(g, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res := mustInfer(t, r, m)
		if p := res.Marginals.Vars[4][0]; p != 0 {
			t.Errorf("%s: p(x4 = 0) = %g, want 0", scheme, p)
		}
		last := len(m.Factors) - 1
		if p := res.Marginals.Factors[last][1]; p != 0 {
			t.Errorf("%s: p(x0 = 0, x1 = 1) = %g, want 0", scheme, p)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); d > 0.05 {
			t.Errorf("%s: variable marginals off by %.3g", scheme, d)
		}
	}

	// A root with zero potential everywhere: Z = 0.
	dead := grid(t, 3, 1, 6)
	dead.Factors = append(dead.Factors, mrf.Factor{Vars: []int{4}, LogTable: []float64{math.Inf(-1), math.Inf(-1)}})
	r, err := New(build(t, dead, "grid", "faces"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Infer(context.Background(), dead); err == nil {
		t.Error("model with zero partition function accepted")
	}
}

// opt returns DefaultOptions changed by set.
func opt(set func(o *Options)) Options {
	o := DefaultOptions()
	set(&o)
	return o
}

func TestBadOptions(t *testing.T) {
	g := &region.Graph{}
	for _, tt := range []struct {
		set  func(o *Options)
		want string // in the error: the option's name
	}{
		{func(o *Options) { o.Net = "cnn" }, "net"},
		{func(o *Options) { o.Constraint = "barrier" }, "constraint"},
		{func(o *Options) { o.Lambda = -1 }, "lambda"},
		{func(o *Options) { o.Lambda = math.NaN() }, "lambda"},
		{func(o *Options) { o.Lambda = 0 }, "lambda"}, // with auglag
		{func(o *Options) { o.LambdaGrowth = 0.5 }, "lambda-growth"},
		{func(o *Options) { o.LambdaGrowth = math.NaN() }, "lambda-growth"},
		{func(o *Options) { o.LambdaGrowth = math.Inf(1) }, "lambda-growth"},
		{func(o *Options) { o.LR = -1 }, "lr"},
		{func(o *Options) { o.LR = 0 }, "lr"},
		{func(o *Options) { o.LR = math.Inf(1) }, "lr"},
		{func(o *Options) { o.Dim = 6; o.Heads = 4 }, "heads"},
		{func(o *Options) { o.Dim = 0 }, "dim"},
		{func(o *Options) { o.Heads = 0 }, "heads"},
		{func(o *Options) { o.WarmSteps = -1 }, "warm-steps"},
		{func(o *Options) { o.MaxSteps = -5 }, "max-steps"},
		{func(o *Options) { o.MaxSteps = 0 }, "max-steps"},
		{func(o *Options) { o.Window = 0 }, "window"},
		{func(o *Options) { o.MultiplierEvery = 0 }, "multiplier-every"},
		{func(o *Options) { o.Tol = -1 }, "tol"},
		{func(o *Options) { o.Tol = 0 }, "tol"},
		{func(o *Options) { o.ConsTol = math.NaN() }, "cons-tol"},
		{func(o *Options) { o.BlockDepth = 3 }, "block-depth"},
		{func(o *Options) { o.BlockDepth = 0 }, "block-depth"},
		{func(o *Options) { o.Name = "" }, "name"},
		{func(o *Options) { o.MaxSeconds = -1 }, "max-seconds"},
		{func(o *Options) { o.MaxSeconds = math.NaN() }, "max-seconds"},
		{func(o *Options) { o.MaxSeconds = math.Inf(1) }, "max-seconds"},
	} {
		o := opt(tt.set)
		if _, err := New(g, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v, want an error naming %s", o, err, tt.want)
		}
	}
	// Zero is never replaced by a default: the zero Options are invalid.
	if err := (Options{}).Check(); err == nil {
		t.Error("zero options accepted")
	}
	for _, o := range []Options{DefaultOptions(), LearningOptions(), opt(func(o *Options) { o.Lambda = 0; o.Constraint = "penalty" }), opt(func(o *Options) { o.WarmSteps = 0; o.Seed = 0 }), opt(func(o *Options) { o.LambdaGrowth = 1 })} {
		if err := o.Check(); err != nil {
			t.Errorf("Check(%+v): %v", o, err)
		}
	}
	if _, err := New(nil, DefaultOptions()); err == nil {
		t.Error("nil region graph accepted")
	}
	// A region graph of another model.
	r, err := New(build(t, grid(t, 3, 1, 1), "grid", "faces"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Infer(context.Background(), grid(t, 4, 1, 1)); err == nil {
		t.Error("model that does not fit the region graph accepted")
	}
}

func TestCancel(t *testing.T) {
	m := grid(t, 3, 1, 1)
	r, err := New(build(t, m, "grid", "faces"), opt(func(o *Options) { o.Dim = 4 }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Infer(ctx, m); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got error %v", err)
	}
}

// Converged is reported only when the rule held: the window means were flat
// to Tol twice running and the beliefs consistent to ConsTol; a run cut by
// MaxSteps says it did not converge.
func TestConvergenceIsHonest(t *testing.T) {
	m := grid(t, 3, 0.5, 8)
	g := build(t, m, "grid", "faces")
	var steps []int
	for _, o := range []Options{DefaultOptions(), opt(func(o *Options) { o.MaxSteps = 120 }), opt(func(o *Options) { o.Tol = 1e-3; o.ConsTol = 0.5 })} {
		r, err := New(g, o)
		if err != nil {
			t.Fatal(err)
		}
		var ws []window
		r.trace = func(w window) { ws = append(ws, w) }
		res := mustInfer(t, r, m)
		if len(ws) != res.Iterations/r.opts.Window {
			t.Fatalf("%+v: %d windows in %d steps", o, len(ws), res.Iterations)
		}
		last := ws[len(ws)-1]
		held := len(ws) >= 2 && ws[len(ws)-2].change <= r.opts.Tol && last.change <= r.opts.Tol && last.viol <= r.opts.ConsTol
		if res.Converged != held || res.Converged != last.converged {
			t.Errorf("%+v: converged %v after %d steps, last windows %+v", o, res.Converged, res.Iterations, ws[max(0, len(ws)-2):])
		}
		if o.MaxSteps == 120 && (res.Converged || res.Iterations != 120) {
			t.Errorf("capped run: converged %v after %d steps", res.Converged, res.Iterations)
		}
		if o.MaxSteps == DefaultOptions().MaxSteps && !res.Converged {
			t.Errorf("%+v: not converged after %d steps", o, res.Iterations)
		}
		steps = append(steps, res.Iterations)
	}
	if steps[2] >= steps[0] {
		t.Errorf("loose tolerances took %d steps, the defaults %d", steps[2], steps[0])
	}
}

// Lambda 0 with the plain penalty trains on the region free energy alone:
// the loss equals F, and the beliefs differ from those of lambda 5.
func TestLambdaZeroDropsConsistency(t *testing.T) {
	m := grid(t, 3, 1, 2)
	g := build(t, m, "grid", "faces")
	run := func(lambda float64) *infer.Result {
		r, err := New(g, opt(func(o *Options) { o.Lambda = lambda; o.Constraint = "penalty"; o.Dim = 8; o.MaxSteps = 300 }))
		if err != nil {
			t.Fatal(err)
		}
		return mustInfer(t, r, m)
	}
	zero, five := run(0), run(5)
	if zero.Diagnostics["lambda"] != 0 {
		t.Errorf("lambda 0 ran with lambda %v", zero.Diagnostics["lambda"])
	}
	if d := zero.Diagnostics["loss"] - zero.FreeEnergy; math.Abs(d) > 1e-9*math.Max(1, math.Abs(zero.FreeEnergy)) {
		t.Errorf("lambda 0: loss %v, F %v: the loss holds more than F", zero.Diagnostics["loss"], zero.FreeEnergy)
	}
	if zero.Diagnostics["penalty"] == 0 {
		t.Error("lambda 0: penalty 0; with no consistency term the beliefs should end inconsistent")
	}
	if d := infertest.MaxAbsDiff(zero.Marginals.Vars, five.Marginals.Vars); d < 1e-6 {
		t.Errorf("lambda 0 and lambda 5 gave the same marginals (max diff %g)", d)
	}
}

// TestBadModels: a model that does not fit the region graph, is invalid, or
// is too large for it gives an error that says so, on a fresh method and
// after a warm start, which it leaves intact.
func TestBadModels(t *testing.T) {
	m := grid(t, 3, 1, 0)
	extra := m.Clone()
	extra.Factors = append(extra.Factors, mrf.Factor{Vars: []int{0, 8}, LogTable: []float64{0, 1, 1, 0}})
	short := m.Clone()
	last := len(short.Factors) - 1
	short.Factors[last].LogTable = short.Factors[last].LogTable[:3]
	invalid := build(t, m, "grid", "faces")
	invalid.Regions[len(invalid.Regions)-1].Counting = 2
	big := grid(t, 10, 1, 0)
	tests := []struct {
		name string
		g    *region.Graph // nil: the faces of m
		m    *mrf.Model
		want string
	}{
		{"nil model", nil, nil, "nil model"},
		{"model of another size", nil, grid(t, 4, 1, 0), "region graph does not fit the model"},
		{"factor outside every region", nil, extra, "region graph does not fit the model: region graph not valid: factor 21"},
		{"short table", nil, short, "table has 3 entries"},
		{"invalid region graph", invalid, m, "region graph does not fit the model: region graph not valid: variable 4"},
		{"region over MaxStates", build(t, big, "grid", "faces+outer"), big, "has more than 4194304 joint states"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			if g == nil {
				g = build(t, m, "grid", "faces")
			}
			r, err := New(g, opt(func(o *Options) { o.Dim = 4; o.MaxSteps = 20; o.Window = 10 }))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Infer(context.Background(), tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("fresh: got %v, want an error containing %q", err, tc.want)
			}
			if tc.g != nil {
				return // the graph does not fit m either
			}
			mustInfer(t, r, m)
			net := r.net
			if _, err := r.Infer(context.Background(), tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("after a warm start: got %v, want an error containing %q", err, tc.want)
			}
			mustInfer(t, r, m)
			if r.net != net {
				t.Error("the error dropped the network")
			}
		})
	}
}
