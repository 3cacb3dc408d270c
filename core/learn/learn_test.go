package learn

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
)

// gridIsing returns a random L x L Ising model (gamma 1) and its edges.
func gridIsing(t *testing.T, L int, seed int64) *mrf.Model {
	t.Helper()
	es, err := mrf.GridEdges(L, false)
	if err != nil {
		t.Fatal(err)
	}
	return mrf.RandomIsing(L*L, es, 1, seed)
}

// Exact learning from 20k samples recovers the fields and couplings of a 3x3
// grid to within the sampling error of the maximum-likelihood estimate.
func TestExactLearningRecoversIsing(t *testing.T) {
	truth := gridIsing(t, 3, 7)
	const N = 20000
	xs, _, err := exact.Sample(truth, N, mrf.NewRand(3), exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewIsing(truth)
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Params(truth)
	if err != nil {
		t.Fatal(err)
	}
	theta := p.Random(mrf.NewRand(5), 1, 1)
	d, err := NewData(p.Model(theta), xs)
	if err != nil {
		t.Fatal(err)
	}
	// Minibatch epochs to get close, then full-batch steps with a small rate
	// to settle on the maximum-likelihood estimate.
	for _, o := range []Options{infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 2000; o.LR = 0.05; o.Epochs = 30; o.Tol = -1 }), infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = N; o.LR = 0.01; o.Epochs = 200; o.Tol = -1 })} {
		l, err := New(NewExact(exact.DefaultOptions()), p, theta, d, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Fit(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
		theta = l.Theta()
	}
	// The standard error of each estimate: sqrt of the diagonal of the
	// inverse Fisher information over N.
	v := inverseFisherDiag(t, p, truth)
	for k := range want {
		se := math.Sqrt(v[k] / N)
		if d := math.Abs(theta[k] - want[k]); d > 4*se {
			t.Errorf("parameter %d: learned %.4f, true %.4f: off by %.1f standard errors (se %.4f)", k, theta[k], want[k], d/se, se)
		}
	}
	// And the start was far off, so the test can fail.
	start := p.Random(mrf.NewRand(5), 1, 1)
	far := 0
	for k := range want {
		if math.Abs(start[k]-want[k]) > 4*math.Sqrt(v[k]/N) {
			far++
		}
	}
	if far < len(want)/2 {
		t.Fatalf("only %d of %d starting parameters are far from the truth", far, len(want))
	}
}

// bruteLogLik returns the mean log-likelihood of xs under m by enumeration.
func bruteLogLik(t *testing.T, m *mrf.Model, xs [][]int) float64 {
	t.Helper()
	res, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for _, x := range xs {
		s += m.LogScore(x)
	}
	return s/float64(len(xs)) - res.LogZ
}

// The gradient from exact marginals matches central finite differences of
// the exact mean log-likelihood, for both parameterisations.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	// A binary 4-cycle with a chord, laid out unusually: a pairwise factor
	// scoped (j, i) with j > i, two factors on one edge, a field hidden in a
	// pairwise table, a variable without a unary factor.
	ising := &mrf.Model{Cards: []int{2, 2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{0.2, -0.3}},
		{Vars: []int{1, 0}, LogTable: []float64{0.5, -0.1, 0.3, 0.9}},
		{Vars: []int{1, 2}, LogTable: []float64{-0.4, 0.2, 0.1, 0.7}},
		{Vars: []int{2, 3}, LogTable: []float64{0.3, -0.6, 0.0, 0.4}},
		{Vars: []int{3, 0}, LogTable: []float64{0.1, 0.2, -0.5, 0.3}},
		{Vars: []int{0, 2}, LogTable: []float64{0.6, -0.2, 0.1, -0.3}},
		{Vars: []int{0, 1}, LogTable: []float64{0.1, 0.1, -0.2, 0.4}},
	}}
	// A general model: a ternary variable, a three-variable factor, a hard
	// zero that must stay fixed.
	general := &mrf.Model{Cards: []int{3, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{0.1, math.Inf(-1), -0.4}},
		{Vars: []int{2, 0, 1}, LogTable: []float64{0.3, -0.2, 0.5, 0.1, -0.7, 0.2, 0.4, 0.0, -0.1, 0.6, 0.2, -0.3}},
		{Vars: []int{1, 2}, LogTable: []float64{0.2, -0.5, 0.3, 0.1}},
	}}
	cases := []struct {
		name  string
		model *mrf.Model
		kind  string
		xs    [][]int
	}{
		{"ising", ising, IsingParam, [][]int{{0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 0, 1}, {1, 0, 1, 1}, {1, 1, 1, 1}}},
		{"table", general, TableParam, [][]int{{0, 1, 0}, {2, 0, 1}, {2, 1, 1}, {0, 0, 0}}},
		{"table-on-ising", ising, TableParam, [][]int{{0, 1, 1, 0}, {1, 1, 0, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewParam(c.kind, c.model)
			if err != nil {
				t.Fatal(err)
			}
			theta := p.Random(mrf.NewRand(9), 0.7, 0.7)
			m := p.Model(theta)
			d, err := NewData(m, c.xs)
			if err != nil {
				t.Fatal(err)
			}
			res, err := infertest.BruteForce(m)
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, p.Len())
			score := Gradient(p, m, d, nil, res.Marginals.Factors, grad)
			if ll := bruteLogLik(t, m, c.xs); math.Abs(score-res.LogZ-ll) > 1e-12 {
				t.Errorf("mean score - ln Z = %v, log-likelihood %v", score-res.LogZ, ll)
			}
			const h = 1e-5
			for k := range theta {
				tp := append([]float64(nil), theta...)
				tm := append([]float64(nil), theta...)
				tp[k] += h
				tm[k] -= h
				fd := (bruteLogLik(t, p.Model(tp), c.xs) - bruteLogLik(t, p.Model(tm), c.xs)) / (2 * h)
				if math.Abs(fd-grad[k]) > 1e-7 {
					t.Errorf("parameter %d: gradient %.9f, finite difference %.9f", k, grad[k], fd)
				}
			}
		})
	}
}

