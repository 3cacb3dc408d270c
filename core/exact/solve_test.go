package exact

import (
	"context"
	"errors"
	"fmt"
	"github.com/renn-go/renn/core/infer/infertest"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// brute is the exact answer by enumeration of every joint state.
type brute struct {
	logZ float64
	vars [][]float64
	facs [][]float64
}

func bruteForce(m *mrf.Model) brute {
	n := len(m.Cards)
	x := make([]int, n)
	var scores []float64
	var states [][]int
	for {
		scores = append(scores, m.LogScore(x))
		states = append(states, append([]int(nil), x...))
		i := n - 1
		for ; i >= 0; i-- {
			x[i]++
			if x[i] < m.Cards[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			break
		}
	}
	mx := math.Inf(-1)
	for _, s := range scores {
		mx = max(mx, s)
	}
	b := brute{logZ: math.Inf(-1), vars: make([][]float64, n), facs: make([][]float64, len(m.Factors))}
	if math.IsInf(mx, -1) {
		return b
	}
	z := 0.0
	for _, s := range scores {
		z += math.Exp(s - mx)
	}
	b.logZ = mx + math.Log(z)
	for v := range b.vars {
		b.vars[v] = make([]float64, m.Cards[v])
	}
	for a, f := range m.Factors {
		b.facs[a] = make([]float64, len(f.LogTable))
	}
	for i, st := range states {
		p := math.Exp(scores[i] - b.logZ)
		for v, s := range st {
			b.vars[v][s] += p
		}
		for a := range m.Factors {
			f := &m.Factors[a]
			b.facs[a][f.Index(m.Cards, st)] += p
		}
	}
	return b
}

// bruteForceDense is bruteForce for models of many joint states: it visits
// the joint states twice (for the maximum score, then for the marginals)
// without storing them, keeping every factor's table index as the state
// advances. Factors list each variable once.
func bruteForceDense(m *mrf.Model) brute {
	type step struct{ factor, stride int }
	touches := make([][]step, len(m.Cards))
	for a, f := range m.Factors {
		s := 1
		for i := len(f.Vars) - 1; i >= 0; i-- {
			touches[f.Vars[i]] = append(touches[f.Vars[i]], step{a, s})
			s *= m.Cards[f.Vars[i]]
		}
	}
	x, idx := make([]int, len(m.Cards)), make([]int, len(m.Factors))
	visit := func(fn func(score float64)) {
		clear(x)
		clear(idx)
		for {
			score := 0.0
			for a := range m.Factors {
				score += m.Factors[a].LogTable[idx[a]]
			}
			fn(score)
			v := len(x) - 1
			for ; v >= 0 && x[v]+1 == m.Cards[v]; v-- {
				for _, t := range touches[v] {
					idx[t.factor] -= x[v] * t.stride
				}
				x[v] = 0
			}
			if v < 0 {
				return
			}
			x[v]++
			for _, t := range touches[v] {
				idx[t.factor] += t.stride
			}
		}
	}
	mx, z := math.Inf(-1), 0.0
	visit(func(s float64) { mx = max(mx, s) })
	b := brute{logZ: math.Inf(-1), vars: make([][]float64, len(m.Cards)), facs: make([][]float64, len(m.Factors))}
	if math.IsInf(mx, -1) {
		return b
	}
	visit(func(s float64) { z += math.Exp(s - mx) })
	b.logZ = mx + math.Log(z)
	for v, c := range m.Cards {
		b.vars[v] = make([]float64, c)
	}
	for a, f := range m.Factors {
		b.facs[a] = make([]float64, len(f.LogTable))
	}
	visit(func(s float64) {
		p := math.Exp(s - b.logZ)
		for v, xv := range x {
			b.vars[v][xv] += p
		}
		for a, i := range idx {
			b.facs[a][i] += p
		}
	})
	return b
}

// TestBruteForceDense checks the reference of the dense models against
// bruteForce on small random models.
func TestBruteForceDense(t *testing.T) {
	r := mrf.NewRand(8)
	for i := range 100 {
		m := randomModel(r)
		want, got := bruteForce(m), bruteForceDense(m)
		if !closeTo(got.logZ, want.logZ, 1e-12) {
			t.Fatalf("model %d: ln Z %v, bruteForce's %v", i, got.logZ, want.logZ)
		}
		for a := range want.facs {
			for j := range want.facs[a] {
				if math.Abs(got.facs[a][j]-want.facs[a][j]) > 1e-12 {
					t.Fatalf("model %d: factor %d marginal[%d] %v, bruteForce's %v", i, a, j, got.facs[a][j], want.facs[a][j])
				}
			}
		}
		for v := range want.vars {
			for j := range want.vars[v] {
				if math.Abs(got.vars[v][j]-want.vars[v][j]) > 1e-12 {
					t.Fatalf("model %d: p(x%d=%d) %v, bruteForce's %v", i, v, j, got.vars[v][j], want.vars[v][j])
				}
			}
		}
	}
}

// randomModel draws a small model with every awkward feature: cardinalities
// 1 to 4, factors of arity 0 to 3 over unsorted scopes, some zero potentials,
// isolated variables and (often) several components.
func randomModel(r *rand.Rand) *mrf.Model {
	n := 1 + r.IntN(11)
	m := &mrf.Model{Cards: make([]int, n)}
	states := 1
	for i := range m.Cards {
		c := 2 + r.IntN(3)
		if r.IntN(6) == 0 || states*c > 6000 {
			c = 1 + r.IntN(2)
		}
		m.Cards[i] = c
		states *= c
	}
	nf := r.IntN(2*n + 2)
	for range nf {
		arity := r.IntN(4)
		if r.IntN(8) == 0 {
			arity = 0
		}
		arity = min(arity, n)
		vars := r.Perm(n)[:arity]
		size := mrf.TableSize(m.Cards, vars)
		tab := make([]float64, size)
		scale := 1 + 2*r.Float64()
		for i := range tab {
			tab[i] = scale * r.NormFloat64()
			if size > 1 && r.IntN(7) == 0 {
				tab[i] = math.Inf(-1)
			}
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars, LogTable: tab})
	}
	return m
}

func closeTo(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(b))
}

