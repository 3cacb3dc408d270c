package meanfield_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/mrf"
)

var _ infer.Method = (*meanfield.MF)(nil)

func mustNew(t testing.TB, opts meanfield.Options) *meanfield.MF {
	t.Helper()
	m, err := meanfield.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func run(t *testing.T, opts meanfield.Options, m *mrf.Model) *infer.Result {
	t.Helper()
	res, err := mustNew(t, opts).Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := infertest.CheckResult(m, res); err != nil {
		t.Fatalf("malformed result: %v", err)
	}
	return res
}

// forEachState calls fn with every joint state of m.
func forEachState(m *mrf.Model, fn func(x []int)) {
	x := make([]int, len(m.Cards))
	for {
		fn(x)
		i := len(x) - 1
		for ; i >= 0; i-- {
			x[i]++
			if x[i] < m.Cards[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// product returns Π_i q_i(x_i).
func product(q [][]float64, x []int) float64 {
	p := 1.0
	for i, xi := range x {
		p *= q[i][xi]
	}
	return p
}

// naiveFreeEnergy computes F(q) = Σ_x q(x) (ln q(x) - LogScore(x)) by full
// enumeration, independently of the method's factor-by-factor sum.
func naiveFreeEnergy(m *mrf.Model, q [][]float64) float64 {
	F := 0.0
	forEachState(m, func(x []int) {
		if p := product(q, x); p > 0 {
			F += p * (math.Log(p) - m.LogScore(x))
		}
	})
	return F
}

// TestLowerBound: F ≥ -ln Z on random small models, and F is the naive
// mean-field free energy of the returned q.
func TestLowerBound(t *testing.T) {
	for seed := int64(0); seed < 12; seed++ {
		cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1 + float64(seed%3), Unary: true}
		scopes := append(infertest.RandomScopes(7, 9, 2, seed), infertest.RandomScopes(7, 2, 3, seed+20)...)
		m := infertest.RandomModel(7, scopes, cfg, seed)
		exact, err := infertest.BruteForce(m)
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Seed = seed }), m)
		if !res.Converged() {
			t.Errorf("seed %d: not converged after %d sweeps", seed, res.Iterations)
		}
		if res.FreeEnergy < -exact.LogZ-1e-10 {
			t.Errorf("seed %d: F = %v below -lnZ = %v", seed, res.FreeEnergy, -exact.LogZ)
		}
		if d := math.Abs(res.FreeEnergy - naiveFreeEnergy(m, res.Marginals.Vars)); d > 1e-9 {
			t.Errorf("seed %d: F differs from the enumerated F(q) by %g", seed, d)
		}
	}
}

// TestUnaryOnlyExact: without couplings the model factorises and mean field
// is exact, damped or not.
func TestUnaryOnlyExact(t *testing.T) {
	cfg := infertest.Config{MinCard: 1, MaxCard: 4, Scale: 2, Unary: true}
	m := infertest.RandomModel(6, nil, cfg, 3)
	m.Factors = append(m.Factors, mrf.Factor{Vars: []int{2}, LogTable: make([]float64, m.Cards[2])}) // a second unary factor
	m.Factors[len(m.Factors)-1].LogTable[0] = math.Inf(-1)
	m.Factors = append(m.Factors, mrf.Factor{Vars: nil, LogTable: []float64{-0.75}}) // a constant
	exact, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []float64{0, 0.5} {
		res := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Damping = d; o.Tol = 1e-13 }), m)
		if dv := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); dv > 1e-12 {
			t.Errorf("damping %v: marginals off by %g", d, dv)
		}
		if df := infertest.MaxAbsDiff(res.Marginals.Factors, exact.Marginals.Factors); df > 1e-12 {
			t.Errorf("damping %v: factor marginals off by %g", d, df)
		}
		if dz := math.Abs(res.LogZ - exact.LogZ); dz > 1e-12 {
			t.Errorf("damping %v: lnZ %v, exact %v", d, res.LogZ, exact.LogZ)
		}
	}
}

// TestCompleteGraphFixedPoint: on K6 (and a 3-state K4) every q_i satisfies
// the mean-field equation q_i(x_i) ∝ exp(E_{q_-i}[LogScore(x)]), computed
// here by enumerating all joint states, so all neighbours were used.
func TestCompleteGraphFixedPoint(t *testing.T) {
	k6 := mrf.RandomIsing(6, mrf.CompleteEdges(6), 0.5, 4)
	var pairs [][]int
	for _, e := range mrf.CompleteEdges(4) {
		pairs = append(pairs, []int{e.J, e.I})
	}
	k4 := infertest.RandomModel(4, pairs, infertest.Config{MinCard: 3, MaxCard: 3, Scale: 1, Unary: true}, 5)
	for name, m := range map[string]*mrf.Model{"K6": k6, "K4 3-state": k4} {
		res := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Tol = 1e-14; o.Seed = 1 }), m)
		if !res.Converged() {
			t.Fatalf("%s: not converged", name)
		}
		q := res.Marginals.Vars
		for i := range m.Cards {
			logit := make([]float64, m.Cards[i])
			forEachState(m, func(x []int) {
				w := product(q, x) / q[i][x[i]]
				logit[x[i]] += w * m.LogScore(x)
			})
			want := infer.NormalizeLog(logit)
			for k := range want {
				if d := math.Abs(q[i][k] - want[k]); d > 1e-9 {
					t.Errorf("%s: q_%d(%d) = %v, fixed-point equation gives %v", name, i, k, q[i][k], want[k])
				}
			}
		}
	}
}

