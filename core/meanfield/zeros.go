package meanfield

import (
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// hasZeros reports whether some factor of m has a zero potential.
func hasZeros(m *mrf.Model) bool {
	for _, f := range m.Factors {
		for _, l := range f.LogTable {
			if math.IsInf(l, -1) {
				return true
			}
		}
	}
	return false
}

// domains are the states of every variable not yet ruled out: allowed[i][x].
type domains [][]bool

func fullDomains(cards []int) domains {
	d := make(domains, len(cards))
	for i, c := range cards {
		d[i] = make([]bool, c)
		for x := range d[i] {
			d[i][x] = true
		}
	}
	return d
}

func (d domains) clone() domains {
	c := make(domains, len(d))
	for i := range d {
		c[i] = append([]bool(nil), d[i]...)
	}
	return c
}

// propagate removes from d every state that no entry of non-zero potential
// supports given the other variables' domains (generalised arc consistency),
// until nothing changes. Such states have probability 0 in every
// configuration of non-zero probability, so in the exact marginals. It
// returns false if some domain becomes empty (no such configuration exists).
func propagate(g *infer.FactorGraph, m *mrf.Model, d domains) bool {
	for changed := true; changed; {
		changed = false
		for a := range m.Factors {
			f := &m.Factors[a]
			if len(f.Vars) == 0 {
				continue
			}
			ok, shrunk := revise(g, f, g.Axes[a], d)
			if !ok {
				return false
			}
			changed = changed || shrunk
		}
	}
	return true
}

// revise removes the states of f's variables that no allowed entry of f
// supports. It returns false if a domain becomes empty, and whether any
// state was removed.
func revise(g *infer.FactorGraph, f *mrf.Factor, axes []infer.Axis, d domains) (ok, shrunk bool) {
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

// maxSearchNodes bounds the backtracking search for a configuration of
// non-zero probability.
const maxSearchNodes = 100_000

// feasible searches for a configuration of non-zero probability within the
// domains d (already propagated), trying the states of each variable in the
// order of pref (larger first), with propagation after every choice. It
// returns nil if it finds none within maxSearchNodes choices.
func feasible(g *infer.FactorGraph, m *mrf.Model, d domains, pref func(i, x int) float64) []int {
	nodes := 0
	var search func(d domains) []int
	search = func(d domains) []int {
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
			if nodes++; nodes > maxSearchNodes {
				return nil
			}
			c := d.clone()
			for x := range c[v] {
				c[v][x] = x == s
			}
			if !propagate(g, m, c) {
				continue
			}
			if x := search(c); x != nil {
				return x
			}
			if nodes > maxSearchNodes {
				return nil
			}
		}
		return nil
	}
	return search(d)
}
