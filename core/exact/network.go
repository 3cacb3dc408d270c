package exact

import (
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// network is a model reduced for contraction. Every variable keeps only the
// states some joint state of positive potential uses (evidence, stored as
// unary 0/-Inf factors, and other zeros shrink domains: see restrict), and a
// variable left with one state (observed, or of cardinality one) is
// conditioned out of every table. Factors whose remaining scope lies inside
// another's are multiplied into it, so the tensors ("leaves") of the network
// have distinct scopes, none inside another.
type network struct {
	model    *mrf.Model
	dom      [][]int // allowed original states of every variable, increasing
	card     []int   // len(dom[v])
	leaves   []leaf
	leafOf   []int   // leaf of every factor; -1 if its reduced scope is empty
	constant float64 // sum of the factors of empty reduced scope (log)
	loose    []int   // variables of more than one state in no leaf
	// count is the number of leaves that hold each variable. Variables held
	// by one leaf only are summed out of it before contraction (private).
	count []int
}

// leaf is a tensor of the network: the product of its factors over vars (the
// table's dimensions, last fastest), in scaled linear space.
type leaf struct {
	vars    []int
	factors []int
	tab     table
}

// newNetwork reduces m. It fails with ErrZeroPartition when the zeros of m
// leave a variable without a state or a constant factor is zero.
func newNetwork(m *mrf.Model) (*network, error) {
	allowed, err := restrict(m)
	if err != nil {
		return nil, err
	}
	n := len(m.Cards)
	nw := &network{model: m, dom: make([][]int, n), card: make([]int, n), leafOf: make([]int, len(m.Factors)), count: make([]int, n)}
	for v, a := range allowed {
		for s, ok := range a {
			if ok {
				nw.dom[v] = append(nw.dom[v], s)
			}
		}
		nw.card[v] = len(nw.dom[v])
	}
	nw.group()
	if math.IsInf(nw.constant, -1) {
		return nil, fmt.Errorf("exact: %w (a factor without free variables is zero)", ErrZeroPartition)
	}
	for i := range nw.leaves {
		if err := nw.fill(i); err != nil {
			return nil, err
		}
		for _, v := range nw.leaves[i].vars {
			nw.count[v]++
		}
	}
	for v := range n {
		if nw.count[v] == 0 && nw.card[v] > 1 {
			nw.loose = append(nw.loose, v)
		}
	}
	return nw, nil
}

// free returns the variables of factor a with more than one allowed state,
// in the factor's order.
func (nw *network) free(a int) []int {
	var s []int
	for _, v := range nw.model.Factors[a].Vars {
		if nw.card[v] > 1 {
			s = append(s, v)
		}
	}
	return s
}

// group assigns every factor to a leaf: factors in decreasing order of
// reduced scope size start a leaf unless their scope lies inside an existing
// leaf's, which then takes them (the smallest such leaf).
func (nw *network) group() {
	m := nw.model
	scopes := make([][]int, len(m.Factors))
	order := make([]int, len(m.Factors))
	for a := range m.Factors {
		scopes[a] = nw.free(a)
		order[a] = a
	}
	size := func(s []int) float64 {
		x := 1.0
		for _, v := range s {
			x *= float64(nw.card[v])
		}
		return x
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if d := len(scopes[b]) - len(scopes[a]); d != 0 {
			return d
		}
		sa, sb := size(scopes[a]), size(scopes[b])
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	byVar := make([][]int, len(m.Cards)) // leaves holding each variable
	for _, a := range order {
		sc := scopes[a]
		if len(sc) == 0 {
			nw.leafOf[a] = -1
			nw.constant += m.Factors[a].LogTable[nw.offset(a, nil, nil)]
			continue
		}
		best := -1
		for _, l := range byVar[sc[0]] {
			if containsAll(nw.leaves[l].vars, sc) && (best < 0 || size(nw.leaves[l].vars) < size(nw.leaves[best].vars)) {
				best = l
			}
		}
		if best < 0 {
			best = len(nw.leaves)
			nw.leaves = append(nw.leaves, leaf{vars: slices.Clone(sc)})
			for _, v := range sc {
				byVar[v] = append(byVar[v], best)
			}
		}
		nw.leaves[best].factors = append(nw.leaves[best].factors, a)
		nw.leafOf[a] = best
	}
	for i := range nw.leaves {
		slices.Sort(nw.leaves[i].factors)
	}
}

func containsAll(set, sub []int) bool {
	for _, v := range sub {
		if !slices.Contains(set, v) {
			return false
		}
	}
	return true
}

// offset returns the position in factor a's table of the joint state that
// gives the free variables vars the allowed-state indices idx and every
// other variable of a its single allowed state.
func (nw *network) offset(a int, vars, idx []int) int {
	f := &nw.model.Factors[a]
	off := 0
	for _, v := range f.Vars {
		s := 0
		if nw.card[v] > 1 {
			s = nw.dom[v][idx[slices.Index(vars, v)]]
		} else if len(nw.dom[v]) == 1 {
			s = nw.dom[v][0]
		}
		off = off*nw.model.Cards[v] + s
	}
	return off
}

// factorStrides returns the stride of each variable of vars in factor a's
// table (0 for variables a lacks) and the offset of the fixed variables, so
// that the entry for allowed-state indices idx of vars is
// base + Σ st[i]·dom[vars[i]][idx[i]].
func (nw *network) factorStrides(a int, vars []int) (st []int, base int) {
	f := &nw.model.Factors[a]
	st = make([]int, len(vars))
	stride := 1
	for i := len(f.Vars) - 1; i >= 0; i-- {
		v := f.Vars[i]
		if j := slices.Index(vars, v); j >= 0 && nw.card[v] > 1 {
			st[j] = stride
		} else if len(nw.dom[v]) == 1 {
			base += stride * nw.dom[v][0]
		}
		stride *= nw.model.Cards[v]
	}
	return st, base
}

// fill computes leaf i's table: the sum of its factors' log tables over the
// allowed states, exponentiated relative to its maximum, with its error
// bounds (an entry below float64's range is rounded).
func (nw *network) fill(i int) error {
	lf := &nw.leaves[i]
	logs := nw.leafLogs(i)
	mx := math.Inf(-1)
	for _, x := range logs {
		mx = max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return fmt.Errorf("exact: %w (the factors on variables %v are zero everywhere)", ErrZeroPartition, lf.vars)
	}
	lmin := 0.0
	for k, x := range logs {
		if !math.IsInf(x, -1) {
			lmin = min(lmin, x-mx)
		}
		logs[k] = math.Exp(x - mx)
	}
	lf.tab = table{vals: logs, logScale: mx, lerr: math.Inf(-1), lmin: lmin}
	if lmin < lnTiny {
		lf.tab.lerr = lnDenorm
	}
	return nil
}

// leafLogs returns the sum of leaf i's factors' log tables over the allowed
// states.
func (nw *network) leafLogs(i int) []float64 {
	lf := &nw.leaves[i]
	logs := make([]float64, tableSize(nw.card, lf.vars))
	for _, a := range lf.factors {
		st, base := nw.factorStrides(a, lf.vars)
		tab := nw.model.Factors[a].LogTable
		states(nw.card, lf.vars, func(k int, idx []int) {
			off := base
			for j, s := range idx {
				off += st[j] * nw.dom[lf.vars[j]][s]
			}
			logs[k] += tab[off]
		})
	}
	return logs
}

// tableSize returns the number of entries of a table over vars.
func tableSize(card []int, vars []int) int {
	n := 1
	for _, v := range vars {
		n *= card[v]
	}
	return n
}

// states visits every joint state of vars (row-major, last fastest) with
// its index and the state index of every variable. It is for small tables.
func states(card []int, vars []int, f func(k int, idx []int)) {
	idx := make([]int, len(vars))
	n := tableSize(card, vars)
	for k := 0; k < n; k++ {
		f(k, idx)
		for d := len(vars) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < card[vars[d]] {
				break
			}
			idx[d] = 0
		}
	}
}

// restrict returns the states of every variable that some joint state of
// positive potential may use: a state is dropped when every entry of some
// factor that gives the variable that state (and its other variables states
// still allowed) is zero. Passes repeat while they drop states, up to
// maxRestrictPasses; stopping early only keeps states that are impossible,
// which is correct, merely less reduced. A variable left without states
// means Z = 0.
func restrict(m *mrf.Model) ([][]bool, error) {
	allowed := make([][]bool, len(m.Cards))
	for v, c := range m.Cards {
		allowed[v] = make([]bool, c)
		for s := range allowed[v] {
			allowed[v][s] = true
		}
	}
	var zeroed []int // factors with a zero entry: only they can drop states
	for a, f := range m.Factors {
		if slices.ContainsFunc(f.LogTable, func(x float64) bool { return math.IsInf(x, -1) }) {
			zeroed = append(zeroed, a)
		}
	}
	for pass := 0; pass < maxRestrictPasses; pass++ {
		changed := false
		for _, a := range zeroed {
			c, err := restrictBy(m, a, allowed)
			if err != nil {
				return nil, err
			}
			changed = changed || c
		}
		if !changed {
			break
		}
	}
	return allowed, nil
}

// maxRestrictPasses bounds the passes of restrict over the factors with zeros.
const maxRestrictPasses = 8

// restrictBy drops the states that factor a's zeros rule out and reports
// whether it dropped any.
func restrictBy(m *mrf.Model, a int, allowed [][]bool) (bool, error) {
	f := &m.Factors[a]
	support := make([][]bool, len(f.Vars))
	for i, v := range f.Vars {
		support[i] = make([]bool, m.Cards[v])
	}
	idx := make([]int, len(f.Vars))
	for k, x := range f.LogTable {
		if k > 0 {
			for d := len(idx) - 1; d >= 0; d-- {
				idx[d]++
				if idx[d] < m.Cards[f.Vars[d]] {
					break
				}
				idx[d] = 0
			}
		}
		if math.IsInf(x, -1) {
			continue
		}
		ok := true
		for i, v := range f.Vars {
			if !allowed[v][idx[i]] {
				ok = false
				break
			}
		}
		if ok {
			for i, s := range idx {
				support[i][s] = true
			}
		}
	}
	changed := false
	for i, v := range f.Vars {
		any := false
		for s, ok := range allowed[v] {
			if ok && !support[i][s] {
				allowed[v][s] = false
				changed = true
			}
			any = any || allowed[v][s]
		}
		if !any {
			return false, fmt.Errorf("exact: %w (the zeros of factor %d leave variable %d no state)", ErrZeroPartition, a, v)
		}
	}
	return changed, nil
}