// Ising.Params recovers the distribution of any binary pairwise model, and
// Model(Params(m)) has m's log-probabilities up to a constant.
func TestIsingParamsKeepDistribution(t *testing.T) {
	m := &mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{2, 0}, LogTable: []float64{0.5, -0.1, 0.3, 0.9}},
		{Vars: []int{1}, LogTable: []float64{0.4, -1.2}},
		{Vars: []int{0, 1}, LogTable: []float64{-0.4, 0.2, 0.1, 0.7}},
		{Vars: []int{}, LogTable: []float64{3}},
	}}
	p, err := NewIsing(m)
	if err != nil {
		t.Fatal(err)
	}
	theta, err := p.Params(m)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Model(theta)
	var shift float64
	for s := 0; s < 8; s++ {
		x := []int{s >> 2, (s >> 1) & 1, s & 1}
		diff := m.LogScore(x) - got.LogScore(x)
		if s == 0 {
			shift = diff
		} else if math.Abs(diff-shift) > 1e-12 {
			t.Fatalf("state %v: log-scores differ by %v, state 0 by %v", x, diff, shift)
		}
	}
	// Set and Params round-trip.
	q, _ := p.Params(got)
	for k := range theta {
		if math.Abs(q[k]-theta[k]) > 1e-12 {
			t.Fatalf("round trip: parameter %d is %v, want %v", k, q[k], theta[k])
		}
	}
}

// countingMethod records the iterations of every call of a method.
type countingMethod struct {
	infer.Method
	iters []int
}

func (c *countingMethod) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	res, err := c.Method.Infer(ctx, m)
	if err == nil {
		c.iters = append(c.iters, res.Iterations)
	}
	return res, err
}

