package gbp_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

var _ infer.Method = (*gbp.GBP)(nil)

func build(t testing.TB, m *mrf.Model, graph, scheme string) *region.Graph {
	t.Helper()
	g, err := region.Build(m, graph, scheme)
	if err != nil {
		t.Fatalf("%s/%s region graph: %v", graph, scheme, err)
	}
	return g
}

func mustNew(t testing.TB, g *region.Graph, opts gbp.Options) *gbp.GBP {
	t.Helper()
	method, err := gbp.New(g, opts)
	if err != nil {
		t.Fatal(err)
	}
	return method
}

func run(t testing.TB, m *mrf.Model, graph, scheme string, opts gbp.Options) (*gbp.GBP, *infer.Result) {
	t.Helper()
	method := mustNew(t, build(t, m, graph, scheme), opts)
	res, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := infertest.CheckResult(m, res); err != nil {
		t.Fatalf("malformed result: %v", err)
	}
	return method, res
}

func grid(t testing.TB, L int, gamma float64, seed int64) *mrf.Model {
	t.Helper()
	es, err := mrf.GridEdges(L, false)
	if err != nil {
		t.Fatal(err)
	}
	return mrf.RandomIsing(L*L, es, gamma, seed)
}

// meanAbsErr is the mean over variables of |ΔP(x_i = s)| summed over the
// states s > 0 (for binary variables: |Δp(x_i = +1)|).
func meanAbsErr(got, want [][]float64) float64 {
	s := 0.0
	for i := range got {
		for x := 1; x < len(got[i]); x++ {
			s += math.Abs(got[i][x] - want[i][x])
		}
	}
	return s / float64(len(got))
}

// TestUpdateMatchesTextbook: one sweep from random messages equals the
// parent-to-child rules transcribed from their definitions (reference_test.go),
// and the beliefs equal the belief formula, on several region graphs.
func TestUpdateMatchesTextbook(t *testing.T) {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true}
	cases := []struct {
		name, graph, scheme string
		m                   *mrf.Model
	}{
		{"grid faces", "grid", "faces", grid(t, 4, 1, 1)},
		{"grid faces+outer", "grid", "faces+outer", grid(t, 3, 1, 2)},
		{"complete star", "complete", "star", mrf.RandomIsing(5, mrf.CompleteEdges(5), 1, 3)},
		{"cycles, cards 2-3", "uai", "cycles", infertest.RandomModel(6,
			[][]int{{0, 1}, {2, 1}, {2, 3}, {3, 0}, {1, 4}, {4, 5}, {5, 2}, {0, 2}}, cfg, 4)},
		{"bethe, triple", "uai", "bethe", infertest.RandomModel(5,
			[][]int{{2, 0, 1}, {1, 3}, {3, 2}, {4, 0}, {1, 2, 4}}, cfg, 5)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := build(t, c.m, c.graph, c.scheme)
			for _, alpha := range []float64{0, 0.3} {
				method := mustNew(t, g, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.MaxIter = 1; o.Damping = alpha }))
				if _, err := method.Infer(context.Background(), c.m); err != nil {
					t.Fatal(err)
				}
				r := mrf.NewRand(7)
				msgs := method.Messages()
				for _, msg := range msgs {
					for k := range msg {
						msg[k] = r.NormFloat64()
					}
				}
				method.SetMessages(msgs)
				if _, err := method.Infer(context.Background(), c.m); err != nil {
					t.Fatal(err)
				}
				order := method.EdgeOrder()
				refSweep(g, c.m, order, msgs, alpha)
				if d := infertest.MaxAbsDiff(method.Messages(), msgs); d > 1e-12 {
					t.Errorf("damping %v: messages differ from the reference sweep by %g", alpha, d)
				}
				want := refBeliefs(g, c.m, order, method.Messages())
				if d := infertest.MaxAbsDiff(method.Beliefs(), want); d > 1e-12 {
					t.Errorf("damping %v: beliefs differ from the belief formula by %g", alpha, d)
				}
			}
		})
	}
}

