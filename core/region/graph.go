package region

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// MaxStates is the largest number of joint states a region may have: Bind
// refuses a graph with a larger region, whose tables (2^22 entries: 32 MiB
// per float64 table) could not be allocated in reasonable memory.
const MaxStates = 1 << 22

// Region is a cluster of variables with the factors whose scope it contains.
type Region struct {
	Vars     []int   // sorted ascending; beliefs are row-major over Vars, last var fastest
	Factors  []int   // every model factor whose scope ⊆ Vars (sorted ids)
	Level    int     // 0 = root
	Counting float64 // c_R = 1 - Σ_{ancestors} c_A
	Parents  []int   // minimal strict supersets (region ids, sorted)
	Children []int   // regions that have this one as a parent (sorted)
}

// Graph is a region graph. Regions are ordered by level, roots first; a
// region's index in Regions is its id.
type Graph struct {
	Scheme string
	// Detail says how Build chose and shaped the roots, e.g. "faces
	// (detected 10x10 grid)"; empty for graphs not made by Build.
	Detail  string
	Regions []Region
}

// Roots returns the ids of the level-0 regions.
func (g *Graph) Roots() []int {
	var r []int
	for i := range g.Regions {
		if g.Regions[i].Level == 0 {
			r = append(r, i)
		}
	}
	return r
}

// NumLevels returns the number of levels (1 + the deepest level).
func (g *Graph) NumLevels() int {
	n := 0
	for i := range g.Regions {
		n = max(n, g.Regions[i].Level+1)
	}
	return n
}

// FromRoots completes the root variable sets into a region graph by the
// cluster variation method (see the package comment), attaches to each
// region every factor whose scope it contains, computes the counting numbers
// and checks validity.
//
// Each root is sorted and de-duplicated; roots equal to or contained in
// another root are dropped (the CVM requires R0 to have no subregions); the
// remaining roots keep their given order. Every factor scope must lie in
// some root, otherwise the validity check fails and names the factor. For
// scheme blocks3 the regions of counting number 0 are dropped (see the
// package comment).
func FromRoots(m *mrf.Model, scheme string, roots [][]int) (*Graph, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	sets, err := normaliseRoots(len(m.Cards), roots)
	if err != nil {
		return nil, err
	}
	g := cvm(len(m.Cards), sets)
	if scheme == Blocks3 {
		g = dropZeroCounting(g)
	}
	g.Scheme = scheme
	attachFactors(g, m)
	if err := g.validate(m); err != nil {
		return nil, err
	}
	return g, nil
}

func checkModel(m *mrf.Model) error {
	if m == nil {
		return errors.New("nil model")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("invalid model: %w", err)
	}
	for a, f := range m.Factors {
		if len(f.Vars) == 0 {
			// A constant factor lies in every region, and the counting
			// numbers of all regions need not sum to 1.
			return fmt.Errorf("factor %d has an empty scope: fold constant factors into log Z before building regions", a)
		}
	}
	return nil
}

// normaliseRoots sorts and de-duplicates every root, checks its variables and
// drops roots that equal or lie inside another root.
func normaliseRoots(n int, roots [][]int) ([][]int, error) {
	if len(roots) == 0 {
		return nil, errors.New("no root regions")
	}
	sets := make([][]int, len(roots))
	byVar := make([][]int, n)
	for i, r := range roots {
		if len(r) == 0 {
			return nil, fmt.Errorf("root %d is empty", i)
		}
		s := slices.Clone(r)
		slices.Sort(s)
		s = slices.Compact(s)
		for _, v := range s {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("root %d: variable %d out of range [0,%d)", i, v, n)
			}
			byVar[v] = append(byVar[v], i)
		}
		sets[i] = s
	}
	var out [][]int
	for i, s := range sets {
		covered := false
		for _, j := range sparsest(byVar, s) {
			if j == i {
				continue
			}
			t := sets[j]
			// Drop s if it is a strict subset of t, or equal to an earlier t.
			if (len(t) > len(s) || (len(t) == len(s) && j < i)) && isSubset(s, t) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, s)
		}
	}
	return out, nil
}

// sparsest returns the shortest of the lists byVar[v] for v in s.
func sparsest(byVar [][]int, s []int) []int {
	best := byVar[s[0]]
	for _, v := range s[1:] {
		if len(byVar[v]) < len(best) {
			best = byVar[v]
		}
	}
	return best
}

