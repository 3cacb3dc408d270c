package region_test

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// This file builds the hard UAI-like model kinds as an importer would see them
// (graph "uai"): spin-glass grids and tori, RBMs, soft CSPs, noisy-OR
// networks with evidence and pedigree-like models.

type kind struct {
	name string
	m    *mrf.Model
}

// spinGlass is an L x L grid or torus in row-major numbering, couplings
// U(-f, f), fields U(-0.5, 0.5) as unary factors.
func spinGlass(L int, torus bool, f float64, seed int64) *mrf.Model {
	es, err := mrf.GridEdges(L, torus)
	if err != nil {
		panic(err)
	}
	return mrf.RandomIsingWith(L*L, es, mrf.Uniform(0.5), mrf.Uniform(f), seed)
}

// dilutedGrid is an L x L spin glass (couplings U(-f, f), fields
// U(-0.5, 0.5)) with a fraction drop of its edges removed: no longer a
// lattice, so auto builds cycles, some of them longer than plaquettes.
func dilutedGrid(L int, f, drop float64, seed int64) *mrf.Model {
	es, err := mrf.GridEdges(L, false)
	if err != nil {
		panic(err)
	}
	r := mrf.NewRand(seed ^ 0x5eed)
	var kept []mrf.Edge
	for _, e := range es {
		if r.Float64() >= drop {
			kept = append(kept, e)
		}
	}
	return mrf.RandomIsingWith(L*L, kept, mrf.Uniform(0.5), mrf.Uniform(f), seed)
}

// regular is a random d-regular spin glass on n nodes (couplings U(-f, f)).
func regular(n, d int, f float64, seed int64) *mrf.Model {
	es, err := mrf.RegularEdges(n, d, mrf.NewRand(seed^0x7e9))
	if err != nil {
		panic(err)
	}
	return mrf.RandomIsingWith(n, es, mrf.Uniform(0.5), mrf.Uniform(f), seed)
}

// rbm is a complete bipartite left + right Ising model, couplings U(-f, f),
// fields U(-0.5, 0.5).
func rbm(left, right int, f float64, seed int64) *mrf.Model {
	es, err := mrf.BipartiteEdges(left, right)
	if err != nil {
		panic(err)
	}
	return mrf.RandomIsingWith(left+right, es, mrf.Uniform(0.5), mrf.Uniform(f), seed)
}

// softCSP has n variables of K = 4 states, a random unary preference each,
// and k ternary soft constraints on random scopes (each variable's scopes
// drawn among nearby variables, so the graph is sparse): every assignment
// is penalised by -w with probability 0.3.
func softCSP(n, k int, w float64, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: constCards(n, 4)}
	for v := range n {
		t := make([]float64, 4)
		for i := range t {
			t[i] = 0.3 * r.NormFloat64()
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{v}, LogTable: t})
	}
	for range k {
		s := localScope(r, n, 3, 6)
		t := make([]float64, 64)
		for i := range t {
			if r.Float64() < 0.3 {
				t[i] = -w
			}
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: s, LogTable: t})
	}
	return m
}

// localScope draws arity distinct variables within a window of width span
// starting at a random variable (wrapping), in random order.
func localScope(r *rand.Rand, n, arity, span int) []int {
	start := r.IntN(n)
	var s []int
	for len(s) < arity {
		v := (start + r.IntN(span)) % n
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// noisyOr is a two-layer Bayesian network: d binary diseases with priors
// and f binary findings, each with 2-4 disease parents (nearby ones) and a
// noisy-OR CPT as a factor over (parents..., finding). A third of the
// findings have no leak, so P(finding = 1 | no parent on) = 0: a zero entry.
// Every fifth finding is observed positive, every seventh negative (unary
// point masses, as mrf.Model.Observe writes them).
func noisyOr(d, f int, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: constCards(d+f, 2)}
	for v := range d {
		p := 0.05 + 0.25*r.Float64()
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{v}, LogTable: []float64{math.Log(1 - p), math.Log(p)}})
	}
	for j := range f {
		np := 2 + r.IntN(3)
		parents := localScope(r, d, np, 2*np+2)
		leak := 0.0
		if j%3 != 0 {
			leak = 0.01 + 0.1*r.Float64()
		}
		q := make([]float64, np)
		for i := range q {
			q[i] = 0.2 + 0.7*r.Float64() // P(parent i alone turns the finding on)
		}
		scope := append(slices.Clone(parents), d+j)
		t := make([]float64, 1<<(np+1))
		for x := range 1 << np {
			off := 1 - leak
			for i := range np {
				if x>>(np-1-i)&1 == 1 { // parent i on (row-major, last fastest)
					off *= 1 - q[i]
				}
			}
			t[2*x] = math.Log(off)
			t[2*x+1] = math.Log(1 - off) // -Inf when off == 1
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: scope, LogTable: t})
	}
	for j := range f {
		switch {
		case j%5 == 0:
			must(m.Observe(d+j, 1))
		case j%7 == 0:
			must(m.Observe(d+j, 0))
		}
	}
	return m
}

// pedigree is a pedigree-like model with K = 3 states: founders with a
// genotype prior; each child c has a selector s_c (K = 3: inherits from
// the father, from the mother, or a new mutation) and one arity-4 factor
// over (father, mother, s_c, c) that is zero where c contradicts s_c (with
// a little noise elsewhere); every fourth child's genotype is observed.
func pedigree(founders, children int, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	n := founders + 2*children
	m := &mrf.Model{Cards: constCards(n, 3)}
	prior := func() []float64 {
		t := make([]float64, 3)
		for i := range t {
			t[i] = 0.5 * r.NormFloat64()
		}
		return t
	}
	for v := range founders {
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{v}, LogTable: prior()})
	}
	people := seq(founders)
	for k := range children {
		c, s := founders+2*k, founders+2*k+1
		// Parents among the last few people, so generations overlap.
		lo := max(0, len(people)-8)
		fa := people[lo+r.IntN(len(people)-lo)]
		mo := fa
		for mo == fa {
			mo = people[lo+r.IntN(len(people)-lo)]
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{s}, LogTable: []float64{math.Log(0.45), math.Log(0.45), math.Log(0.1)}})
		t := make([]float64, 81)
		for x := range 81 {
			gf, gm, sel, gc := x/27, x/9%3, x/3%3, x%3
			ok := (sel == 0 && gc == gf) || (sel == 1 && gc == gm) || sel == 2
			if ok {
				t[x] = 0.2 * r.NormFloat64()
			} else {
				t[x] = math.Inf(-1)
			}
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{fa, mo, s, c}, LogTable: t})
		people = append(people, c)
		if k%4 == 3 {
			must(m.Observe(c, r.IntN(3)))
		}
	}
	return m
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func constCards(n, c int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
