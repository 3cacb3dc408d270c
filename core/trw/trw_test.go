package trw_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/trw"
)

var _ infer.Method = (*trw.TRW)(nil)

func mustNew(t testing.TB, o trw.Options) *trw.TRW {
	t.Helper()
	m, err := trw.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// boundTol is the rounding allowance of a bound check.
func boundTol(lnZ float64) float64 { return 1e-9 * max(1, math.Abs(lnZ)) }

// ising returns an Ising model on edges with fields U(-1,1) and couplings
// U(-f,f).
func ising(n int, edges []mrf.Edge, f float64, seed int64) *mrf.Model {
	return mrf.RandomIsingWith(n, edges, mrf.Uniform(1), mrf.Uniform(f), seed)
}

// gridScopes returns the pairwise scopes of an L x L grid.
func gridScopes(L int) [][]int {
	edges, err := mrf.GridEdges(L, false)
	if err != nil {
		panic(err)
	}
	s := make([][]int, len(edges))
	for k, e := range edges {
		s[k] = []int{e.I, e.J}
	}
	return s
}

// observe fixes variable v at the state of largest unary weight (so Z
// stays positive when the model has no zeros elsewhere).
func observe(m *mrf.Model, v, s int) *mrf.Model {
	m = m.Clone()
	if err := m.Observe(v, s%m.Cards[v]); err != nil {
		panic(err)
	}
	return m
}

// boundModels returns the small loopy models of the bound tests: grids,
// tori, complete graphs and complete bipartite graphs with couplings
// U(-f,f) for f up to 15, 3-state models, models with factors of arity 3,
// zero potentials and evidence.
// Each comes with its exact answer. They are built once per test binary.
var boundModels = sync.OnceValue(func() map[string]solved {
	out := map[string]solved{}
	add := func(m *mrf.Model, format string, args ...any) {
		exact, err := infertest.BruteForce(m)
		if err != nil {
			return // Z = 0: no bound to check
		}
		out[fmt.Sprintf(format, args...)] = solved{m, exact}
	}
	k6 := mrf.CompleteEdges(6)
	bip, _ := mrf.BipartiteEdges(3, 4)
	for _, f := range []float64{0.5, 1, 2, 5, 10, 15} {
		for seed := int64(0); seed < 4; seed++ {
			add(infertest.SpinGlass(3, false, f, seed), "grid 3x3 f%v s%d", f, seed)
			add(infertest.SpinGlass(3, true, f, seed), "torus 3x3 f%v s%d", f, seed)
			add(ising(6, k6, f, seed), "K6 f%v s%d", f, seed)
			add(ising(7, bip, f, seed), "K3,4 f%v s%d", f, seed)
			if seed < 2 {
				add(infertest.SpinGlass(4, seed == 1, f, seed), "4x4 torus=%v f%v", seed == 1, f)
			}
			cfg := infertest.Config{MinCard: 3, MaxCard: 3, Scale: f / 2, Unary: true}
			add(infertest.RandomModel(9, gridScopes(3), cfg, 100+seed), "3-state grid f%v s%d", f, seed)
			triples := append(infertest.RandomScopes(7, 4, 3, seed), infertest.RandomScopes(7, 6, 2, 50+seed)...)
			add(infertest.RandomModel(7, triples, infertest.Config{MinCard: 2, MaxCard: 3, Scale: f / 2, Unary: true}, 200+seed), "arity 3 f%v s%d", f, seed)
			zeros := cfg
			zeros.MinCard, zeros.ZeroProb = 2, 0.3
			add(infertest.RandomModel(9, gridScopes(3), zeros, 300+seed), "zeros grid f%v s%d", f, seed)
			add(observe(infertest.SpinGlass(3, true, f, 400+seed), int(seed)%9, int(seed)), "evidence torus f%v s%d", f, seed)
			add(observe(infertest.RandomModel(7, triples, zeros, 500+seed), 3, int(seed)), "zeros evidence arity 3 f%v s%d", f, seed)
		}
	}
	// Two factors on the same scope (a cycle of length 2 in the factor
	// graph), one of them reversed, and a 1-state variable.
	dup := [][]int{{0, 1}, {1, 0}, {1, 2}, {2, 0}, {3, 4}, {4, 3}, {4, 5}, {0, 1, 3}}
	for seed := int64(0); seed < 6; seed++ {
		m := infertest.RandomModel(6, dup, infertest.Config{MinCard: 1, MaxCard: 3, Scale: 2, Unary: true}, 600+seed)
		add(m, "duplicate scopes s%d", seed)
		add(infertest.Pedigree(8, seed), "pedigree s%d", seed)
		add(infertest.NoisyOR(5, 5, seed), "noisy-or s%d", seed)
	}
	return out
})

// solved is a model with its exact answer.
type solved struct {
	m     *mrf.Model
	exact *infer.Result
}

// TestUpperBound: TRW's ln Z is at or above the exact ln Z on every model,
// converged or stopped after one sweep, and mean field's is at or below it.
func TestUpperBound(t *testing.T) {
	models := boundModels()
	if len(models) < 200 {
		t.Fatalf("%d models, want at least 200", len(models))
	}
	one := trw.DefaultOptions()
	one.MaxIter = 1
	nodamp := trw.DefaultOptions()
	nodamp.Damping, nodamp.MaxIter, nodamp.Trees = 0, 7, 3
	converged := 0
	for name, sm := range models {
		m, exact := sm.m, sm.exact
		tol := boundTol(exact.LogZ)
		for _, o := range []trw.Options{trw.DefaultOptions(), one, nodamp} {
			res, err := mustNew(t, o).Infer(context.Background(), m)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !(res.LogZ >= exact.LogZ-tol) {
				t.Errorf("%s max_iter %d: TRW ln Z %.12g below exact %.12g", name, o.MaxIter, res.LogZ, exact.LogZ)
			}
			if res.FreeEnergy != -res.LogZ {
				t.Errorf("%s: free energy %v, ln Z %v", name, res.FreeEnergy, res.LogZ)
			}
			if err := infertest.CheckResult(m, res); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if res.Converged() {
				converged++
				if g := res.Diagnostics["bound_gap"]; math.Abs(g) > 1e-6*max(1, math.Abs(res.LogZ)) {
					t.Errorf("%s: converged, but bound and primal differ by %g", name, g)
				}
			}
		}
		mf, err := meanfield.New(meanfield.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		res, err := mf.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !(res.LogZ <= exact.LogZ+tol) {
			t.Errorf("%s: mean-field ln Z %.12g above exact %.12g", name, res.LogZ, exact.LogZ)
		}
	}
	if converged < len(models)/2 {
		t.Errorf("only %d of %d default runs converged", converged, len(models))
	}
	t.Logf("%d models, %d converged runs", len(models), converged)
}

// TestZeros: marginals are exactly 0 on zero potentials and on the states
// evidence excludes, converged or not.
func TestZeros(t *testing.T) {
	for name, sm := range boundModels() {
		m := sm.m
		if !strings.Contains(name, "zeros") && !strings.Contains(name, "evidence") && !strings.Contains(name, "pedigree") && !strings.Contains(name, "noisy") {
			continue
		}
		for _, it := range []int{1, 1000} {
			o := trw.DefaultOptions()
			o.MaxIter = it
			res, err := mustNew(t, o).Infer(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			for a, f := range m.Factors {
				for k, l := range f.LogTable {
					if math.IsInf(l, -1) && res.Marginals.Factors[a][k] != 0 {
						t.Fatalf("%s: factor %d entry %d of zero potential has probability %g", name, a, k, res.Marginals.Factors[a][k])
					}
					if len(f.Vars) == 1 && math.IsInf(l, -1) && res.Marginals.Vars[f.Vars[0]][k] != 0 {
						t.Fatalf("%s: variable %d state %d excluded, probability %g", name, f.Vars[0], k, res.Marginals.Vars[f.Vars[0]][k])
					}
				}
			}
		}
	}
}

// TestTreesExact: on a model whose factor graph is a forest every factor
// lies in every spanning forest (ρ = 1), TRW is BP, and both the bound and
// the marginals are exact.
func TestTreesExact(t *testing.T) {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1.5, Unary: true}
	hard := cfg
	hard.ZeroProb = 0.25
	cases := map[string]*mrf.Model{
		"chain 3 states": infertest.Chain(8, infertest.Config{MinCard: 3, MaxCard: 3, Scale: 2, Unary: true}, 1),
		"tree 3-ary":     infertest.RandomModel(7, [][]int{{2, 0, 1}, {3, 2}, {1, 4}, {5, 0}, {6, 5}}, cfg, 11),
		"forest":         infertest.RandomModel(6, [][]int{{0, 1}, {2, 3}, {4, 3}}, cfg, 12),
		"lone variable":  {Cards: []int{3}},
		"constant":       {Cards: []int{2}, Factors: []mrf.Factor{{LogTable: []float64{1.5}}, {Vars: []int{0}, LogTable: []float64{0, 1}}}},
	}
	for seed := int64(0); seed < 6; seed++ {
		cases[fmt.Sprint("random tree ", seed)] = infertest.RandomTree(10, cfg, seed)
		cases[fmt.Sprint("hard tree ", seed)] = observe(infertest.RandomTree(8, hard, 100+seed), 0, 0)
	}
	for name, m := range cases {
		exact, err := infertest.BruteForce(m)
		if err != nil {
			continue
		}
		tr := mustNew(t, trw.DefaultOptions())
		res, err := tr.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for a, r := range tr.Rho() {
			if r != 1 {
				t.Errorf("%s: ρ of factor %d is %v, want 1", name, a, r)
			}
		}
		if !res.Converged() {
			t.Errorf("%s: not converged", name)
		}
		if d := math.Abs(res.LogZ - exact.LogZ); d > 1e-8 {
			t.Errorf("%s: ln Z %v, exact %v", name, res.LogZ, exact.LogZ)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); d > 1e-8 {
			t.Errorf("%s: variable marginals off by %g", name, d)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Factors, exact.Marginals.Factors); d > 1e-8 {
			t.Errorf("%s: factor marginals off by %g", name, d)
		}
	}
}

// TestRho: every loopy factor lies in some forest, ρ is a fraction of the
// forests, the same seed draws the same forests, and on a cycle of n
// edges each maximal forest drops exactly one edge (Σρ = n - 1).
func TestRho(t *testing.T) {
	m := ising(6, mrf.CompleteEdges(6), 1, 3)
	o := trw.DefaultOptions()
	o.Trees = 2 // K6 has 15 edges, a forest 5: more forests are needed
	tr := mustNew(t, o)
	res, err := tr.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	S := res.Diagnostics["forests"]
	if S < 3 {
		t.Errorf("%v forests on K6 from trees 2, want at least 3 to cover 15 edges", S)
	}
	sum := 0.0
	for a, r := range tr.Rho() {
		if !(r > 0 && r <= 1) || math.Abs(r*S-math.Round(r*S)) > 1e-9 {
			t.Errorf("ρ of factor %d is %v with %v forests", a, r, S)
		}
		if len(m.Factors[a].Vars) == 2 {
			sum += r
		}
	}
	if math.Abs(sum-5) > 1e-9 {
		t.Errorf("Σρ over the edges of K6 is %v, want 5 (every forest spans)", sum)
	}
	again := mustNew(t, o)
	if _, err := again.Infer(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again.Rho()) != fmt.Sprint(tr.Rho()) {
		t.Error("the same seed drew other forests")
	}
	o.Seed = 2
	other := mustNew(t, o)
	if _, err := other.Infer(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(other.Rho()) == fmt.Sprint(tr.Rho()) {
		t.Error("seeds 1 and 2 drew the same forests")
	}
}

// TestRegistryCheck: converged TRW answers through the registry pass the
// shared check, and warm starts converge at once.
func TestRegistryCheck(t *testing.T) {
	e, err := methods.Lookup("trw")
	if err != nil {
		t.Fatal(err)
	}
	if e.LogZ != methods.LogZUpperBound {
		t.Errorf("trw's ln Z kind is %v, want upper", e.LogZ)
	}
	meth, err := e.New(e.Options(false), nil)
	if err != nil {
		t.Fatal(err)
	}
	models := []*mrf.Model{
		infertest.SpinGlass(5, false, 1, 1), infertest.SpinGlass(4, true, 1, 2),
		ising(6, mrf.CompleteEdges(6), 0.5, 3),
		infertest.Pedigree(10, 4), infertest.NoisyOR(6, 6, 5),
		observe(infertest.RandomModel(9, gridScopes(3), infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.5, Unary: true, ZeroProb: 0.2}, 6), 4, 1),
	}
	for k, m := range models {
		res, err := meth.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged() || res.Check != "" {
			t.Errorf("model %d: converged %v after %d sweeps, check %q", k, res.Converged(), res.Iterations, res.Check)
		}
		warm, err := meth.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !warm.Converged() || warm.Iterations > 2 {
			t.Errorf("model %d: warm start converged %v after %d sweeps", k, warm.Converged(), warm.Iterations)
		}
	}
}

// TestOptions: invalid options are rejected with an error naming them.
func TestOptions(t *testing.T) {
	cases := map[string]func(*trw.Options){
		"trees":   func(o *trw.Options) { o.Trees = 0 },
		"damping": func(o *trw.Options) { o.Damping = 1 },
	} // the shared options: infer.TestIterationCheck
	for opt, set := range cases {
		o := trw.DefaultOptions()
		set(&o)
		if _, err := trw.New(o); err == nil || !strings.Contains(err.Error(), opt) {
			t.Errorf("%s: error %v, want one naming the option", opt, err)
		}
	}
	o := trw.DefaultOptions()
	o.Trees = -3
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "trees") {
		t.Errorf("trees -3: error %v", err)
	}
	if err := trw.DefaultOptions().Check(); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
	if _, err := mustNew(t, trw.DefaultOptions()).Infer(context.Background(), nil); err == nil {
		t.Error("nil model accepted")
	}
	bad := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0}}}}
	if _, err := mustNew(t, trw.DefaultOptions()).Infer(context.Background(), bad); err == nil {
		t.Error("malformed model accepted")
	}
}

