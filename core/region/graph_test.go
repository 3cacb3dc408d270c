package region

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// levelShape is what one level of a region graph must look like: how many
// regions, all of Size variables and counting number Counting.
type levelShape struct {
	Count    int
	Size     int
	Counting float64
}

func shapeOf(g *Graph) ([]levelShape, error) {
	var out []levelShape
	for r, R := range g.Regions {
		if R.Level == len(out) {
			out = append(out, levelShape{Size: len(R.Vars), Counting: R.Counting})
		}
		if R.Level != len(out)-1 {
			return nil, fmt.Errorf("region %d at level %d out of order", r, R.Level)
		}
		s := &out[R.Level]
		if len(R.Vars) != s.Size || R.Counting != s.Counting {
			return nil, fmt.Errorf("region %d over %v with c=%g differs from its level (size %d, c=%g)", r, R.Vars, R.Counting, s.Size, s.Counting)
		}
		s.Count++
	}
	return out, nil
}

func TestKnownShapes(t *testing.T) {
	tests := []struct {
		name   string
		m      *mrf.Model
		graph  string
		scheme string
		want   []levelShape
	}{
		{"5x5 faces", gridModel(t, 5, false, 1), "grid", Faces,
			[]levelShape{{16, 4, 1}, {24, 2, -1}, {9, 1, 1}}},
		{"5x5 auto", gridModel(t, 5, false, 1), "grid", Auto,
			[]levelShape{{16, 4, 1}, {24, 2, -1}, {9, 1, 1}}},
		{"5x5 cycles finds the grid", gridModel(t, 5, false, 1), "uai", Cycles,
			[]levelShape{{16, 4, 1}, {24, 2, -1}, {9, 1, 1}}},
		{"4x4 torus faces", gridModel(t, 4, true, 1), "torus", Faces,
			[]levelShape{{16, 4, 1}, {32, 2, -1}, {16, 1, 1}}},
		// blocks3 after dropping the c = 0 regions (3x1 strips, 2x1
		// pairs, single nodes): 3x3 windows, 2x3 and 3x2 overlaps, 2x2
		// overlaps of four windows.
		{"5x5 blocks3", gridModel(t, 5, false, 1), "grid", Blocks3,
			[]levelShape{{9, 9, 1}, {12, 6, -1}, {4, 4, 1}}},
		{"10x10 blocks3", gridModel(t, 10, false, 1), "grid", Blocks3,
			[]levelShape{{64, 9, 1}, {112, 6, -1}, {49, 4, 1}}},
		{"6x6 blocks3 detected", gridModel(t, 6, false, 1), "uai", Blocks3,
			[]levelShape{{16, 9, 1}, {24, 6, -1}, {9, 4, 1}}},
		{"3x3 blocks3: one window", gridModel(t, 3, false, 1), "grid", Blocks3,
			[]levelShape{{1, 9, 1}}},
		{"K9 star", completeModel(9, 1), "complete", Star,
			[]levelShape{{28, 3, 1}, {8, 2, -6}, {1, 1, 21}}},
		{"K16 star", completeModel(16, 1), "complete", Auto,
			[]levelShape{{105, 3, 1}, {15, 2, -13}, {1, 1, 91}}},
		{"K16 cycles finds the clique", completeModel(16, 1), "uai", Cycles,
			[]levelShape{{105, 3, 1}, {15, 2, -13}, {1, 1, 91}}},
		{"K3 star", completeModel(3, 1), "complete", Star,
			[]levelShape{{1, 3, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := build(t, tc.m, tc.graph, tc.scheme)
			got, err := shapeOf(g)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("levels = %v, want %v", got, tc.want)
			}
			if g.NumLevels() != len(tc.want) {
				t.Errorf("NumLevels = %d, want %d", g.NumLevels(), len(tc.want))
			}
		})
	}
}

