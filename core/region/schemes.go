package region

import (
	"fmt"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// Root-region schemes accepted by Build and RootSets.
const (
	Auto       = "auto"
	Bethe      = "bethe"
	Faces      = "faces"
	FacesOuter = "faces+outer"
	Star       = "star"
	Cycles     = "cycles"
)

// SchemeNames returns the scheme names in the order they are documented.
func SchemeNames() []string { return []string{Auto, Bethe, Faces, FacesOuter, Star, Cycles} }

// Build returns the region graph of m for a root scheme. graph is the
// model's mrf.Info.Graph ("grid", "torus", "complete", "uai", ...); it picks
// the scheme under "auto" and tells faces whether the grid wraps. The
// graph's Scheme is the resolved scheme (never "auto").
func Build(m *mrf.Model, graph, scheme string) (*Graph, error) {
	roots, resolved, err := RootSets(m, graph, scheme)
	if err != nil {
		return nil, err
	}
	g, err := FromRoots(m, resolved, roots)
	if err != nil {
		return nil, fmt.Errorf("%s region graph: %w", resolved, err)
	}
	return g, nil
}

// ResolveScheme returns the scheme "auto" stands for on a graph type, or
// scheme itself if it is not "auto". It fails on unknown schemes.
func ResolveScheme(graph, scheme string) (string, error) {
	switch scheme {
	case Auto:
		switch graph {
		case "grid", "torus":
			return Faces, nil
		case "complete":
			return Star, nil
		default:
			return Cycles, nil
		}
	case Bethe, Faces, FacesOuter, Star, Cycles:
		return scheme, nil
	}
	return "", fmt.Errorf("unknown region scheme %q, want one of %s", scheme, strings.Join(SchemeNames(), ", "))
}

// RootSets returns the root regions (variable sets) that Build would use and
// the resolved scheme name.
//
//   - bethe: the sorted scope of every factor of arity >= 2, then {v} for
//     every variable in no such factor.
//   - faces, faces+outer: graph must be "grid" or "torus" and m's pairwise
//     interactions exactly the edges of mrf.GridEdges(L, torus), n = L*L.
//     Roots are the plaquettes {(r,c),(r,c+1),(r+1,c),(r+1,c+1)} in row-major
//     order (wrapping on a torus); faces+outer appends the set of perimeter
//     nodes (open grids only).
//   - star: m's pairwise interactions must be exactly those of K_n. Roots are
//     {0,i,j} for 1 <= i < j < n in lexicographic order ({0,1} for n = 2,
//     {0} for n = 1).
//   - cycles: the paper's Algorithm 1, as follows.
//
// The cycles scheme works on the interaction graph G (variables joined when
// they share a factor; a factor of arity k gives a k-clique):
//
//  1. Planar or complete piece: if G is exactly the L x L grid or torus of
//     mrf.GridEdges, its plaquettes (the faces: tree-robust for the planar
//     grid; on a torus they already cover every edge); if G is complete, the
//     star basis with hub 0; otherwise the star basis (hub = lowest node) of
//     the largest clique found by a bounded Bron–Kerbosch search, if it has
//     at least 4 nodes. The piece's nodes become visited, its edges used.
//  2. Growth: visited nodes are scanned in the order they were visited, each
//     one's unused edges (s,t) by increasing t. If t is visited, the new
//     cycle is (s,t) closed by a shortest s–t path over used edges.
//     Otherwise it is (s,t), a path from t through unvisited nodes to a
//     visited node u (not back over (s,t)) and a shortest u–s path over used
//     edges, of the least total length (ties: first in breadth-first order).
//     If there is none, (s,t) is a bridge and {s,t} becomes a root. Cycle
//     nodes become visited and cycle edges used; each cycle adds at least
//     one unused edge, so the cycles form a cycle basis.
//  3. When growth stops and a component is untouched, it is seeded with its
//     shortest cycle (found from the lowest start node), or, if it is a
//     tree, with its lowest node alone, and growth resumes.
//  4. Variables with no neighbour become singleton roots; factors of arity
//     >= 3 whose scope lies in no root become roots of their own.
//
// Every edge of G, hence every factor, then lies in some root; roots inside
// other roots are dropped by FromRoots.
func RootSets(m *mrf.Model, graph, scheme string) ([][]int, string, error) {
	resolved, err := ResolveScheme(graph, scheme)
	if err != nil {
		return nil, "", err
	}
	if err := checkModel(m); err != nil {
		return nil, resolved, err
	}
	var roots [][]int
	switch resolved {
	case Bethe:
		roots = betheRoots(m)
	case Faces, FacesOuter:
		var torus bool
		switch graph {
		case "grid":
		case "torus":
			torus = true
		default:
			return nil, resolved, fmt.Errorf("scheme %s needs graph \"grid\" or \"torus\", got %q", resolved, graph)
		}
		if torus && resolved == FacesOuter {
			return nil, resolved, fmt.Errorf("scheme %s needs an open grid; a torus has no outer face", resolved)
		}
		L, err := checkGrid(m, torus)
		if err != nil {
			return nil, resolved, fmt.Errorf("scheme %s: %w", resolved, err)
		}
		roots = plaquettes(L, torus, resolved == FacesOuter)
	case Star:
		if err := matchEdges(m, mrf.CompleteEdges(len(m.Cards)), "complete-graph"); err != nil {
			return nil, resolved, fmt.Errorf("scheme %s: %w", resolved, err)
		}
		roots = starRoots(seq(len(m.Cards)))
	case Cycles:
		roots = cycleRoots(m)
	}
	return roots, resolved, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func betheRoots(m *mrf.Model) [][]int {
	var roots [][]int
	inPair := make([]bool, len(m.Cards))
	for _, f := range m.Factors {
		if len(f.Vars) < 2 {
			continue
		}
		s := slices.Clone(f.Vars)
		slices.Sort(s)
		roots = append(roots, s)
		for _, v := range s {
			inPair[v] = true
		}
	}
	for v, ok := range inPair {
		if !ok {
			roots = append(roots, []int{v})
		}
	}
	return roots
}

// starRoots returns the star cycle basis of the complete graph on nodes
// (ascending): hub nodes[0] and triangles {hub, i, j}.
func starRoots(nodes []int) [][]int {
	switch len(nodes) {
	case 0:
		return nil
	case 1, 2:
		return [][]int{slices.Clone(nodes)}
	}
	hub := nodes[0]
	var roots [][]int
	for a := 1; a < len(nodes); a++ {
		for b := a + 1; b < len(nodes); b++ {
			roots = append(roots, []int{hub, nodes[a], nodes[b]})
		}
	}
	return roots
}

// plaquettes returns the 2x2 faces of an L x L grid in row-major order of
// their top-left node, sorted within; with torus the faces wrap around, with
// outer the perimeter nodes follow as one more root.
func plaquettes(L int, torus, outer bool) [][]int {
	var roots [][]int
	last := L - 1
	if torus {
		last = L
	}
	for r := 0; r < last; r++ {
		for c := 0; c < last; c++ {
			r1, c1 := (r+1)%L, (c+1)%L
			s := []int{r*L + c, r*L + c1, r1*L + c, r1*L + c1}
			slices.Sort(s)
			roots = append(roots, s)
		}
	}
	if outer {
		var p []int
		for r := 0; r < L; r++ {
			for c := 0; c < L; c++ {
				if r == 0 || c == 0 || r == L-1 || c == L-1 {
					p = append(p, r*L+c)
				}
			}
		}
		roots = append(roots, p)
	}
	return roots
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// checkGrid returns L if m is an L x L grid (or torus) model.
func checkGrid(m *mrf.Model, torus bool) (int, error) {
	n := len(m.Cards)
	L := isqrt(n)
	if L*L != n {
		return 0, fmt.Errorf("%d variables is not a square number, so the model is not an L x L grid", n)
	}
	if L < 2 || (torus && L < 3) {
		return 0, fmt.Errorf("grid side %d has no faces (need >= 2, >= 3 for a torus)", L)
	}
	edges, err := mrf.GridEdges(L, torus)
	if err != nil {
		return 0, err
	}
	what := fmt.Sprintf("%dx%d grid", L, L)
	if torus {
		what = fmt.Sprintf("%dx%d torus", L, L)
	}
	if err := matchEdges(m, edges, what); err != nil {
		return 0, err
	}
	return L, nil
}

// matchEdges checks that m is pairwise (factors of arity <= 2) and that its
// interaction edges are exactly want.
func matchEdges(m *mrf.Model, want []mrf.Edge, what string) error {
	wantSet := make(map[mrf.Edge]bool, len(want))
	for _, e := range want {
		wantSet[e] = true
	}
	have := make(map[mrf.Edge]bool, len(want))
	for a, f := range m.Factors {
		switch len(f.Vars) {
		case 1:
			continue
		case 2:
		default:
			return fmt.Errorf("factor %d has %d variables; a %s model is pairwise", a, len(f.Vars), what)
		}
		e := mrf.Edge{I: min(f.Vars[0], f.Vars[1]), J: max(f.Vars[0], f.Vars[1])}
		if !wantSet[e] {
			return fmt.Errorf("factor %d over (%d,%d) is not an edge of the %s", a, e.I, e.J, what)
		}
		have[e] = true
	}
	for _, e := range want {
		if !have[e] {
			return fmt.Errorf("edge (%d,%d) of the %s has no factor", e.I, e.J, what)
		}
	}
	return nil
}
