package region

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// relabel returns m with variable v renamed perm[v] (factors keep their
// order and tables; scopes are renamed in place order).
func relabel(m *mrf.Model, perm []int) *mrf.Model {
	out := &mrf.Model{Cards: make([]int, len(m.Cards))}
	for v, c := range m.Cards {
		out.Cards[perm[v]] = c
	}
	for _, f := range m.Factors {
		vars := make([]int, len(f.Vars))
		for k, v := range f.Vars {
			vars[k] = perm[v]
		}
		out.Factors = append(out.Factors, mrf.Factor{Vars: vars, LogTable: slices.Clone(f.LogTable)})
	}
	return out
}

func sortedRoots(roots [][]int) []string {
	var out []string
	for _, r := range roots {
		out = append(out, fmt.Sprint(sortedSet(r)))
	}
	slices.Sort(out)
	return out
}

func TestDetectLattice(t *testing.T) {
	rng := mrf.NewRand(5)
	for _, tc := range []struct {
		L     int
		torus bool
		// general: also detected under a random relabelling
		general bool
	}{
		{2, false, true}, {3, false, true}, {4, false, true}, {7, false, true},
		{3, true, false}, {4, true, false}, {5, true, true}, {8, true, true},
	} {
		kind := "grid"
		if tc.torus {
			kind = "torus"
		}
		name := fmt.Sprintf("%dx%d %s", tc.L, tc.L, kind)
		m := gridModel(t, tc.L, tc.torus, 1)
		want := sortedRoots(plaquettes(tc.L, tc.torus, false))
		check := func(m *mrf.Model, perm []int, label string) {
			t.Helper()
			rs, err := RootSetsBounded(m, "uai", Auto, DefaultBounds())
			if err != nil {
				t.Fatalf("%s %s: %v", name, label, err)
			}
			if rs.Scheme != Faces || rs.Detail != "faces (detected "+name+")" {
				t.Errorf("%s %s: scheme %q, detail %q", name, label, rs.Scheme, rs.Detail)
			}
			w := want
			if perm != nil {
				var mapped [][]int
				for _, r := range plaquettes(tc.L, tc.torus, false) {
					var s []int
					for _, p := range r {
						s = append(s, perm[p])
					}
					mapped = append(mapped, s)
				}
				w = sortedRoots(mapped)
			}
			if got := sortedRoots(rs.Roots); !slices.Equal(got, w) {
				t.Errorf("%s %s: roots %v, want %v", name, label, got, w)
			}
			if _, err := Build(m, "uai", Faces); err != nil {
				t.Errorf("%s %s: explicit faces: %v", name, label, err)
			}
		}
		check(m, nil, "row-major")
		// Column-major numbering.
		perm := make([]int, tc.L*tc.L)
		for r := range tc.L {
			for c := range tc.L {
				perm[r*tc.L+c] = c*tc.L + r
			}
		}
		check(relabel(m, perm), perm, "column-major")
		if tc.general {
			for k := range 5 {
				perm := rng.Perm(tc.L * tc.L)
				check(relabel(m, perm), perm, fmt.Sprintf("relabelled #%d", k))
			}
		}
	}
}

func TestNotALattice(t *testing.T) {
	rng := mrf.NewRand(9)
	es, _ := mrf.GridEdges(5, false)
	cases := map[string]*mrf.Model{
		"grid plus a diagonal":  factorModel(rng, constCards(25, 2), nil, append(slices.Clone(es), mrf.Edge{I: 0, J: 6}), nil),
		"grid minus an edge":    factorModel(rng, constCards(25, 2), nil, es[1:], nil),
		"grid with a ternary":   factorModel(rng, constCards(25, 2), nil, es, [][]int{{0, 1, 2}}),
		"ring of 9":             factorModel(rng, constCards(9, 2), nil, ring(9), nil),
		"two 2x2 grids, 8 vars": factorModel(rng, constCards(8, 2), nil, append(ring(4), shift(ring(4), 4)...), nil),
	}
	for name, m := range cases {
		rs, err := RootSetsBounded(m, "uai", Auto, DefaultBounds())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rs.Scheme != Cycles {
			t.Errorf("%s: auto picked %q (%s), want cycles", name, rs.Scheme, rs.Detail)
		}
		if !strings.Contains(rs.Detail, "within 6 variables, 4096 joint states;") {
			t.Errorf("%s: detail %q", name, rs.Detail)
		}
	}
}

func ring(n int) []mrf.Edge {
	var es []mrf.Edge
	for i := 0; i < n; i++ {
		es = append(es, mrf.Edge{I: min(i, (i+1)%n), J: max(i, (i+1)%n)})
	}
	return es
}

func shift(es []mrf.Edge, by int) []mrf.Edge {
	out := make([]mrf.Edge, len(es))
	for k, e := range es {
		out[k] = mrf.Edge{I: e.I + by, J: e.J + by}
	}
	return out
}

