package exact

import (
	"errors"
	"github.com/renn-go/renn/core/infer/infertest"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/mrf"
)

func gridModel(t testing.TB, L int, gamma float64, seed int64) *mrf.Model {
	t.Helper()
	es, err := mrf.GridEdges(L, false)
	if err != nil {
		t.Fatal(err)
	}
	return mrf.RandomIsing(L*L, es, gamma, seed)
}

// randomSparse is an Ising model on n nodes with ne random edges.
func randomSparse(n, ne int, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	seen := map[mrf.Edge]bool{}
	var es []mrf.Edge
	for len(es) < ne {
		a, b := r.IntN(n), r.IntN(n)
		if a == b {
			continue
		}
		e := mrf.Edge{I: min(a, b), J: max(a, b)}
		if !seen[e] {
			seen[e] = true
			es = append(es, e)
		}
	}
	return mrf.RandomIsing(n, es, 1, seed)
}

// planCost re-derives the cost of an order with a plain map-based
// elimination, independently of the planner's data structures.
func planCost(m *mrf.Model, order []int) (total float64, largest int64) {
	adj := make([]map[int]bool, len(m.Cards))
	for v := range adj {
		adj[v] = map[int]bool{}
	}
	for _, f := range m.Factors {
		for _, u := range f.Vars {
			for _, v := range f.Vars {
				if u != v && m.Cards[u] > 1 && m.Cards[v] > 1 {
					adj[u][v] = true
				}
			}
		}
	}
	for _, v := range order {
		size := int64(m.Cards[v])
		for u := range adj[v] {
			size *= int64(m.Cards[u])
			delete(adj[u], v)
			for w := range adj[v] {
				if w != u {
					adj[u][w] = true
				}
			}
		}
		adj[v] = nil
		total += float64(size)
		largest = max(largest, size)
	}
	return total, largest
}

func checkPermutation(t *testing.T, order []int, n int) {
	t.Helper()
	if len(order) != n {
		t.Fatalf("order has %d entries, want %d", len(order), n)
	}
	seen := make([]bool, n)
	for _, v := range order {
		if v < 0 || v >= n || seen[v] {
			t.Fatalf("order is not a permutation of 0..%d", n-1)
		}
		seen[v] = true
	}
}

func TestPlanGrid20(t *testing.T) {
	m := gridModel(t, 20, 1, 1)
	start := time.Now()
	p, err := MakeOrder(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s order in %v: largest table 2^%.1f, total 2^%.2f", p.Heuristic, time.Since(start),
		math.Log2(float64(p.LargestTable)), math.Log2(p.TotalCost))
	if p.LargestTable > 1<<22 {
		t.Errorf("largest table %d > 2^22", p.LargestTable)
	}
	checkPermutation(t, p.Vars, 400)
	total, largest := planCost(m, p.Vars)
	if total != p.TotalCost || largest != p.LargestTable {
		t.Errorf("plan says cost %g largest %d, re-derived %g and %d", p.TotalCost, p.LargestTable, total, largest)
	}
	if len(p.LargestClique) != 21 {
		t.Errorf("largest clique has %d variables, want 21", len(p.LargestClique))
	}
}

func TestPlanCostsMatchOrders(t *testing.T) {
	r := mrf.NewRand(4)
	for i := range 40 {
		m := randomModel(r)
		p, err := MakeOrder(m, infertest.With(DefaultOptions(), func(o *Options) { o.Seed = int64(i); o.Tries = 3 }))
		if err != nil {
			t.Fatal(err)
		}
		checkPermutation(t, p.Vars, len(m.Cards))
		total, largest := planCost(m, p.Vars)
		if math.Abs(total-p.TotalCost) > 1e-9*total || largest != p.LargestTable {
			t.Errorf("model %d: plan says cost %g largest %d, re-derived %g and %d", i, p.TotalCost, p.LargestTable, total, largest)
		}
	}
}

