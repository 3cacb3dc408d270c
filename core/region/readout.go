package region

import (
	"fmt"

	"github.com/renn-go/renn/core/mrf"
)

// VarMarginals reads variable marginals out of region beliefs: for every
// variable, the mean of the marginals of all regions containing it,
// normalised to sum 1 (uniform if they sum to 0).
func (g *Graph) VarMarginals(m *mrf.Model, b [][]float64) [][]float64 {
	out := make([][]float64, len(m.Cards))
	for v := range out {
		out[v] = make([]float64, m.Cards[v])
	}
	var buf []float64
	for r := range g.Regions {
		R := &g.Regions[r]
		for _, v := range R.Vars {
			buf = resize(buf, m.Cards[v])
			Marginalize(b[r], subIndex(m.Cards, R.Vars, []int{v}), buf)
			for x, p := range buf {
				out[v][x] += p
			}
		}
	}
	for _, p := range out {
		normalise(p)
	}
	return out
}

// FactorMarginals reads factor marginals out of region beliefs: for every
// factor, the mean of the marginals onto its scope of all regions containing
// it, in the factor's own Vars order (the layout of its LogTable),
// normalised to sum 1 (uniform if they sum to 0).
func (g *Graph) FactorMarginals(m *mrf.Model, b [][]float64) [][]float64 {
	out := make([][]float64, len(m.Factors))
	for a, f := range m.Factors {
		out[a] = make([]float64, len(f.LogTable))
	}
	var buf []float64
	for r := range g.Regions {
		R := &g.Regions[r]
		for _, a := range R.Factors {
			f := &m.Factors[a]
			buf = resize(buf, len(f.LogTable))
			Marginalize(b[r], subIndex(m.Cards, R.Vars, f.Vars), buf)
			for x, p := range buf {
				out[a][x] += p
			}
		}
	}
	for _, p := range out {
		normalise(p)
	}
	return out
}

func normalise(p []float64) {
	s := 0.0
	for _, x := range p {
		s += x
	}
	for i := range p {
		if s > 0 {
			p[i] /= s
		} else {
			p[i] = 1 / float64(len(p))
		}
	}
}

// BeliefsFromJoint returns every region's marginal of a joint table over all
// of m's variables (row-major in variable order, the last variable fastest),
// e.g. the exact distribution of a small model.
func (g *Graph) BeliefsFromJoint(m *mrf.Model, joint []float64) ([][]float64, error) {
	all := seq(len(m.Cards))
	size := 1
	for _, c := range m.Cards {
		if c > 0 && size > MaxStates/c {
			return nil, fmt.Errorf("joint table of %d variables has more than %d states", len(m.Cards), MaxStates)
		}
		size *= c
	}
	if len(joint) != size {
		return nil, fmt.Errorf("joint table has %d entries, the model's %d variables need %d", len(joint), len(m.Cards), size)
	}
	sizes, err := g.StateCounts(m)
	if err != nil {
		return nil, err
	}
	b := make([][]float64, len(g.Regions))
	for r := range g.Regions {
		b[r] = make([]float64, sizes[r])
		Marginalize(joint, subIndex(m.Cards, all, g.Regions[r].Vars), b[r])
	}
	return b, nil
}