func compare(t *testing.T, name string, got *Result, want brute, tol float64) {
	t.Helper()
	if !closeTo(got.LogZ, want.logZ, tol) {
		t.Errorf("%s: log Z = %.15g, brute force %.15g", name, got.LogZ, want.logZ)
	}
	for v := range want.vars {
		for s := range want.vars[v] {
			if math.Abs(got.Marginals.Vars[v][s]-want.vars[v][s]) > tol {
				t.Errorf("%s: p(x%d=%d) = %.15g, brute force %.15g", name, v, s, got.Marginals.Vars[v][s], want.vars[v][s])
			}
		}
	}
	for a := range want.facs {
		if len(got.Marginals.Factors[a]) != len(want.facs[a]) {
			t.Fatalf("%s: factor %d marginal has %d entries, want %d", name, a, len(got.Marginals.Factors[a]), len(want.facs[a]))
		}
		for i := range want.facs[a] {
			if math.Abs(got.Marginals.Factors[a][i]-want.facs[a][i]) > tol {
				t.Errorf("%s: factor %d marginal[%d] = %.15g, brute force %.15g", name, a, i, got.Marginals.Factors[a][i], want.facs[a][i])
			}
		}
	}
}

func TestSolveRandomModelsMatchBruteForce(t *testing.T) {
	r := mrf.NewRand(7)
	zero := 0
	for i := range 300 {
		m := randomModel(r)
		want := bruteForce(m)
		got, err := Solve(m, infertest.With(DefaultOptions(), func(o *Options) { o.Seed = int64(i) }))
		if math.IsInf(want.logZ, -1) {
			zero++
			if !errors.Is(err, ErrZeroPartition) {
				t.Errorf("model %d: Z = 0 by brute force, Solve gave %v", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		compare(t, "model "+itoa(i), got, want, 1e-9)
		// A tiny memory budget forces recomputation; results must not move.
		tight, err := Solve(m, infertest.With(DefaultOptions(), func(o *Options) { o.Seed = int64(i); o.Memory = 1 }))
		if err != nil {
			t.Fatalf("model %d, tiny memory: %v", i, err)
		}
		compare(t, "model "+itoa(i)+" tiny memory", tight, want, 1e-9)
	}
	if zero == 0 || zero > 100 {
		t.Errorf("%d of 300 models have Z = 0; the generator should make a few", zero)
	}
}

// TestSolveSplitKernels solves dense random models (every pair of
// variables in a factor) of 2^19 to 2^20 joint states, whose contractions
// reach parallelMin entries, so that their loops are split between two
// workers, and checks them against brute force (with a tiny memory budget
// every other model, which forces recomputation).
func TestSolveSplitKernels(t *testing.T) {
	r := mrf.NewRand(77)
	split := splitCounts{}
	for i := 0; i < 3; {
		m := denseModel(r)
		want := bruteForceDense(m)
		if math.IsInf(want.logZ, -1) {
			continue
		}
		pr, err := Prepare(m, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = []int64{DefaultMemory, 1}[i%2] }))
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		got, err := pr.Solve(context.Background())
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		compare(t, "dense model "+itoa(i), got, want, 1e-9)
		t.Logf("model %d: %d variables, largest table %d", i, len(m.Cards), pr.Plan.LargestTable)
		split.addPlan(pr)
		i++
	}
	split.require(t, 1, splitSweep, splitBlocks, splitPermute, splitGather, splitNormalise, splitRows)
}

// denseModel draws a model of variables of 2 or 3 states, 2^19 to 2^20
// joint states, with a factor on every variable and on every pair of them
// (so its contraction tables reach parallelMin entries), and three factors
// of arity 3 with about one zero potential in eight.
func denseModel(r *rand.Rand) *mrf.Model {
	m := &mrf.Model{}
	for states := 1; states < 8*parallelMin; {
		c := 2 + r.IntN(2)
		if states*c > 16*parallelMin {
			c = 2
		}
		m.Cards = append(m.Cards, c)
		states *= c
	}
	n := len(m.Cards)
	for v := range n {
		m.Factors = append(m.Factors, randomFactor(r, []int{v}, m.Cards, false))
	}
	for u := range n {
		for v := u + 1; v < n; v++ {
			m.Factors = append(m.Factors, randomFactor(r, []int{u, v}, m.Cards, false))
		}
	}
	for range 3 {
		m.Factors = append(m.Factors, randomFactor(r, r.Perm(n)[:3], m.Cards, true))
	}
	return m
}

// randomFactor draws a factor over vars of log potentials N(0, 1.5^2),
// with zeros, about one potential in eight zero.
func randomFactor(r *rand.Rand, vars, cards []int, zeros bool) mrf.Factor {
	tab := make([]float64, mrf.TableSize(cards, vars))
	for i := range tab {
		tab[i] = 1.5 * r.NormFloat64()
		if zeros && r.IntN(8) == 0 {
			tab[i] = math.Inf(-1)
		}
	}
	return mrf.Factor{Vars: slices.Clone(vars), LogTable: tab}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestSolveGrid4 checks a 4x4 Ising grid, several components and a fixed
// variable against brute force.
func TestSolveStructured(t *testing.T) {
	grid := gridModel(t, 4, 1, 3)
	// Two disconnected 2x2 grids plus an isolated ternary variable, a
	// cardinality-1 variable inside a factor and an empty factor.
	es, _ := mrf.GridEdges(2, false)
	two := mrf.RandomIsing(4, es, 0.5, 9)
	for _, f := range mrf.RandomIsing(4, es, 2, 10).Factors {
		vars := make([]int, len(f.Vars))
		for i, v := range f.Vars {
			vars[i] = v + 4
		}
		two.Factors = append(two.Factors, mrf.Factor{Vars: vars, LogTable: f.LogTable})
	}
	two.Cards = append(two.Cards, 2, 2, 2, 2, 3, 1)
	two.Factors = append(two.Factors,
		mrf.Factor{Vars: []int{9, 2}, LogTable: []float64{0.3, -1}},
		mrf.Factor{Vars: nil, LogTable: []float64{1.5}},
		mrf.Factor{Vars: []int{9}, LogTable: []float64{0.25}},
	)
	observed := gridModel(t, 3, 1, 4)
	if err := observed.Observe(4, 1); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*mrf.Model{"grid 4x4": grid, "components": two, "observed": observed} {
		got, err := Solve(m, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compare(t, name, got, bruteForce(m), 1e-10)
	}
}

// TestSolveLargeLogZ scales every potential so log Z is far beyond the range
// of float64 exponentials.
func TestSolveLargeLogZ(t *testing.T) {
	m := gridModel(t, 3, 1, 5)
	for a := range m.Factors {
		for i := range m.Factors[a].LogTable {
			m.Factors[a].LogTable[i] = 150*m.Factors[a].LogTable[i] + 300
		}
	}
	want := bruteForce(m)
	if want.logZ < 4000 {
		t.Fatalf("brute-force log Z %g, want > 4000 for this test", want.logZ)
	}
	got, err := Solve(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "scaled grid", got, want, 1e-9)
	// The same with negative offsets: log Z far below -4000.
	for a := range m.Factors {
		for i := range m.Factors[a].LogTable {
			m.Factors[a].LogTable[i] -= 900
		}
	}
	want = bruteForce(m)
	got, err = Solve(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want.logZ > -4000 {
		t.Fatalf("brute-force log Z %g, want < -4000 for this test", want.logZ)
	}
	compare(t, "negative scaled grid", got, want, 1e-9)
}

func TestSolveZeroPartition(t *testing.T) {
	ninf := math.Inf(-1)
	cases := map[string]*mrf.Model{
		"contradictory evidence": {Cards: []int{2, 2}, Factors: []mrf.Factor{
			{Vars: []int{0, 1}, LogTable: []float64{0, ninf, ninf, 0}},
			{Vars: []int{0}, LogTable: []float64{0, ninf}},
			{Vars: []int{1}, LogTable: []float64{ninf, 0}},
		}},
		"all-zero factor": {Cards: []int{3}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{ninf, ninf, ninf}}}},
		"zero constant":   {Cards: []int{2}, Factors: []mrf.Factor{{LogTable: []float64{ninf}}}},
		"zero across a chain": {Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
			{Vars: []int{0, 1}, LogTable: []float64{0, ninf, ninf, 0}},
			{Vars: []int{1, 2}, LogTable: []float64{0, ninf, ninf, 0}},
			{Vars: []int{2, 0}, LogTable: []float64{ninf, 0, 0, ninf}},
		}},
	}
	for name, m := range cases {
		if _, err := Solve(m, DefaultOptions()); !errors.Is(err, ErrZeroPartition) {
			t.Errorf("%s: Solve gave %v, want ErrZeroPartition", name, err)
		}
		if _, _, err := Sample(m, 3, mrf.NewRand(1), DefaultOptions()); !errors.Is(err, ErrZeroPartition) {
			t.Errorf("%s: Sample gave %v, want ErrZeroPartition", name, err)
		}
	}
}

func TestSolveBadInput(t *testing.T) {
	good := gridModel(t, 2, 1, 1)
	cases := map[string]struct {
		m   *mrf.Model
		opt Options
	}{
		"no variables":     {&mrf.Model{}, DefaultOptions()},
		"bad table":        {&mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0}}}}, DefaultOptions()},
		"NaN entry":        {&mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, math.NaN()}}}}, DefaultOptions()},
		"negative memory":  {good, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = -1 })},
		"negative tries":   {good, infertest.With(DefaultOptions(), func(o *Options) { o.Tries = -2 })},
		"negative maximum": {good, infertest.With(DefaultOptions(), func(o *Options) { o.MaxTable = -5 })},
	}
	for name, c := range cases {
		if _, err := Solve(c.m, c.opt); err == nil {
			t.Errorf("%s: Solve accepted it", name)
		}
		if _, _, err := Sample(c.m, 1, mrf.NewRand(1), c.opt); err == nil {
			t.Errorf("%s: Sample accepted it", name)
		}
		if _, err := MakeOrder(c.m, c.opt); err == nil {
			t.Errorf("%s: MakePlan accepted it", name)
		}
	}
	if _, _, err := Sample(good, -1, mrf.NewRand(1), DefaultOptions()); err == nil {
		t.Error("Sample accepted a negative count")
	}
	if _, _, err := Sample(good, 1, nil, DefaultOptions()); err == nil {
		t.Error("Sample accepted a nil generator")
	}
}

