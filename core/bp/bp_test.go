package bp_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

var _ infer.Method = (*bp.BP)(nil)

func mustNew(t testing.TB, opts bp.Options) *bp.BP {
	t.Helper()
	m, err := bp.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// compare fails the test unless res matches the exact answer to within tol.
func compare(t *testing.T, name string, m *mrf.Model, res, exact *infer.Result, tol float64) {
	t.Helper()
	if err := infertest.CheckResult(m, res); err != nil {
		t.Fatalf("%s: malformed result: %v", name, err)
	}
	if d := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); d > tol {
		t.Errorf("%s: variable marginals off by %g", name, d)
	}
	if d := infertest.MaxAbsDiff(res.Marginals.Factors, exact.Marginals.Factors); d > tol {
		t.Errorf("%s: factor marginals off by %g", name, d)
	}
	if d := math.Abs(res.LogZ - exact.LogZ); d > tol {
		t.Errorf("%s: lnZ %v, exact %v (off by %g)", name, res.LogZ, exact.LogZ, d)
	}
}

// treeWithTriple has a 3-ary factor with an unsorted scope in the middle of a
// tree-shaped factor graph, a 1-state variable and a constant factor.
func treeWithTriple() *mrf.Model {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true}
	m := infertest.RandomModel(7, [][]int{{2, 0, 1}, {3, 2}, {1, 4}, {5, 0}, {6, 5}}, cfg, 11)
	m.Cards[6] = 1
	for a, f := range m.Factors {
		m.Factors[a].LogTable = f.LogTable[:mrf.TableSize(m.Cards, f.Vars)]
	}
	m.Factors = append(m.Factors, mrf.Factor{Vars: nil, LogTable: []float64{1.25}})
	return m
}

// TestTreesExact: BP is exact on models whose factor graph is a tree, and the
// Bethe free energy is -ln Z there.
func TestTreesExact(t *testing.T) {
	ninf := math.Inf(-1)
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true}
	hard := cfg
	hard.ZeroProb = 0.25
	cases := map[string]*mrf.Model{
		"chain 3 states":  infertest.Chain(8, infertest.Config{MinCard: 3, MaxCard: 3, Scale: 1.5, Unary: true}, 1),
		"tree no unaries": infertest.RandomTree(9, infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1}, 2),
		"tree 3-ary":      treeWithTriple(),
		"lone variable":   {Cards: []int{3}},
		"evidence": {Cards: []int{2, 3}, Factors: []mrf.Factor{
			{Vars: []int{1, 0}, LogTable: []float64{0.3, -1, 0.5, 2, 0, 0.1}},
			{Vars: []int{1}, LogTable: []float64{ninf, 0, ninf}},
		}},
	}
	for seed := int64(0); seed < 6; seed++ {
		cases["random tree "+string(rune('a'+seed))] = infertest.RandomTree(10, cfg, seed)
		cases["hard tree "+string(rune('a'+seed))] = infertest.RandomTree(8, hard, 100+seed)
	}
	for name, m := range cases {
		exact, err := infertest.BruteForce(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, opts := range []bp.Options{bp.DefaultOptions(), infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-12; o.Damping = 0.5 })} {
			res, err := mustNew(t, opts).Infer(context.Background(), m)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !res.Converged() {
				t.Errorf("%s damping %v: not converged after %d sweeps", name, opts.Damping, res.Iterations)
			}
			compare(t, name, m, res, exact, 1e-8)
		}
	}
}

