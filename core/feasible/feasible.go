// Package feasible finds configurations of non-zero probability in models
// with zero potentials (-Inf log entries, evidence): generalised arc
// consistency rules out the states no allowed table entry supports, and a
// bounded backtracking search with the same propagation finds a feasible
// configuration. Mean field starts from one; the samplers (core/mcmc) start
// their chains from one.
package feasible

import (
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// HasZeros reports whether some factor of m has a zero potential.
func HasZeros(m *mrf.Model) bool {
	for _, f := range m.Factors {
		for _, l := range f.LogTable {
			if math.IsInf(l, -1) {
				return true
			}
		}
	}
	return false
}

// Domains are the states of every variable not yet ruled out: d[i][x].
type Domains [][]bool

// Full returns the domains holding every state of every variable.
func Full(cards []int) Domains {
	d := make(Domains, len(cards))
	for i, c := range cards {
		d[i] = make([]bool, c)
		for x := range d[i] {
			d[i][x] = true
		}
	}
	return d
}

// Clone returns a deep copy of d, in one block of memory (the search
// clones at every choice).
func (d Domains) Clone() Domains {
	n := 0
	for i := range d {
		n += len(d[i])
	}
	buf := make([]bool, n)
	c := make(Domains, len(d))
	for i := range d {
		c[i] = buf[:len(d[i]):len(d[i])]
		copy(c[i], d[i])
		buf = buf[len(d[i]):]
	}
	return c
}

// Propagate removes from d every state that no entry of non-zero potential
// supports given the other variables' domains (generalised arc consistency),
// until nothing changes. Such states have probability 0 in every
// configuration of non-zero probability, so in the exact marginals. It
// returns false if some domain becomes empty (no such configuration exists).
func Propagate(g *infer.FactorGraph, m *mrf.Model, d Domains) bool {
	all := make([]int, len(d))
	for i := range all {
		all[i] = i
	}
	return propagateFrom(g, m, d, all)
}

// propagateFrom is Propagate when only the domains of vars have changed
// since d was last consistent: it revises the factors of vars, then those
// of every variable a revision shrinks, until nothing changes (a queue, so
// that a search step costs the neighbourhood it touches, not the model).
func propagateFrom(g *infer.FactorGraph, m *mrf.Model, d Domains, vars []int) bool {
	queued := make([]bool, len(m.Factors))
	var queue []int
	push := func(v int) {
		for _, inc := range g.VarFactors[v] {
			if !queued[inc.Factor] {
				queued[inc.Factor] = true
				queue = append(queue, inc.Factor)
			}
		}
	}
	for _, v := range vars {
		push(v)
	}
	var sizes []int
	for len(queue) > 0 {
		a := queue[0]
		queue, queued[a] = queue[1:], false
		f := &m.Factors[a]
		if len(f.Vars) == 0 {
			continue
		}
		sizes = sizes[:0]
		for _, v := range f.Vars {
			sizes = append(sizes, size(d[v]))
		}
		ok, shrunk := revise(g, f, g.Axes[a], d)
		if !ok {
			return false
		}
		if !shrunk {
			continue
		}
		for p, v := range f.Vars {
			if size(d[v]) < sizes[p] {
				push(v)
			}
		}
	}
	return true
}

func size(d []bool) int {
	n := 0
	for _, ok := range d {
		if ok {
			n++
		}
	}
	return n
}

// revise removes the states of f's variables that no allowed entry of f
// supports. It returns false if a domain becomes empty, and whether any
// state was removed.
func revise(g *infer.FactorGraph, f *mrf.Factor, axes []infer.Axis, d Domains) (ok, shrunk bool) {
	var supBuf [64]bool
	n := 0
	for _, v := range f.Vars {
		n += g.Cards[v]
	}
	sup := supBuf[:0]
	if n > len(supBuf) {
		sup = make([]bool, n)
	}
	sup = sup[:n]
	clear(sup)
entries:
	for t, l := range f.LogTable {
		if math.IsInf(l, -1) {
			continue
		}
		for p, v := range f.Vars {
			if !d[v][axes[p].State(t)] {
				continue entries
			}
		}
		off := 0
		for p, v := range f.Vars {
			sup[off+axes[p].State(t)] = true
			off += g.Cards[v]
		}
	}
	off := 0
	for _, v := range f.Vars {
		left := false
		for x := range d[v] {
			if d[v][x] && !sup[off+x] {
				d[v][x] = false
				shrunk = true
			}
			left = left || d[v][x]
		}
		if !left {
			return false, shrunk
		}
		off += g.Cards[v]
	}
	return true, shrunk
}

// MaxSearchNodes bounds the backtracking search for a configuration of
// non-zero probability.
const MaxSearchNodes = 100_000

// Search searches for a configuration of non-zero probability within the
// domains d (already propagated), trying the states of each variable in the
// order of pref (larger first), with propagation after every choice. It
// returns nil if it finds none within MaxSearchNodes choices. d is not
// changed.
func Search(g *infer.FactorGraph, m *mrf.Model, d Domains, pref func(i, x int) float64) []int {
	x, _ := SearchUntil(g, m, d, pref, nil)
	return x
}

// SearchUntil is Search that also gives up when stop, asked before every
// choice, returns true (a time budget ran out): it then returns nil and
// true. stop may be nil.
func SearchUntil(g *infer.FactorGraph, m *mrf.Model, d Domains, pref func(i, x int) float64, stop func() bool) ([]int, bool) {
	nodes, stopped := 0, false
	var search func(d Domains) []int
	search = func(d Domains) []int {
		// The unfixed variable with the fewest states left.
		v, best := -1, math.MaxInt
		for i := range d {
			k := 0
			for _, ok := range d[i] {
				if ok {
					k++
				}
			}
			if k > 1 && k < best {
				v, best = i, k
			}
		}
		if v < 0 { // every domain is a single state
			x := make([]int, len(d))
			for i := range d {
				for s, ok := range d[i] {
					if ok {
						x[i] = s
					}
				}
			}
			return x
		}
		tried := make([]bool, len(d[v]))
		for range best {
			s := -1
			for x, ok := range d[v] {
				if ok && !tried[x] && (s < 0 || pref(v, x) > pref(v, s)) {
					s = x
				}
			}
			tried[s] = true
			if nodes++; nodes > MaxSearchNodes {
				return nil
			}
			if stop != nil && stop() {
				stopped, nodes = true, MaxSearchNodes+1 // unwinds the search
				return nil
			}
			c := d.Clone()
			for x := range c[v] {
				c[v][x] = x == s
			}
			if !propagateFrom(g, m, c, []int{v}) {
				continue
			}
			if x := search(c); x != nil {
				return x
			}
			if nodes > MaxSearchNodes {
				return nil
			}
		}
		return nil
	}
	x := search(d)
	return x, stopped
}
