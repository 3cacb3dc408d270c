package region

import (
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

// NewBeliefs returns uniform beliefs, one table per region.
func (bd *Binding) NewBeliefs() [][]float64 {
	b := make([][]float64, len(bd.states))
	for r, n := range bd.states {
		b[r] = make([]float64, n)
		for x := range b[r] {
			b[r][x] = 1 / float64(n)
		}
	}
	return b
}

// Energies returns the region energies of m, E_R(x) = -Σ_{a ∈ R.Factors}
// LogTable_a(x_a), one table per region (+Inf where a factor is zero). It
// fails if m does not have the structure bd was bound to or a table has the
// wrong length.
func (bd *Binding) Energies(m *mrf.Model) ([][]float64, error) {
	if err := bd.checkTables(m); err != nil {
		return nil, err
	}
	E := make([][]float64, len(bd.g.Regions))
	for r := range bd.g.Regions {
		R := &bd.g.Regions[r]
		e := make([]float64, bd.states[r])
		for _, a := range R.Factors {
			t := m.Factors[a].LogTable
			for x, i := range subIndex(bd.cards, R.Vars, bd.scopes[a]) {
				e[x] -= t[i]
			}
		}
		E[r] = e
	}
	return E, nil
}

// FreeEnergy returns F = Σ_R c_R Σ_x b_R(x) (E_R(x) + ln b_R(x)) with
// 0·ln 0 = 0 and 0·Inf = 0. Beliefs need not be normalised but must be
// non-negative; E and b have the shapes of Energies.
func (bd *Binding) FreeEnergy(E, b [][]float64) float64 {
	F := 0.0
	for r := range bd.g.Regions {
		c := bd.g.Regions[r].Counting
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
func (bd *Binding) FreeEnergyGrad(E, b [][]float64, grad [][]float64) float64 {
	F := 0.0
	for r := range bd.g.Regions {
		c := bd.g.Regions[r].Counting
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

// Edges returns every parent→child edge, by child then parent.
func (bd *Binding) Edges() []Edge {
	g := bd.g
	var es []Edge
	for c := range g.Regions {
		for _, p := range g.Regions[c].Parents {
			es = append(es, Edge{Parent: p, Child: c, Map: subIndex(bd.cards, g.Regions[p].Vars, g.Regions[c].Vars)})
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
func (bd *Binding) Penalty(edges []Edge, b [][]float64) float64 {
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
func (bd *Binding) PenaltyGrad(edges []Edge, b [][]float64, grad [][]float64) float64 {
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

// MaxInconsistency returns the largest |b_C(x) - Σ_{P\C} b_P(x)| over the
// edges and child states (NaN if a belief is NaN).
func MaxInconsistency(edges []Edge, b [][]float64) float64 {
	var buf []float64
	worst := 0.0
	for _, e := range edges {
		child := b[e.Child]
		buf = resize(buf, len(child))
		Marginalize(b[e.Parent], e.Map, buf)
		for x, v := range child {
			d := math.Abs(v - buf[x])
			if math.IsNaN(d) {
				return d
			}
			worst = max(worst, d)
		}
	}
	return worst
}