// TestSolveCheckpoints runs a grid too wide for brute force with a budget
// that forces recomputation and with enough memory to store everything: the
// numbers must be identical, and the tight run must really recompute.
func TestSolveCheckpoints(t *testing.T) {
	m := gridModel(t, 7, 1, 11)
	full, ef, err := solve(m, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = 1 << 40 }))
	if err != nil {
		t.Fatal(err)
	}
	for _, mem := range []int64{1, 4 << 10, 12 << 10} {
		tight, et, err := solve(m, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = mem }))
		if err != nil {
			t.Fatal(err)
		}
		if et.forwards <= ef.forwards {
			t.Errorf("memory %d: %d forward steps, no more than the %d of the unlimited run", mem, et.forwards, ef.forwards)
		}
		t.Logf("memory %d: %d forward steps (unlimited: %d)", mem, et.forwards, ef.forwards)
		if tight.LogZ != full.LogZ {
			t.Errorf("memory %d: log Z %v, unlimited %v", mem, tight.LogZ, full.LogZ)
		}
		for v := range full.Marginals.Vars {
			for s := range full.Marginals.Vars[v] {
				if tight.Marginals.Vars[v][s] != full.Marginals.Vars[v][s] {
					t.Fatalf("memory %d: marginal of %d differs", mem, v)
				}
			}
		}
		for a := range full.Marginals.Factors {
			for i := range full.Marginals.Factors[a] {
				if tight.Marginals.Factors[a][i] != full.Marginals.Factors[a][i] {
					t.Fatalf("memory %d: factor %d marginal differs", mem, a)
				}
			}
		}
	}
	// Internal consistency of the unlimited run: each pairwise factor
	// marginal sums to the marginals of its two variables.
	for a := 49; a < len(m.Factors); a++ {
		f := m.Factors[a]
		fm := full.Marginals.Factors[a]
		for s := range 2 {
			if d := fm[2*s] + fm[2*s+1] - full.Marginals.Vars[f.Vars[0]][s]; math.Abs(d) > 1e-12 {
				t.Errorf("factor %d row %d off by %g", a, s, d)
			}
			if d := fm[s] + fm[2+s] - full.Marginals.Vars[f.Vars[1]][s]; math.Abs(d) > 1e-12 {
				t.Errorf("factor %d column %d off by %g", a, s, d)
			}
		}
	}
}