// TestBetheMatchesBP: on the bethe region graph of a pairwise model GBP is
// loopy BP, so both reach the same marginals and the same (Bethe) free
// energy.
func TestBetheMatchesBP(t *testing.T) {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.6, Unary: true}
	cases := map[string]*mrf.Model{
		"grid 3x3 seed 0": grid(t, 3, 1, 0),
		"grid 3x3 seed 1": grid(t, 3, 1, 1),
		"grid 4x4":        grid(t, 4, 1, 2),
		"K4":              mrf.RandomIsing(4, mrf.CompleteEdges(4), 1, 3),
		"loopy cards 2-3": infertest.RandomModel(7, [][]int{{0, 1}, {2, 1}, {2, 3}, {3, 0}, {3, 4}, {5, 4}, {5, 6}, {6, 3}, {1, 5}}, cfg, 4),
		"tree":            infertest.RandomTree(9, cfg, 5),
	}
	for name, m := range cases {
		_, res := run(t, m, "uai", "bethe", infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Tol = 1e-12 }))
		bpm, err := bp.New(infertest.With(bp.DefaultOptions(), func(o *bp.Options) { o.Tol = 1e-12 }))
		if err != nil {
			t.Fatal(err)
		}
		want, err := bpm.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged || !want.Converged {
			t.Fatalf("%s: gbp converged %v, bp converged %v", name, res.Converged, want.Converged)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, want.Marginals.Vars); d > 1e-7 {
			t.Errorf("%s: variable marginals differ from BP by %g", name, d)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Factors, want.Marginals.Factors); d > 1e-7 {
			t.Errorf("%s: factor marginals differ from BP by %g", name, d)
		}
		if d := math.Abs(res.FreeEnergy - want.FreeEnergy); d > 1e-7 {
			t.Errorf("%s: free energy %v, BP's Bethe free energy %v", name, res.FreeEnergy, want.FreeEnergy)
		}
	}
}

// TestTreesExact: when the region graph is a tree (bethe on tree-shaped
// factor graphs, a single plaquette) GBP is exact and F = -ln Z.
func TestTreesExact(t *testing.T) {
	cfg := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true}
	hard := cfg
	hard.ZeroProb = 0.25
	type tc struct {
		m             *mrf.Model
		graph, scheme string
	}
	cases := map[string]tc{
		"chain":           {infertest.Chain(8, cfg, 1), "uai", "bethe"},
		"tree no unaries": {infertest.RandomTree(9, infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1}, 2), "uai", "bethe"},
		"tree 3-ary": {infertest.RandomModel(7, [][]int{{2, 0, 1}, {3, 2}, {1, 4}, {5, 0}, {6, 5}}, cfg, 3),
			"uai", "bethe"},
		"single plaquette": {grid(t, 2, 1, 4), "grid", "faces"},
	}
	for seed := int64(0); seed < 4; seed++ {
		cases["random tree "+string(rune('a'+seed))] = tc{infertest.RandomTree(10, cfg, 10+seed), "uai", "bethe"}
		cases["hard tree "+string(rune('a'+seed))] = tc{infertest.RandomTree(8, hard, 20+seed), "uai", "bethe"}
	}
	for name, c := range cases {
		exact, err := infertest.BruteForce(c.m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, res := run(t, c.m, c.graph, c.scheme, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Tol = 1e-12 }))
		if !res.Converged {
			t.Errorf("%s: not converged after %d sweeps", name, res.Iterations)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); d > 1e-7 {
			t.Errorf("%s: variable marginals off by %g", name, d)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Factors, exact.Marginals.Factors); d > 1e-7 {
			t.Errorf("%s: factor marginals off by %g", name, d)
		}
		if d := math.Abs(res.LogZ - exact.LogZ); d > 1e-7 {
			t.Errorf("%s: lnZ %v, exact %v", name, res.LogZ, exact.LogZ)
		}
	}
}