// TestFactorMarginalOrder: a factor marginal is Π q over the factor's own,
// unsorted scope, in its table order.
func TestFactorMarginalOrder(t *testing.T) {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true}
	m := infertest.RandomModel(4, [][]int{{3, 1}, {2, 0, 3}, {1, 0}}, cfg, 6)
	res := run(t, meanfield.DefaultOptions(), m)
	forEachState(m, func(x []int) {
		for a, f := range m.Factors {
			want := 1.0
			for _, v := range f.Vars {
				want *= res.Marginals.Vars[v][x[v]]
			}
			if got := res.Marginals.Factors[a][f.Index(m.Cards, x)]; math.Abs(got-want) > 1e-15 {
				t.Fatalf("factor %d at %v: %v, want %v", a, x, got, want)
			}
		}
	})
}

// TestHardConstraints: zero potentials, 1-state and 3-state variables give
// no NaN; when q covers no zero, F is finite and still bounds -ln Z.
func TestHardConstraints(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		cfg := infertest.Config{MinCard: 1, MaxCard: 3, Scale: 1, ZeroProb: 0.3, Unary: seed%2 == 0}
		scopes := append(infertest.RandomScopes(6, 7, 2, seed), infertest.RandomScopes(6, 2, 3, seed+40)...)
		m := infertest.RandomModel(6, scopes, cfg, seed)
		exact, err := infertest.BruteForce(m)
		if err != nil {
			continue // Z = 0: nothing to compare against
		}
		for _, d := range []float64{0, 0.5} {
			res := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Damping = d; o.Seed = seed }), m)
			if res.FreeEnergy < -exact.LogZ-1e-10 {
				t.Errorf("seed %d: F = %v below -lnZ = %v", seed, res.FreeEnergy, -exact.LogZ)
			}
			if res.Diagnostics["violation"] == 0 {
				if math.IsInf(res.FreeEnergy, 0) {
					t.Errorf("seed %d: F = %v without violation", seed, res.FreeEnergy)
				}
				for a, f := range m.Factors {
					for k, l := range f.LogTable {
						if math.IsInf(l, -1) && res.Marginals.Factors[a][k] != 0 {
							t.Errorf("seed %d: mass on a zero of factor %d", seed, a)
						}
					}
				}
			} else if !math.IsInf(res.LogZ, -1) {
				t.Errorf("seed %d: violation %v but lnZ %v", seed, res.Diagnostics["violation"], res.LogZ)
			}
		}
	}
}

// TestEvidenceAndContradiction: evidence (a 0/-Inf unary factor) makes q a
// point mass; an exclusion constraint the uniform start contradicts is
// resolved by the least-violation rule.
func TestEvidenceAndContradiction(t *testing.T) {
	ninf := math.Inf(-1)
	// x0 = 2 observed; x1 ≠ x0 by a hard constraint; x2 ≠ x1 as well.
	notEqual := func(a, b int) mrf.Factor {
		t := make([]float64, 9)
		for k := range t {
			if k/3 == k%3 {
				t[k] = ninf
			} else {
				t[k] = 0.1 * float64(k)
			}
		}
		return mrf.Factor{Vars: []int{a, b}, LogTable: t}
	}
	m := &mrf.Model{Cards: []int{3, 3, 3}, Factors: []mrf.Factor{
		notEqual(1, 0), notEqual(1, 2),
		{Vars: []int{0}, LogTable: []float64{ninf, ninf, 0}},
	}}
	exact, _ := infertest.BruteForce(m)
	for seed := int64(0); seed < 6; seed++ {
		res := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Seed = seed }), m)
		if res.Marginals.Vars[0][2] != 1 || res.Marginals.Vars[1][2] != 0 {
			t.Errorf("seed %d: q0 = %v, q1 = %v", seed, res.Marginals.Vars[0], res.Marginals.Vars[1])
		}
		if res.Diagnostics["violation"] != 0 || !(res.FreeEnergy >= -exact.LogZ-1e-12) || math.IsInf(res.FreeEnergy, 0) {
			t.Errorf("seed %d: violation %v, F %v, -lnZ %v", seed, res.Diagnostics["violation"], res.FreeEnergy, -exact.LogZ)
		}
	}
	// Z = 0: the result is still well formed, with lnZ = -Inf.
	bad := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{0, ninf}}, {Vars: []int{0}, LogTable: []float64{ninf, 0}},
	}}
	res := run(t, meanfield.DefaultOptions(), bad)
	if !math.IsInf(res.LogZ, -1) || res.Diagnostics["violation"] == 0 {
		t.Errorf("Z = 0: lnZ %v, violation %v", res.LogZ, res.Diagnostics["violation"])
	}
}

