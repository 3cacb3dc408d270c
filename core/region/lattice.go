package region

import (
	"fmt"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// lattice is an L x L grid or torus found in an interaction graph: at[r*L+c]
// is the variable at row r, column c.
type lattice struct {
	L     int
	torus bool
	at    []int
}

func (lt *lattice) String() string {
	kind := "grid"
	if lt.torus {
		kind = "torus"
	}
	return fmt.Sprintf("%dx%d %s", lt.L, lt.L, kind)
}

// faces returns the plaquettes (and with outer the perimeter) of lt in
// row-major lattice order, as sorted variable sets.
func (lt *lattice) faces(outer bool) [][]int {
	roots := plaquettes(lt.L, lt.torus, outer)
	for _, r := range roots {
		for k, p := range r {
			r[k] = lt.at[p]
		}
		slices.Sort(r)
	}
	return roots
}

// blocks returns the k x k windows of lt (as the function blocks documents)
// in lattice order, as sorted variable sets.
func (lt *lattice) blocks(k int) [][]int {
	roots := blocks(lt.L, k, lt.torus)
	for _, r := range roots {
		for i, p := range r {
			r[i] = lt.at[p]
		}
		slices.Sort(r)
	}
	return roots
}

// detectLattice reports whether m is pairwise (factors of arity <= 2) and its
// interaction graph is an L x L grid (L >= 2) or torus (L >= 3) under some
// numbering of the variables. Row-major (equivalently column-major)
// numbering is recognised for every L; other numberings are found by
// walking from a corner (grids) or from variable 0 (tori with L >= 5; on 3x3
// and 4x4 tori straight lines are not told apart locally). Every lattice
// found is checked edge for edge, so a false detection cannot happen.
func detectLattice(m *mrf.Model, g *igraph) *lattice {
	for _, f := range m.Factors {
		if len(f.Vars) > 2 {
			return nil
		}
	}
	n := len(g.adj)
	L := isqrt(n)
	if L*L != n || L < 2 {
		return nil
	}
	for _, torus := range []bool{false, true} {
		if g.gridSide(torus) == L {
			return &lattice{L: L, torus: torus, at: seq(n)}
		}
	}
	if at := walkGrid(g, L); at != nil && g.isLattice(L, false, at) {
		return &lattice{L: L, at: at}
	}
	if L >= 5 {
		if at := walkTorus(g, L); at != nil && g.isLattice(L, true, at) {
			return &lattice{L: L, torus: true, at: at}
		}
	}
	return nil
}

// isLattice reports whether g's edges are exactly those of the L x L grid
// (or torus) with node p of mrf.GridEdges placed at variable at[p].
func (g *igraph) isLattice(L int, torus bool, at []int) bool {
	if L < 2 || (torus && L < 3) {
		return false
	}
	es, err := mrf.GridEdges(L, torus)
	if err != nil || len(es) != len(g.ends) {
		return false
	}
	for _, e := range es {
		a, b := at[e.I], at[e.J]
		if _, ok := g.ids[mrf.Edge{I: min(a, b), J: max(a, b)}]; !ok {
			return false
		}
	}
	return true
}

// walkGrid places an open grid: the lowest corner (degree 2) at (0,0), its
// lower neighbour at (0,1), row 0 along the border (degree <= 3 nodes), then
// each node below the unique unplaced neighbour of the node above it. It
// returns nil when a step is not unique.
func walkGrid(g *igraph, L int) []int {
	n := L * L
	corner := -1
	for v := range n {
		if len(g.adj[v]) == 2 {
			corner = v
			break
		}
	}
	if corner < 0 {
		return nil
	}
	at := make([]int, n)
	placed := make([]bool, n)
	put := func(p, v int) { at[p], placed[v] = v, true }
	put(0, corner)
	put(1, g.adj[corner][0])
	for c := 2; c < L; c++ {
		prev, cur := at[c-2], at[c-1]
		next := -1
		for _, u := range g.adj[cur] {
			if u == prev || placed[u] || len(g.adj[u]) > 3 {
				continue
			}
			if next >= 0 {
				return nil
			}
			next = u
		}
		if next < 0 {
			return nil
		}
		put(c, next)
	}
	for p := L; p < n; p++ {
		next := -1
		for _, u := range g.adj[at[p-L]] {
			if placed[u] {
				continue
			}
			if next >= 0 {
				return nil
			}
			next = u
		}
		if next < 0 {
			return nil
		}
		put(p, next)
	}
	return at
}

// walkTorus places a torus with L >= 5: variable 0 at (0,0), its lowest
// neighbour at (0,1), the lower of the two neighbours that close a 4-cycle
// with it at (1,0); row 0 and column 0 continue straight (the next node
// shares no neighbour but the current one with the node before), and (r,c)
// is the common neighbour of (r-1,c) and (r,c-1) other than (r-1,c-1).
func walkTorus(g *igraph, L int) []int {
	n := L * L
	for v := range n {
		if len(g.adj[v]) != 4 {
			return nil
		}
	}
	v0 := 0
	a := g.adj[v0][0]
	b := -1
	for _, u := range g.adj[v0][1:] {
		if g.commonOther(a, u, v0) >= 0 {
			b = u
			break
		}
	}
	if b < 0 {
		return nil
	}
	at := make([]int, n)
	for i := range at {
		at[i] = -1
	}
	at[0], at[1], at[L] = v0, a, b
	for k := 2; k < L; k++ {
		if at[k] = g.straight(at[k-2], at[k-1]); at[k] < 0 {
			return nil
		}
		if at[k*L] = g.straight(at[(k-2)*L], at[(k-1)*L]); at[k*L] < 0 {
			return nil
		}
	}
	for r := 1; r < L; r++ {
		for c := 1; c < L; c++ {
			if at[r*L+c] = g.commonOther(at[(r-1)*L+c], at[r*L+c-1], at[(r-1)*L+c-1]); at[r*L+c] < 0 {
				return nil
			}
		}
	}
	seen := make([]bool, n)
	for _, v := range at {
		if seen[v] {
			return nil
		}
		seen[v] = true
	}
	return at
}

// commonOther returns the unique common neighbour of x and y other than
// skip, or -1 if there is none or more than one.
func (g *igraph) commonOther(x, y, skip int) int {
	found, k := -1, 0
	g.eachCommon(x, y, skip, func(u int) { found, k = u, k+1 })
	if k != 1 {
		return -1
	}
	return found
}

// eachCommon calls f for every common neighbour of x and y other than skip.
func (g *igraph) eachCommon(x, y, skip int, f func(u int)) {
	for _, u := range g.adj[x] {
		if u == skip || u == y {
			continue
		}
		if _, ok := slices.BinarySearch(g.adj[y], u); ok {
			f(u)
		}
	}
}

// straight returns the unique neighbour of cur, other than prev, that is not
// adjacent to prev and shares no neighbour with it except cur, or -1.
func (g *igraph) straight(prev, cur int) int {
	found := -1
	for _, u := range g.adj[cur] {
		if u == prev {
			continue
		}
		if _, adj := slices.BinarySearch(g.adj[prev], u); adj {
			continue
		}
		k := 0
		g.eachCommon(prev, u, cur, func(int) { k++ })
		if k > 0 {
			continue
		}
		if found >= 0 {
			return -1
		}
		found = u
	}
	return found
}