// TestSolveSlicedMatchesBruteForce bounds the tables so that random models
// are solved in slices (some of them of Z = 0, where zeros meet the sliced
// states), checked against brute force.
func TestSolveSlicedMatchesBruteForce(t *testing.T) {
	r := mrf.NewRand(17)
	sliced := 0
	for i := 0; i < 150; {
		m := randomModel(r)
		want := bruteForce(m)
		if math.IsInf(want.logZ, -1) {
			continue
		}
		opt := infertest.With(DefaultOptions(), func(o *Options) {
			o.MaxTable = []int64{1, 2, 4, 9}[i%4]
			o.Memory = []int64{DefaultMemory, 1}[i/4%2]
		})
		got, err := Solve(m, opt)
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		if len(got.Plan.Sliced) > 0 {
			sliced++
		}
		if got.Plan.LargestTable > opt.MaxTable {
			t.Errorf("model %d: largest table %d above max table %d", i, got.Plan.LargestTable, opt.MaxTable)
		}
		compare(t, "sliced model "+itoa(i), got, want, 1e-9)
		i++
	}
	if sliced < 30 {
		t.Errorf("only %d of 150 models were sliced", sliced)
	}
}

// TestSolveSlicedMatchesUnsliced solves models too wide for brute force
// with tables bounded far below what their plans need: the slices (many,
// some of zero Z on the pedigree) add up to the unsliced answer to 1e-12,
// marginals of every variable and factor included, with and without
// checkpoints within the slices.
func TestSolveSlicedMatchesUnsliced(t *testing.T) {
	potts, err := mrf.Potts{N: 30, K: 5, Treewidth: 5, Edges: 80}.Generate(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		m      *mrf.Model
		shrink int64 // the bound on tables: the unsliced plan's largest over this
	}{{"potts 30x5", potts, 16}, {"grid 9x9", gridModel(t, 9, 2, 3), 16}, {"pedigree kind", mrf.KindPedigree(80, 10, 1), 4},
		{"csp kind", mrf.KindCSP(30, 45, 6, 2), 16}} {
		name, m := c.name, c.m
		full, err := Solve(m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, mem := range []int64{DefaultMemory, 1 << 12} {
			opt := infertest.With(DefaultOptions(), func(o *Options) {
				o.MaxTable = max(full.Plan.LargestTable/c.shrink, 1)
				o.Memory = mem
			})
			sliced, err := Solve(m, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			t.Logf("%s: %v sliced over %v", name, sliced.Plan.Cost, sliced.Plan.Sliced)
			if sliced.Plan.Slices < 2 || sliced.Plan.LargestTable > opt.MaxTable {
				t.Errorf("%s: %d slices, largest table %d (bound %d)", name, sliced.Plan.Slices, sliced.Plan.LargestTable, opt.MaxTable)
			}
			compareResults(t, name+" sliced", sliced, full, 1e-12)
		}
	}
}

// TestSolveSameOnAnyCores solves with one core and with four models whose
// tables reach parallelMin entries, so that loops are split between two
// workers: the answers are identical to the bit, as the split depends on
// table sizes alone.
func TestSolveSameOnAnyCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	potts, err := mrf.Potts{N: 24, K: 6, Treewidth: 7, Edges: 90}.Generate(3)
	if err != nil {
		t.Fatal(err)
	}
	split := splitCounts{}
	for name, m := range map[string]*mrf.Model{"potts": potts, "grid 16x16": gridModel(t, 16, 1, 4), "csp kind": mrf.KindCSP(40, 60, 8, 2)} {
		var results []*Result
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			pr, err := Prepare(m, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			res, err := pr.Solve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, res)
			if procs == 1 {
				t.Logf("%s: largest table %d", name, pr.Plan.LargestTable)
				split.addPlan(pr)
			}
		}
		if !reflect.DeepEqual(results[0].Marginals, results[1].Marginals) || results[0].LogZ != results[1].LogZ {
			t.Errorf("%s: one core and four give different answers (ln Z %v and %v)", name, results[0].LogZ, results[1].LogZ)
		}
	}
	split.require(t, 2, splitSweep, splitBlocks, splitPermute, splitGather, splitNormalise, splitRows)
}