// TestConsistentAtConvergence: at convergence every child's belief is its
// parents' marginal onto it, checked from the beliefs by enumeration and by
// the diagnostic.
func TestConsistentAtConvergence(t *testing.T) {
	for _, gamma := range []float64{0.1, 1} {
		for seed := int64(0); seed < 3; seed++ {
			models := []struct {
				name, graph, scheme string
				m                   *mrf.Model
			}{
				{"grid 4x4 faces", "grid", "faces", grid(t, 4, gamma, seed)},
				{"K5 star", "complete", "star", mrf.RandomIsing(5, mrf.CompleteEdges(5), gamma, seed)},
			}
			for _, c := range models {
				method, res := run(t, c.m, c.graph, c.scheme, gbp.DefaultOptions())
				if !res.Converged {
					t.Errorf("%s gamma %v seed %d: not converged", c.name, gamma, seed)
					continue
				}
				if v := res.Diagnostics["max_consistency"]; !(v < 1e-6) {
					t.Errorf("%s gamma %v seed %d: max_consistency %g", c.name, gamma, seed, v)
				}
				g, b := method.Graph(), method.Beliefs()
				worst := 0.0
				for r, R := range g.Regions {
					for _, p := range R.Parents {
						marg := refMarginal(c.m.Cards, g.Regions[p].Vars, R.Vars, b[p])
						for x := range marg {
							worst = max(worst, math.Abs(marg[x]-b[r][x]))
						}
					}
				}
				if worst > 1e-6 {
					t.Errorf("%s gamma %v seed %d: parent marginals differ from child beliefs by %g", c.name, gamma, seed, worst)
				}
			}
		}
	}
}

// TestFacesBeatBP: on small grids, GBP on plaquettes is much closer to the
// exact marginals than loopy BP.
func TestFacesBeatBP(t *testing.T) {
	for _, L := range []int{3, 4} {
		for _, gamma := range []float64{0.1, 1} {
			for seed := int64(0); seed < 4; seed++ {
				m := grid(t, L, gamma, seed)
				exact, err := infertest.BruteForce(m)
				if err != nil {
					t.Fatal(err)
				}
				_, res := run(t, m, "grid", "faces", gbp.DefaultOptions())
				bpm, _ := bp.New(bp.DampedOptions())
				ref, err := bpm.Infer(context.Background(), m)
				if err != nil {
					t.Fatal(err)
				}
				eg, eb := meanAbsErr(res.Marginals.Vars, exact.Marginals.Vars), meanAbsErr(ref.Marginals.Vars, exact.Marginals.Vars)
				if !res.Converged || !(eg < eb) {
					t.Errorf("%dx%d gamma %v seed %d: gbp (converged %v) mean error %.2e, bp %.2e", L, L, gamma, seed, res.Converged, eg, eb)
				}
			}
		}
	}
}