// TestCanceled: a done context stops the run with an error.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mustNew(t, trw.DefaultOptions()).Infer(ctx, infertest.SpinGlass(3, false, 1, 1)); err == nil {
		t.Error("canceled context: no error")
	}
}

// BenchmarkTRWGrid20 runs TRW with its defaults from scratch on a 20x20
// Ising grid, gamma 1 (the model of BenchmarkBPGrid20), forests and bound
// included.
func BenchmarkTRWGrid20(b *testing.B) {
	edges, _ := mrf.GridEdges(20, false)
	m := mrf.RandomIsing(400, edges, 1, 1)
	tr := mustNew(b, trw.DefaultOptions())
	sweeps := 0
	b.ReportAllocs()
	for b.Loop() {
		tr.Reset()
		res, err := tr.Infer(context.Background(), m)
		if err != nil {
			b.Fatal(err)
		}
		sweeps += res.Iterations
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sweeps), "ns/sweep")
	b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/op")
}

// deterministicModels are small models of arity-4 0/1 factors (constraint
// tables, no soft potentials) on which damped TRW-BP diverges from its
// default damping: the log-message magnitudes grow geometrically until, in
// floating point, ln Z was 1e33-1e170 and marginals failed to normalise. A
// genetic-linkage model (deterministic transmission, 132 variables) diverges
// the same way.
func deterministicModels(t *testing.T) map[string]solved {
	out := map[string]solved{}
	for _, c := range []struct {
		n, factors int
		zero       float64
		seed       int64
	}{{6, 4, 0.5, 28}, {6, 4, 0.7, 14}, {6, 4, 0.7, 39}, {6, 6, 0.5, 35}, {6, 8, 0.5, 35}, {8, 4, 0.5, 24}, {8, 4, 0.7, 12}} {
		scopes := infertest.RandomScopes(c.n, c.factors, 4, c.seed)
		m := infertest.RandomModel(c.n, scopes, infertest.Config{MinCard: 2, MaxCard: 3, ZeroProb: c.zero}, 1000+c.seed)
		exact, err := infertest.BruteForce(m)
		if err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("constraints n%d a%d z%v s%d", c.n, c.factors, c.zero, c.seed)] = solved{m, exact}
	}
	m, err := mrf.FactorFamily{Family: mrf.FamilyLinkage, Size: 9}.Generate(13)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	out["linkage9 seed 13"] = solved{m, &infer.Result{LogZ: ex.LogZ, Marginals: ex.Marginals}}
	return out
}

