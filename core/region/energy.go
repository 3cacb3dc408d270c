package region

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
)

// BeliefFloor replaces a zero belief inside the logarithm of the gradient:
// dF/db = c (E + ln b + 1) is -Inf·c at b = 0, and ln(BeliefFloor) ≈ -690.8
// keeps it finite and steep. The free energy itself uses 0·ln 0 = 0.
const BeliefFloor = 1e-300

// subIndex maps every joint state of vars (sorted region variables,
// row-major, last fastest) to the index of its restriction in a table over
// sub (any order, sub ⊆ vars, row-major, last fastest).
func subIndex(cards, vars, sub []int) []int32 {
	subStride := make(map[int]int, len(sub))
	st := 1
	for k := len(sub) - 1; k >= 0; k-- {
		subStride[sub[k]] = st
		st *= cards[sub[k]]
	}
	strides := make([]int, len(vars))
	size := 1
	for i, v := range vars {
		strides[i] = subStride[v]
		size *= cards[v]
	}
	out := make([]int32, size)
	digits := make([]int, len(vars))
	idx := 0
	for s := range out {
		out[s] = int32(idx)
		for i := len(vars) - 1; i >= 0; i-- {
			digits[i]++
			idx += strides[i]
			if digits[i] < cards[vars[i]] {
				break
			}
			idx -= strides[i] * digits[i]
			digits[i] = 0
		}
	}
	return out
}

func (g *Graph) mustFit(m *mrf.Model) []int {
	sizes, err := g.StateCounts(m)
	if err != nil {
		panic(fmt.Sprintf("region: %v (call StateCounts before allocating region tables)", err))
	}
	return sizes
}

// NewBeliefs returns uniform beliefs, one table per region. It panics if a
// region has more than MaxStates states (see StateCounts).
func (g *Graph) NewBeliefs(m *mrf.Model) [][]float64 {
	sizes := g.mustFit(m)
	b := make([][]float64, len(sizes))
	for r, n := range sizes {
		b[r] = make([]float64, n)
		for x := range b[r] {
			b[r][x] = 1 / float64(n)
		}
	}
	return b
}

// Energies returns the region energies E_R(x) = -Σ_{a ∈ R.Factors}
// LogTable_a(x_a), one table per region (+Inf where a factor is zero). It
// panics if a region has more than MaxStates states (see StateCounts).
func (g *Graph) Energies(m *mrf.Model) [][]float64 {
	sizes := g.mustFit(m)
	E := make([][]float64, len(g.Regions))
	for r := range g.Regions {
		R := &g.Regions[r]
		e := make([]float64, sizes[r])
		for _, a := range R.Factors {
			f := &m.Factors[a]
			mp := subIndex(m.Cards, R.Vars, f.Vars)
			for x, i := range mp {
				e[x] -= f.LogTable[i]
			}
		}
		E[r] = e
	}
	return E
}

// FreeEnergy returns F = Σ_R c_R Σ_x b_R(x) (E_R(x) + ln b_R(x)) with
// 0·ln 0 = 0 and 0·Inf = 0. Beliefs need not be normalised but must be
// non-negative; E and b have the shapes of Energies.
func (g *Graph) FreeEnergy(m *mrf.Model, E, b [][]float64) float64 {
	F := 0.0
	for r := range g.Regions {
		c := g.Regions[r].Counting
		if c == 0 {
			continue
		}
		s := 0.0
		for x, p := range b[r] {
			if p != 0 {
				s += p * (E[r][x] + math.Log(p))
			}
		}
		F += c * s
	}
	return F
}

// FreeEnergyGrad returns F as FreeEnergy does and overwrites grad (shaped as
// b) with dF/db_R(x) = c_R (E_R(x) + ln max(b_R(x), BeliefFloor) + 1).
func (g *Graph) FreeEnergyGrad(m *mrf.Model, E, b [][]float64, grad [][]float64) float64 {
	F := 0.0
	for r := range g.Regions {
		c := g.Regions[r].Counting
		gr := grad[r]
		if c == 0 {
			clear(gr)
			continue
		}
		s := 0.0
		er := E[r]
		for x, p := range b[r] {
			lp := math.Log(max(p, BeliefFloor))
			if p != 0 {
				s += p * (er[x] + lp)
			}
			gr[x] = c * (er[x] + lp + 1)
		}
		F += c * s
	}
	return F
}

// Edge is a parent→child edge of a region graph with the map from every
// parent state to the child state it restricts to.
type Edge struct {
	Parent, Child int
	Map           []int32
}

// Edges returns every parent→child edge, by child then parent. It panics if
// a region has more than MaxStates states (see StateCounts).
func (g *Graph) Edges(m *mrf.Model) []Edge {
	g.mustFit(m)
	var es []Edge
	for c := range g.Regions {
		for _, p := range g.Regions[c].Parents {
			es = append(es, Edge{Parent: p, Child: c, Map: subIndex(m.Cards, g.Regions[p].Vars, g.Regions[c].Vars)})
		}
	}
	return es
}

// Marginalize sets out to the marginal of parentBelief under the state map
// mp of an Edge: out is zeroed, then out[mp[x]] += parentBelief[x].
func Marginalize(parentBelief []float64, mp []int32, out []float64) {
	clear(out)
	for x, p := range parentBelief {
		out[mp[x]] += p
	}
}

// Penalty returns Σ_{R ∉ R0} Σ_{P ∈ parents(R)} ||b_R − Σ_{P\R} b_P||², the
// squared L2 mismatch summed over the edges (from Edges).
func (g *Graph) Penalty(m *mrf.Model, edges []Edge, b [][]float64) float64 {
	var buf []float64
	s := 0.0
	for _, e := range edges {
		child := b[e.Child]
		buf = resize(buf, len(child))
		Marginalize(b[e.Parent], e.Map, buf)
		for x, v := range child {
			d := v - buf[x]
			s += d * d
		}
	}
	return s
}

// PenaltyGrad returns Penalty and adds its gradient to grad (shaped as b):
// 2d to the child and -2d[mp[x]] to parent state x, d = b_R − Σ_{P\R} b_P.
func (g *Graph) PenaltyGrad(m *mrf.Model, edges []Edge, b [][]float64, grad [][]float64) float64 {
	var buf []float64
	s := 0.0
	for _, e := range edges {
		child := b[e.Child]
		buf = resize(buf, len(child))
		Marginalize(b[e.Parent], e.Map, buf)
		gc := grad[e.Child]
		for x, v := range child {
			d := v - buf[x]
			s += d * d
			buf[x] = 2 * d
			gc[x] += buf[x]
		}
		gp := grad[e.Parent]
		for x, i := range e.Map {
			gp[x] -= buf[i]
		}
	}
	return s
}

func resize(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}