// TestSolveExtremeCouplings: spin glasses with couplings U(-400, 400) have
// factors whose entries span e^1600, beyond float64's range, and
// contractions whose every product is below it; ln Z and the marginals
// still match a log-space brute force, and the 6x6 grid (beyond brute
// force) matches the log-space transfer matrix. Spin glasses of couplings
// up to U(-15, 15) stay in linear space.
func TestSolveExtremeCouplings(t *testing.T) {
	for _, f := range []float64{1, 15} {
		es, _ := mrf.GridEdges(10, false)
		m := mrf.RandomIsingWith(100, es, mrf.Normal(1), mrf.Uniform(f), 1)
		if _, st, err := solve(m, DefaultOptions()); err != nil || st.logSlices != 0 {
			t.Errorf("10x10 grid, couplings U(-%g, %g): %v, %d slices in log space, want none", f, f, err, st.logSlices)
		}
	}
	for _, c := range []struct {
		L    int
		seed int64
	}{{3, 1}, {4, 1}, {4, 2}, {5, 1}, {6, 1}, {6, 3}} {
		es, err := mrf.GridEdges(c.L, false)
		if err != nil {
			t.Fatal(err)
		}
		m := mrf.RandomIsingWith(c.L*c.L, es, mrf.Normal(1), mrf.Uniform(400), c.seed)
		name := fmt.Sprintf("grid %dx%d seed %d", c.L, c.L, c.seed)
		got, st, err := solve(m, DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.L == 6 && st.logSlices == 0 {
			t.Errorf("%s: solved in linear space, want the log-space fallback", name)
		}
		if c.L <= 4 {
			compare(t, name, got, bruteForce(m), 1e-9)
			continue
		}
		if want := logTransferLogZ(m, c.L); !closeTo(got.LogZ, want, 1e-9) {
			t.Errorf("%s: ln Z %.12g, transfer matrix %.12g", name, got.LogZ, want)
		}
	}
}

// logTransferLogZ is transferLogZ in log space: log Z of an L x L grid Ising
// model of mrf.Ising's layout (unary factors first, then the grid's edges),
// sites in row-major order, the state the last L sites, oldest in bit 0.
func logTransferLogZ(m *mrf.Model, L int) float64 {
	edges, _ := mrf.GridEdges(L, false)
	factorOf := map[mrf.Edge]int{}
	for e, ed := range edges {
		factorOf[ed] = L*L + e
	}
	ninf := math.Inf(-1)
	vec := make([]float64, 1<<L)
	next := make([]float64, 1<<L)
	for j := range vec {
		vec[j] = ninf
	}
	vec[0] = 0
	for i := 0; i < L*L; i++ {
		r, c := i/L, i%L
		unary := m.Factors[i].LogTable
		for j := range next {
			next[j] = ninf
		}
		for idx, w := range vec {
			if math.IsInf(w, -1) {
				continue
			}
			oldest, newest := idx&1, (idx>>(L-1))&1
			for x := 0; x < 2; x++ {
				p := w + unary[x]
				if r > 0 {
					p += m.Factors[factorOf[mrf.Edge{I: i - L, J: i}]].LogTable[oldest*2+x]
				}
				if c > 0 {
					p += m.Factors[factorOf[mrf.Edge{I: i - 1, J: i}]].LogTable[newest*2+x]
				}
				j := (idx >> 1) | (x << (L - 1))
				hi, lo := max(next[j], p), min(next[j], p)
				next[j] = hi + math.Log1p(math.Exp(lo-hi))
			}
		}
		vec, next = next, vec
	}
	mx := ninf
	for _, x := range vec {
		mx = max(mx, x)
	}
	s := 0.0
	for _, x := range vec {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}