// TestGrid10Accuracy: on 10x10 Ising grids (gamma 1) GBP on plaquettes
// converges to marginals within a few 1e-4 of the exact ones (computed by
// the row transfer matrix).
func TestGrid10Accuracy(t *testing.T) {
	for seed := int64(0); seed < 3; seed++ {
		m := grid(t, 10, 1, seed)
		logZ, exact, err := gridExact(m, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, res := run(t, m, "grid", "faces", gbp.DefaultOptions())
		e := meanAbsErr(res.Marginals.Vars, exact)
		if !res.Converged || e > 2e-3 {
			t.Errorf("seed %d: converged %v after %d sweeps, mean |ΔP| %.2e", seed, res.Converged, res.Iterations, e)
		}
		if d := math.Abs(res.LogZ - logZ); d > 0.5 {
			t.Errorf("seed %d: lnZ %v, exact %v", seed, res.LogZ, logZ)
		}
	}
}

// TestBlocks3Grid: on the overlapping 3x3 windows (blocks3, whose regions
// of counting number 0 are dropped) GBP converges on 10x10 grids with
// couplings scaled up to 3x the paper's, and its ln Z is closer to exact
// than on the faces.
func TestBlocks3Grid(t *testing.T) {
	for seed := int64(0); seed < 3; seed++ {
		m := grid(t, 10, 1, seed)
		for a := range m.Factors {
			if f := &m.Factors[a]; len(f.Vars) == 2 {
				for k := range f.LogTable {
					f.LogTable[k] *= 3
				}
			}
		}
		logZ, exact, err := gridExact(m, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, faces := run(t, m, "grid", "faces", gbp.DefaultOptions())
		_, res := run(t, m, "grid", "blocks3", gbp.DefaultOptions())
		if !res.Converged {
			t.Fatalf("seed %d: blocks3 not converged after %d sweeps (%v)", seed, res.Iterations, res.Diagnostics)
		}
		dF, dB := math.Abs(faces.LogZ-logZ), math.Abs(res.LogZ-logZ)
		if dB > 0.05 || dB > dF {
			t.Errorf("seed %d: |ΔlnZ| blocks3 %.4f, faces %.4f (faces converged %v)", seed, dB, dF, faces.Converged)
		}
		if e := meanAbsErr(res.Marginals.Vars, exact); e > 5e-3 {
			t.Errorf("seed %d: blocks3 mean |ΔP| %.2e", seed, e)
		}
		t.Logf("seed %d: |ΔlnZ| blocks3 %.2e (%d sweeps), faces %.2e", seed, dB, res.Iterations, dF)
	}
}

// TestGridExact checks the transfer-matrix helper against brute force.
func TestGridExact(t *testing.T) {
	for _, L := range []int{2, 3, 4} {
		m := grid(t, L, 1, int64(L))
		// Reverse a few scopes: the helper must honour each factor's order.
		for a := range m.Factors {
			if f := &m.Factors[a]; len(f.Vars) == 2 && a%2 == 0 {
				f.Vars[0], f.Vars[1] = f.Vars[1], f.Vars[0]
				f.LogTable[1], f.LogTable[2] = f.LogTable[2], f.LogTable[1]
				f.LogTable[0] += 0.3 // make the table asymmetric
			}
		}
		want, err := infertest.BruteForce(m)
		if err != nil {
			t.Fatal(err)
		}
		logZ, marg, err := gridExact(m, L)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(logZ - want.LogZ); d > 1e-10 {
			t.Errorf("%dx%d: lnZ %v, brute force %v", L, L, logZ, want.LogZ)
		}
		if d := infertest.MaxAbsDiff(marg, want.Marginals.Vars); d > 1e-10 {
			t.Errorf("%dx%d: marginals off by %g", L, L, d)
		}
	}
}

// TestFreeEnergyOfBeliefs: the reported free energy is the region free
// energy of the beliefs, recomputed here from the factors.
func TestFreeEnergyOfBeliefs(t *testing.T) {
	cases := []struct {
		name, graph, scheme string
		m                   *mrf.Model
	}{
		{"grid 4x4 faces", "grid", "faces", grid(t, 4, 1, 7)},
		{"K5 star", "complete", "star", mrf.RandomIsing(5, mrf.CompleteEdges(5), 0.5, 8)},
		{"grid 3x3 bethe", "grid", "bethe", grid(t, 3, 1, 9)},
	}
	for _, c := range cases {
		method, res := run(t, c.m, c.graph, c.scheme, gbp.DefaultOptions())
		if !res.Converged {
			t.Fatalf("%s: not converged", c.name)
		}
		F := refFreeEnergy(method.Graph(), c.m, method.Beliefs())
		if d := math.Abs(F - res.FreeEnergy); d > 1e-9 {
			t.Errorf("%s: free energy %v, recomputed %v", c.name, res.FreeEnergy, F)
		}
		if res.LogZ != -res.FreeEnergy {
			t.Errorf("%s: lnZ %v is not -F %v", c.name, res.LogZ, -res.FreeEnergy)
		}
	}
}

// TestZeroPotentials: -Inf entries never produce NaN; states a factor rules
// out get exactly zero probability in its marginal.
func TestZeroPotentials(t *testing.T) {
	ninf := math.Inf(-1)
	hard := infertest.Config{MinCard: 2, MaxCard: 3, Scale: 1, Unary: true, ZeroProb: 0.3}
	es, _ := mrf.GridEdges(3, false)
	var gridScopes [][]int
	for _, e := range es {
		gridScopes = append(gridScopes, []int{e.J, e.I})
	}
	type tc struct {
		m             *mrf.Model
		graph, scheme string
	}
	cases := map[string]tc{
		"loopy bethe": {infertest.RandomModel(6, [][]int{{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}, {4, 5}, {5, 3}}, hard, 1), "uai", "bethe"},
		"grid faces":  {infertest.RandomModel(9, gridScopes, hard, 2), "grid", "faces"},
		"evidence": {&mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
			{Vars: []int{0, 1}, LogTable: []float64{0.5, -1, 0.2, 1}},
			{Vars: []int{1, 2}, LogTable: []float64{1, 0, 0, 1}},
			{Vars: []int{2, 0}, LogTable: []float64{0.3, 0.1, -0.4, 0}},
			{Vars: []int{1}, LogTable: []float64{ninf, 0}},
		}}, "uai", "cycles"},
	}
	for name, c := range cases {
		exact, err := infertest.BruteForce(c.m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, res := run(t, c.m, c.graph, c.scheme, gbp.DefaultOptions())
		for a, f := range c.m.Factors {
			for k, l := range f.LogTable {
				if math.IsInf(l, -1) && res.Marginals.Factors[a][k] != 0 {
					t.Errorf("%s: factor %d entry %d is a zero potential but has probability %g", name, a, k, res.Marginals.Factors[a][k])
				}
			}
		}
		if math.IsInf(res.FreeEnergy, 0) {
			t.Errorf("%s: free energy %v", name, res.FreeEnergy)
		}
		if d := infertest.MaxAbsDiff(res.Marginals.Vars, exact.Marginals.Vars); name == "evidence" && d > 1e-7 {
			// One triangle is the whole model: the region graph is exact.
			t.Errorf("%s: marginals off by %g", name, d)
		}
	}
}

// TestContradiction: when the potentials allow no state at all, GBP still
// returns a NaN-free result and reports the degenerate beliefs.
func TestContradiction(t *testing.T) {
	ninf := math.Inf(-1)
	m := &mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0, ninf, ninf, 0}}, // x0 = x1
		{Vars: []int{1, 2}, LogTable: []float64{0, ninf, ninf, 0}}, // x1 = x2
		{Vars: []int{0}, LogTable: []float64{0, ninf}},
		{Vars: []int{2}, LogTable: []float64{ninf, 0}},
	}}
	method := mustNew(t, build(t, m, "uai", "bethe"), gbp.DefaultOptions())
	res, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := infertest.CheckResult(m, res); err != nil {
		t.Fatalf("malformed result: %v", err)
	}
	if res.Diagnostics["degenerate_beliefs"] == 0 {
		t.Errorf("no degenerate beliefs reported: %v", res.Diagnostics)
	}
}