// isSubset reports whether sorted a ⊆ sorted b.
func isSubset(a, b []int) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// intersect appends sorted a ∩ sorted b to dst[:0].
func intersect(dst, a, b []int) []int {
	dst = dst[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	return dst
}

func setKey(buf []byte, s []int) []byte {
	buf = buf[:0]
	for _, v := range s {
		buf = binary.AppendUvarint(buf, uint64(v))
	}
	return buf
}

// cvm closes the (normalised, incomparable) roots under intersection and
// arranges the closure into levels with Hasse-diagram edges and counting
// numbers.
func cvm(n int, roots [][]int) *Graph {
	sets, byVar := intersectionClosure(n, roots)
	level, counting, parents := cvmCounting(sets, byVar, len(roots))
	return cvmGraph(sets, len(roots), level, counting, parents)
}

// intersectionClosure returns roots followed by every distinct non-empty
// intersection of sets, of roots and of intersections, in the order found,
// and byVar: the sets holding each of the n variables.
func intersectionClosure(n int, roots [][]int) (sets, byVar [][]int) {
	sets = slices.Clone(roots)
	byVar = make([][]int, n)
	index := make(map[string]int, 4*len(roots))
	var mark []int
	var key []byte
	for id, s := range sets {
		key = setKey(key, s)
		index[string(key)] = id
		for _, v := range s {
			byVar[v] = append(byVar[v], id)
		}
		mark = append(mark, 0)
	}
	frontier := make([]int, len(sets))
	for i := range frontier {
		frontier[i] = i
	}
	stamp := 0
	var buf []int
	for len(frontier) > 0 {
		var next []int
		for _, x := range frontier {
			stamp++
			mark[x] = stamp
			for _, v := range sets[x] {
				// Sets added in this pass are not seen here; they are in next
				// and meet x when their turn comes.
				for _, y := range byVar[v] {
					if mark[y] == stamp {
						continue
					}
					mark[y] = stamp
					buf = intersect(buf, sets[x], sets[y])
					key = setKey(key, buf)
					if _, ok := index[string(key)]; ok {
						continue
					}
					id := len(sets)
					sets = append(sets, slices.Clone(buf))
					index[string(key)] = id
					for _, u := range buf {
						byVar[u] = append(byVar[u], id)
					}
					mark = append(mark, 0)
					next = append(next, id)
				}
			}
		}
		frontier = next
	}
	return sets, byVar
}

// cvmCounting returns the level, counting number and parents (the minimal
// strict supersets) of every set; the first nRoots sets are the roots.
// Supersets are larger, so visiting by decreasing size settles every
// superset's level and counting number before the set itself.
func cvmCounting(sets, byVar [][]int, nRoots int) (level []int, counting []float64, parents [][]int) {
	order := make([]int, len(sets))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(sets[b]) - len(sets[a]) })
	level = make([]int, len(sets))
	counting = make([]float64, len(sets))
	parents = make([][]int, len(sets))
	var sup []int
	for _, x := range order {
		if x < nRoots {
			counting[x] = 1
			continue
		}
		sup = sup[:0]
		for _, y := range sparsest(byVar, sets[x]) {
			if len(sets[y]) > len(sets[x]) && isSubset(sets[x], sets[y]) {
				sup = append(sup, y)
			}
		}
		slices.SortStableFunc(sup, func(a, b int) int { return len(sets[a]) - len(sets[b]) })
		c := 1.0
		var minimal []int
		for _, y := range sup {
			c -= counting[y]
			isMin := true
			for _, z := range minimal {
				if len(sets[z]) < len(sets[y]) && isSubset(sets[z], sets[y]) {
					isMin = false
					break
				}
			}
			if isMin {
				minimal = append(minimal, y)
				level[x] = max(level[x], level[y]+1)
			}
		}
		counting[x] = c
		parents[x] = minimal
	}
	return level, counting, parents
}

// cvmGraph assembles the region graph of sets. Final order: by level; roots
// keep their order, lower levels are sorted by their variables.
func cvmGraph(sets [][]int, nRoots int, level []int, counting []float64, parents [][]int) *Graph {
	final := make([]int, len(sets))
	for i := range final {
		final[i] = i
	}
	slices.SortStableFunc(final, func(a, b int) int {
		if level[a] != level[b] {
			return level[a] - level[b]
		}
		if a < nRoots || b < nRoots {
			return a - b
		}
		return slices.Compare(sets[a], sets[b])
	})
	newID := make([]int, len(sets))
	for pos, id := range final {
		newID[id] = pos
	}
	g := &Graph{Regions: make([]Region, len(sets))}
	for pos, id := range final {
		r := &g.Regions[pos]
		r.Vars = sets[id]
		r.Level = level[id]
		r.Counting = counting[id]
		for _, p := range parents[id] {
			r.Parents = append(r.Parents, newID[p])
		}
		slices.Sort(r.Parents)
	}
	linkChildren(g)
	return g
}

// linkChildren fills every region's Children from the Parents lists, in
// increasing child index.
func linkChildren(g *Graph) {
	for c := range g.Regions {
		for _, p := range g.Regions[c].Parents {
			g.Regions[p].Children = append(g.Regions[p].Children, c)
		}
	}
}