func TestFacesRegions(t *testing.T) {
	// 5x5: the level-1 regions are exactly the grid edges shared by two
	// plaquettes, the level-2 regions the interior nodes, and each has the
	// plaquettes (edges) containing it as parents.
	const L = 5
	g := build(t, gridModel(t, L, false, 2), "grid", Faces)
	interior := func(v int) bool { r, c := v/L, v%L; return r > 0 && r < L-1 && c > 0 && c < L-1 }
	for r, R := range g.Regions {
		switch R.Level {
		case 1:
			a, b := R.Vars[0], R.Vars[1]
			horizontal := b == a+1 && a/L == b/L && a/L > 0 && a/L < L-1
			vertical := b == a+L && a%L > 0 && a%L < L-1
			if !horizontal && !vertical {
				t.Errorf("level-1 region %v is not an edge between two plaquettes", R.Vars)
			}
			if len(R.Parents) != 2 {
				t.Errorf("edge %v has %d parents, want 2", R.Vars, len(R.Parents))
			}
		case 2:
			if !interior(R.Vars[0]) {
				t.Errorf("level-2 region %v is not an interior node", R.Vars)
			}
			if len(R.Parents) != 4 {
				t.Errorf("node %v has %d parents, want 4", R.Vars, len(R.Parents))
			}
		}
		for _, p := range R.Parents {
			if g.Regions[p].Level != R.Level-1 {
				t.Errorf("region %d: parent %d not on the level above", r, p)
			}
		}
	}
	// Unary factors belong to every region containing their variable, the
	// pairwise factors of boundary edges only to their plaquette.
	m := gridModel(t, L, false, 2)
	for r, R := range g.Regions {
		for _, a := range R.Factors {
			if !isSubset(sortedCopy(m.Factors[a].Vars), R.Vars) {
				t.Errorf("region %d holds factor %d outside its variables", r, a)
			}
		}
		for _, v := range R.Vars {
			if !slices.Contains(R.Factors, v) { // factor v is the unary factor of node v
				t.Errorf("region %d over %v misses the unary factor of %d", r, R.Vars, v)
			}
		}
	}
}

func sortedCopy(s []int) []int {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func TestBetheShape(t *testing.T) {
	// Pairwise model: roots are the edges, level 1 the variables of degree
	// >= 2 with c_i = 1 - d_i; leaves get no region (c = 0).
	m := gridModel(t, 3, false, 1)
	m.Factors = append(m.Factors, mrf.Factor{Vars: []int{8, 9}, LogTable: []float64{0, 0, 0, 0}})
	m.Cards = append(m.Cards, 2) // variable 9: a leaf
	m.Cards = append(m.Cards, 2) // variable 10: in no factor
	g := build(t, m, "uai", Bethe)
	deg := map[int]int{}
	for _, f := range m.Factors {
		if len(f.Vars) == 2 {
			deg[f.Vars[0]]++
			deg[f.Vars[1]]++
		}
	}
	nRoots, singles := 0, map[int]float64{}
	for _, R := range g.Regions {
		switch {
		case R.Level == 0:
			nRoots++
		case len(R.Vars) == 1:
			singles[R.Vars[0]] = R.Counting
		default:
			t.Errorf("unexpected region %v at level %d", R.Vars, R.Level)
		}
	}
	if want := 12 + 1 + 1; nRoots != want {
		t.Errorf("%d roots, want %d (12 grid edges, 1 extra edge, {10})", nRoots, want)
	}
	for v := 0; v < 9; v++ {
		if c, ok := singles[v]; !ok || c != float64(1-deg[v]) {
			t.Errorf("variable %d: region %v with c=%g, want c=%d", v, ok, c, 1-deg[v])
		}
	}
	if _, ok := singles[9]; ok {
		t.Error("leaf 9 has a region of its own")
	}
}

func checkGraph(t *testing.T, g *Graph, m *mrf.Model) {
	t.Helper()
	if err := g.Validate(m); err != nil {
		t.Fatal(err)
	}
	roots := g.Roots()
	for _, a := range roots {
		for _, b := range roots {
			if a != b && isSubset(g.Regions[a].Vars, g.Regions[b].Vars) {
				t.Fatalf("root %v lies in root %v", g.Regions[a].Vars, g.Regions[b].Vars)
			}
		}
	}
	// Counting numbers follow c_R = 1 - Σ over ancestors (via edges).
	for r := range g.Regions {
		anc := map[int]bool{}
		stack := slices.Clone(g.Regions[r].Parents)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !anc[p] {
				anc[p] = true
				stack = append(stack, g.Regions[p].Parents...)
			}
		}
		c := 1.0
		for p := range anc {
			c -= g.Regions[p].Counting
		}
		if c != g.Regions[r].Counting {
			t.Fatalf("region %d: counting %g, 1 - Σ ancestors = %g", r, g.Regions[r].Counting, c)
		}
	}
}