// Learning warm-starts message passing: after the first update, BP needs
// fewer sweeps than from uniform messages on the same models. (BP converges
// linearly, so a warm start saves the sweeps that bring the messages close,
// not the ones that polish them to 1e-9.)
func TestLearningWarmStartsBP(t *testing.T) {
	truth := gridIsing(t, 4, 3)
	xs, _, err := exact.Sample(truth, 400, mrf.NewRand(4), exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(6), 1, 1)
	d, _ := NewData(p.Model(theta), xs)
	run := func(warm bool) []int {
		b, err := bp.New(bp.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var m infer.Method = b
		if !warm {
			m = coldBP{b}
		}
		c := &countingMethod{Method: m}
		l, err := New(c, p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 100; o.LR = 0.005; o.Epochs = 3; o.Tol = -1 }))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Fit(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
		return c.iters
	}
	warm, cold := run(true), run(false)
	if len(warm) != 12 || len(cold) != 12 {
		t.Fatalf("got %d and %d calls, want 12 (3 epochs of 4 batches)", len(warm), len(cold))
	}
	if warm[0] != cold[0] {
		t.Fatalf("first call: %d sweeps warm, %d cold; both start from uniform messages", warm[0], cold[0])
	}
	// Each later call starts close to its fixed point, so it needs fewer
	// sweeps than the first call and than a cold start on the same model.
	sumW, sumC := 0, 0
	for k := 1; k < len(warm); k++ {
		if warm[k] >= warm[0] || warm[k] >= cold[k] {
			t.Errorf("call %d: %d sweeps warm-started, %d from scratch, %d on the first call", k+1, warm[k], cold[k], warm[0])
		}
		sumW += warm[k]
		sumC += cold[k]
	}
	if float64(sumW) > 0.85*float64(sumC) {
		t.Errorf("later calls took %d sweeps warm-started and %d from scratch; want at most 85%%", sumW, sumC)
	}
	t.Logf("sweeps per call: warm %v, cold %v", warm, cold)
}

// coldBP forgets BP's messages before every call.
type coldBP struct{ *bp.BP }

func (c coldBP) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	c.Reset()
	return c.BP.Infer(ctx, m)
}

