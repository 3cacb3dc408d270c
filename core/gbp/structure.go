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

	// Edge order: parents in region order (roots first, then by level), so
	// every edge comes after the edges into its parent.
	inEdges := make([][]int, n) // inEdges[J]: edges I→J
	st.msgOff = []int{0}
	st.psiOff = []int{0}
	for p := range g.Regions {
		for _, c := range g.Regions[p].Children {
			e := len(st.edges)
			st.edges = append(st.edges, gedge{parent: p, child: c})
			inEdges[c] = append(inEdges[c], e)
			st.msgOff = append(st.msgOff, st.msgOff[e]+sizes[c])
			st.psiOff = append(st.psiOff, st.psiOff[e]+sizes[p])
		}
	}

	// ext[r] = E(r) = {r} ∪ descendants(r).
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

	mapIDs := make(map[[2]int]int)
	mapID := func(from, to int) int {
		key := [2]int{from, to}
		if id, ok := mapIDs[key]; ok {
			return id
		}
		id := len(st.maps)
		st.maps = append(st.maps, stateMap(m.Cards, g.Regions[from].Vars, g.Regions[to].Vars))
		mapIDs[key] = id
		return id
	}

	inP := make([]int, n) // stamps marking E(P), E(C)
	inC := make([]int, n)
	for e := range st.edges {
		ed := &st.edges[e]
		P, C := ed.parent, ed.child
		stamp := e + 1
		for _, r := range ext[P] {
			inP[r] = stamp
		}
		for _, r := range ext[C] {
			inC[r] = stamp
		}
		ed.pc = mapID(P, C)
		var num, den []ref
		for _, J := range ext[P] {
			for _, k := range inEdges[J] {
				I := st.edges[k].parent
				switch {
				case inC[J] != stamp && inP[I] != stamp:
					num = append(num, ref{edge: k, mp: mapID(P, J)})
				case inC[J] == stamp && inP[I] == stamp && inC[I] != stamp && k != e:
					den = append(den, ref{edge: k, mp: mapID(C, J)})
				}
			}
		}
		ed.num, ed.den = st.groups(num), st.groups(den)
		ed.factors = difference(g.Regions[P].Factors, g.Regions[C].Factors)
	}

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
		sub := slices.Clone(ext[ed.child])
		slices.Sort(sub) // region order is schedule order
		var below []int
		for _, r := range sub {
			for k := first[r]; k < first[r+1]; k++ {
				below = append(below, k)
			}
		}
		st.below = append(st.below, below)
	}

	for r := range g.Regions {
		stamp := -(r + 1) // distinct from the edge stamps above
		for _, x := range ext[r] {
			inP[x] = stamp
		}
		var in []ref
		for _, J := range ext[r] {
			for _, k := range inEdges[J] {
				if inP[st.edges[k].parent] != stamp {
					in = append(in, ref{edge: k, mp: mapID(r, J)})
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
	return st
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