func TestValidityGrids(t *testing.T) {
	for L := 3; L <= 20; L++ {
		m := gridModel(t, L, false, int64(L))
		for _, scheme := range []string{Faces, FacesOuter, Blocks3, Bethe, Cycles} {
			t.Run(fmt.Sprintf("%dx%d %s", L, L, scheme), func(t *testing.T) {
				checkGraph(t, build(t, m, "grid", scheme), m)
			})
		}
	}
	for _, L := range []int{3, 4, 7} {
		m := gridModel(t, L, true, int64(L))
		for _, scheme := range []string{Faces, Blocks3, Bethe, Cycles} {
			t.Run(fmt.Sprintf("%dx%d torus %s", L, L, scheme), func(t *testing.T) {
				checkGraph(t, build(t, m, "torus", scheme), m)
			})
		}
	}
}

func TestValidityComplete(t *testing.T) {
	for n := 4; n <= 16; n++ {
		m := completeModel(n, int64(n))
		for _, scheme := range []string{Star, Bethe, Cycles} {
			t.Run(fmt.Sprintf("K%d %s", n, scheme), func(t *testing.T) {
				checkGraph(t, build(t, m, "complete", scheme), m)
			})
		}
	}
}

func TestFromRootsNormalises(t *testing.T) {
	m := factorModel(mrf.NewRand(1), constCards(5, 2), nil,
		[]mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}, {I: 2, J: 3}, {I: 3, J: 4}}, nil)
	g, err := FromRoots(m, "custom", [][]int{{3, 2, 1}, {1, 2}, {4, 3, 3}, {2, 1, 3}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	var roots [][]int
	for _, r := range g.Roots() {
		roots = append(roots, g.Regions[r].Vars)
	}
	want := [][]int{{1, 2, 3}, {3, 4}, {0, 1}}
	if fmt.Sprint(roots) != fmt.Sprint(want) {
		t.Errorf("roots = %v, want %v", roots, want)
	}
	if g.Scheme != "custom" {
		t.Errorf("scheme %q", g.Scheme)
	}
}

// literalCVM follows the paper's text to the letter: level l holds the
// distinct pairwise intersections of level l-1 that lie in no other of them,
// edges join a region to the regions of level l-1 containing it, and
// c_R = 1 - Σ over ancestors along edges. It returns Σ_R c_R [v ∈ R] per
// variable and a "level vars counting parents" line per region.
func literalCVM(n int, roots [][]int) ([]float64, []string) {
	levels := [][][]int{roots}
	for {
		prev := levels[len(levels)-1]
		var cand [][]int
		for i := range prev {
			for j := i + 1; j < len(prev); j++ {
				z := intersect(nil, prev[i], prev[j])
				if len(z) > 0 && !slices.ContainsFunc(cand, func(c []int) bool { return slices.Equal(c, z) }) {
					cand = append(cand, z)
				}
			}
		}
		var next [][]int
		for _, c := range cand {
			inOther := slices.ContainsFunc(cand, func(d []int) bool { return len(d) > len(c) && isSubset(c, d) })
			if !inOther {
				next = append(next, c)
			}
		}
		if len(next) == 0 {
			break
		}
		levels = append(levels, next)
	}
	type node struct {
		vars    []int
		level   int
		parents []int
		c       float64
	}
	var nodes []node
	var prevIDs []int
	for l, level := range levels {
		var ids []int
		for _, s := range level {
			nd := node{vars: s, level: l}
			for _, p := range prevIDs {
				if isSubset(s, nodes[p].vars) {
					nd.parents = append(nd.parents, p)
				}
			}
			ids = append(ids, len(nodes))
			nodes = append(nodes, nd)
		}
		prevIDs = ids
	}
	for i := range nodes {
		anc := map[int]bool{}
		stack := slices.Clone(nodes[i].parents)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !anc[p] {
				anc[p] = true
				stack = append(stack, nodes[p].parents...)
			}
		}
		nodes[i].c = 1
		for p := range anc {
			nodes[i].c -= nodes[p].c
		}
	}
	sums := make([]float64, n)
	var lines []string
	for _, nd := range nodes {
		for _, v := range nd.vars {
			sums[v] += nd.c
		}
		var parents [][]int
		for _, p := range nd.parents {
			parents = append(parents, nodes[p].vars)
		}
		slices.SortFunc(parents, slices.Compare)
		lines = append(lines, fmt.Sprint(nd.level, nd.vars, nd.c, parents))
	}
	slices.Sort(lines)
	return sums, lines
}