// TestNonConvergenceReported: a run stopped by the iteration cap says so.
func TestNonConvergenceReported(t *testing.T) {
	m := grid(t, 4, 1, 0)
	_, res := run(t, m, "grid", "faces", infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.MaxIter = 2 }))
	if res.Converged || res.Iterations != 2 {
		t.Errorf("converged %v after %d sweeps, want false after 2", res.Converged, res.Iterations)
	}
	if !(res.Diagnostics["max_delta"] >= gbp.DefaultOptions().Tol) {
		t.Errorf("max_delta %v below the tolerance", res.Diagnostics["max_delta"])
	}
}

// TestStalledNotConverged: on noisy-OR networks whose sweeps settle into a
// cycle (see Convergence in the package comment: beliefs at the end of every
// sweep the same, a parent and child apart by 1e-4 to 7e-4, within the shared
// check's 1e-3), GBP stops as soon as the beliefs stop changing and says it
// did not converge; the fixed point is elsewhere (ln Z 7e-4 to 4e-3 off, where
// the fixed point of double-loop GBP is within 1e-9 of exact on these).
func TestStalledNotConverged(t *testing.T) {
	for _, c := range []struct {
		size, k     int
		sweeps      int
		consAtLeast float64
	}{
		// sample-model factors --family noisy-or --size N --seed 5: model k
		{40, 17, 2, 4e-4},
		{50, 8, 3, 2e-4},
		{80, 28, 4, 7e-4},
	} {
		m, err := mrf.FactorFamily{Family: mrf.FamilyNoisyOR, Size: c.size}.Generate(mrf.DeriveSeed(5, c.k))
		if err != nil {
			t.Fatal(err)
		}
		_, res := run(t, m, "noisy-or", "auto", gbp.DefaultOptions())
		name := fmt.Sprintf("noisy-or%d-%d", c.size, c.k)
		cons := res.Diagnostics["max_consistency"]
		if res.Converged || res.Diagnostics["inconsistent"] != 1 || !gbp.Stalled(res) {
			t.Errorf("%s: converged %v, inconsistent %v (max_consistency %.3g): want a stalled run", name, res.Converged, res.Diagnostics["inconsistent"], cons)
		}
		if res.Iterations != c.sweeps || !(res.Diagnostics["max_delta"] < 1e-12) || !(cons >= c.consAtLeast && cons <= infer.ConsistencyTol) {
			t.Errorf("%s: %d sweeps, max_delta %.3g, max_consistency %.3g: want the beliefs still after %d sweeps, regions apart by %g to %g",
				name, res.Iterations, res.Diagnostics["max_delta"], cons, c.sweeps, c.consAtLeast, infer.ConsistencyTol)
		}
	}
}

