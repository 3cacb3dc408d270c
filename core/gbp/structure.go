package gbp

import (
	"slices"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// ref names a message used in an update or a belief: the message of edge
// edge, read through state map maps[mp] from the states of the region being
// computed to the states of the edge's child.
type ref struct{ edge, mp int }

// group is a run of consecutive refs of one list that share a state map
// (messages into the same region J): the sweep reads the map once per state
// and adds the messages in list order, so every sum is formed in exactly the
// order the ref list gives.
type group struct {
	mp   int   // maps[mp]
	offs []int // msgOff of each message, in list order
}

// gedge is a region-graph edge with everything its update needs.
type gedge struct {
	parent, child int
	pc            int     // maps[pc]: parent state -> child state
	factors       []int   // positions in the parent's Factors of F_P \ F_C
	num           []group // N(P,C), maps from parent states
	den           []group // D(P,C), maps from child states
}

// structure is what GBP precomputes for one region graph and model
// structure, so that a sweep only adds, exponentiates and indexes.
type structure struct {
	size       []int   // joint states of every region
	regOff     []int   // region r's tables are at [regOff[r], regOff[r+1])
	edges      []gedge // in schedule order: parents in region order, children ascending
	drive      []int   // the edges out of root regions, in schedule order
	below      [][]int // below[k]: edges whose parent is in E(child of drive[k]), in schedule order
	msgOff     []int   // edge e's message is at [msgOff[e], msgOff[e+1])
	psiOff     []int   // edge e's parent potential is at [psiOff[e], psiOff[e+1])
	maps       [][]int32
	factorMaps [][][]int32 // factorMaps[r][k]: region r state -> table index of its k-th factor
	in         [][]group   // in[r]: messages entering E(r) from outside, maps from r's states
}

// groups returns refs as runs of consecutive refs with the same map.
func (st *structure) groups(refs []ref) []group {
	var out []group
	for _, r := range refs {
		if n := len(out); n > 0 && out[n-1].mp == r.mp {
			out[n-1].offs = append(out[n-1].offs, st.msgOff[r.edge])
			continue
		}
		out = append(out, group{mp: r.mp, offs: []int{st.msgOff[r.edge]}})
	}
	return out
}

// newStructure precomputes the schedule, the message lists N(P,C), D(P,C)
// and the belief lists of the region graph bd binds, for m of bd's structure.
func newStructure(bd *region.Binding, m *mrf.Model) *structure {
	g := bd.Graph()
	n := len(g.Regions)
	sizes := make([]int, n)
	for r := range sizes {
		sizes[r] = bd.NumStates(r)
	}
	st := &structure{size: sizes, regOff: make([]int, n+1), in: make([][]group, n), factorMaps: make([][][]int32, n)}
	for r, s := range sizes {
		st.regOff[r+1] = st.regOff[r] + s
	}
	b := &structureBuilder{st: st, g: g, m: m, mapIDs: make(map[[2]int]int)}
	b.orderEdges()
	b.ext = extents(g)
	b.edgeUpdates()
	b.driveEdges()
	b.regionInputs()
	return st
}

// structureBuilder holds what newStructure computes on the way.
type structureBuilder struct {
	st      *structure
	g       *region.Graph
	m       *mrf.Model
	inEdges [][]int        // inEdges[J]: edges I→J
	ext     [][]int        // ext[r] = E(r) = {r} ∪ descendants(r)
	mapIDs  map[[2]int]int // the position in st.maps of the state map between two regions
}

// orderEdges lists the edges with their message and potential offsets.
// Edge order: parents in region order (roots first, then by level), so
// every edge comes after the edges into its parent.
func (b *structureBuilder) orderEdges() {
	st, g := b.st, b.g
	b.inEdges = make([][]int, len(g.Regions))
	st.msgOff = []int{0}
	st.psiOff = []int{0}
	for p := range g.Regions {
		for _, c := range g.Regions[p].Children {
			e := len(st.edges)
			st.edges = append(st.edges, gedge{parent: p, child: c})
			b.inEdges[c] = append(b.inEdges[c], e)
			st.msgOff = append(st.msgOff, st.msgOff[e]+st.size[c])
			st.psiOff = append(st.psiOff, st.psiOff[e]+st.size[p])
		}
	}
}

// extents returns E(r) = {r} ∪ descendants(r) of every region r.
func extents(g *region.Graph) [][]int {
	n := len(g.Regions)
	ext := make([][]int, n)
	mark := make([]int, n)
	for r := range g.Regions {
		stamp := r + 1
		mark[r] = stamp
		list := []int{r}
		for k := 0; k < len(list); k++ {
			for _, c := range g.Regions[list[k]].Children {
				if mark[c] != stamp {
					mark[c] = stamp
					list = append(list, c)
				}
			}
		}
		ext[r] = list
	}
	return ext
}

// mapID returns the id of the state map from region from's states to region
// to's, made on first use.
func (b *structureBuilder) mapID(from, to int) int {
	key := [2]int{from, to}
	if id, ok := b.mapIDs[key]; ok {
		return id
	}
	id := len(b.st.maps)
	b.st.maps = append(b.st.maps, stateMap(b.m.Cards, b.g.Regions[from].Vars, b.g.Regions[to].Vars))
	b.mapIDs[key] = id
	return id
}

// edgeUpdates sets every edge's parent-to-child map, the messages of its
// update (N(P,C) and D(P,C)) and the factors of the parent not in the child.
func (b *structureBuilder) edgeUpdates() {
	st, g := b.st, b.g
	inP := make([]int, len(g.Regions)) // stamps marking E(P), E(C)
	inC := make([]int, len(g.Regions))
	for e := range st.edges {
		ed := &st.edges[e]
		P, C := ed.parent, ed.child
		stamp := e + 1
		for _, r := range b.ext[P] {
			inP[r] = stamp
		}
		for _, r := range b.ext[C] {
			inC[r] = stamp
		}
		ed.pc = b.mapID(P, C)
		var num, den []ref
		for _, J := range b.ext[P] {
			for _, k := range b.inEdges[J] {
				I := st.edges[k].parent
				switch {
				case inC[J] != stamp && inP[I] != stamp:
					num = append(num, ref{edge: k, mp: b.mapID(P, J)})
				case inC[J] == stamp && inP[I] == stamp && inC[I] != stamp && k != e:
					den = append(den, ref{edge: k, mp: b.mapID(C, J)})
				}
			}
		}
		ed.num, ed.den = st.groups(num), st.groups(den)
		ed.factors = difference(g.Regions[P].Factors, g.Regions[C].Factors)
	}
}

// driveEdges lists the edges out of root regions and, for each, the edges
// below its child in schedule order.
func (b *structureBuilder) driveEdges() {
	st, g := b.st, b.g
	n := len(g.Regions)
	// Edges are grouped by parent: region r's edges are [first[r], first[r+1]).
	first := make([]int, n+1)
	for _, ed := range st.edges {
		first[ed.parent+1]++
	}
	for r := range n {
		first[r+1] += first[r]
	}
	for e, ed := range st.edges {
		if g.Regions[ed.parent].Level != 0 {
			continue
		}
		st.drive = append(st.drive, e)
		sub := slices.Clone(b.ext[ed.child])
		slices.Sort(sub) // region order is schedule order
		var below []int
		for _, r := range sub {
			for k := first[r]; k < first[r+1]; k++ {
				below = append(below, k)
			}
		}
		st.below = append(st.below, below)
	}
}

// regionInputs sets, for every region r, the messages entering E(r) from
// outside and the state maps to its factors' tables.
func (b *structureBuilder) regionInputs() {
	st, g, m := b.st, b.g, b.m
	inside := make([]int, len(g.Regions)) // stamps marking E(r)
	for r := range g.Regions {
		stamp := r + 1
		for _, x := range b.ext[r] {
			inside[x] = stamp
		}
		var in []ref
		for _, J := range b.ext[r] {
			for _, k := range b.inEdges[J] {
				if inside[st.edges[k].parent] != stamp {
					in = append(in, ref{edge: k, mp: b.mapID(r, J)})
				}
			}
		}
		st.in[r] = st.groups(in)
		R := &g.Regions[r]
		st.factorMaps[r] = make([][]int32, len(R.Factors))
		for k, a := range R.Factors {
			st.factorMaps[r][k] = stateMap(m.Cards, R.Vars, m.Factors[a].Vars)
		}
	}
}

// difference returns the positions in sorted a of the entries not in sorted b.
func difference(a, b []int) []int {
	var out []int
	j := 0
	for k, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			out = append(out, k)
		}
	}
	return out
}

// stateMap returns, for every joint state of vars (row-major, last variable
// fastest), the index of its restriction to sub (sub ⊆ vars, any order) in a
// row-major table over sub.
func stateMap(cards, vars, sub []int) []int32 {
	// weight[i] is what one step of vars[i] adds to the sub index.
	weight := make([]int, len(vars))
	stride := 1
	for k := len(sub) - 1; k >= 0; k-- {
		for i, v := range vars {
			if v == sub[k] {
				weight[i] = stride
			}
		}
		stride *= cards[sub[k]]
	}
	size := mrf.TableSize(cards, vars)
	out := make([]int32, size)
	state := make([]int, len(vars))
	idx := 0
	for x := range out {
		out[x] = int32(idx)
		// Advance the odometer, last variable fastest.
		for i := len(vars) - 1; i >= 0; i-- {
			state[i]++
			idx += weight[i]
			if state[i] < cards[vars[i]] {
				break
			}
			idx -= weight[i] * state[i]
			state[i] = 0
		}
	}
	return out
}