// TestReversedScope: factor marginals follow each factor's own variable
// order, so reversing a scope (and transposing its table) transposes the
// marginal.
func TestReversedScope(t *testing.T) {
	fwd := &mrf.Model{Cards: []int{2, 2, 3}}
	for _, s := range [][]int{{0}, {1}, {2}, {0, 1}, {1, 2}} {
		tab := make([]float64, mrf.TableSize(fwd.Cards, s))
		for k := range tab {
			tab[k] = math.Sin(float64(3*k + len(fwd.Factors)))
		}
		fwd.Factors = append(fwd.Factors, mrf.Factor{Vars: s, LogTable: tab})
	}
	rev := fwd.Clone()
	a := len(rev.Factors) - 1 // the pairwise factor over (1, 2)
	f := fwd.Factors[a]
	c0, c1 := fwd.Cards[f.Vars[0]], fwd.Cards[f.Vars[1]]
	if c0 == c1 {
		t.Fatalf("want distinct cardinalities, got %d and %d", c0, c1)
	}
	rev.Factors[a].Vars = []int{f.Vars[1], f.Vars[0]}
	for x0 := 0; x0 < c0; x0++ {
		for x1 := 0; x1 < c1; x1++ {
			rev.Factors[a].LogTable[x1*c0+x0] = f.LogTable[x0*c1+x1]
		}
	}
	rf, err := mustNew(t, bp.DefaultOptions()).Infer(context.Background(), fwd)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := mustNew(t, bp.DefaultOptions()).Infer(context.Background(), rev)
	if err != nil {
		t.Fatal(err)
	}
	for x0 := 0; x0 < c0; x0++ {
		for x1 := 0; x1 < c1; x1++ {
			if d := math.Abs(rr.Marginals.Factors[a][x1*c0+x0] - rf.Marginals.Factors[a][x0*c1+x1]); d > 1e-12 {
				t.Fatalf("reversed marginal at (%d,%d) differs by %g", x0, x1, d)
			}
		}
	}
	if math.Abs(rr.LogZ-rf.LogZ) > 1e-12 {
		t.Errorf("lnZ %v vs %v", rr.LogZ, rf.LogZ)
	}
}

// weakIsing is an Ising model on edges with couplings small enough for BP to
// have one fixed point and converge.
func weakIsing(n int, edges []mrf.Edge, scale float64, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	h, J := make([]float64, n), make([]float64, len(edges))
	for i := range h {
		h[i] = 0.5 * r.NormFloat64()
	}
	for e := range J {
		J[e] = scale * r.NormFloat64()
	}
	return mrf.Ising(n, edges, h, J)
}

// TestDampedSameFixedPoint: on loopy graphs where both converge, damped and
// plain BP reach the same beliefs and Bethe free energy.
func TestDampedSameFixedPoint(t *testing.T) {
	grid, _ := mrf.GridEdges(3, false)
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.4, Unary: true}
	for name, m := range map[string]*mrf.Model{
		"grid 3x3": weakIsing(9, grid, 0.4, 1),
		"K5":       weakIsing(5, mrf.CompleteEdges(5), 0.3, 2),
		"triples":  infertest.RandomModel(6, infertest.RandomScopes(6, 4, 3, 3), cfg, 3),
	} {
		plain, err := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-12 })).Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		damped, err := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-12; o.Damping = 0.5 })).Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !plain.Converged() || !damped.Converged() {
			t.Fatalf("%s: converged bp %v, dbp %v", name, plain.Converged(), damped.Converged())
		}
		compare(t, name, m, damped, plain, 1e-9)
		if damped.Iterations <= plain.Iterations {
			t.Logf("%s: dbp took %d sweeps, bp %d", name, damped.Iterations, plain.Iterations)
		}
	}
}