// TestWarmStart: a second call on the same model starts at the fixed point;
// a model with new tables but the same structure warm-starts to the answer a
// fresh run gives; Reset forgets the messages.
func TestWarmStart(t *testing.T) {
	m := grid(t, 4, 0.5, 3)
	g := build(t, m, "grid", "faces")
	method := mustNew(t, g, gbp.DefaultOptions())
	first, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := method.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Converged || again.Iterations != 1 {
		t.Errorf("warm start on the same model: converged %v after %d sweeps, want 1", again.Converged, again.Iterations)
	}
	if d := infertest.MaxAbsDiff(first.Marginals.Vars, again.Marginals.Vars); d > 1e-8 {
		t.Errorf("warm start moved the marginals by %g", d)
	}

	m2 := m.Clone()
	for a := range m2.Factors {
		for k := range m2.Factors[a].LogTable {
			m2.Factors[a].LogTable[k] *= 1.02
		}
	}
	warm, err := method.Infer(context.Background(), m2)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := mustNew(t, g, gbp.DefaultOptions()).Infer(context.Background(), m2)
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Converged || warm.Iterations >= fresh.Iterations {
		t.Errorf("warm start took %d sweeps (converged %v), fresh %d", warm.Iterations, warm.Converged, fresh.Iterations)
	}
	if d := infertest.MaxAbsDiff(warm.Marginals.Vars, fresh.Marginals.Vars); d > 1e-7 {
		t.Errorf("warm and fresh marginals differ by %g", d)
	}

	method.Reset()
	if method.Beliefs() != nil {
		t.Error("Beliefs after Reset is not nil")
	}
	reset, err := method.Infer(context.Background(), m2)
	if err != nil {
		t.Fatal(err)
	}
	if reset.Iterations != fresh.Iterations || infertest.MaxAbsDiff(reset.Marginals.Vars, fresh.Marginals.Vars) != 0 {
		t.Errorf("after Reset: %d sweeps, fresh %d", reset.Iterations, fresh.Iterations)
	}
}

