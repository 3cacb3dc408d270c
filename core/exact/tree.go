package exact

import (
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// step is one elimination step: it eliminates v, multiplies the factors
// assigned to it (pre-multiplied into one table over scope) with the
// messages of its children, and sends the sum over v, a table over sep, to
// its parent.
//
// Every variable list is sorted by elimination position and every table is
// laid out row-major in that order (last variable fastest), so the message a
// child writes has the layout in which its parent reads it.
type step struct {
	v        int
	clique   []int // v and sep
	sep      []int // variables of the message
	parent   int   // step that receives the message; -1 at a root
	children []int // steps whose messages this step multiplies in
	factors  []int // factors assigned here: v is their first-eliminated variable
	scope    []int // variables of the assigned factors, and v
	sepSize  int   // entries of the message
}

// tree is the elimination tree of a model under an order.
type tree struct {
	model    *mrf.Model
	cards    []int
	pos      []int   // elimination position of every variable
	scopes   [][]int // factor scopes without cardinality-1 variables
	steps    []step
	constant float64 // sum of the log tables of factors whose reduced scope is empty
}

// newTree plans m and builds its elimination tree. The layout order of all
// tables is the elimination order, so the eliminated variable is the slowest
// dimension of its clique and every message is a restriction of its parent's
// clique layout. (Ordering by "slots" reused ring-buffer style makes the
// inner loops of grid sweeps contiguous, but then their length varies from
// step to step, and on 20x20 grids it measured slower.)
func newTree(m *mrf.Model, opt Options) (*tree, *Order, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, fmt.Errorf("exact: invalid model: %w", err)
	}
	scopes := reducedScopes(m)
	g := newGraph(m.Cards, scopes)
	plan, err := g.order(opt)
	if err != nil {
		return nil, nil, fmt.Errorf("exact: %w", err)
	}
	n := len(m.Cards)
	t := &tree{model: m, cards: m.Cards, pos: make([]int, n), scopes: scopes, steps: make([]step, n)}
	order := make([]int32, n)
	for k, v := range plan.Vars {
		t.pos[v] = k
		order[k] = int32(v)
	}
	byPos := func(a, b int) int { return t.pos[a] - t.pos[b] }
	for k, cl := range g.cliques(order) {
		s := &t.steps[k]
		s.v = int(cl[0])
		s.parent = -1
		s.sepSize = 1
		for _, u := range cl[1:] {
			s.sep = append(s.sep, int(u))
			s.sepSize *= t.cards[u]
			if s.parent < 0 || t.pos[u] < s.parent {
				s.parent = t.pos[u]
			}
		}
		slices.SortFunc(s.sep, byPos)
		s.clique = append([]int{s.v}, s.sep...)
		slices.SortFunc(s.clique, byPos)
		if s.parent >= 0 {
			p := &t.steps[s.parent]
			p.children = append(p.children, k)
		}
	}
	for a, sc := range scopes {
		if len(sc) == 0 {
			t.constant += m.Factors[a].LogTable[0]
			continue
		}
		first := sc[0]
		for _, v := range sc {
			if t.pos[v] < t.pos[first] {
				first = v
			}
		}
		s := &t.steps[t.pos[first]]
		s.factors = append(s.factors, a)
	}
	for k := range t.steps {
		s := &t.steps[k]
		s.scope = []int{s.v}
		for _, a := range s.factors {
			for _, v := range scopes[a] {
				if !slices.Contains(s.scope, v) {
					s.scope = append(s.scope, v)
				}
			}
		}
		slices.SortFunc(s.scope, byPos)
	}
	if math.IsInf(t.constant, -1) {
		return nil, nil, fmt.Errorf("exact: %w (a factor without free variables is zero)", ErrZeroPartition)
	}
	return t, plan, nil
}

// strides returns, for each variable of within (a superset, by position), the
// row-major stride of that variable in a table over vars (by position), or 0
// if the table does not contain it.
func (t *tree) strides(vars, within []int) []int {
	st := make([]int, len(within))
	s := 1
	j := len(within) - 1
	for i := len(vars) - 1; i >= 0; i-- {
		for within[j] != vars[i] {
			j--
		}
		st[j] = s
		s *= t.cards[vars[i]]
	}
	return st
}

// table is a non-negative table in scaled linear space: the true entries are
// vals times exp(logScale). The contraction engine also keeps bounds on its
// entries, natural logs in the units of vals (precision.go): of the
// absolute error from rounded values, of the smallest positive entry, and
// its maximum.
type table struct {
	vals             []float64
	logScale         float64
	lerr, lmin, lmax float64
}

// factorTable multiplies the factors assigned to step k into one table over
// its scope, its maximum 1, with the log of its smallest positive entry
// before any underflow (lmin) and of its maximum (lmax, 0). It fails if
// that product is zero everywhere.
func (t *tree) factorTable(k int) (*table, error) {
	logs, err := t.factorLogs(k)
	if err != nil {
		return nil, err
	}
	mx, lmin := math.Inf(-1), math.Inf(1)
	for _, x := range logs {
		mx = max(mx, x)
		if !math.IsInf(x, -1) {
			lmin = min(lmin, x)
		}
	}
	for i, x := range logs {
		logs[i] = math.Exp(x - mx)
	}
	return &table{vals: logs, logScale: mx, lmin: lmin - mx}, nil
}

// factorLogs is the log of factorTable's product, unscaled.
func (t *tree) factorLogs(k int) ([]float64, error) {
	s := &t.steps[k]
	size := 1
	for _, v := range s.scope {
		size *= t.cards[v]
	}
	logs := make([]float64, size)
	for _, a := range s.factors {
		f := &t.model.Factors[a]
		// Strides of the factor in its own variable order, mapped onto scope.
		st := make([]int, len(s.scope))
		stride := 1
		for i := len(t.scopes[a]) - 1; i >= 0; i-- {
			v := t.scopes[a][i]
			st[slices.Index(s.scope, v)] = stride
			stride *= t.cards[v]
		}
		odometer(t.cards, s.scope, st, func(i, off int) { logs[i] += f.LogTable[off] })
	}
	if slices.Max(logs) == math.Inf(-1) {
		return nil, fmt.Errorf("exact: %w (the factors on variable %d and its later neighbours are zero everywhere)",
			ErrZeroPartition, s.v)
	}
	return logs, nil
}

// odometer visits every joint state of vars (row-major, last fastest) and
// calls f with the state's index and its offset under strides st. It is for
// the small per-factor tables; the clique tables use the kernels.
func odometer(cards, vars, st []int, f func(i, off int)) {
	n := len(vars)
	idx := make([]int, n)
	size := 1
	for _, v := range vars {
		size *= cards[v]
	}
	off := 0
	for i := 0; i < size; i++ {
		f(i, off)
		for d := n - 1; d >= 0; d-- {
			idx[d]++
			off += st[d]
			if idx[d] < cards[vars[d]] {
				break
			}
			off -= st[d] * idx[d]
			idx[d] = 0
		}
	}
}