// naiveBP is an independent, deliberately plain implementation: parallel
// (flooding) updates with damping in the linear domain, neighbourhoods found
// by scanning every factor, factor sums by enumerating full scope assignments
// through mrf.Factor.Index. It returns the variable and factor beliefs and
// the Bethe free energy.
func naiveBP(m *mrf.Model, iters int) ([][]float64, [][]float64, float64) {
	type key struct{ a, i int }
	norm := func(v []float64) {
		s := 0.0
		for _, x := range v {
			s += x
		}
		for k := range v {
			v[k] /= s
		}
	}
	uniform := func(c int) []float64 {
		v := make([]float64, c)
		for k := range v {
			v[k] = 1 / float64(c)
		}
		return v
	}
	fv := map[key][]float64{}
	for a, f := range m.Factors {
		for _, i := range f.Vars {
			fv[key{a, i}] = uniform(m.Cards[i])
		}
	}
	toFactor := func(a, i int) []float64 { // variable i to factor a
		v := make([]float64, m.Cards[i])
		for k := range v {
			v[k] = 1
		}
		for b, g := range m.Factors {
			for _, j := range g.Vars {
				if j == i && b != a {
					for k := range v {
						v[k] *= fv[key{b, i}][k]
					}
				}
			}
		}
		norm(v)
		return v
	}
	// scopeStates calls fn with every joint state of f's scope, as a full
	// assignment x.
	scopeStates := func(f mrf.Factor, fn func(x []int)) {
		x := make([]int, len(m.Cards))
		var rec func(p int)
		rec = func(p int) {
			if p == len(f.Vars) {
				fn(x)
				return
			}
			for s := 0; s < m.Cards[f.Vars[p]]; s++ {
				x[f.Vars[p]] = s
				rec(p + 1)
			}
		}
		rec(0)
	}
	for it := 0; it < iters; it++ {
		next := map[key][]float64{}
		for a, f := range m.Factors {
			in := map[int][]float64{}
			for _, j := range f.Vars {
				in[j] = toFactor(a, j)
			}
			for _, i := range f.Vars {
				out := make([]float64, m.Cards[i])
				scopeStates(f, func(x []int) {
					w := math.Exp(f.LogTable[f.Index(m.Cards, x)])
					for _, j := range f.Vars {
						if j != i {
							w *= in[j][x[j]]
						}
					}
					out[x[i]] += w
				})
				norm(out)
				for k := range out {
					out[k] = 0.5*out[k] + 0.5*fv[key{a, i}][k]
				}
				next[key{a, i}] = out
			}
		}
		fv = next
	}
	vb := make([][]float64, len(m.Cards))
	deg := make([]int, len(m.Cards))
	for i, c := range m.Cards {
		vb[i] = make([]float64, c)
		for k := range vb[i] {
			vb[i][k] = 1
		}
		for a, f := range m.Factors {
			for _, j := range f.Vars {
				if j == i {
					deg[i]++
					for k := range vb[i] {
						vb[i][k] *= fv[key{a, i}][k]
					}
				}
			}
		}
		norm(vb[i])
	}
	fb := make([][]float64, len(m.Factors))
	F := 0.0
	for a, f := range m.Factors {
		fb[a] = make([]float64, len(f.LogTable))
		in := map[int][]float64{}
		for _, j := range f.Vars {
			in[j] = toFactor(a, j)
		}
		scopeStates(f, func(x []int) {
			w := math.Exp(f.LogTable[f.Index(m.Cards, x)])
			for _, j := range f.Vars {
				w *= in[j][x[j]]
			}
			fb[a][f.Index(m.Cards, x)] = w
		})
		norm(fb[a])
		for t, p := range fb[a] {
			if p > 0 {
				F += p * (math.Log(p) - f.LogTable[t])
			}
		}
	}
	for i := range vb {
		for _, p := range vb[i] {
			if p > 0 {
				F -= float64(deg[i]-1) * p * math.Log(p)
			}
		}
	}
	return vb, fb, F
}

// TestCompleteGraphs: on complete graphs BP uses every pair as a neighbour;
// its fixed point matches the independent naive implementation, and every
// pairwise belief is consistent with both variable beliefs.
func TestCompleteGraphs(t *testing.T) {
	cfg := infertest.Config{MinCard: 3, MaxCard: 3, Scale: 0.3, Unary: true}
	var k4pairs [][]int
	for _, e := range mrf.CompleteEdges(4) {
		k4pairs = append(k4pairs, []int{e.J, e.I}) // reversed scopes
	}
	for name, m := range map[string]*mrf.Model{
		"K6 Ising":   weakIsing(6, mrf.CompleteEdges(6), 0.3, 7),
		"K4 3-state": infertest.RandomModel(4, k4pairs, cfg, 8),
	} {
		res, err := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-13 })).Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged() {
			t.Fatalf("%s: not converged", name)
		}
		vb, fb, F := naiveBP(m, 300)
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, vb); d > 1e-9 {
			t.Errorf("%s: variable beliefs differ from naive BP by %g", name, d)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Factors, fb); d > 1e-9 {
			t.Errorf("%s: factor beliefs differ from naive BP by %g", name, d)
		}
		if d := math.Abs(res.FreeEnergy - F); d > 1e-9 {
			t.Errorf("%s: Bethe F %v, naive %v", name, res.FreeEnergy, F)
		}
		g, _ := infer.NewFactorGraph(m)
		for a, f := range m.Factors {
			for p, v := range f.Vars {
				marg := make([]float64, m.Cards[v])
				infer.SumAlong(res.Marginals.Factors[a], g.Axes[a][p], marg)
				for x := range marg {
					if d := math.Abs(marg[x] - res.Marginals.Vars[v][x]); d > 1e-9 {
						t.Fatalf("%s: factor %d marginal on variable %d off by %g", name, a, v, d)
					}
				}
			}
		}
	}
}

