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
	Blocks3    = "blocks3"
	Star       = "star"
	Cycles     = "cycles"
)

// SchemeNames returns the scheme names in the order they are documented.
func SchemeNames() []string { return []string{Auto, Bethe, Faces, FacesOuter, Blocks3, Star, Cycles} }

// Build returns the region graph of m for a root scheme with the bounds
// Build has always applied: DefaultBounds shape cycles (and auto when it
// resolves to cycles), and the explicit schemes bethe, faces, faces+outer and
// star are built as asked, without a size bound (Bind's MaxStates still
// applies). graph is the model's mrf.Info.Graph ("grid", "torus",
// "complete", "uai", ...); it picks the scheme under "auto" and tells faces
// whether the grid wraps. The graph's Scheme is the resolved scheme (never
// "auto") and its Detail says how it was chosen.
func Build(m *mrf.Model, graph, scheme string) (*Graph, error) {
	b := DefaultBounds()
	if scheme != Auto && scheme != Cycles {
		b = Unbounded()
	}
	return BuildBounded(m, graph, scheme, b)
}

// BuildBounded is Build with explicit bounds b: they shape cycles and auto
// (see RootSetsBounded), and a root of any other scheme but bethe over b is
// refused with a *BoundError. Zero fields of b mean no limit.
func BuildBounded(m *mrf.Model, graph, scheme string, b Bounds) (*Graph, error) {
	rs, err := RootSetsBounded(m, graph, scheme, b)
	if err != nil {
		return nil, err
	}
	g, err := FromRoots(m, rs.Scheme, rs.Roots)
	if err != nil {
		return nil, fmt.Errorf("%s region graph: %w", rs.Scheme, err)
	}
	g.Detail = rs.Detail
	return g, nil
}

// ResolveScheme returns the scheme "auto" stands for on a graph type, or
// scheme itself if it is not "auto". It fails on unknown schemes. On graph
// types other than grid, torus and complete, auto's choice depends on the
// model (RootSetsBounded); ResolveScheme then returns cycles, the fallback.
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
	case Bethe, Faces, FacesOuter, Blocks3, Star, Cycles:
		return scheme, nil
	}
	return "", fmt.Errorf("unknown region scheme %q, want one of %s", scheme, strings.Join(SchemeNames(), ", "))
}

// RootSets returns the root regions (variable sets) that Build would use and
// the resolved scheme name.
func RootSets(m *mrf.Model, graph, scheme string) ([][]int, string, error) {
	b := DefaultBounds()
	if scheme != Auto && scheme != Cycles {
		b = Unbounded()
	}
	rs, err := RootSetsBounded(m, graph, scheme, b)
	if err != nil {
		return nil, rs.Scheme, err
	}
	return rs.Roots, rs.Scheme, nil
}

// Roots are the root regions of a scheme on a model.
type Roots struct {
	Roots  [][]int
	Scheme string // the resolved scheme, never "auto"
	// Detail says what was picked and why, e.g. "faces (detected 10x10
	// grid)" or "cycles (within 8 variables, 4096 joint states; 3 edges in
	// no such cycle)".
	Detail string
}

