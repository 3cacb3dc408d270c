package region

import (
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// cliqueBudget caps the Bron–Kerbosch calls of the clique search, so dense
// graphs cost bounded time; the best clique found within it is used.
const cliqueBudget = 200000

// igraph is the interaction graph of a model: variables are joined when they
// share a factor (a factor of arity k contributes the k(k-1)/2 pairs).
type igraph struct {
	adj  [][]int // sorted neighbours
	eid  [][]int // eid[v][k] is the id of edge {v, adj[v][k]}
	ids  map[mrf.Edge]int
	ends []mrf.Edge
}

func interaction(m *mrf.Model) *igraph { return interactionUpTo(m, 0) }

// interactionUpTo is the interaction graph of the factors of arity at most
// maxArity (0: all).
func interactionUpTo(m *mrf.Model, maxArity int) *igraph {
	n := len(m.Cards)
	g := &igraph{adj: make([][]int, n), eid: make([][]int, n), ids: map[mrf.Edge]int{}}
	for _, f := range m.Factors {
		if maxArity > 0 && len(f.Vars) > maxArity {
			continue
		}
		for x := range f.Vars {
			for y := x + 1; y < len(f.Vars); y++ {
				e := mrf.Edge{I: min(f.Vars[x], f.Vars[y]), J: max(f.Vars[x], f.Vars[y])}
				if _, ok := g.ids[e]; !ok {
					g.ids[e] = len(g.ends)
					g.ends = append(g.ends, e)
				}
			}
		}
	}
	type nb struct{ v, id int }
	lists := make([][]nb, n)
	for id, e := range g.ends {
		lists[e.I] = append(lists[e.I], nb{e.J, id})
		lists[e.J] = append(lists[e.J], nb{e.I, id})
	}
	for v, l := range lists {
		slices.SortFunc(l, func(a, b nb) int { return a.v - b.v })
		for _, x := range l {
			g.adj[v] = append(g.adj[v], x.v)
			g.eid[v] = append(g.eid[v], x.id)
		}
	}
	return g
}

func (g *igraph) edge(a, b int) int { return g.ids[mrf.Edge{I: min(a, b), J: max(a, b)}] }

// isComplete reports whether every pair of the n >= 3 variables interacts.
func (g *igraph) isComplete() bool {
	n := len(g.adj)
	return n >= 3 && len(g.ends) == n*(n-1)/2
}

// gridSide returns L if the graph is exactly the L x L grid (or torus) of
// mrf.GridEdges, else 0.
func (g *igraph) gridSide(torus bool) int {
	n := len(g.adj)
	L := isqrt(n)
	if L*L != n || L < 2 || (torus && L < 3) {
		return 0
	}
	es, err := mrf.GridEdges(L, torus)
	if err != nil || len(es) != len(g.ends) {
		return 0
	}
	for _, e := range es {
		if _, ok := g.ids[e]; !ok {
			return 0
		}
	}
	return L
}

// cycleRoots returns the roots of the cycles scheme under bounds b,
// documented step by step at RootSetsBounded, and the number of edges that
// no cycle within b could cover (each left to a root of its own or its
// factor's). With pairwiseOnly the cycles run over the edges of pairwise
// factors only (auto's choice).
func cycleRoots(m *mrf.Model, b Bounds, pairwiseOnly bool) ([][]int, int) {
	g := interaction(m)
	if pairwiseOnly {
		g = interactionUpTo(m, 2)
	}
	st := newGrower(g, m.Cards, b)
	st.seedPiece()
	st.growCycles()
	st.leftoverRoots()
	return factorRoots(st.roots, m), st.left
}

// seedPiece takes the piece whose roots are known without a search: all of
// a complete graph, a grid or torus, or else a clique of 4 or more nodes.
func (st *grower) seedPiece() {
	g := st.g
	n := len(g.adj)
	switch {
	case g.isComplete():
		st.takePiece(seq(n), starRoots(seq(n)))
	case g.gridSide(false) > 0:
		L := g.gridSide(false)
		st.takePiece(seq(n), plaquettes(L, false, false))
	case g.gridSide(true) > 0:
		L := g.gridSide(true)
		st.takePiece(seq(n), plaquettes(L, true, false))
	default:
		if c := maxClique(g, cliqueBudget); len(c) >= 4 {
			st.takePiece(c, starRoots(c))
		}
	}
}

// growCycles grows the visited part from the first unvisited node with
// edges, by its shortest cycle when that fits the bounds, until every such
// node is visited.
func (st *grower) growCycles() {
	g := st.g
	for {
		st.growAll()
		seed := -1
		for v := range len(g.adj) {
			if !st.visited[v] && len(g.adj[v]) > 0 {
				seed = v
				break
			}
		}
		if seed < 0 {
			return
		}
		if cyc := st.shortestCycle(seed); cyc != nil && st.fits(cyc) {
			for k, v := range cyc {
				st.visit(v)
				st.used[g.edge(v, cyc[(k+1)%len(cyc)])] = true
			}
			st.addRoot(cyc)
		} else {
			st.visit(seed)
		}
	}
}

// leftoverRoots gives a root of its own to every edge no cycle within the
// bounds covers, and to every node without edges.
func (st *grower) leftoverRoots() {
	g := st.g
	for _, e := range st.deferred {
		if !st.used[e] {
			st.left++
			st.roots = append(st.roots, []int{g.ends[e].I, g.ends[e].J})
		}
	}
	for v := range len(g.adj) {
		if len(g.adj[v]) == 0 {
			st.roots = append(st.roots, []int{v})
		}
	}
}

// factorRoots returns roots with the scope of every higher-order factor of
// m that no root contains added as a root.
func factorRoots(roots [][]int, m *mrf.Model) [][]int {
	byVar := make([][]int, len(m.Cards))
	for i, r := range roots {
		for _, v := range r {
			byVar[v] = append(byVar[v], i)
		}
	}
	for _, f := range m.Factors {
		if len(f.Vars) < 3 {
			continue
		}
		s := slices.Clone(f.Vars)
		slices.Sort(s)
		inside := false
		for _, i := range sparsest(byVar, s) {
			if isSubset(s, roots[i]) {
				inside = true
				break
			}
		}
		if !inside {
			for _, v := range s {
				byVar[v] = append(byVar[v], len(roots))
			}
			roots = append(roots, s)
		}
	}
	return roots
}

// grower holds the state of Algorithm 1.
type grower struct {
	g        *igraph
	cards    []int
	bounds   Bounds
	visited  []bool
	used     []bool
	deferred []int  // edges whose shortest cycle was over the bounds, in order met
	isDefer  []bool // isDefer[e]: e is in deferred
	left     int    // deferred edges given up: no cycle within the bounds covers them
	order    []int  // visited nodes in the order they were visited
	next     int    // position in order of the next node to scan
	roots    [][]int

	// Scratch, all -1 between uses.
	dUsed, pUsed []int // shortest paths over used edges from one source
	dist, prev   []int // breadth-first search through unvisited nodes
	prevE        []int
	queue        []int
	touched      []int
}

func newGrower(g *igraph, cards []int, b Bounds) *grower {
	n := len(g.adj)
	fill := func() []int {
		s := make([]int, n)
		for i := range s {
			s[i] = -1
		}
		return s
	}
	return &grower{
		g: g, cards: cards, bounds: b, visited: make([]bool, n), used: make([]bool, len(g.ends)),
		isDefer: make([]bool, len(g.ends)),
		dUsed:   fill(), pUsed: fill(), dist: fill(), prev: fill(), prevE: fill(),
	}
}

func (st *grower) visit(v int) {
	if !st.visited[v] {
		st.visited[v] = true
		st.order = append(st.order, v)
	}
}

func (st *grower) addRoot(nodes []int) {
	s := slices.Clone(nodes)
	slices.Sort(s)
	st.roots = append(st.roots, s)
}

func (st *grower) fits(nodes []int) bool { return st.bounds.fits(st.cards, nodes) }

// takePiece adds the basis of a planar or complete piece on nodes (sorted)
// and marks its nodes visited and its edges (those inside one root) used.
// A piece with a root over the bounds is not taken.
func (st *grower) takePiece(nodes []int, basis [][]int) {
	for _, r := range basis {
		if !st.fits(r) {
			return
		}
	}
	for _, v := range nodes {
		st.visit(v)
	}
	for _, r := range basis {
		st.roots = append(st.roots, r)
		for x := range r {
			for y := x + 1; y < len(r); y++ {
				if id, ok := st.g.ids[mrf.Edge{I: r[x], J: r[y]}]; ok {
					st.used[id] = true
				}
			}
		}
	}
}

func (st *grower) grow() {
	g := st.g
	for ; st.next < len(st.order); st.next++ {
		s := st.order[st.next]
		for k, t := range g.adj[s] {
			e := g.eid[s][k]
			if st.used[e] || st.isDefer[e] {
				continue
			}
			switch st.cover(s, t, e) {
			case tooLarge:
				st.isDefer[e] = true
				st.deferred = append(st.deferred, e)
			case noCycle:
				// (s,t) is in no cycle: a bridge.
				st.used[e] = true
				st.visit(t)
				st.roots = append(st.roots, []int{min(s, t), max(s, t)})
			}
		}
	}
}

// growAll grows, then retries the deferred edges: once more nodes are
// visited and edges used, a shorter cycle may close them. When no deferred
// edge closes within the bounds, the first one that reaches an unvisited
// node is given up (left to its own root), its far end visited, and growth
// goes on from there. Without bounds nothing is deferred and growAll is
// grow.
func (st *grower) growAll() {
	for {
		st.grow()
		progress := false
		for _, e := range st.deferred {
			if st.used[e] {
				continue
			}
			s, t := st.g.ends[e].I, st.g.ends[e].J
			if !st.visited[s] {
				s, t = t, s
			}
			if !st.visited[s] {
				continue
			}
			if st.cover(s, t, e) == covered {
				progress = true
			}
		}
		if progress {
			continue
		}
		for _, e := range st.deferred {
			s, t := st.g.ends[e].I, st.g.ends[e].J
			if st.used[e] || st.visited[s] == st.visited[t] {
				continue
			}
			// Given up: the edge keeps a root of its own, like a bridge.
			st.used[e] = true
			st.left++
			st.visit(s)
			st.visit(t)
			st.roots = append(st.roots, []int{s, t})
			progress = true
			break
		}
		if !progress {
			return
		}
	}
}

// Outcomes of cover.
const (
	covered  = iota // a cycle within the bounds now covers the edge
	tooLarge        // the shortest cycle found is over the bounds
	noCycle         // there is no cycle through the edge (extend only)
)

// cover tries to close the unused edge (s,t), s visited, into a cycle: a
// chord if t is visited, else an extension.
func (st *grower) cover(s, t, e int) int {
	if st.visited[t] {
		return st.chord(s, t, e)
	}
	return st.extend(s, t, e)
}

// usedPaths fills dUsed/pUsed with breadth-first distances and predecessors
// over used edges from s, and returns the nodes reached (to reset later).
func (st *grower) usedPaths(s int) []int {
	g := st.g
	reached := []int{s}
	st.dUsed[s] = 0
	for qi := 0; qi < len(reached); qi++ {
		x := reached[qi]
		for k, y := range g.adj[x] {
			if st.used[g.eid[x][k]] && st.dUsed[y] < 0 {
				st.dUsed[y] = st.dUsed[x] + 1
				st.pUsed[y] = x
				reached = append(reached, y)
			}
		}
	}
	return reached
}

func (st *grower) resetUsed(reached []int) {
	for _, x := range reached {
		st.dUsed[x], st.pUsed[x] = -1, -1
	}
}

// chord closes the unused edge (s,t) between visited nodes with a shortest
// s–t path over used edges.
func (st *grower) chord(s, t, e int) int {
	reached := st.usedPaths(s)
	defer st.resetUsed(reached)
	if st.dUsed[t] < 0 {
		// Cannot happen: the visited nodes of a component are joined by used
		// edges. Keep the edge covered regardless.
		st.used[e] = true
		st.roots = append(st.roots, []int{min(s, t), max(s, t)})
		return covered
	}
	var cyc []int
	for x := t; x != s; x = st.pUsed[x] {
		cyc = append(cyc, x)
	}
	cyc = append(cyc, s)
	if !st.fits(cyc) {
		return tooLarge
	}
	st.used[e] = true
	st.addRoot(cyc)
	return covered
}

// extend looks for the shortest cycle through the unused edge (s,t), t not
// visited, that runs through unvisited nodes from t to a visited node u and
// back to s over used edges. It adds it and reports covered if it fits the
// bounds, tooLarge if not, or noCycle if there is none ((s,t) is then a
// bridge).
func (st *grower) extend(s, t, e int) int {
	g := st.g
	reached := st.usedPaths(s)
	defer st.resetUsed(reached)
	st.queue = append(st.queue[:0], t)
	st.touched = append(st.touched[:0], t)
	st.dist[t] = 0
	defer func() {
		for _, x := range st.touched {
			st.dist[x], st.prev[x], st.prevE[x] = -1, -1, -1
		}
	}()
	best, bw, bu, be := -1, -1, -1, -1
	for qi := 0; qi < len(st.queue); qi++ {
		w := st.queue[qi]
		if best >= 0 && st.dist[w]+2 >= best {
			break // no cycle through w or later nodes is shorter
		}
		for k, u := range g.adj[w] {
			id := g.eid[w][k]
			if st.visited[u] {
				if id == e || st.dUsed[u] < 0 {
					continue
				}
				if tot := st.dist[w] + 2 + st.dUsed[u]; best < 0 || tot < best {
					best, bw, bu, be = tot, w, u, id
				}
			} else if st.dist[u] < 0 {
				st.dist[u] = st.dist[w] + 1
				st.prev[u] = w
				st.prevE[u] = id
				st.queue = append(st.queue, u)
				st.touched = append(st.touched, u)
			}
		}
	}
	if bw < 0 {
		return noCycle
	}
	var path1 []int // bw back to t
	for x := bw; ; x = st.prev[x] {
		path1 = append(path1, x)
		if x == t {
			break
		}
	}
	slices.Reverse(path1)
	cyc := append([]int{s}, path1...)
	for x := bu; x != s; x = st.pUsed[x] {
		cyc = append(cyc, x)
	}
	if !st.fits(cyc) {
		return tooLarge
	}
	st.used[e] = true
	st.used[be] = true
	for _, x := range path1 {
		if x != t {
			st.used[st.prevE[x]] = true
		}
		st.visit(x)
	}
	st.addRoot(cyc)
	return covered
}

// shortestCycle returns a shortest cycle (in cycle order) of the component
// of seed, or nil if the component is a tree. Among equal lengths it takes
// the one found from the lowest start node.
func (st *grower) shortestCycle(seed int) []int {
	comp := st.component(seed)
	limit := len(comp) + 1
	bestR := -1
	for _, r := range comp {
		if l := st.shortestClosing(r, limit); l > 0 {
			limit, bestR = l, r
			if l == 3 {
				break
			}
		}
	}
	if bestR < 0 {
		return nil
	}
	return st.cycleFrom(bestR, limit)
}

// component returns the nodes of seed's component, ascending.
func (st *grower) component(seed int) []int {
	g := st.g
	comp := []int{seed}
	st.dist[seed] = 0
	for qi := 0; qi < len(comp); qi++ {
		for _, y := range g.adj[comp[qi]] {
			if st.dist[y] < 0 {
				st.dist[y] = 0
				comp = append(comp, y)
			}
		}
	}
	for _, x := range comp {
		st.dist[x] = -1
	}
	slices.Sort(comp)
	return comp
}

// shortestClosing searches breadth first from r and returns the length of
// the shortest closed walk through r's search tree shorter than limit, or
// -1 if there is none.
func (st *grower) shortestClosing(r, limit int) int {
	g := st.g
	st.queue = append(st.queue[:0], r)
	st.dist[r] = 0
	bestLen := -1
	for qi := 0; qi < len(st.queue); qi++ {
		x := st.queue[qi]
		if 2*st.dist[x]+1 >= limit {
			break
		}
		for _, y := range g.adj[x] {
			switch {
			case st.dist[y] < 0:
				st.dist[y] = st.dist[x] + 1
				st.prev[y] = x
				st.queue = append(st.queue, y)
			case y != st.prev[x]:
				if l := st.dist[x] + st.dist[y] + 1; l < limit {
					limit, bestLen = l, l
				}
			}
		}
	}
	for _, x := range st.queue {
		st.dist[x], st.prev[x] = -1, -1
	}
	return bestLen
}

// cycleFrom rebuilds, in cycle order, a cycle of length girth found by the
// search from r; a shortest closed walk of the girth's length is a simple
// cycle.
func (st *grower) cycleFrom(r, girth int) []int {
	g := st.g
	st.queue = append(st.queue[:0], r)
	st.dist[r] = 0
	bx, by := -1, -1
	for qi := 0; qi < len(st.queue) && bx < 0; qi++ {
		x := st.queue[qi]
		for _, y := range g.adj[x] {
			if st.dist[y] < 0 {
				st.dist[y] = st.dist[x] + 1
				st.prev[y] = x
				st.queue = append(st.queue, y)
			} else if y != st.prev[x] && st.dist[x]+st.dist[y]+1 == girth {
				bx, by = x, y
				break
			}
		}
	}
	var cyc []int
	for x := bx; x >= 0; x = st.prev[x] {
		cyc = append(cyc, x)
	}
	slices.Reverse(cyc) // r ... bx
	for y := by; y != r; y = st.prev[y] {
		cyc = append(cyc, y)
	}
	for _, x := range st.queue {
		st.dist[x], st.prev[x] = -1, -1
	}
	return cyc
}

// maxClique returns a largest clique found by Bron–Kerbosch with pivoting
// within budget calls (sorted), or nil if it has fewer than 4 nodes.
func maxClique(g *igraph, budget int) []int {
	var best []int
	calls := 0
	var rec func(r, p, x []int)
	rec = func(r, p, x []int) {
		calls++
		if calls > budget || len(r)+len(p) <= max(len(best), 3) {
			return
		}
		if len(p) == 0 {
			if len(x) == 0 {
				best = slices.Clone(r)
			}
			return
		}
		// Pivot: the node of p ∪ x with most neighbours in p.
		pivot, most := -1, -1
		for _, list := range [][]int{p, x} {
			for _, u := range list {
				if c := countCommon(p, g.adj[u]); c > most {
					pivot, most = u, c
				}
			}
		}
		cand := difference(p, g.adj[pivot])
		for _, v := range cand {
			rec(append(r[:len(r):len(r)], v), intersect(nil, p, g.adj[v]), intersect(nil, x, g.adj[v]))
			p = difference(p, []int{v})
			x = insertSorted(x, v)
		}
	}
	// Outer level in node order: later neighbours are candidates, earlier
	// ones excluded, so each clique is found once from its lowest node.
	for v := range g.adj {
		if len(g.adj[v]) < 3 {
			continue
		}
		i, _ := slices.BinarySearch(g.adj[v], v)
		rec([]int{v}, slices.Clone(g.adj[v][i:]), slices.Clone(g.adj[v][:i]))
		if calls > budget {
			break
		}
	}
	if len(best) < 4 {
		return nil
	}
	slices.Sort(best)
	return best
}

func countCommon(a, b []int) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// difference returns sorted a \ sorted b in a new slice.
func difference(a, b []int) []int {
	out := make([]int, 0, len(a))
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

func insertSorted(a []int, v int) []int {
	i, _ := slices.BinarySearch(a, v)
	out := make([]int, 0, len(a)+1)
	out = append(out, a[:i]...)
	out = append(out, v)
	return append(out, a[i:]...)
}