// RENN keeps its network between updates: the first call optimises from
// scratch, later calls run only WarmSteps steps.
func TestLearningWarmStartsRENN(t *testing.T) {
	truth := gridIsing(t, 3, 5)
	xs, _, err := exact.Sample(truth, 200, mrf.NewRand(4), exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(6), 1, 1)
	m0 := p.Model(theta)
	d, _ := NewData(m0, xs)
	g, err := region.Build(m0, "grid", "faces")
	if err != nil {
		t.Fatal(err)
	}
	o := renn.DefaultOptions()
	o.Dim, o.MaxIter, o.WarmSteps, o.Window = 16, 300, 5, 5
	r, err := renn.New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	c := &countingMethod{Method: r}
	l, err := New(c, p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 100; o.LR = 0.02; o.Epochs = 2; o.Tol = -1 }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Fit(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if len(c.iters) != 4 {
		t.Fatalf("%d calls, want 4", len(c.iters))
	}
	if c.iters[0] <= o.WarmSteps {
		t.Errorf("first call ran %d steps; a cold start should need more than %d", c.iters[0], o.WarmSteps)
	}
	for k, it := range c.iters[1:] {
		if it > o.WarmSteps {
			t.Errorf("call %d ran %d steps, want at most %d (warm start)", k+2, it, o.WarmSteps)
		}
	}
}

// Fit stops on a plateau of the training NLL, and not before Patience calm
// epochs.
func TestFitPlateau(t *testing.T) {
	truth := gridIsing(t, 3, 2)
	xs, _, _ := exact.Sample(truth, 500, mrf.NewRand(1), exact.DefaultOptions())
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(2), 1, 1)
	d, _ := NewData(p.Model(theta), xs)
	l, err := New(NewExact(exact.DefaultOptions()), p, theta, d, infertest.With(DefaultOptions(), func(o *Options) {
		o.Decay = 0
		o.Batch = 500
		o.LR = 0.1
		o.Epochs = 500
		o.Tol = 1e-3
		o.Patience = 3
	}))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := l.Fit(context.Background(), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(rep.Epochs)
	if rep.Stopped != "plateau" || n >= 500 {
		t.Fatalf("stopped by %q after %d epochs, want a plateau", rep.Stopped, n)
	}
	for k := n - 3; k < n; k++ {
		if dd := math.Abs(rep.Epochs[k].TrainNLL - rep.Epochs[k-1].TrainNLL); dd >= 1e-3 {
			t.Errorf("epoch %d moved the training NLL by %v, yet the run stopped", k+1, dd)
		}
	}
	if dd := math.Abs(rep.Epochs[n-4].TrainNLL - rep.Epochs[n-5].TrainNLL); dd < 1e-3 {
		t.Errorf("epochs %d..%d were already calm; the run should have stopped earlier", n-4, n)
	}
	// With exact inference and the test set equal to the training set, the
	// test NLL is the exact training NLL at the end of the epoch, which is
	// below the first epoch's.
	if last, first := rep.Epochs[n-1], rep.Epochs[0]; !(last.TestNLL < first.TestNLL) || math.IsNaN(last.TestNLL) {
		t.Errorf("test NLL went from %v to %v", first.TestNLL, last.TestNLL)
	}
	// Learning used full batches: one update per epoch.
	for _, e := range rep.Epochs {
		if e.Updates != 1 {
			t.Fatalf("epoch %d made %d updates, want 1", e.Epoch, e.Updates)
		}
	}
}

// Learning the same thing twice gives the same numbers.
func TestLearningDeterministic(t *testing.T) {
	truth := gridIsing(t, 3, 8)
	xs, _, _ := exact.Sample(truth, 300, mrf.NewRand(1), exact.DefaultOptions())
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(2), 1, 1)
	d, _ := NewData(p.Model(theta), xs)
	run := func() []float64 {
		mf, _ := meanfield.New(infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Seed = 4 }))
		l, err := New(mf, p, theta, d, infertest.With(DefaultOptions(), func(o *Options) {
			o.Decay = 0
			o.Batch = 64
			o.LR = 0.05
			o.Epochs = 3
			o.Seed = 9
			o.Tol = -1
		}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Fit(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
		return l.Theta()
	}
	a, b := run(), run()
	for k := range a {
		if a[k] != b[k] {
			t.Fatalf("parameter %d: %v then %v", k, a[k], b[k])
		}
	}
}

// failing is a method that returns a fixed result or error.
type failing struct {
	res *infer.Result
	err error
}

func (f failing) Name() string { return "failing" }
func (f failing) Infer(context.Context, *mrf.Model) (*infer.Result, error) {
	return f.res, f.err
}

func TestBadInputs(t *testing.T) {
	truth := gridIsing(t, 2, 1)
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(1), 1, 1)
	m := p.Model(theta)
	good, _ := NewData(m, [][]int{{0, 1, 1, 0}})
	ex := NewExact(exact.DefaultOptions())

	if _, err := NewData(m, [][]int{{0, 1, 1}}); err == nil || !strings.Contains(err.Error(), "sample 0 has 3 values") {
		t.Errorf("short sample: %v", err)
	}
	if _, err := NewData(m, [][]int{{0, 1, 2, 0}}); err == nil || !strings.Contains(err.Error(), "variable 2 has state 2") {
		t.Errorf("state out of range: %v", err)
	}
	if _, err := New(ex, p, theta[:3], good, DefaultOptions()); err == nil {
		t.Error("wrong number of parameters accepted")
	}
	bad := append([]float64(nil), theta...)
	bad[0] = math.NaN()
	if _, err := New(ex, p, bad, good, DefaultOptions()); err == nil {
		t.Error("NaN parameter accepted")
	}
	for _, o := range []Options{{}, infertest.With(DefaultOptions(), func(o *Options) { o.Epochs = 0 }), infertest.With(DefaultOptions(), func(o *Options) { o.Batch = 0 }), infertest.With(DefaultOptions(), func(o *Options) { o.Patience = 0 }), infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.LR = -1 }), infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Optimizer = "rmsprop" }), infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Epochs = -2 }), infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Decay = -1 }), infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Patience = -1 })} {
		if _, err := New(ex, p, theta, good, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	other, _ := NewData(&mrf.Model{Cards: []int{2, 2, 2, 2}, Factors: truth.Factors[:2]}, [][]int{{0, 0, 0, 0}})
	if _, err := New(ex, p, theta, other, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "factors") {
		t.Errorf("data of another layout: %v", err)
	}
	empty, _ := NewData(m, nil)
	if _, err := New(ex, p, theta, empty, DefaultOptions()); err == nil {
		t.Error("empty training set accepted")
	}
	if _, err := NewIsing(&mrf.Model{Cards: []int{3, 2}, Factors: []mrf.Factor{{Vars: []int{0, 1}, LogTable: make([]float64, 6)}}}); err == nil || !strings.Contains(err.Error(), "binary") {
		t.Errorf("ternary model as ising: %v", err)
	}
	if _, err := NewIsing(&mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{{Vars: []int{0, 1, 2}, LogTable: make([]float64, 8)}}}); err == nil || !strings.Contains(err.Error(), "pairwise") {
		t.Errorf("triple factor as ising: %v", err)
	}
	if _, err := NewParam("spline", truth); err == nil {
		t.Error("unknown parameterisation accepted")
	}

	// A method's failure or a NaN result stops learning with its name.
	sentinel := errors.New("boom")
	l, _ := New(failing{err: sentinel}, p, theta, good, DefaultOptions())
	if _, err := l.Epoch(context.Background()); !errors.Is(err, sentinel) || !strings.Contains(err.Error(), "failing") {
		t.Errorf("method error: %v", err)
	}
	res, _ := ex.Infer(context.Background(), m)
	nan := *res
	nan.LogZ = math.NaN()
	l, _ = New(failing{res: &nan}, p, theta, good, DefaultOptions())
	if _, err := l.Epoch(context.Background()); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN ln Z: %v", err)
	}
	short := *res
	short.Marginals.Factors = res.Marginals.Factors[:2]
	l, _ = New(failing{res: &short}, p, theta, good, DefaultOptions())
	if _, err := l.Epoch(context.Background()); err == nil || !strings.Contains(err.Error(), "factor marginals") {
		t.Errorf("missing marginals: %v", err)
	}
	// A cancelled context reaches the method.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l, _ = New(ex, p, theta, good, DefaultOptions())
	if _, err := l.Epoch(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// broken wraps exact inference and, from call breakAt on until it is reset,
// reports ln Z far too low, as a warm-started network whose optimisation
// diverged does.
type broken struct {
	Exact
	calls, breakAt, resets int
	down                   bool
}

func (b *broken) Reset() { b.resets++; b.down = false }

func (b *broken) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	b.calls++
	res, err := b.Exact.Infer(ctx, m)
	if b.calls == b.breakAt {
		b.down = true
	}
	if err == nil && b.down {
		res.LogZ -= 5
	}
	return res, err
}