// TestHardConstraintsAndCards: zeros, 1-state and 3-state variables on loopy
// graphs never produce NaN.
func TestHardConstraintsAndCards(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		cfg := infertest.Config{MinCard: 1, MaxCard: 3, Scale: 1, ZeroProb: 0.3, Unary: seed%2 == 0}
		scopes := append(infertest.RandomScopes(7, 8, 2, seed), infertest.RandomScopes(7, 2, 3, seed+50)...)
		m := infertest.RandomModel(7, scopes, cfg, seed)
		for _, damping := range []float64{0, 0.5} {
			res, err := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.MaxIter = 200; o.Damping = damping })).Infer(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if err := infertest.CheckResult(m, res); err != nil {
				t.Errorf("seed %d damping %v: %v", seed, damping, err)
			}
			if res.Diagnostics["degenerate_messages"] > 0 {
				continue
			}
			for a, f := range m.Factors { // beliefs never cover a zero potential
				for k, l := range f.LogTable {
					if math.IsInf(l, -1) && res.Marginals.Factors[a][k] != 0 {
						t.Errorf("seed %d: factor %d has mass %v on a zero", seed, a, res.Marginals.Factors[a][k])
					}
				}
			}
		}
	}
}

// TestContradiction: a model with Z = 0 yields a well-formed result with
// degenerate messages reported and lnZ = -Inf, not NaN.
func TestContradiction(t *testing.T) {
	ninf := math.Inf(-1)
	m := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{0, ninf}},
		{Vars: []int{0}, LogTable: []float64{ninf, 0}},
	}}
	res, err := mustNew(t, bp.DefaultOptions()).Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := infertest.CheckResult(m, res); err != nil {
		t.Fatal(err)
	}
	if res.Diagnostics["degenerate_beliefs"] == 0 || !math.IsInf(res.LogZ, -1) {
		t.Errorf("degenerate %v, lnZ %v; want > 0 and -Inf", res.Diagnostics["degenerate_beliefs"], res.LogZ)
	}
}

func TestConvergedIsHonest(t *testing.T) {
	grid, _ := mrf.GridEdges(4, false)
	m := mrf.RandomIsing(16, grid, 1, 3)
	res, err := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.MaxIter = 2 })).Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged() || res.Iterations != 2 || !(res.Diagnostics["max_delta"] >= 1e-9) {
		t.Errorf("2 sweeps on a 4x4 grid: converged %v, iterations %d, max_delta %v", res.Converged(), res.Iterations, res.Diagnostics["max_delta"])
	}
}