// TestBadModels: a model that does not fit the region graph, is invalid, or
// is too large for it gives an error that says so, on a fresh method and
// after a warm start, which it leaves intact.
func TestBadModels(t *testing.T) {
	m := grid(t, 3, 1, 0)
	extra := m.Clone()
	extra.Factors = append(extra.Factors, mrf.Factor{Vars: []int{0, 8}, LogTable: []float64{0, 1, 1, 0}})
	nan := m.Clone()
	nan.Factors[0].LogTable[0] = math.NaN()
	invalid := build(t, m, "grid", "faces")
	invalid.Regions[len(invalid.Regions)-1].Counting = 2
	big := grid(t, 10, 1, 0)
	tests := []struct {
		name string
		g    *region.Graph
		m    *mrf.Model
		want string
	}{
		{"nil model", nil, nil, "gbp: nil model"},
		{"model of another size", nil, grid(t, 4, 1, 0), "gbp: region graph does not fit the model"},
		{"factor outside every region", nil, extra, "gbp: region graph does not fit the model: region graph not valid: factor 21"},
		{"NaN table", nil, nan, "gbp: invalid model: factor 0: table entry 0 is NaN"},
		{"invalid region graph", invalid, m, "gbp: region graph does not fit the model: region graph not valid: variable 4"},
		{"region over MaxStates", build(t, big, "grid", "faces+outer"), big, "has more than 4194304 joint states"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			if g == nil {
				g = build(t, m, "grid", "faces")
			}
			method := mustNew(t, g, gbp.DefaultOptions())
			if _, err := method.Infer(context.Background(), tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("fresh: got %v, want an error containing %q", err, tc.want)
			}
			if tc.g != nil {
				return // the graph does not fit m either
			}
			if _, err := method.Infer(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			if _, err := method.Infer(context.Background(), tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("after a warm start: got %v, want an error containing %q", err, tc.want)
			}
			res, err := method.Infer(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Iterations != 1 {
				t.Errorf("back on the first model: %d sweeps, want 1 (a warm start)", res.Iterations)
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	m := grid(t, 3, 1, 0)
	method := mustNew(t, build(t, m, "grid", "faces"), gbp.DefaultOptions())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := method.Infer(ctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v", err)
	}
}

func TestOptionsAndName(t *testing.T) {
	m := grid(t, 3, 1, 0)
	g := build(t, m, "grid", "faces")
	if _, err := gbp.New(nil, gbp.DefaultOptions()); err == nil {
		t.Error("nil graph: no error")
	}
	if _, err := gbp.New(&region.Graph{}, gbp.DefaultOptions()); err == nil {
		t.Error("empty graph: no error")
	}
	if _, err := gbp.New(g, gbp.Options{}); err == nil {
		t.Error("zero options: no error")
	}
	with := func(f func(o *gbp.Options)) gbp.Options { return infertest.With(gbp.DefaultOptions(), f) }
	for _, c := range []struct {
		opt string // the option the error must name
		o   gbp.Options
	}{
		{"max_iter", with(func(o *gbp.Options) { o.MaxIter = 0 })},
		{"max_iter", with(func(o *gbp.Options) { o.MaxIter = -1 })},
		{"tol", with(func(o *gbp.Options) { o.Tol = 0 })},
		{"tol", with(func(o *gbp.Options) { o.Tol = -1 })},
		{"tol", with(func(o *gbp.Options) { o.Tol = math.NaN() })},
		{"tol", with(func(o *gbp.Options) { o.Tol = math.Inf(1) })},
		{"damping", with(func(o *gbp.Options) { o.Damping = 1 })},
		{"damping", with(func(o *gbp.Options) { o.Damping = -0.1 })},
		{"damping", with(func(o *gbp.Options) { o.Damping = math.NaN() })},
		{"cons_tol", with(func(o *gbp.Options) { o.ConsTol = 0 })},
		{"cons_tol", with(func(o *gbp.Options) { o.ConsTol = -1e-6 })},
		{"cons_tol", with(func(o *gbp.Options) { o.ConsTol = math.NaN() })},
		{"cons_tol", with(func(o *gbp.Options) { o.ConsTol = math.Inf(1) })},
		{"cons_tol", with(func(o *gbp.Options) { o.ConsTol = 2e-3 })},
	} {
		_, err := gbp.New(g, c.o)
		if err == nil || !strings.Contains(err.Error(), c.opt) {
			t.Errorf("options %+v: error %v, want one naming %s", c.o, err, c.opt)
		}
	}
	for _, ok := range []float64{1e-12, infer.ConsistencyTol} {
		if _, err := gbp.New(g, with(func(o *gbp.Options) { o.ConsTol = ok })); err != nil {
			t.Errorf("cons_tol %g: %v", ok, err)
		}
	}
	method := mustNew(t, g, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Damping = 0.3 }))
	if got, want := method.Options(), (infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.Tol = 1e-9; o.MaxIter = 2000; o.Damping = 0.3 })); got != want {
		t.Errorf("options %+v, want %+v", got, want)
	}
	if method.Name() != "gbp" || method.Graph() != g {
		t.Errorf("name %q, graph %p (want gbp, %p)", method.Name(), method.Graph(), g)
	}
}

// TestSweepAllocations: sweeps allocate nothing, so 30 sweeps cost no more
// allocations than one.
func TestSweepAllocations(t *testing.T) {
	m := grid(t, 5, 1, 2)
	g := build(t, m, "grid", "faces")
	one := mustNew(t, g, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.MaxIter = 1; o.Tol = 1e-300 }))
	many := mustNew(t, g, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.MaxIter = 30; o.Tol = 1e-300 }))
	a1 := testing.AllocsPerRun(5, func() { one.Infer(context.Background(), m) })
	a30 := testing.AllocsPerRun(5, func() { many.Infer(context.Background(), m) })
	if a30 != a1 {
		t.Errorf("1 sweep: %v allocations, 30 sweeps: %v", a1, a30)
	}
}