// The tangent check resets a method whose estimate collapses and uses the
// rerun; exact inference never fails it (ln Z is convex).
func TestTangentGuard(t *testing.T) {
	truth := gridIsing(t, 3, 4)
	xs, _, _ := exact.Sample(truth, 400, mrf.NewRand(2), exact.DefaultOptions())
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(3), 1, 1)
	d, _ := NewData(p.Model(theta), xs)

	l, _ := New(NewExact(exact.DefaultOptions()), p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 50; o.LR = 0.2; o.Epochs = 5; o.Tol = -1 }))
	rep, err := l.Fit(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Epochs {
		if e.Resets != 0 {
			t.Fatalf("epoch %d: exact inference failed the tangent check", e.Epoch)
		}
	}
	want := l.Theta()

	b := &broken{Exact: Exact{Opts: exact.DefaultOptions()}, breakAt: 11}
	l, _ = New(b, p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 50; o.LR = 0.2; o.Epochs = 5; o.Tol = -1 }))
	rep, err = l.Fit(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	resets := 0
	for _, e := range rep.Epochs {
		resets += e.Resets
	}
	if resets != 1 || b.resets != 1 || b.calls != 41 {
		t.Fatalf("%d resets reported, %d made, %d calls; want 1, 1 and 40+1", resets, b.resets, b.calls)
	}
	// The rerun's result was used, so learning went exactly as with exact.
	for k, v := range l.Theta() {
		if v != want[k] {
			t.Fatalf("parameter %d: %v, want %v as without the breakdown", k, v, want[k])
		}
	}

	// With the check off the low estimate is used.
	b = &broken{Exact: Exact{Opts: exact.DefaultOptions()}, breakAt: 11}
	l, _ = New(b, p, theta, d, infertest.With(DefaultOptions(), func(o *Options) {
		o.Decay = 0
		o.Batch = 50
		o.LR = 0.2
		o.Epochs = 5
		o.Tol = -1
		o.Guard = -1
	}))
	rep, _ = l.Fit(context.Background(), nil, nil)
	if b.resets != 0 || rep.Epochs[1].TrainNLL > rep.Epochs[0].TrainNLL-4 {
		t.Fatalf("guard off: %d resets, training NLL %v then %v (want a drop of 5 from the broken estimate)", b.resets, rep.Epochs[0].TrainNLL, rep.Epochs[1].TrainNLL)
	}
	// The broken estimates (calls 11 to 40) are below the data bound, the
	// exact ones never.
	below := 0
	for _, e := range rep.Epochs {
		below += e.BelowBound
	}
	if below != 30 {
		t.Errorf("%d calls below the data bound, want the 30 broken ones", below)
	}
}

