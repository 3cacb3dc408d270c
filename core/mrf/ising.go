package mrf

import (
	"fmt"
	"math/rand/v2"
)

// NewRand returns the project's documented generator for a seed: math/rand/v2
// PCG with state (seed, seed XOR 0xda3e39cb94b95bdb). The same seed gives the
// same stream on every machine.
func NewRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0xda3e39cb94b95bdb))
}

// DeriveSeed returns the seed of item k of a collection generated from base
// (splitmix64 of base + k·golden ratio), so items are independent and any one
// of them can be regenerated alone.
func DeriveSeed(base int64, k int) int64 {
	z := uint64(base) + uint64(k+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int64(z >> 1) // non-negative, so it prints and parses plainly
}

// Edge is an undirected edge with I < J.
type Edge struct{ I, J int }

// GridEdges returns the edges of an L x L 4-neighbour grid, node (r,c) = r·L+c,
// sorted lexicographically. With torus the rows and columns wrap (L >= 3).
func GridEdges(L int, torus bool) ([]Edge, error) {
	if L < 1 || (torus && L < 3) {
		return nil, fmt.Errorf("grid side %d too small (need >= 1, or >= 3 for a torus)", L)
	}
	g := Graph{Family: GraphGrid, Size: L}
	if torus {
		g.Family = GraphTorus
	}
	_, ne, err := g.Counts() // refuses sides above the size bounds before allocating
	if err != nil {
		return nil, err
	}
	es := make([]Edge, 0, ne)
	add := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		es = append(es, Edge{a, b})
	}
	for r := 0; r < L; r++ {
		for c := 0; c < L; c++ {
			i := r*L + c
			if c+1 < L {
				add(i, i+1)
			} else if torus {
				add(i, r*L)
			}
			if r+1 < L {
				add(i, i+L)
			} else if torus {
				add(i, c)
			}
		}
	}
	sortEdges(es)
	return es, nil
}

// CompleteEdges returns the edges of the complete graph K_n in lexicographic order.
func CompleteEdges(n int) []Edge {
	var es []Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			es = append(es, Edge{i, j})
		}
	}
	return es
}

// Ising builds the binary model p(x) ∝ exp(Σ_(i,j) J_ij x_i x_j + Σ_i h_i x_i)
// with x ∈ {-1,+1} (state index s means x = 2s-1). Factor i < n is the unary
// factor of node i; factor n+e is the pairwise factor of edges[e] over (I, J).
func Ising(n int, edges []Edge, h, J []float64) *Model {
	m := &Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = 2
	}
	for i := 0; i < n; i++ {
		m.Factors = append(m.Factors, Factor{Vars: []int{i}, LogTable: []float64{-h[i], h[i]}})
	}
	for e, ed := range edges {
		j := J[e]
		m.Factors = append(m.Factors, Factor{Vars: []int{ed.I, ed.J}, LogTable: []float64{j, -j, -j, j}})
	}
	return m
}

// RandomIsing draws h_i ~ N(0, gamma²) for every node (in node order), then
// J_ij ~ N(0, 1) for every edge (in edge order), from NewRand(seed): the
// paper's family, RandomIsingWith(n, edges, Normal(gamma), Normal(1), seed).
func RandomIsing(n int, edges []Edge, gamma float64, seed int64) *Model {
	return RandomIsingWith(n, edges, Normal(gamma), Normal(1), seed)
}
