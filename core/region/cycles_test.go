package region

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

type randomCase struct {
	name string
	m    *mrf.Model
}

// randomCases returns many small random models: Erdős–Rényi graphs of all
// densities, random trees, sparse graphs with factors of arity 3 and 4,
// disconnected unions with isolated variables, a planted clique, and a grid
// with extra diagonals.
func randomCases() []randomCase {
	rng := mrf.NewRand(42)
	var cs []randomCase
	add := func(name string, m *mrf.Model) { cs = append(cs, randomCase{fmt.Sprintf("%s#%d", name, len(cs)), m}) }
	for _, p := range []float64{0.05, 0.1, 0.2, 0.4, 0.8} {
		for range 12 {
			n := 2 + rng.IntN(30)
			add(fmt.Sprintf("ER(%d,%.2f)", n, p), factorModel(rng, constCards(n, 2), nil, erdosRenyi(rng, n, p), nil))
		}
	}
	for range 15 {
		n := 1 + rng.IntN(30)
		add(fmt.Sprintf("tree(%d)", n), factorModel(rng, constCards(n, 2), nil, randomTree(rng, n), nil))
	}
	for range 30 {
		n := 4 + rng.IntN(25)
		es := erdosRenyi(rng, n, 1.5/float64(n))
		add(fmt.Sprintf("higher(%d)", n), factorModel(rng, constCards(n, 2), nil, es, randomScopes(rng, n, 1+rng.IntN(4))))
	}
	for range 10 {
		// Components: a tree, a ring, an ER piece, then isolated variables
		// with and without a unary factor.
		var es []mrf.Edge
		off := 0
		shift := func(part []mrf.Edge, size int) {
			for _, e := range part {
				es = append(es, mrf.Edge{I: e.I + off, J: e.J + off})
			}
			off += size
		}
		t := 2 + rng.IntN(6)
		shift(randomTree(rng, t), t)
		r := 3 + rng.IntN(6)
		var ring []mrf.Edge
		for i := 0; i < r; i++ {
			ring = append(ring, mrf.Edge{I: min(i, (i+1)%r), J: max(i, (i+1)%r)})
		}
		shift(ring, r)
		e := 3 + rng.IntN(8)
		shift(erdosRenyi(rng, e, 0.5), e)
		n := off + 3
		unary := make([]bool, n)
		for v := range unary {
			unary[v] = v != n-1
		}
		add(fmt.Sprintf("union(%d)", n), factorModel(rng, constCards(n, 2), unary, es, nil))
	}
	for range 5 {
		n := 12 + rng.IntN(10)
		es := erdosRenyi(rng, n, 0.1)
		clique := rng.Perm(n)[:5+rng.IntN(3)]
		seen := map[mrf.Edge]bool{}
		for _, e := range es {
			seen[e] = true
		}
		for x := range clique {
			for y := x + 1; y < len(clique); y++ {
				e := mrf.Edge{I: min(clique[x], clique[y]), J: max(clique[x], clique[y])}
				if !seen[e] {
					seen[e] = true
					es = append(es, e)
				}
			}
		}
		add(fmt.Sprintf("clique(%d)", n), factorModel(rng, constCards(n, 2), nil, es, nil))
	}
	for _, L := range []int{3, 5} {
		es, _ := mrf.GridEdges(L, false)
		for r := 0; r+1 < L; r++ {
			es = append(es, mrf.Edge{I: r*L + r, J: (r+1)*L + r + 1})
		}
		add(fmt.Sprintf("grid+diagonals(%d)", L), factorModel(rng, constCards(L*L, 2), nil, es, nil))
	}
	return cs
}

func TestValidityRandom(t *testing.T) {
	for _, tc := range randomCases() {
		t.Run(tc.name, func(t *testing.T) {
			for _, scheme := range []string{Bethe, Cycles, Auto} {
				g := build(t, tc.m, "uai", scheme)
				checkGraph(t, g, tc.m)
			}
			g, err := BuildBounded(tc.m, "uai", Cycles, Unbounded())
			if err != nil {
				t.Fatal(err)
			}
			checkGraph(t, g, tc.m)
			checkCycleRoots(t, tc.m, g, Unbounded(), false)
			if g = build(t, tc.m, "uai", Auto); g.Scheme == Cycles {
				checkCycleRoots(t, tc.m, g, DefaultBounds(), true)
			}
		})
	}
}