// RootSetsBounded returns the root regions of scheme on m under bounds b.
//
//   - bethe: the sorted scope of every factor of arity >= 2, then {v} for
//     every variable in no such factor. Never refused by b.
//   - faces, faces+outer: on graph "grid" or "torus", m's pairwise
//     interactions must be exactly the edges of mrf.GridEdges(L, torus),
//     n = L*L. Roots are the plaquettes {(r,c),(r,c+1),(r+1,c),(r+1,c+1)} in
//     row-major order (wrapping on a torus); faces+outer appends the set of
//     perimeter nodes (open grids only). On any other graph type the model
//     must be pairwise and its interaction graph an L x L grid or torus
//     under some numbering (found as detectLattice documents); the faces are
//     then those of the lattice found.
//   - blocks3: the same check; roots are the 3x3 windows
//     {(r+i, c+j) : 0 <= i, j < 3} in row-major order of their top-left
//     node (wrapping on a torus; one root, every node, on a grid of side
//     <= 3). FromRoots drops the regions of counting number 0.
//   - star: m's pairwise interactions must be exactly those of K_n. Roots are
//     {0,i,j} for 1 <= i < j < n in lexicographic order ({0,1} for n = 2,
//     {0} for n = 1).
//   - cycles: the paper's Algorithm 1 within the bounds, as follows.
//   - auto: on graph "grid" or "torus" faces, on "complete" star (as
//     ResolveScheme says); on any other graph type faces if the model is a
//     lattice (detected as for faces), star if it is pairwise with every
//     pair interacting (n >= 3), cycles otherwise. If the roots of faces or
//     star do not fit b, auto falls back to cycles.
//
// The cycles scheme works on the interaction graph G (variables joined when
// they share a factor; a factor of arity k gives a k-clique). Under auto, G
// has only the edges of pairwise factors, and factors of higher arity are
// roots of their own (step 5): a cycle through edges that only a
// higher-order factor makes is a root holding none of its factors, and on
// small noisy-OR networks such roots gave GBP up to 5x the error of bethe
// regions (explicit cycles keeps the paper's Algorithm 1 on the full
// graph). On pairwise models (the paper's) both graphs are the same. A
// cycle fits when its variables fit b.
//
//  1. Planar or complete piece: if G is exactly the L x L grid or torus of
//     mrf.GridEdges, its plaquettes (the faces: tree-robust for the planar
//     grid; on a torus they already cover every edge); if G is complete, the
//     star basis with hub 0; otherwise the star basis (hub = lowest node) of
//     the largest clique found by a bounded Bron–Kerbosch search, if it has
//     at least 4 nodes. The piece's nodes become visited, its edges used. A
//     piece with a root that does not fit is not taken.
//  2. Growth: visited nodes are scanned in the order they were visited, each
//     one's unused edges (s,t) by increasing t. If t is visited, the new
//     cycle is (s,t) closed by a shortest s–t path over used edges.
//     Otherwise it is (s,t), a path from t through unvisited nodes to a
//     visited node u (not back over (s,t)) and a shortest u–s path over used
//     edges, of the least total length (ties: first in breadth-first order).
//     If there is none, (s,t) is a bridge and {s,t} becomes a root. Cycle
//     nodes become visited and cycle edges used; each cycle adds at least
//     one unused edge, so the cycles form a cycle basis. A cycle that does
//     not fit is not taken: its edge is deferred.
//  3. When the scan ends, the deferred edges are tried again in the order
//     they were deferred (more edges are used now, so a shorter cycle may
//     close them) and growth resumes after any success. If none closes, the
//     first deferred edge with one end unvisited is given up: {s,t} becomes
//     a root, the edge used, its far end visited, and growth resumes.
//  4. When growth stops and a component is untouched, it is seeded with its
//     shortest cycle (found from the lowest start node) if it fits, or
//     else, or if it is a tree, with its lowest node alone, and growth
//     resumes.
//  5. Deferred edges still open become roots {s,t}; variables with no
//     neighbour in G become singleton roots; factors of arity >= 3 whose
//     scope lies in no root become roots of their own, and one that does not
//     fit b is refused (a factor cannot be split).
//
// Every edge of G and every higher-order factor, hence every factor, then
// lies in some root; roots inside
// other roots are dropped by FromRoots. Without bounds (or when no cycle is
// over them) steps 3 and 5's deferred edges do nothing and the roots are
// those of the paper's Algorithm 1.
func RootSetsBounded(m *mrf.Model, graph, scheme string, b Bounds) (Roots, error) {
	resolved, err := ResolveScheme(graph, scheme)
	if err != nil {
		return Roots{}, err
	}
	rs := Roots{Scheme: resolved, Detail: resolved}
	if err := b.Check(); err != nil {
		return rs, err
	}
	if err := checkModel(m); err != nil {
		return rs, err
	}
	if scheme == Auto && graph != "grid" && graph != "torus" && graph != "complete" {
		if rs, ok := autoShape(m, b); ok {
			return rs, nil
		}
	}
	switch resolved {
	case Bethe:
		rs.Roots = betheRoots(m)
		return rs, nil
	case Faces, FacesOuter, Blocks3:
		rs.Roots, rs.Detail, err = faceRoots(m, graph, resolved)
	case Star:
		if err := matchEdges(m, mrf.CompleteEdges(len(m.Cards)), "complete-graph"); err != nil {
			return rs, fmt.Errorf("scheme %s: %w", resolved, err)
		}
		rs.Roots = starRoots(seq(len(m.Cards)))
	case Cycles:
		return boundedCycles(m, b, scheme == Auto)
	}
	if err != nil {
		return rs, err
	}
	if err := checkRoots(m, resolved, rs.Roots, b); err != nil {
		if scheme == Auto {
			return boundedCycles(m, b, true)
		}
		return rs, err
	}
	return rs, nil
}