// TestPlanTrees checks that tree-shaped models are eliminated without fill:
// every table is a factor's.
func TestPlanTrees(t *testing.T) {
	r := mrf.NewRand(12)
	n := 300
	var es []mrf.Edge
	for v := 1; v < n; v++ {
		es = append(es, mrf.Edge{I: r.IntN(v), J: v})
	}
	m := mrf.RandomIsing(n, es, 1, 1)
	p, err := MakeOrder(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p.LargestTable != 4 {
		t.Errorf("tree: largest table %d, want 4", p.LargestTable)
	}
	// A star with a hub of 5 states: the cheapest order eliminates all leaves
	// but one (5*2 each), then the hub with the last leaf, then that leaf.
	star := &mrf.Model{Cards: []int{5}}
	for v := 1; v <= 20; v++ {
		star.Cards = append(star.Cards, 2)
		star.Factors = append(star.Factors, mrf.Factor{Vars: []int{v, 0}, LogTable: make([]float64, 10)})
	}
	p, err = MakeOrder(star, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p.LargestTable != 10 || p.TotalCost != 20*10+2 {
		t.Errorf("star: largest %d total %g, want 10 and 202", p.LargestTable, p.TotalCost)
	}
}

func TestPlanDeterministic(t *testing.T) {
	m := randomSparse(200, 260, 3)
	a, errA := MakeOrder(m, infertest.With(DefaultOptions(), func(o *Options) { o.Seed = 9 }))
	b, errB := MakeOrder(m, infertest.With(DefaultOptions(), func(o *Options) { o.Seed = 9 }))
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !slices.Equal(a.Vars, b.Vars) || a.Heuristic != b.Heuristic {
		t.Error("the same seed gave different orders")
	}
}

// TestPlanRandomSparse plans a 1000-variable random graph; its treewidth is
// far too large, so the error must come quickly and name the sizes.
func TestPlanRandomSparse(t *testing.T) {
	for _, ne := range []int{1100, 1500} {
		m := randomSparse(1000, ne, 5)
		start := time.Now()
		p, err := MakeOrder(m, DefaultOptions())
		var tl *TableTooLargeError
		if !errors.As(err, &tl) {
			t.Fatalf("%d edges: got %v, want a TableTooLargeError", ne, err)
		}
		t.Logf("%d edges: %v in %v", ne, err, time.Since(start))
		checkPermutation(t, p.Vars, 1000)
		if tl.Order != p || p.LargestTable <= DefaultMaxTable {
			t.Errorf("%d edges: error plan %p, returned %p, largest %d", ne, tl.Order, p, p.LargestTable)
		}
	}
}

func TestPlanTooLarge(t *testing.T) {
	m := gridModel(t, 20, 1, 1)
	_, err := MakeOrder(m, infertest.With(DefaultOptions(), func(o *Options) { o.MaxTable = 1 << 10 }))
	var tl *TableTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("got %v, want TableTooLargeError", err)
	}
	for _, want := range []string{"needs a table of 2^21.0 entries", "21 variables", "above --max-table 2^10.0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// A 40x40 grid needs tables of 2^41 entries: Sample must say so, and
	// Solve, which would slice it, that it would take far longer than
	// --max-planned-seconds, both within a second and without allocating anything
	// of that order. The second is counted in CPU time (all threads), which
	// other processes on a busy machine do not stretch as they stretch the
	// wall time.
	big := gridModel(t, 40, 1, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := cpuTime()
	_, errSolve := Solve(big, DefaultOptions())
	solveTime := cpuTime() - start
	_, _, errSample := Sample(big, 10, mrf.NewRand(1), DefaultOptions())
	runtime.ReadMemStats(&after)
	if !errors.As(errSample, &tl) {
		t.Errorf("40x40 grid: Sample gave %v, want TableTooLargeError", errSample)
	}
	var slow *TooSlowError
	if !errors.As(errSolve, &slow) || !strings.Contains(errSolve.Error(), "--max-planned-seconds") {
		t.Errorf("40x40 grid: Solve gave %v, want a TooSlowError naming --max-planned-seconds", errSolve)
	}
	if solveTime > time.Second {
		t.Errorf("refusing the 40x40 grid took %v of CPU", solveTime)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing the 40x40 grid allocated %d MiB", grew>>20)
	}
}

// TestPlanLinkageFarOverGreedy: on this genetic-linkage model the greedy
// orders' best tree would take hundreds of hours (2^40 entries), the
// annealed and sliced one minutes: the planner must not refuse it on the
// greedy estimate.
func TestPlanLinkageFarOverGreedy(t *testing.T) {
	m, err := mrf.FactorFamily{Family: mrf.FamilyLinkage, Size: 96}.Generate(mrf.DeriveSeed(21, 6))
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	p, err := Estimate(m, opt)
	if err != nil {
		t.Fatalf("linkage96: %v", err)
	}
	if p.Seconds > opt.MaxPlannedSeconds || p.LargestTable > opt.MaxTable {
		t.Errorf("linkage96: plan %v over the bounds", p.Cost)
	}
}