// TestDeterministicDivergence: where the message iteration diverges, the
// run goes back to its lowest bound and raises the damping, so ln Z stays a
// finite upper bound below the trivial one (Σ ln |X_i| plus every factor's
// largest entry), the marginals are normalised, and a run that says
// converged passes the shared check.
func TestDeterministicDivergence(t *testing.T) {
	for name, sm := range deterministicModels(t) {
		m, exact := sm.m, sm.exact
		trivial := 0.0
		for _, c := range m.Cards {
			trivial += math.Log(float64(c))
		}
		for _, f := range m.Factors {
			trivial += slices.Max(f.LogTable)
		}
		for _, d := range []float64{0, 0.25} {
			o := trw.DefaultOptions()
			o.Damping = d
			res, err := mustNew(t, o).Infer(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if !(res.LogZ >= exact.LogZ-boundTol(exact.LogZ) && res.LogZ <= trivial) {
				t.Errorf("%s damping %v: ln Z %.6g, want in [exact %.6g, trivial %.6g]", name, d, res.LogZ, exact.LogZ, trivial)
			}
			if err := infertest.CheckResult(m, res); err != nil {
				t.Errorf("%s damping %v: %v", name, d, err)
			}
			if why := infer.Verify(m, res, nil); res.Converged() && why != "" {
				t.Errorf("%s damping %v: converged, but %s", name, d, why)
			}
			if d == 0 && res.Diagnostics["restarts"] < 1 {
				t.Errorf("%s: undamped run never went back (diagnostics %v)", name, res.Diagnostics)
			}
			// The run keeps its lowest bound, so 1000 sweeps never end
			// above one.
			o.MaxIter = 1
			one, err := mustNew(t, o).Infer(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged() && res.LogZ > one.LogZ {
				t.Errorf("%s damping %v: ln Z %.6g after %d sweeps, %.6g after one", name, d, res.LogZ, res.Iterations, one.LogZ)
			}
		}
	}
}