func TestWarmStart(t *testing.T) {
	grid, _ := mrf.GridEdges(3, false)
	m := weakIsing(9, grid, 0.5, 4)
	method := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-12 }))
	cold, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Converged() || warm.Iterations != 1 || cold.Iterations <= 1 {
		t.Errorf("cold %d sweeps, warm %d sweeps (converged %v); want warm = 1", cold.Iterations, warm.Iterations, warm.Converged())
	}
	if d := infertest.MaxAbsDiff(warm.Marginals.Vars, cold.Marginals.Vars); d > 1e-10 {
		t.Errorf("warm start moved beliefs by %g", d)
	}
	// Changed tables, same structure: warm start must still reach the new
	// model's own fixed point.
	m2 := weakIsing(9, grid, 0.5, 5)
	fresh, _ := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-12 })).Infer(context.Background(), m2)
	again, err := method.Infer(context.Background(), m2)
	if err != nil {
		t.Fatal(err)
	}
	if d := infertest.MaxAbsDiff(again.Marginals.Vars, fresh.Marginals.Vars); d > 1e-9 {
		t.Errorf("warm start on new tables off by %g", d)
	}
	// A different structure rebuilds; Reset forgets.
	tree := infertest.RandomTree(6, infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true}, 9)
	exact, _ := infertest.BruteForce(tree)
	res, err := method.Infer(context.Background(), tree)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "after structure change", tree, res, exact, 1e-8)
	method.Reset()
	res, _ = method.Infer(context.Background(), m2)
	if res.Iterations != fresh.Iterations {
		t.Errorf("after Reset: %d sweeps, fresh method %d", res.Iterations, fresh.Iterations)
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	grid, _ := mrf.GridEdges(3, false)
	_, err := mustNew(t, bp.DefaultOptions()).Infer(ctx, mrf.RandomIsing(9, grid, 1, 1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestOptionsAndNames(t *testing.T) {
	for _, tc := range []struct {
		opts bp.Options
		name string
	}{
		{bp.DefaultOptions(), "bp"},
		{bp.DampedOptions(), "dbp"},
		{bp.DefaultOptions(), "bp"},
		{infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Damping = 0.3; o.Name = "dbp0.3" }), "dbp0.3"},
	} {
		m := mustNew(t, tc.opts)
		if m.Name() != tc.name || m.Options().Tol != 1e-9 || m.Options().MaxIter != 1000 {
			t.Errorf("%+v: name %q options %+v", tc.opts, m.Name(), m.Options())
		}
	}
	for _, bad := range []bp.Options{infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Damping = 1 }), infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Damping = -0.1 }), infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Damping = math.NaN() })} { // the shared options: infer.TestIterationCheck
		if _, err := bp.New(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := mustNew(t, bp.DefaultOptions()).Infer(context.Background(), nil); err == nil {
		t.Error("nil model: no error")
	}
	bad := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0}}}}
	if _, err := mustNew(t, bp.DefaultOptions()).Infer(context.Background(), bad); err == nil {
		t.Error("invalid model: no error")
	}
	// The warm-start path validates too.
	good := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 1}}}}
	method := mustNew(t, bp.DefaultOptions())
	if _, err := method.Infer(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	good.Factors[0].LogTable[1] = math.NaN()
	if _, err := method.Infer(context.Background(), good); err == nil {
		t.Error("NaN table on warm start: no error")
	}
}

// TestSweepAllocations: the sweep allocates nothing, so running more sweeps
// costs no more allocations than running one.
func TestSweepAllocations(t *testing.T) {
	grid, _ := mrf.GridEdges(5, false)
	m := mrf.RandomIsing(25, grid, 1, 2)
	one := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.MaxIter = 1; o.Tol = 1e-300 }))
	many := mustNew(t, infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.MaxIter = 30; o.Tol = 1e-300 }))
	a1 := testing.AllocsPerRun(5, func() { one.Infer(context.Background(), m) })
	a30 := testing.AllocsPerRun(5, func() { many.Infer(context.Background(), m) })
	if a30 != a1 {
		t.Errorf("1 sweep: %v allocations, 30 sweeps: %v", a1, a30)
	}
}

func benchGrid(b *testing.B, opts bp.Options) {
	edges, _ := mrf.GridEdges(20, false)
	m := mrf.RandomIsing(400, edges, 1, 1)
	method := mustNew(b, opts)
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

// BenchmarkBPGrid20 runs BP from scratch on a 20x20 Ising grid, gamma 1.
func BenchmarkBPGrid20(b *testing.B) { benchGrid(b, bp.DefaultOptions()) }

// BenchmarkDBPGrid20 is the same with damping 0.5.
func BenchmarkDBPGrid20(b *testing.B) { benchGrid(b, bp.DampedOptions()) }

func ExampleBP() {
	// Two coupled spins with a field on the first: a tree, so BP is exact.
	m := mrf.Ising(2, []mrf.Edge{{I: 0, J: 1}}, []float64{0.5, 0}, []float64{0.8})
	method, err := bp.New(bp.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := method.Infer(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: converged %v, p(x0=+1) = %.3f, lnZ = %.3f\n", method.Name(), res.Converged(), res.Marginals.Vars[0][1], res.LogZ)
	// Output: bp: converged true, p(x0=+1) = 0.731, lnZ = 1.797
}