func TestCVMMatchesLiteralRule(t *testing.T) {
	// Where the paper's rule loses nothing, FromRoots builds the same graph.
	cases := []struct {
		name   string
		m      *mrf.Model
		graph  string
		scheme string
	}{
		{"5x5 faces", gridModel(t, 5, false, 1), "grid", Faces},
		{"4x4 torus faces", gridModel(t, 4, true, 1), "torus", Faces},
		{"6x6 faces+outer", gridModel(t, 6, false, 1), "grid", FacesOuter},
		{"K9 star", completeModel(9, 1), "complete", Star},
		{"4x4 bethe", gridModel(t, 4, false, 1), "grid", Bethe},
		{"K7 bethe", completeModel(7, 1), "complete", Bethe},
	}
	for _, tc := range cases {
		g := build(t, tc.m, tc.graph, tc.scheme)
		var roots [][]int
		for _, r := range g.Roots() {
			roots = append(roots, g.Regions[r].Vars)
		}
		_, want := literalCVM(len(tc.m.Cards), roots)
		var got []string
		for _, R := range g.Regions {
			var parents [][]int
			for _, p := range R.Parents {
				parents = append(parents, g.Regions[p].Vars)
			}
			slices.SortFunc(parents, slices.Compare)
			got = append(got, fmt.Sprint(R.Level, R.Vars, R.Counting, parents))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: FromRoots and the literal rule differ:\n%v\n%v", tc.name, got, want)
		}
	}
}

func TestCVMWhereTheLiteralRuleFails(t *testing.T) {
	// Roots {0,1,2}, {0,1,3}, {0,4}: the literal rule keeps only {0,1} on
	// level 1 and counts variable 0 twice. Also {0,1,2},{0,1,3},{0,2,5},{0,4}
	// where {0} comes back on level 2 but misses {0,4} as an ancestor.
	tests := []struct {
		roots   [][]int
		n       int
		regions map[string]float64 // non-root regions and their counting numbers
	}{
		{[][]int{{0, 1, 2}, {0, 1, 3}, {0, 4}}, 5,
			map[string]float64{"[0 1]": -1, "[0]": -1}},
		{[][]int{{0, 1, 2}, {0, 1, 3}, {0, 2, 5}, {0, 4}}, 6,
			map[string]float64{"[0 1]": -1, "[0 2]": -1, "[0]": -1}},
	}
	for _, tc := range tests {
		sums, _ := literalCVM(tc.n, tc.roots)
		if sums[0] == 1 {
			t.Errorf("roots %v: the literal rule counts variable 0 once; the example no longer shows its failure", tc.roots)
		}
		var edges []mrf.Edge
		for _, r := range tc.roots {
			for x := range r {
				for y := x + 1; y < len(r); y++ {
					edges = append(edges, mrf.Edge{I: r[x], J: r[y]})
				}
			}
		}
		m := factorModel(mrf.NewRand(3), constCards(tc.n, 2), nil, edges, nil)
		g, err := FromRoots(m, "custom", tc.roots)
		if err != nil {
			t.Fatalf("roots %v: %v", tc.roots, err)
		}
		checkGraph(t, g, m)
		got := map[string]float64{}
		for _, R := range g.Regions {
			if R.Level > 0 {
				got[fmt.Sprint(R.Vars)] = R.Counting
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.regions) {
			t.Errorf("roots %v: non-root regions %v, want %v", tc.roots, got, tc.regions)
		}
		// {0} has {0,4} as a parent although {0,4} is a root two levels up.
		for _, R := range g.Regions {
			if slices.Equal(R.Vars, []int{0}) {
				hasRoot := false
				for _, p := range R.Parents {
					hasRoot = hasRoot || slices.Equal(g.Regions[p].Vars, []int{0, 4})
				}
				if !hasRoot {
					t.Errorf("roots %v: {0} lacks parent {0,4}", tc.roots)
				}
			}
		}
	}
}

func TestValidateReports(t *testing.T) {
	m := gridModel(t, 3, false, 1)
	g := build(t, m, "grid", Faces)
	center := -1
	for r, R := range g.Regions {
		if slices.Equal(R.Vars, []int{4}) {
			center = r
		}
	}
	if center < 0 {
		t.Fatal("3x3 faces has no region {4}")
	}
	mutations := []struct {
		name   string
		mutate func(g *Graph)
		want   string
	}{
		{"counting", func(g *Graph) { g.Regions[center].Counting = 2 },
			"variable 4: counting numbers of the 9 regions containing it sum to 2, want 1"},
		{"missing factor", func(g *Graph) { g.Regions[center].Factors = nil },
			"lists factors [], want every factor whose scope it contains"},
		{"parent not superset", func(g *Graph) {
			// Edge {1,4} gets plaquette {3,4,6,7} as a parent.
			edge := slices.IndexFunc(g.Regions, func(R Region) bool { return slices.Equal(R.Vars, []int{1, 4}) })
			face := slices.IndexFunc(g.Regions, func(R Region) bool { return slices.Equal(R.Vars, []int{3, 4, 6, 7}) })
			g.Regions[edge].Parents[0] = face
		},
			"is not a strict superset"},
		{"child not mirrored", func(g *Graph) { g.Regions[0].Children = append(g.Regions[0].Children, center) },
			"does not list it as a parent"},
		{"unsorted", func(g *Graph) { v := g.Regions[0].Vars; v[0], v[1] = v[1], v[0] },
			"not strictly ascending"},
		{"no regions", func(g *Graph) { g.Regions = nil }, "no regions"},
	}
	for _, mu := range mutations {
		t.Run(mu.name, func(t *testing.T) {
			h := build(t, m, "grid", Faces)
			mu.mutate(h)
			err := h.Validate(m)
			if err == nil {
				t.Fatal("Validate accepted a broken graph")
			}
			if !strings.Contains(err.Error(), mu.want) {
				t.Errorf("error %q does not contain %q", err, mu.want)
			}
		})
	}
	// Roots that cover every variable but not factor 4, over (0,2).
	pm := factorModel(mrf.NewRand(1), constCards(3, 2), nil, []mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}, {I: 0, J: 2}}, nil)
	_, err := FromRoots(pm, "custom", [][]int{{0, 1}, {1, 2}})
	if err == nil || !strings.Contains(err.Error(), "factor 5 (scope [") ||
		!strings.Contains(err.Error(), "counting numbers of the 0 regions containing it sum to 0, want 1") {
		t.Errorf("uncovered factor: got %v", err)
	}
}