// autoShape picks faces or star for auto on a model whose graph type says
// nothing about its shape, if the model is a lattice or complete and the
// roots fit b.
func autoShape(m *mrf.Model, b Bounds) (Roots, bool) {
	ig := interaction(m)
	if lt := detectLattice(m, ig); lt != nil {
		roots := lt.faces(false)
		if checkRoots(m, Faces, roots, b) == nil {
			return Roots{Roots: roots, Scheme: Faces, Detail: fmt.Sprintf("faces (detected %s)", lt)}, true
		}
	}
	n := len(m.Cards)
	if ig.isComplete() && matchEdges(m, mrf.CompleteEdges(n), "complete-graph") == nil {
		roots := starRoots(seq(n))
		if checkRoots(m, Star, roots, b) == nil {
			return Roots{Roots: roots, Scheme: Star, Detail: fmt.Sprintf("star (detected complete graph K%d)", n)}, true
		}
	}
	return Roots{}, false
}

// faceRoots returns the faces (or faces+outer) roots of m and their detail.
func faceRoots(m *mrf.Model, graph, scheme string) ([][]int, string, error) {
	outer := scheme == FacesOuter
	switch graph {
	case "grid", "torus":
		torus := graph == "torus"
		if torus && outer {
			return nil, "", fmt.Errorf("scheme %s needs an open grid; a torus has no outer face", scheme)
		}
		L, err := checkGrid(m, torus)
		if err != nil {
			return nil, "", fmt.Errorf("scheme %s: %w", scheme, err)
		}
		if scheme == Blocks3 {
			return blocks(L, 3, torus), scheme, nil
		}
		return plaquettes(L, torus, outer), scheme, nil
	}
	lt := detectLattice(m, interaction(m))
	if lt == nil {
		return nil, "", fmt.Errorf("scheme %s needs a grid or torus: graph %q is not \"grid\" or \"torus\", and the model's interaction graph is not an L x L lattice", scheme, graph)
	}
	if lt.torus && outer {
		return nil, "", fmt.Errorf("scheme %s needs an open grid; the model is a %s, which has no outer face", scheme, lt)
	}
	if scheme == Blocks3 {
		return lt.blocks(3), fmt.Sprintf("%s (detected %s)", scheme, lt), nil
	}
	return lt.faces(outer), fmt.Sprintf("%s (detected %s)", scheme, lt), nil
}

// boundedCycles returns the cycles roots within b (over pairwise factors
// only with pairwiseOnly), refusing a factor scope over b.
func boundedCycles(m *mrf.Model, b Bounds, pairwiseOnly bool) (Roots, error) {
	roots, left := cycleRoots(m, b, pairwiseOnly)
	rs := Roots{Roots: roots, Scheme: Cycles, Detail: Cycles}
	var notes []string
	if pairwiseOnly && !isPairwise(m) {
		notes = append(notes, "over pairwise factors, higher-order factors as roots")
	}
	if b != (Bounds{}) {
		notes = append(notes, fmt.Sprintf("within %s; %d edges in no such cycle", b, left))
	}
	if len(notes) > 0 {
		rs.Detail = fmt.Sprintf("cycles (%s)", strings.Join(notes, "; "))
	}
	if err := checkRoots(m, Cycles, roots, b); err != nil {
		return rs, err
	}
	return rs, nil
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

// blocks returns the k x k windows (stride 1) of an L x L grid in row-major
// order of their top-left node, sorted within; with torus they wrap around.
// k = 2 gives the plaquettes. A side shorter than k gives one window, the
// whole lattice.
func blocks(L, k int, torus bool) [][]int {
	if L <= k && !torus || L < k {
		return [][]int{seq(L * L)}
	}
	last := L - k + 1
	if torus {
		last = L
	}
	var roots [][]int
	for r := 0; r < last; r++ {
		for c := 0; c < last; c++ {
			s := make([]int, 0, k*k)
			for dr := range k {
				for dc := range k {
					s = append(s, ((r+dr)%L)*L+(c+dc)%L)
				}
			}
			slices.Sort(s)
			roots = append(roots, s)
		}
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

func isPairwise(m *mrf.Model) bool {
	for _, f := range m.Factors {
		if len(f.Vars) > 2 {
			return false
		}
	}
	return true
}
