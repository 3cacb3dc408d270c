package gbp_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// observeLikely observes every k-th variable of m at its most probable state
// under the exact marginals, so that Z stays positive, and returns m.
func observeLikely(t *testing.T, m *mrf.Model, k int) *mrf.Model {
	t.Helper()
	ex, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < len(m.Cards); v += k {
		best := 0
		for s, p := range ex.Marginals.Vars[v] {
			if p > ex.Marginals.Vars[v][best] {
				best = s
			}
		}
		if err := m.Observe(v, best); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// checkZeros checks what must hold of every GBP answer on a model with zero
// potentials, converged or not: finite numbers, exactly zero probability on
// every excluded factor entry and observed-away state, and a converged
// answer that passes the shared check.
func checkZeros(t *testing.T, name string, m *mrf.Model, method *gbp.GBP, res *infer.Result) {
	t.Helper()
	if err := infertest.CheckResult(m, res); err != nil {
		t.Errorf("%s: malformed result: %v", name, err)
	}
	if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 1) {
		t.Errorf("%s: ln Z %v", name, res.LogZ)
	}
	for a, f := range m.Factors {
		for k, l := range f.LogTable {
			if p := res.Marginals.Factors[a][k]; math.IsInf(l, -1) && p != 0 {
				t.Errorf("%s: factor %d entry %d is a zero potential with probability %g", name, a, k, p)
			}
		}
		if len(f.Vars) == 1 {
			for s, l := range f.LogTable {
				if p := res.Marginals.Vars[f.Vars[0]][s]; math.IsInf(l, -1) && p != 0 {
					t.Errorf("%s: variable %d state %d is excluded with probability %g", name, f.Vars[0], s, p)
				}
			}
		}
	}
	why := infer.Verify(m, res, method)
	if res.Converged() && why != "" {
		t.Errorf("%s: converged after %d sweeps but fails the check: %s", name, res.Iterations, why)
	}
	if res.Converged() && !(res.Diagnostics["max_consistency"] <= infer.ConsistencyTol) {
		t.Errorf("%s: converged with max_consistency %g", name, res.Diagnostics["max_consistency"])
	}
}

// checkMessageSupport checks that a message entry is -Inf exactly where the
// child's belief is zero: excluded states carry no finite message entry, and
// every finite one has mass (so the updates hold it to consistency).
func checkMessageSupport(t *testing.T, name string, method *gbp.GBP) {
	t.Helper()
	b := method.Beliefs()
	for e, pc := range method.EdgeOrder() {
		for y, l := range method.Messages()[e] {
			if math.IsInf(l, -1) != (b[pc[1]][y] == 0) {
				t.Errorf("%s: edge %d→%d state %d: message %v, child belief %g", name, pc[0], pc[1], y, l, b[pc[1]][y])
				return
			}
		}
	}
}

// TestEvidenceOnTreesExact: on tree-shaped models with zero potentials and
// evidence GBP on bethe regions is exact, like the log-space exact solver.
func TestEvidenceOnTreesExact(t *testing.T) {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true, ZeroProb: 0.25}
	cases := map[string]*mrf.Model{}
	for seed := int64(0); seed < 4; seed++ {
		cases[fmt.Sprintf("chain %d", seed)] = observeLikely(t, infertest.Chain(9, cfg, 30+seed), 3)
		cases[fmt.Sprintf("tree %d", seed)] = observeLikely(t, infertest.RandomTree(10, cfg, 40+seed), 4)
		cases[fmt.Sprintf("3-ary tree %d", seed)] = observeLikely(t, infertest.RandomModel(7,
			[][]int{{2, 0, 1}, {3, 2}, {1, 4}, {5, 0, 6}}, cfg, 50+seed), 2)
	}
	for name, m := range cases {
		ex, err := exact.Solve(m, exact.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		method, res := run(t, m, "uai", "bethe", infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Tol = 1e-12 }))
		checkZeros(t, name, m, method, res)
		checkMessageSupport(t, name, method)
		if !res.Converged() {
			t.Errorf("%s: not converged after %d sweeps", name, res.Iterations)
		}
		if why := infer.Verify(m, res, method); why != "" {
			t.Errorf("%s: fails the check: %s", name, why)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, ex.Marginals.Vars); d > 1e-7 {
			t.Errorf("%s: variable marginals off by %g", name, d)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Factors, ex.Marginals.Factors); d > 1e-7 {
			t.Errorf("%s: factor marginals off by %g", name, d)
		}
		if d := math.Abs(res.LogZ - ex.LogZ); !(d < 1e-7) {
			t.Errorf("%s: ln Z %v, exact %v", name, res.LogZ, ex.LogZ)
		}
	}
}