func TestBadInput(t *testing.T) {
	grid := gridModel(t, 3, false, 1)
	torus := gridModel(t, 3, true, 1)
	k5 := completeModel(5, 1)
	empty := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{{Vars: nil, LogTable: []float64{1}}}}
	broken := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{1}}}}
	higher := factorModel(mrf.NewRand(1), constCards(9, 2), nil, nil, [][]int{{0, 1, 3}})
	tests := []struct {
		name   string
		m      *mrf.Model
		graph  string
		scheme string
		want   string
	}{
		{"unknown scheme", grid, "grid", "kikuchi", `unknown region scheme "kikuchi"`},
		{"empty scheme", grid, "grid", "", `unknown region scheme ""`},
		{"nil model", nil, "grid", Faces, "nil model"},
		{"invalid model", broken, "uai", Bethe, "table has 1 entries"},
		{"constant factor", empty, "uai", Bethe, "factor 0 has an empty scope"},
		{"faces on uai", k5, "uai", Faces, "is not an L x L lattice"},
		{"faces+outer on a uai torus", torus, "uai", FacesOuter, "the model is a 3x3 torus, which has no outer face"},
		{"faces on torus model", torus, "grid", Faces, "is not an edge of the 3x3 grid"},
		{"faces on grid as torus", grid, "torus", Faces, "of the 3x3 torus has no factor"},
		{"outer on torus", torus, "torus", FacesOuter, "a torus has no outer face"},
		{"faces not square", k5, "grid", Faces, "5 variables is not a square number"},
		{"faces higher order", higher, "grid", Faces, "factor 9 has 3 variables"},
		{"star on grid", grid, "complete", Star, "edge (0,2) of the complete-graph has no factor"},
		{"star higher order", higher, "complete", Star, "factor 9 has 3 variables"},
		{"star missing edge", &mrf.Model{Cards: constCards(3, 2), Factors: k5.Factors[5:6]}, "complete", Star, "of the complete-graph has no factor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.m, tc.graph, tc.scheme)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build: got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	rootTests := []struct {
		name  string
		roots [][]int
		want  string
	}{
		{"none", nil, "no root regions"},
		{"empty root", [][]int{{0, 1}, {}}, "root 1 is empty"},
		{"out of range", [][]int{{0, 9}}, "root 0: variable 9 out of range [0,9)"},
		{"negative", [][]int{{-1}}, "root 0: variable -1 out of range"},
		{"uncovered variable", [][]int{{0, 1, 3, 4}}, "variable 2: counting numbers of the 0 regions"},
	}
	for _, tc := range rootTests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromRoots(grid, "custom", tc.roots)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("FromRoots: got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := FromRoots(nil, "custom", [][]int{{0}}); err == nil {
		t.Error("FromRoots accepted a nil model")
	}
}

