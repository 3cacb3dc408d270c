package mrf

import (
	"fmt"
	"math/rand/v2"
)

// This file holds the potts factor family: pairwise models with many states
// on a sparse random graph of bounded treewidth, stand-ins for the object
// detection models of the UAI 2014 inference competition (60 variables of 11
// states, about 165 pairwise factors and one unary factor per variable).

// FamilyPotts names the potts factor family (Potts).
const FamilyPotts = "potts"

// Shape and scale of the potts family by default (DefaultPotts).
const (
	PottsStates       = 11   // states per variable
	PottsTreewidth    = 6    // width of the k-tree the graph is drawn from
	PottsEdgesPerVar  = 2.75 // pairwise factors per variable (165 on 60 variables)
	PottsField        = 1.0  // unary log-potentials ~ N(0, PottsField²)
	PottsCoupling     = 2.0  // J_ij ~ U(0, PottsCoupling) rewards equal states
	PottsNoise        = 0.5  // every pairwise entry gets N(0, PottsNoise²) on top
	MaxPottsStates    = 1000 // bound on K, against typing mistakes
	maxPottsTableSize = 1 << 24
)

// Potts describes a model of the potts family: N variables of K states, one
// unary factor per variable and Edges pairwise factors on a random graph of
// treewidth at most Treewidth.
//
// The graph is a random partial k-tree, k = Treewidth: the variables, in a
// random order, form a k-tree (the first k+1 a clique; every later one joined
// to k variables of a uniformly chosen earlier (k+1)-clique), of which Edges
// edges are kept: for every variable after the first, one edge to the
// variables it was joined to (so the graph is connected), the rest drawn
// uniformly from the other k-tree edges. Its treewidth is at most k, and near
// k when most k-tree edges are kept; fewer edges (a lower density) leave a
// sparser graph of smaller width. A k-tree on N variables has
// k(k+1)/2 + (N-k-1)k edges, the most Edges can be; N-1 is the least.
//
// Log-potentials: unary θ_i(a) ~ N(0, PottsField²); pairwise
// θ_ij(a,b) = J_ij [a = b] + ε_ijab with J_ij ~ U(0, PottsCoupling) (a Potts
// reward for agreeing, as neighbouring object parts prefer compatible
// labels) and ε_ijab ~ N(0, PottsNoise²) (so every table is a general dense
// one, not a diagonal plus a constant). Pairwise factors list the endpoint
// earlier in the k-tree order first. No zeros, no evidence.
type Potts struct {
	N         int // variables, >= 2
	K         int // states per variable, in [2, MaxPottsStates]
	Treewidth int // k of the k-tree, in [1, N-1]
	Edges     int // pairwise factors, in [N-1, k(k+1)/2 + (N-k-1)k]
}

// DefaultPotts returns the object-detection-like shape on n variables:
// PottsStates states, treewidth PottsTreewidth (or n-1 if smaller) and
// round(PottsEdgesPerVar·n) pairwise factors, within the k-tree's bounds.
func DefaultPotts(n int) Potts {
	p := Potts{N: n, K: PottsStates, Treewidth: min(PottsTreewidth, max(n-1, 1))}
	p.Edges = p.DefaultEdges()
	return p
}

// DefaultEdges returns round(PottsEdgesPerVar·N) within the bounds of p's
// treewidth: at least N-1, at most the k-tree's edges.
func (p Potts) DefaultEdges() int {
	return min(max(int(PottsEdgesPerVar*float64(p.N)+0.5), p.N-1), p.maxEdges())
}

// maxEdges is the number of edges of a k-tree on N variables.
func (p Potts) maxEdges() int {
	k := p.Treewidth
	return k*(k+1)/2 + (p.N-k-1)*k
}

// Check reports whether p describes a model; the error names the field.
func (p Potts) Check() error {
	switch {
	case p.N < 2 || p.N > MaxFactorFamilySize:
		return fmt.Errorf("potts: size %d out of range [2, %d]", p.N, MaxFactorFamilySize)
	case p.K < 2 || p.K > MaxPottsStates:
		return fmt.Errorf("potts: states %d out of range [2, %d]", p.K, MaxPottsStates)
	case p.K*p.K > maxPottsTableSize:
		return fmt.Errorf("potts: states %d make pairwise tables of %d entries, above %d", p.K, p.K*p.K, maxPottsTableSize)
	case p.Treewidth < 1 || p.Treewidth > p.N-1:
		return fmt.Errorf("potts: treewidth %d out of range [1, %d] for %d variables", p.Treewidth, p.N-1, p.N)
	case p.Edges < p.N-1 || p.Edges > p.maxEdges():
		return fmt.Errorf("potts: %d edges out of range [%d, %d] for %d variables and treewidth %d",
			p.Edges, p.N-1, p.maxEdges(), p.N, p.Treewidth)
	}
	return nil
}

// Generate draws the model from NewRand(seed).
func (p Potts) Generate(seed int64) (*Model, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	r := NewRand(seed)
	edges, _ := p.graph(r)
	m := &Model{Cards: make([]int, p.N)}
	for i := range m.Cards {
		m.Cards[i] = p.K
	}
	for i := range p.N {
		t := make([]float64, p.K)
		for a := range t {
			t[a] = PottsField * r.NormFloat64()
		}
		m.Factors = append(m.Factors, Factor{Vars: []int{i}, LogTable: t})
	}
	for _, e := range edges {
		j := PottsCoupling * r.Float64()
		t := make([]float64, p.K*p.K)
		for x := range t {
			t[x] = PottsNoise * r.NormFloat64()
			if x/p.K == x%p.K {
				t[x] += j
			}
		}
		m.Factors = append(m.Factors, Factor{Vars: []int{e.I, e.J}, LogTable: t})
	}
	return m, nil
}

// graph draws the partial k-tree's edges, each as (earlier, later) in the
// k-tree order, in the order they are kept, and returns that order.
func (p Potts) graph(r *rand.Rand) ([]Edge, []int) {
	k := p.Treewidth
	perm := r.Perm(p.N)
	var spine, rest []Edge // one edge per later variable; the other k-tree edges
	for i := 1; i <= k; i++ {
		spine = append(spine, Edge{I: perm[r.IntN(i)], J: perm[i]})
		for j := range i {
			if e := (Edge{I: perm[j], J: perm[i]}); e != spine[len(spine)-1] {
				rest = append(rest, e)
			}
		}
	}
	cliques := [][]int{append([]int(nil), perm[:k+1]...)}
	for i := k + 1; i < p.N; i++ {
		v := perm[i]
		q := cliques[r.IntN(len(cliques))]
		drop := r.IntN(k + 1)
		joined := make([]int, 0, k)
		for j, u := range q {
			if j != drop {
				joined = append(joined, u)
			}
		}
		keep := r.IntN(k)
		for j, u := range joined {
			if j == keep {
				spine = append(spine, Edge{I: u, J: v})
			} else {
				rest = append(rest, Edge{I: u, J: v})
			}
		}
		cliques = append(cliques, append(joined, v))
	}
	r.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	return append(spine, rest[:p.Edges-len(spine)]...), perm
}