// TestHardModelsHonest: on pedigrees, noisy-OR networks and soft CSPs (zero
// potentials, evidence) every answer is finite with zero mass on excluded
// states, and none is reported converged unless it passes the shared check.
// Undamped GBP diverges on most of them (see "Divergence" in the package
// comment); with damping 0.5 it converges on some, and then to answers
// close to exact.
func TestHardModelsHonest(t *testing.T) {
	type tc struct {
		name   string
		m      *mrf.Model
		scheme string
	}
	var cases []tc
	for seed := int64(1); seed <= 3; seed++ {
		for _, n := range []int{8, 12} {
			cases = append(cases, tc{fmt.Sprintf("pedigree %d #%d", n, seed), infertest.Pedigree(n, seed), "bethe"})
		}
		cases = append(cases,
			tc{fmt.Sprintf("pedigree 12 #%d cycles", seed), infertest.Pedigree(12, seed), "cycles"},
			tc{fmt.Sprintf("noisy-or 5+8 #%d", seed), infertest.NoisyOR(5, 8, seed), "bethe"},
			tc{fmt.Sprintf("noisy-or 6+10 #%d cycles", seed), infertest.NoisyOR(6, 10, seed), "cycles"},
			tc{fmt.Sprintf("soft csp #%d", seed), infertest.SoftCSP(9, 10, seed), "bethe"},
			tc{fmt.Sprintf("soft csp #%d cycles", seed), infertest.SoftCSP(9, 10, seed), "cycles"},
		)
	}
	converged := 0
	for _, c := range cases {
		ex, err := exact.Solve(c.m, exact.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, damping := range []float64{0, 0.5} {
			name := fmt.Sprintf("%s damping %v", c.name, damping)
			method, res := run(t, c.m, "uai", c.scheme, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) {
				o.Damping = damping
				o.MaxIter = 300
			}))
			checkZeros(t, name, c.m, method, res)
			if res.Converged() {
				converged++
				checkMessageSupport(t, name, method)
				if d := math.Abs(res.LogZ - ex.LogZ); d > 0.5 {
					t.Errorf("%s: converged to ln Z %v, exact %v", name, res.LogZ, ex.LogZ)
				}
			}
		}
	}
	if converged == 0 {
		t.Error("no run converged")
	}
}

// TestPedigreeDamped: the undamped schedule runs away on the bethe region
// graph of a 12-variable pedigree (beliefs saturate to point masses while
// parent and child disagree) and must not claim convergence; with damping
// 0.5 it converges to within 1e-3 of the exact ln Z.
func TestPedigreeDamped(t *testing.T) {
	m := infertest.Pedigree(12, 1)
	ex, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	method, res := run(t, m, "uai", "bethe", gbp.DefaultOptions())
	checkZeros(t, "undamped", m, method, res)
	if res.Converged() {
		t.Errorf("undamped: converged, max_consistency %g", res.Diagnostics["max_consistency"])
	}
	method, res = run(t, m, "uai", "bethe", infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Damping = 0.5 }))
	checkZeros(t, "damped", m, method, res)
	checkMessageSupport(t, "damped", method)
	if !res.Converged() || infer.Verify(m, res, method) != "" {
		t.Errorf("damped: converged %v, check %q", res.Converged(), infer.Verify(m, res, method))
	}
	if d := math.Abs(res.LogZ - ex.LogZ); d > 1e-3 {
		t.Errorf("damped: ln Z %v, exact %v", res.LogZ, ex.LogZ)
	}
}

// TestDivergenceStops: a run whose messages overflow stops, says so, and
// returns the finite beliefs of its last finite sweep; the next call starts
// afresh.
func TestDivergenceStops(t *testing.T) {
	m := infertest.NoisyOR(6, 10, 2)
	g := build(t, m, "uai", "bethe")
	method := mustNew(t, g, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Damping = 0.5 }))
	for call := range 2 {
		res, err := method.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		checkZeros(t, fmt.Sprintf("call %d", call), m, method, res)
		if res.Diagnostics["diverged"] != 1 || res.Converged() || res.Iterations >= gbp.DefaultOptions().MaxIter {
			t.Errorf("call %d: diverged %v, converged %v after %d sweeps", call, res.Diagnostics["diverged"], res.Converged(), res.Iterations)
		}
	}
}

// TestWarmStartNewEvidence: a warm start on a model of the same structure
// whose evidence differs gives the exact answer (the graph is a tree),
// though the old messages are zero on states the new evidence allows and
// damping would keep those zeros.
func TestWarmStartNewEvidence(t *testing.T) {
	ninf := math.Inf(-1)
	base := &mrf.Model{Cards: []int{2, 3, 3}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0.5, -1, 0.2, 1, 0.3, -0.4}},
		{Vars: []int{1, 2}, LogTable: []float64{ninf, 0, 0, 0, ninf, 0, 0, 0, ninf}}, // x1 != x2
	}}
	a, b := base.Clone(), base.Clone()
	if err := a.Observe(2, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Observe(2, 1); err != nil {
		t.Fatal(err)
	}
	g := build(t, a, "uai", "bethe")
	opts := infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Damping = 0.3 })
	warm := mustNew(t, g, opts)
	if _, err := warm.Infer(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	got, err := warm.Infer(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want, err := infertest.BruteForce(b)
	if err != nil {
		t.Fatal(err)
	}
	checkZeros(t, "warm", b, warm, got)
	if d := infertest.MaxAbsDiff(got.Marginals.Vars, want.Marginals.Vars); !got.Converged() || d > 1e-8 {
		t.Errorf("warm start: converged %v, marginals off by %g", got.Converged(), d)
	}
}