func TestDeterministicAndWarmStart(t *testing.T) {
	grid, _ := mrf.GridEdges(4, false)
	m := mrf.RandomIsing(16, grid, 1, 2)
	a := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Seed = 9; o.Tol = 1e-12 }), m)
	b := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Seed = 9; o.Tol = 1e-12 }), m)
	if infertest.MaxAbsDiff(a.Marginals.Vars, b.Marginals.Vars) != 0 || a.LogZ != b.LogZ || a.Iterations != b.Iterations {
		t.Error("same seed, different results")
	}
	method := mustNew(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Seed = 9; o.Tol = 1e-12 }))
	method.Infer(context.Background(), m)
	warm, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Iterations != 1 || !warm.Converged() || infertest.MaxAbsDiff(warm.Marginals.Vars, a.Marginals.Vars) > 1e-11 {
		t.Errorf("warm start: %d sweeps, converged %v", warm.Iterations, warm.Converged())
	}
	method.Reset()
	again, _ := method.Infer(context.Background(), m)
	if again.Iterations != a.Iterations {
		t.Errorf("after Reset: %d sweeps, want %d", again.Iterations, a.Iterations)
	}
	// A different structure rebuilds.
	other := mrf.RandomIsing(3, mrf.CompleteEdges(3), 1, 1)
	if res, err := method.Infer(context.Background(), other); err != nil || len(res.Marginals.Vars) != 3 {
		t.Errorf("structure change: %v", err)
	}
}

func TestConvergedIsHonest(t *testing.T) {
	grid, _ := mrf.GridEdges(4, false)
	res := run(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.MaxIter = 1 }), mrf.RandomIsing(16, grid, 1, 3))
	if res.Converged() || res.Iterations != 1 || !(res.Diagnostics["max_delta"] >= 1e-9) {
		t.Errorf("one sweep: converged %v, iterations %d, max_delta %v", res.Converged(), res.Iterations, res.Diagnostics["max_delta"])
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := mustNew(t, meanfield.DefaultOptions()).Infer(ctx, mrf.RandomIsing(4, mrf.CompleteEdges(4), 1, 1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestOptions(t *testing.T) {
	m := mustNew(t, meanfield.DefaultOptions())
	if m.Name() != "mf" || m.Options().Tol != 1e-9 || m.Options().MaxIter != 1000 {
		t.Errorf("defaults: %q %+v", m.Name(), m.Options())
	}
	for _, bad := range []meanfield.Options{infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Damping = 1 }), infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Damping = -0.5 }), infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.Damping = math.NaN() })} { // the shared options: infer.TestIterationCheck
		if _, err := meanfield.New(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := m.Infer(context.Background(), nil); err == nil {
		t.Error("nil model: no error")
	}
	good := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 1}}}}
	if _, err := m.Infer(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	good.Factors[0].LogTable[0] = math.Inf(1)
	if _, err := m.Infer(context.Background(), good); err == nil {
		t.Error("+Inf table on warm start: no error")
	}
}

func TestSweepAllocations(t *testing.T) {
	grid, _ := mrf.GridEdges(5, false)
	m := mrf.RandomIsing(25, grid, 1, 2)
	one := mustNew(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.MaxIter = 1; o.Tol = 1e-300 }))
	many := mustNew(t, infertest.With(meanfield.DefaultOptions(), func(o *meanfield.Options) { o.MaxIter = 30; o.Tol = 1e-300 }))
	a1 := testing.AllocsPerRun(5, func() { one.Infer(context.Background(), m) })
	a30 := testing.AllocsPerRun(5, func() { many.Infer(context.Background(), m) })
	if a30 != a1 {
		t.Errorf("1 sweep: %v allocations, 30 sweeps: %v", a1, a30)
	}
}

// BenchmarkMFGrid20 runs mean field from scratch on a 20x20 Ising grid,
// gamma 1.
func BenchmarkMFGrid20(b *testing.B) {
	edges, _ := mrf.GridEdges(20, false)
	m := mrf.RandomIsing(400, edges, 1, 1)
	method := mustNew(b, meanfield.DefaultOptions())
	sweeps := 0
	b.ReportAllocs()
	for b.Loop() {
		method.Reset()
		res, err := method.Infer(context.Background(), m)
		if err != nil {
			b.Fatal(err)
		}
		sweeps += res.Iterations
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sweeps), "ns/sweep")
	b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/op")
}

func ExampleMF() {
	// Two coupled spins with a field on the first.
	m := mrf.Ising(2, []mrf.Edge{{I: 0, J: 1}}, []float64{0.5, 0}, []float64{0.8})
	mf, err := meanfield.New(meanfield.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := mf.Infer(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("converged %v, p(x0=+1) = %.3f, lnZ >= %.3f\n", res.Converged(), res.Marginals.Vars[0][1], res.LogZ)
	// Output: converged true, p(x0=+1) = 0.863, lnZ >= 1.616
}