// factorsByVar lists, for every variable, the factors whose scope holds it.
func factorsByVar(m *mrf.Model) [][]int {
	out := make([][]int, len(m.Cards))
	for a, f := range m.Factors {
		for _, v := range f.Vars {
			out[v] = append(out[v], a)
		}
	}
	return out
}

// containedFactors appends to dst[:0] the sorted ids of the factors whose
// scope lies in vars. in and seen are scratch marks of length NumVars and
// len(m.Factors), compared against stamp.
func containedFactors(dst []int, m *mrf.Model, byVar [][]int, vars []int, in, seen []int, stamp int) []int {
	dst = dst[:0]
	for _, v := range vars {
		in[v] = stamp
	}
	for _, v := range vars {
		for _, a := range byVar[v] {
			if seen[a] == stamp {
				continue
			}
			seen[a] = stamp
			ok := true
			for _, u := range m.Factors[a].Vars {
				if in[u] != stamp {
					ok = false
					break
				}
			}
			if ok {
				dst = append(dst, a)
			}
		}
	}
	slices.Sort(dst)
	return dst
}

func attachFactors(g *Graph, m *mrf.Model) {
	byVar := factorsByVar(m)
	in := make([]int, len(m.Cards))
	seen := make([]int, len(m.Factors))
	for r := range g.Regions {
		g.Regions[r].Factors = containedFactors(nil, m, byVar, g.Regions[r].Vars, in, seen, r+1)
	}
}

// validityTol bounds |Σ c_R - 1|; counting numbers are integers, so any
// rounding is far below it.
const validityTol = 1e-9

// Validate checks that g is a well-formed region graph of m and that it is
// valid: Σ_R c_R [v ∈ R] = 1 for every variable v and Σ_R c_R [a ∈ R] = 1
// for every factor a, where a ∈ R iff its scope ⊆ R.Vars. Structure checked:
// sorted in-range variables, Factors exactly the contained factors, parents
// strict supersets on a lower level, children mirroring parents, roots at
// level 0 without parents. m itself is checked first (as Bind does).
func (g *Graph) Validate(m *mrf.Model) error {
	if g == nil {
		return errors.New("nil region graph")
	}
	if err := checkModel(m); err != nil {
		return err
	}
	return g.validate(m)
}

// validate is Validate for a model that passed checkModel.
func (g *Graph) validate(m *mrf.Model) error {
	if len(g.Regions) == 0 {
		return errors.New("region graph has no regions")
	}
	if err := g.validateRegions(m); err != nil {
		return err
	}
	if err := g.validateEdges(); err != nil {
		return err
	}
	return g.validateCounting(m)
}

// validateRegions checks every region on its own: its variables, counting
// number, factors, level and parents.
func (g *Graph) validateRegions(m *mrf.Model) error {
	n := len(m.Cards)
	byVar := factorsByVar(m)
	in := make([]int, n)
	seen := make([]int, len(m.Factors))
	var want []int
	for r := range g.Regions {
		R := &g.Regions[r]
		if err := validateVars(r, R.Vars, n); err != nil {
			return err
		}
		if math.IsNaN(R.Counting) || math.IsInf(R.Counting, 0) {
			return fmt.Errorf("region %d: counting number %v", r, R.Counting)
		}
		want = containedFactors(want, m, byVar, R.Vars, in, seen, r+1)
		if !slices.Equal(want, R.Factors) {
			return fmt.Errorf("region %d over %v lists factors %v, want every factor whose scope it contains: %v", r, R.Vars, R.Factors, want)
		}
		if err := g.validateParents(r); err != nil {
			return err
		}
	}
	return nil
}

// validateVars checks that region r's variables are in range [0,n) and
// strictly ascending.
func validateVars(r int, vars []int, n int) error {
	if len(vars) == 0 {
		return fmt.Errorf("region %d has no variables", r)
	}
	for k, v := range vars {
		if v < 0 || v >= n {
			return fmt.Errorf("region %d: variable %d out of range [0,%d)", r, v, n)
		}
		if k > 0 && vars[k-1] >= v {
			return fmt.Errorf("region %d: variables %v not strictly ascending", r, vars)
		}
	}
	return nil
}