// The data bound is a lower bound on ln Z, and a close one for a small model
// with many samples; the distinct samples are found once.
func TestDataBoundIsALowerBound(t *testing.T) {
	truth := gridIsing(t, 3, 6)
	xs, _, _ := exact.Sample(truth, 300, mrf.NewRand(2), exact.DefaultOptions())
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(3), 1, 1)
	d, _ := NewData(p.Model(theta), xs)
	l, _ := New(NewExact(exact.DefaultOptions()), p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 30; o.LR = 0.3; o.Epochs = 3 }))
	for e := 0; e < 3; e++ {
		if _, err := l.Epoch(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, _ := exact.Solve(l.model, exact.DefaultOptions())
		bound := l.dataBound()
		if bound > res.LogZ+1e-9 {
			t.Fatalf("epoch %d: data bound %v above ln Z %v", e+1, bound, res.LogZ)
		}
		if bound < res.LogZ-1 {
			t.Errorf("epoch %d: data bound %v far below ln Z %v for a 9-variable model with 300 samples", e+1, bound, res.LogZ)
		}
	}
	if len(l.distinct) >= d.Len() || len(l.distinct) < 2 {
		t.Errorf("%d distinct samples of %d", len(l.distinct), d.Len())
	}
}

// biased wraps exact inference and always reports ln Z 5 nats too low, as an
// approximation that underestimates does; resetting it changes nothing.
type biased struct {
	Exact
	resets int
}

func (b *biased) Reset() { b.resets++ }

func (b *biased) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	res, err := b.Exact.Infer(ctx, m)
	if err == nil {
		res.LogZ -= 5
	}
	return res, err
}

// The data bound resets a method at most once per epoch.
func TestDataBoundResetsOncePerEpoch(t *testing.T) {
	truth := gridIsing(t, 3, 4)
	xs, _, _ := exact.Sample(truth, 400, mrf.NewRand(2), exact.DefaultOptions())
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(3), 1, 1)
	d, _ := NewData(p.Model(theta), xs)
	b := &biased{Exact: Exact{Opts: exact.DefaultOptions()}}
	l, _ := New(b, p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 50; o.LR = 0.2; o.Epochs = 3; o.Tol = -1 }))
	rep, err := l.Fit(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	resets, below := 0, 0
	for _, e := range rep.Epochs {
		resets += e.Resets
		below += e.BelowBound
	}
	if resets != 3 || b.resets != 3 {
		t.Errorf("%d resets reported, %d made; want one per epoch", resets, b.resets)
	}
	for _, e := range rep.Epochs {
		if e.Resets != 1 {
			t.Errorf("epoch %d: %d resets", e.Epoch, e.Resets)
		}
	}
	// (At the random start the data are unlikely and the bound is loose.)
	if below < 20 {
		t.Errorf("%d of 24 calls counted below the data bound, want nearly all", below)
	}
}