func TestBind(t *testing.T) {
	m := gridModel(t, 3, false, 1)
	g := build(t, m, "grid", Faces)
	bd := bind(t, g, m)
	if bd.Graph() != g {
		t.Error("Graph does not return the bound graph")
	}
	for r := range g.Regions {
		if got, want := bd.NumStates(r), 1<<len(g.Regions[r].Vars); got != want {
			t.Errorf("region %d: %d states, want %d", r, got, want)
		}
	}
	// The same structure with other tables shares the binding; another
	// cardinality, scope order or factor list does not.
	other := gridModel(t, 3, false, 2)
	if !bd.SameStructure(other) {
		t.Error("SameStructure false for a model differing only in its tables")
	}
	swapped := m.Clone()
	v := swapped.Factors[len(swapped.Factors)-1].Vars
	v[0], v[1] = v[1], v[0]
	ternary := m.Clone()
	ternary.Cards[4] = 3
	for name, o := range map[string]*mrf.Model{"nil": nil, "scope order": swapped, "cardinality": ternary, "4x4 grid": gridModel(t, 4, false, 1)} {
		if bd.SameStructure(o) {
			t.Errorf("SameStructure true for a model with another %s", name)
		}
	}
	if (*Binding)(nil).SameStructure(m) {
		t.Error("SameStructure true for a nil Binding")
	}
}

// TestBindErrors checks that Bind and Validate refuse, with an error that says
// why and without panicking, a model they cannot bind to: an invalid model,
// one of another structure, a graph that is not valid, and a region over
// MaxStates.
func TestBindErrors(t *testing.T) {
	m := gridModel(t, 3, false, 1)
	faces := func() *Graph { return build(t, m, "grid", Faces) }
	withExtra := m.Clone() // a factor over (0,8), in no face
	withExtra.Factors = append(withExtra.Factors, mrf.Factor{Vars: []int{0, 8}, LogTable: make([]float64, 4)})
	outOfRange := m.Clone()
	outOfRange.Factors[0].Vars = []int{9}
	big := gridModel(t, 10, false, 1)
	tests := []struct {
		name string
		g    *Graph
		m    *mrf.Model
		want string
		// validate is false where the graph is valid for the model and only
		// Bind refuses it (too large to allocate).
		validate bool
	}{
		{"nil graph", nil, m, "nil region graph", true},
		{"nil model", faces(), nil, "nil model", true},
		{"invalid model", faces(), &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{1}}}}, "invalid model: factor 0: table has 1 entries", true},
		{"factor variable out of range", faces(), outOfRange, "invalid model: factor 0: variable 9 out of range", true},
		{"constant factor", faces(), &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{LogTable: []float64{0}}}}, "factor 0 has an empty scope", true},
		{"fewer variables", faces(), gridModel(t, 2, false, 1), "region graph does not fit the model: region 0: variable 4 out of range [0,4)", true},
		{"more variables", faces(), gridModel(t, 4, false, 1), "region graph does not fit the model: region 0 over [0 1 3 4] lists factors [0 1 3 4 9 10 12 14], want every factor whose scope it contains: [0 1 3 4 16 17]", true},
		{"factor in no region", faces(), withExtra, "region graph does not fit the model: region graph not valid: factor 21 (scope [0 8]): counting numbers of the 0 regions containing it sum to 0, want 1", true},
		{"invalid graph", func() *Graph { g := faces(); g.Regions[len(g.Regions)-1].Counting = 2; return g }(), m,
			"region graph does not fit the model: region graph not valid: variable 4: counting numbers of the 9 regions containing it sum to 2, want 1", true},
		{"empty graph", &Graph{}, m, "region graph does not fit the model: region graph has no regions", true},
		{"region over MaxStates", build(t, big, "grid", FacesOuter), big, "region 81 over 36 variables has more than 4194304 joint states", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bd, err := tc.g.Bind(tc.m)
			if err == nil || bd != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Bind: got %v, %v; want an error containing %q", bd, err, tc.want)
			}
			if tc.validate {
				if err := tc.g.Validate(tc.m); err == nil {
					t.Error("Validate accepted it")
				}
			}
		})
	}
}