func benchGrid(b *testing.B, L int) {
	m := grid(b, L, 1, 1)
	method := mustNew(b, build(b, m, "grid", "faces"), gbp.DefaultOptions())
	sweeps := 0
	b.ReportAllocs()
	for b.Loop() {
		method.Reset()
		res, err := method.Infer(context.Background(), m)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Converged {
			b.Fatalf("not converged after %d sweeps", res.Iterations)
		}
		sweeps += res.Iterations
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sweeps), "ns/sweep")
	b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/op")
}

// BenchmarkGBPGrid20 runs GBP from scratch (setup included) to convergence
// on a 20x20 Ising grid, gamma 1, faces region graph.
func BenchmarkGBPGrid20(b *testing.B) { benchGrid(b, 20) }

// BenchmarkGBPGrid10 is the same on a 10x10 grid.
func BenchmarkGBPGrid10(b *testing.B) { benchGrid(b, 10) }

// BenchmarkGBPWarmGrid10 runs GBP as learning does: every call warm-starts on
// a model of the same structure with slightly changed tables (10x10 grid,
// faces), so the per-call work (structure check, potentials, read-out) shows
// beside the few sweeps.
func BenchmarkGBPWarmGrid10(b *testing.B) {
	m := grid(b, 10, 1, 1)
	m2 := m.Clone()
	for _, f := range m2.Factors {
		for i := range f.LogTable {
			f.LogTable[i] *= 1.001
		}
	}
	method := mustNew(b, build(b, m, "grid", "faces"), gbp.DefaultOptions())
	if _, err := method.Infer(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	models := []*mrf.Model{m2, m}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := method.Infer(context.Background(), models[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSweepRBM20 times sweeps of GBP on the bounded cycles region graph
// (auto) of a 20+20 RBM (couplings U(-0.5,0.5), seed 1): 361 roots of four
// binary variables (4-cycles), 38 intersections of three and one of two; 760
// edges, 1444 message updates per sweep. It runs a fixed 20 sweeps per op
// from a warm start, so ns/sweep is the cost of one sweep (with the per-call
// read-out spread over 20 sweeps).
func BenchmarkSweepRBM20(b *testing.B) {
	m := infertest.RBM(20, 20, 0.5, 1)
	g := build(b, m, "uai", "auto")
	method := mustNew(b, g, infertest.With(gbp.DefaultOptions(), func(o *gbp.Options) { o.MaxIter = 20; o.Tol = 1e-300 }))
	if _, err := method.Infer(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	sweeps := 0
	for b.Loop() {
		res, err := method.Infer(context.Background(), m)
		if err != nil {
			b.Fatal(err)
		}
		sweeps += res.Iterations
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(sweeps), "ns/sweep")
}