// validateParents checks region r's level against its parents, and that
// every parent is a strict superset at a level above it.
func (g *Graph) validateParents(r int) error {
	R := &g.Regions[r]
	if R.Level < 0 || (R.Level == 0) != (len(R.Parents) == 0) {
		return fmt.Errorf("region %d: level %d with %d parents (roots, and only roots, are level 0 without parents)", r, R.Level, len(R.Parents))
	}
	for _, p := range R.Parents {
		if p < 0 || p >= len(g.Regions) {
			return fmt.Errorf("region %d: parent %d out of range", r, p)
		}
		P := &g.Regions[p]
		if len(P.Vars) <= len(R.Vars) || !isSubset(R.Vars, P.Vars) {
			return fmt.Errorf("region %d over %v: parent %d over %v is not a strict superset", r, R.Vars, p, P.Vars)
		}
		if P.Level >= R.Level {
			return fmt.Errorf("region %d at level %d: parent %d at level %d is not above it", r, R.Level, p, P.Level)
		}
	}
	return nil
}

// validateEdges checks that parents and children mirror each other. Edges
// are checked from the child's side first, so a wrong parent is reported as
// such rather than as a missing mirror entry.
func (g *Graph) validateEdges() error {
	for r := range g.Regions {
		for _, p := range g.Regions[r].Parents {
			if !slices.Contains(g.Regions[p].Children, r) {
				return fmt.Errorf("region %d: parent %d does not list it as a child", r, p)
			}
		}
		for _, c := range g.Regions[r].Children {
			if c < 0 || c >= len(g.Regions) || !slices.Contains(g.Regions[c].Parents, r) {
				return fmt.Errorf("region %d: child %d does not list it as a parent", r, c)
			}
		}
	}
	return nil
}

// validateCounting checks that the counting numbers of the regions holding
// each variable, and each factor, sum to 1.
func (g *Graph) validateCounting(m *mrf.Model) error {
	varSum := make([]float64, len(m.Cards))
	varCount := make([]int, len(m.Cards))
	facSum := make([]float64, len(m.Factors))
	facCount := make([]int, len(m.Factors))
	for r := range g.Regions {
		R := &g.Regions[r]
		for _, v := range R.Vars {
			varSum[v] += R.Counting
			varCount[v]++
		}
		for _, a := range R.Factors {
			facSum[a] += R.Counting
			facCount[a]++
		}
	}
	for v, s := range varSum {
		if math.Abs(s-1) > validityTol {
			return fmt.Errorf("region graph not valid: variable %d: counting numbers of the %d regions containing it sum to %g, want 1", v, varCount[v], s)
		}
	}
	for a, s := range facSum {
		if math.Abs(s-1) > validityTol {
			return fmt.Errorf("region graph not valid: factor %d (scope %v): counting numbers of the %d regions containing it sum to %g, want 1", a, m.Factors[a].Vars, facCount[a], s)
		}
	}
	return nil
}

// dropZeroCounting returns g without its regions of counting number 0, which
// add nothing to the region free energy: every kept region's parents become
// its minimal strict supersets among the kept regions, and levels follow.
// Counting numbers are unchanged, since c_R sums over all ancestors and the
// dropped ones count 0. Kept regions stay in order within a level. Factors
// are not carried over: attach them afterwards.
func dropZeroCounting(g *Graph) *Graph {
	var keep []int
	for id := range g.Regions {
		if g.Regions[id].Level == 0 || g.Regions[id].Counting != 0 {
			keep = append(keep, id)
		}
	}
	// Regions are ordered by level and a strict superset has a lower level,
	// so every superset of keep[k] comes before it.
	level := make([]int, len(keep))
	parents := make([][]int, len(keep)) // positions in keep
	for k, x := range keep {
		vx := g.Regions[x].Vars
		var minimal []int
		for j := k - 1; j >= 0; j-- {
			vy := g.Regions[keep[j]].Vars
			if len(vy) <= len(vx) || !isSubset(vx, vy) {
				continue
			}
			minimal = append(minimal, j)
		}
		// Keep the minimal ones: no other superset inside them.
		slices.SortStableFunc(minimal, func(a, b int) int { return len(g.Regions[keep[a]].Vars) - len(g.Regions[keep[b]].Vars) })
		var mins []int
		for _, j := range minimal {
			isMin := true
			for _, z := range mins {
				if isSubset(g.Regions[keep[z]].Vars, g.Regions[keep[j]].Vars) {
					isMin = false
					break
				}
			}
			if isMin {
				mins = append(mins, j)
				level[k] = max(level[k], level[j]+1)
			}
		}
		parents[k] = mins
	}
	order := make([]int, len(keep))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return level[a] - level[b] })
	newID := make([]int, len(keep))
	for pos, k := range order {
		newID[k] = pos
	}
	out := &Graph{Scheme: g.Scheme, Detail: g.Detail, Regions: make([]Region, len(keep))}
	for pos, k := range order {
		old := g.Regions[keep[k]]
		r := &out.Regions[pos]
		r.Vars, r.Level, r.Counting = old.Vars, level[k], old.Counting
		for _, p := range parents[k] {
			r.Parents = append(r.Parents, newID[p])
		}
		slices.Sort(r.Parents)
	}
	linkChildren(out)
	return out
}
