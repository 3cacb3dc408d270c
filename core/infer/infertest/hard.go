package infertest

import (
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/mrf"
)

// Small models of the kinds real UAI benchmarks hold: pedigrees
// and noisy-OR networks with zero potentials and evidence, soft CSPs, spin
// glasses and RBMs with strong couplings. Evidence is imported as the UAI
// readers do, as point-mass unary factors (mrf.Model.Observe). Every model
// has Z > 0: the evidence is a forward sample of the network, and a CSP's
// zeros spare a planted solution.

// Pedigree returns a pedigree-like Bayesian network on n variables of 3
// states: variables 0-2 are founders with prior tables; every later variable
// has a conditional table given three earlier ones (an arity-4 factor) in
// which about a third of the entries are zero (never a whole row). About a
// quarter of the variables are observed at the values of a forward sample.
func Pedigree(n int, seed int64) *mrf.Model {
	const k = 3
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = k
	}
	parents := make([][]int, n)
	for i := 3; i < n; i++ {
		parents[i] = r.Perm(i)[:3]
	}
	return network(m, parents, 0.35, n/4, r)
}

// NoisyOR returns a two-layer noisy-OR network: d binary diseases with
// priors and f binary findings, each with two to four disease parents and
// no leak, so a finding is off for certain when none of its parents is on
// (a zero entry). Every finding is observed at the value of a forward
// sample.
func NoisyOR(d, f int, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	n := d + f
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = 2
	}
	x := make([]int, n)
	for i := 0; i < d; i++ {
		p := 0.1 + 0.4*r.Float64()
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i}, LogTable: []float64{math.Log(1 - p), math.Log(p)}})
		if r.Float64() < p {
			x[i] = 1
		}
	}
	for j := d; j < n; j++ {
		ps := r.Perm(d)[:2+r.IntN(3)]
		q := make([]float64, len(ps)) // probability that parent k alone fails to turn the finding on
		for k := range q {
			q[k] = 0.1 + 0.7*r.Float64()
		}
		vars := append(append([]int(nil), ps...), j)
		t := make([]float64, 1<<len(vars))
		for s := 0; s < 1<<len(ps); s++ {
			off := 1.0
			for k := range ps {
				if s>>(len(ps)-1-k)&1 == 1 {
					off *= q[k]
				}
			}
			t[2*s], t[2*s+1] = math.Log(off), math.Log(1-off) // log(0) = -Inf when no parent is on
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars, LogTable: t})
		s := 0
		for _, p := range ps {
			s = 2*s + x[p]
		}
		if r.Float64() < 1-math.Exp(t[2*s]) {
			x[j] = 1
		}
	}
	for j := d; j < n; j++ {
		_ = m.Observe(j, x[j])
	}
	return m
}

// SoftCSP returns a soft constraint problem on n variables of 4 states with
// c ternary factors of log potentials N(0,1), a tenth of the entries zero
// (hard constraints) except those of a planted solution.
func SoftCSP(n, c int, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: make([]int, n)}
	sol := make([]int, n)
	for i := range m.Cards {
		m.Cards[i] = 4
		sol[i] = r.IntN(4)
	}
	for _, s := range RandomScopes(n, c, 3, seed+1) {
		f := mrf.Factor{Vars: s, LogTable: make([]float64, 64)}
		keep := f.Index(m.Cards, sol)
		for t := range f.LogTable {
			f.LogTable[t] = r.NormFloat64()
			if t != keep && r.Float64() < 0.1 {
				f.LogTable[t] = math.Inf(-1)
			}
		}
		m.Factors = append(m.Factors, f)
	}
	return m
}

// SpinGlass returns an L x L Ising spin glass (a torus if torus is set) with
// fields U(-1,1) and couplings U(-f,f).
func SpinGlass(L int, torus bool, f float64, seed int64) *mrf.Model {
	edges, err := mrf.GridEdges(L, torus)
	if err != nil {
		panic(err)
	}
	return mrf.RandomIsingWith(L*L, edges, mrf.Uniform(1), mrf.Uniform(f), seed)
}

// RBM returns a restricted Boltzmann machine: a complete bipartite Ising
// model with v visible and h hidden units, fields U(-1,1) and couplings
// U(-f,f).
func RBM(v, h int, f float64, seed int64) *mrf.Model {
	edges, err := mrf.BipartiteEdges(v, h)
	if err != nil {
		panic(err)
	}
	return mrf.RandomIsingWith(v+h, edges, mrf.Uniform(1), mrf.Uniform(f), seed)
}

// network adds to m (cardinalities set) a prior for every variable without
// parents and a conditional table for every other, with a fraction zero of
// each row's entries set to zero (one entry always kept), then observes
// observed variables, chosen at random, at a forward sample's values.
func network(m *mrf.Model, parents [][]int, zero float64, observed int, r *rand.Rand) *mrf.Model {
	n := len(m.Cards)
	x := make([]int, n)
	for i := range m.Cards {
		vars := append(append([]int(nil), parents[i]...), i)
		f := mrf.Factor{Vars: vars, LogTable: make([]float64, mrf.TableSize(m.Cards, vars))}
		c := m.Cards[i]
		row := 0 // the row of the sampled parents' states
		for _, p := range parents[i] {
			row = row*m.Cards[p] + x[p]
		}
		for base := 0; base < len(f.LogTable); base += c {
			keep := r.IntN(c)
			p := make([]float64, c)
			s := 0.0
			for s0 := range p {
				if s0 == keep || r.Float64() >= zero {
					p[s0] = 0.05 + r.Float64()
					s += p[s0]
				}
			}
			u, acc := r.Float64()*s, 0.0
			for s0, v := range p {
				f.LogTable[base+s0] = math.Log(v / s)
				if base/c == row && v > 0 && u >= acc {
					x[i] = s0
				}
				acc += v
			}
		}
		m.Factors = append(m.Factors, f)
	}
	for _, v := range r.Perm(n)[:observed] {
		_ = m.Observe(v, x[v])
	}
	return m
}