func TestAutoComplete(t *testing.T) {
	m := relabel(completeModel(6, 1), []int{3, 5, 0, 1, 4, 2})
	rs, err := RootSetsBounded(m, "uai", Auto, DefaultBounds())
	if err != nil {
		t.Fatal(err)
	}
	if rs.Scheme != Star || rs.Detail != "star (detected complete graph K6)" {
		t.Errorf("scheme %q, detail %q", rs.Scheme, rs.Detail)
	}
	if got, want := rs.Roots, starRoots(seq(6)); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("roots %v, want %v", got, want)
	}
}

// TestAutoFallsBackWithinBounds: when faces or star do not fit, auto builds
// bounded cycles instead.
func TestAutoFallsBackWithinBounds(t *testing.T) {
	m := gridModel(t, 4, false, 1)
	for _, graph := range []string{"grid", "uai"} {
		g, err := BuildBounded(m, graph, Auto, Bounds{MaxVars: 3})
		if err != nil {
			t.Fatal(err)
		}
		if g.Scheme != Cycles || largestRoot(g) > 2 {
			t.Errorf("%s: scheme %q, largest root %d, want cycles with pair roots (a grid has no triangle)", graph, g.Scheme, largestRoot(g))
		}
		checkGraph(t, g, m)
	}
	k := completeModel(5, 1)
	g, err := BuildBounded(k, "complete", Auto, Bounds{MaxStates: 4})
	if err != nil {
		t.Fatal(err)
	}
	if g.Scheme != Cycles || largestRoot(g) != 2 {
		t.Errorf("complete under 4 states: scheme %q, largest root %d", g.Scheme, largestRoot(g))
	}
}

func largestRoot(g *Graph) int {
	n := 0
	for _, r := range g.Roots() {
		n = max(n, len(g.Regions[r].Vars))
	}
	return n
}

// TestBoundRefusals: explicit schemes are refused over explicit bounds with
// a message naming the root, its size and the option; bethe never is; a
// factor over the bounds is named.
func TestBoundRefusals(t *testing.T) {
	flag := func(o string) string { return "--" + strings.ReplaceAll(o, "_", "-") }
	grid5 := gridModel(t, 5, false, 1)
	if _, err := Build(grid5, "grid", FacesOuter); err != nil {
		t.Fatalf("faces+outer without bounds: %v", err)
	}
	_, err := BuildBounded(grid5, "grid", FacesOuter, DefaultBounds())
	var be *BoundError
	if !errors.As(err, &be) {
		t.Fatalf("faces+outer on 5x5 within 8 variables: got %v, want a BoundError", err)
	}
	want := "faces+outer region graph: root {0,1,2,3,4,5,9,10,14,15,19,20,...} has 16 variables (65536 joint states), over --max-region-vars 6: raise it or use --scheme bethe"
	if got := be.Describe(flag); got != want {
		t.Errorf("message\n%s\nwant\n%s", got, want)
	}
	k4 := &mrf.Model{Cards: []int{20, 20, 20, 20}}
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			k4.Factors = append(k4.Factors, mrf.Factor{Vars: []int{i, j}, LogTable: make([]float64, 400)})
		}
	}
	_, err = BuildBounded(k4, "complete", Star, DefaultBounds())
	if !errors.As(err, &be) || !strings.Contains(be.Describe(flag), "has 3 variables (8000 joint states), over --max-region-states 4096") {
		t.Errorf("star over the states bound: %v", err)
	}
	// A factor of arity 9 cannot be split.
	big := factorModel(mrf.NewRand(2), constCards(12, 2), nil, []mrf.Edge{{I: 9, J: 10}}, [][]int{{8, 0, 1, 2, 3, 4, 5, 6, 7}})
	for _, scheme := range []string{Cycles, Auto} {
		_, err = Build(big, "uai", scheme)
		if !errors.As(err, &be) || be.Factor != 13 ||
			!strings.Contains(be.Describe(flag), "factor 13 over {0,1,2,3,4,5,6,7,8} has 9 variables (512 joint states), over --max-region-vars 6: a factor cannot be split; raise it or use --scheme bethe") {
			t.Errorf("%s with a factor of arity 9: %v", scheme, err)
		}
	}
	if _, err := BuildBounded(big, "uai", Bethe, Bounds{MaxVars: 2}); err != nil {
		t.Errorf("bethe is never refused: %v", err)
	}
	if _, err := BuildBounded(big, "uai", Cycles, Bounds{MaxVars: 9}); err != nil {
		t.Errorf("cycles within 9 variables: %v", err)
	}
	if _, err := BuildBounded(big, "uai", Cycles, Bounds{MaxVars: -1}); err == nil || !strings.Contains(err.Error(), "max_region_vars -1") {
		t.Errorf("negative bound: %v", err)
	}
}