// TestEnergiesErrors checks that a Binding refuses, without panicking, a
// model that does not have its structure or whose tables are too short.
func TestEnergiesErrors(t *testing.T) {
	m := gridModel(t, 3, false, 1)
	bd := bind(t, build(t, m, "grid", Faces), m)
	short := m.Clone()
	last := len(short.Factors) - 1 // a pairwise factor
	short.Factors[last].LogTable = short.Factors[last].LogTable[:3]
	extra := m.Clone()
	extra.Factors = append(extra.Factors, mrf.Factor{Vars: []int{0}, LogTable: []float64{0, 0}})
	tests := []struct {
		name string
		m    *mrf.Model
		want string
	}{
		{"nil model", nil, "does not have the structure"},
		{"another grid", gridModel(t, 4, false, 1), "does not have the structure"},
		{"extra factor", extra, "does not have the structure"},
		{"short table", short, fmt.Sprintf("factor %d: table has 3 entries, scope %v needs 4", last, m.Factors[last].Vars)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			E, err := bd.Energies(tc.m)
			if err == nil || E != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Energies: got %v; want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestEnergies(t *testing.T) {
	rng := mrf.NewRand(5)
	m := factorModel(rng, []int{2, 3, 2, 3}, []bool{true, false, true, true},
		[]mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}, {I: 2, J: 3}, {I: 0, J: 3}}, [][]int{{3, 1, 0}})
	m.Factors[3].LogTable[2] = math.Inf(-1)
	for _, scheme := range []string{Bethe, Cycles} {
		g := build(t, m, "uai", scheme)
		E := energies(t, bind(t, g, m), m)
		for r, R := range g.Regions {
			// Decode every region state into a full assignment and sum the
			// contained factors directly.
			x := make([]int, len(m.Cards))
			for s := range E[r] {
				rest := s
				for k := len(R.Vars) - 1; k >= 0; k-- {
					x[R.Vars[k]] = rest % m.Cards[R.Vars[k]]
					rest /= m.Cards[R.Vars[k]]
				}
				want := 0.0
				for _, a := range R.Factors {
					f := &m.Factors[a]
					want -= f.LogTable[f.Index(m.Cards, x)]
				}
				if E[r][s] != want && !(math.IsInf(want, 1) && math.IsInf(E[r][s], 1)) {
					t.Fatalf("%s region %d state %d: E = %g, want %g", scheme, r, s, E[r][s], want)
				}
			}
		}
	}
}

// TestDropZeroCounting: dropping the c = 0 regions of the full CVM closure
// of the 3x3 windows keeps every other region with its counting number and
// leaves no region of counting number 0.
func TestDropZeroCounting(t *testing.T) {
	m := gridModel(t, 6, false, 3)
	full := cvm(len(m.Cards), blocks(6, 3, false))
	g := build(t, m, "grid", Blocks3)
	want := map[string]float64{}
	for _, R := range full.Regions {
		if R.Counting != 0 {
			want[fmt.Sprint(R.Vars)] = R.Counting
		}
	}
	if len(want) == len(full.Regions) {
		t.Fatal("the full closure has no region of counting number 0: nothing tested")
	}
	if len(g.Regions) != len(want) {
		t.Fatalf("%d regions, want the %d of non-zero counting number", len(g.Regions), len(want))
	}
	for _, R := range g.Regions {
		if c, ok := want[fmt.Sprint(R.Vars)]; !ok || c != R.Counting {
			t.Errorf("region %v: counting %g, full closure %g (present %v)", R.Vars, R.Counting, c, ok)
		}
	}
	checkGraph(t, g, m)
}