// TestBoundedCyclesRandom builds cycles under several bounds on every random
// model: the graph must be valid, every root a cycle, bridge, edge left
// over, isolated variable or factor scope within the bounds, and a refusal
// must name a factor that is itself over them. When the unbounded roots
// fit, the bounded ones must be the same roots in the same order.
func TestBoundedCyclesRandom(t *testing.T) {
	bounds := []Bounds{DefaultBounds(), {MaxVars: 3}, {MaxVars: 4}, {MaxVars: 6}, {MaxStates: 16}, {MaxVars: 5, MaxStates: 8}}
	for _, tc := range randomCases() {
		unb, err := RootSetsBounded(tc.m, "uai", Cycles, Unbounded())
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bounds {
			t.Run(fmt.Sprintf("%s/%s", tc.name, b), func(t *testing.T) {
				g, err := BuildBounded(tc.m, "uai", Cycles, b)
				var be *BoundError
				if errors.As(err, &be) {
					if be.Factor < 0 || b.fits(tc.m.Cards, tc.m.Factors[be.Factor].Vars) {
						t.Fatalf("refused without a factor over the bounds: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				checkGraph(t, g, tc.m)
				checkCycleRoots(t, tc.m, g, b, false)
				if checkRoots(tc.m, Cycles, unb.Roots, b) == nil {
					rs, err := RootSetsBounded(tc.m, "uai", Cycles, b)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.EqualFunc(rs.Roots, unb.Roots, slices.Equal) {
						t.Errorf("unbounded roots fit, yet bounded roots differ:\n%v\n%v", rs.Roots, unb.Roots)
					}
				}
			})
		}
	}
}

// checkCycleRoots checks what each cycles root is: a singleton of an
// isolated variable, a bridge (with bounds: any edge), a factor scope of
// arity >= 3, or the node set of a cycle (connected, every node with >= 2
// neighbours inside) within the bounds, all of the interaction graph (with
// pairwiseOnly: of pairwise factors).
func checkCycleRoots(t *testing.T, m *mrf.Model, g *Graph, b Bounds, pairwiseOnly bool) {
	t.Helper()
	ig := interaction(m)
	if pairwiseOnly {
		ig = interactionUpTo(m, 2)
	}
	scopes := map[string]bool{}
	for _, f := range m.Factors {
		if len(f.Vars) >= 3 {
			scopes[fmt.Sprint(sortedCopy(f.Vars))] = true
		}
	}
	for _, r := range g.Roots() {
		vars := g.Regions[r].Vars
		switch {
		case scopes[fmt.Sprint(vars)]:
		case len(vars) == 1:
			if len(ig.adj[vars[0]]) != 0 {
				t.Errorf("singleton root %v of a variable with neighbours", vars)
			}
		case len(vars) == 2:
			if _, ok := ig.ids[mrf.Edge{I: vars[0], J: vars[1]}]; !ok || (b == Unbounded() && !isBridge(ig, vars[0], vars[1])) {
				t.Errorf("pair root %v is not a bridge", vars)
			}
		default:
			if !b.fits(m.Cards, vars) {
				t.Errorf("cycle root %v is over the bounds %s", vars, b)
			}
			in := map[int]bool{}
			for _, v := range vars {
				in[v] = true
			}
			for _, v := range vars {
				d := 0
				for _, u := range ig.adj[v] {
					if in[u] {
						d++
					}
				}
				if d < 2 {
					t.Errorf("root %v: node %d has %d neighbours inside, not a cycle", vars, v, d)
				}
			}
			if reach := reachable(ig, vars[0], -1, -1, in); len(reach) != len(vars) {
				t.Errorf("root %v is not connected", vars)
			}
		}
	}
}

// reachable returns the nodes reachable from s, skipping edge (a,b) and,
// if within is not nil, nodes outside it.
func reachable(ig *igraph, s, a, b int, within map[int]bool) map[int]bool {
	seen := map[int]bool{s: true}
	queue := []int{s}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range ig.adj[x] {
			if (x == a && y == b) || (x == b && y == a) || seen[y] || (within != nil && !within[y]) {
				continue
			}
			seen[y] = true
			queue = append(queue, y)
		}
	}
	return seen
}

func isBridge(ig *igraph, a, b int) bool { return !reachable(ig, a, a, b, nil)[b] }

func regionSummary(g *Graph) []string {
	var out []string
	for _, R := range g.Regions {
		out = append(out, fmt.Sprintf("%v:%g", R.Vars, R.Counting))
	}
	slices.Sort(out)
	return out
}

func TestCyclesSpecialGraphs(t *testing.T) {
	rng := mrf.NewRand(7)
	// On a tree every edge is a bridge: cycles gives the Bethe graph.
	for n := 1; n <= 20; n++ {
		m := factorModel(rng, constCards(n, 2), nil, randomTree(rng, n), nil)
		if got, want := regionSummary(build(t, m, "uai", Cycles)), regionSummary(build(t, m, "uai", Bethe)); !slices.Equal(got, want) {
			t.Errorf("tree(%d): cycles %v, bethe %v", n, got, want)
		}
	}
	// A ring is one cycle: one root holding every variable, if it fits the
	// bounds; otherwise the Bethe graph.
	for n := 3; n <= 12; n++ {
		var es []mrf.Edge
		for i := 0; i < n; i++ {
			es = append(es, mrf.Edge{I: min(i, (i+1)%n), J: max(i, (i+1)%n)})
		}
		m := factorModel(rng, constCards(n, 2), nil, es, nil)
		g, err := BuildBounded(m, "uai", Cycles, Unbounded())
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Regions) != 1 || len(g.Regions[0].Vars) != n {
			t.Errorf("ring(%d): regions %v, want one region over all variables", n, regionSummary(g))
		}
		g = build(t, m, "uai", Cycles)
		if n <= DefaultMaxVars {
			if len(g.Regions) != 1 {
				t.Errorf("ring(%d) within the default bounds: regions %v, want one region", n, regionSummary(g))
			}
		} else if got, want := regionSummary(g), regionSummary(build(t, m, "uai", Bethe)); !slices.Equal(got, want) {
			t.Errorf("ring(%d) over the default bounds: %v, want the bethe graph %v", n, got, want)
		}
	}
	// Two triangles sharing an edge plus a pendant edge: roots {0,1,2},
	// {1,2,3} and the bridge {3,4}.
	m := factorModel(rng, constCards(5, 2), nil, []mrf.Edge{{I: 0, J: 1}, {I: 0, J: 2}, {I: 1, J: 2}, {I: 1, J: 3}, {I: 2, J: 3}, {I: 3, J: 4}}, nil)
	g := build(t, m, "uai", Cycles)
	var roots []string
	for _, r := range g.Roots() {
		roots = append(roots, fmt.Sprint(g.Regions[r].Vars))
	}
	if want := []string{"[0 1 2]", "[1 2 3]", "[3 4]"}; !slices.Equal(roots, want) {
		t.Errorf("roots %v, want %v", roots, want)
	}
	// A factor of arity 4 with a pendant edge: the factor is a root.
	m = factorModel(rng, constCards(5, 2), nil, []mrf.Edge{{I: 3, J: 4}}, [][]int{{2, 0, 3, 1}})
	g = build(t, m, "uai", Cycles)
	roots = roots[:0]
	for _, r := range g.Roots() {
		roots = append(roots, fmt.Sprint(g.Regions[r].Vars))
	}
	if want := []string{"[3 4]", "[0 1 2 3]"}; !slices.Equal(roots, want) {
		t.Errorf("roots %v, want %v", roots, want)
	}
}

func TestCyclesDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	es := erdosRenyi(rng, 60, 0.06)
	m := factorModel(rng, constCards(60, 2), nil, es, randomScopes(rng, 60, 3))
	a := regionSummary(build(t, m, "uai", Cycles))
	b := regionSummary(build(t, m, "uai", Cycles))
	if !slices.Equal(a, b) {
		t.Error("two builds of the same model differ")
	}
}

func TestMaxClique(t *testing.T) {
	rng := mrf.NewRand(3)
	for trial := range 20 {
		n := 8 + rng.IntN(7)
		es := erdosRenyi(rng, n, 0.3)
		m := factorModel(rng, constCards(n, 2), nil, es, nil)
		ig := interaction(m)
		got := maxClique(ig, cliqueBudget)
		// Brute force over all subsets for the clique number.
		best := 0
		for mask := 1; mask < 1<<n; mask++ {
			var s []int
			for v := range n {
				if mask>>v&1 == 1 {
					s = append(s, v)
				}
			}
			if len(s) > best && isClique(ig, s) {
				best = len(s)
			}
		}
		switch {
		case best < 4 && got != nil:
			t.Errorf("trial %d: clique %v returned though the clique number is %d", trial, got, best)
		case best >= 4 && (len(got) != best || !isClique(ig, got)):
			t.Errorf("trial %d: clique %v, want a clique of size %d", trial, got, best)
		}
	}
}

func isClique(ig *igraph, s []int) bool {
	for x := range s {
		for y := x + 1; y < len(s); y++ {
			if _, ok := ig.ids[mrf.Edge{I: min(s[x], s[y]), J: max(s[x], s[y])}]; !ok {
				return false
			}
		}
	}
	return true
}
