package region

import (
	"fmt"

	"github.com/renn-go/renn/core/mrf"
)

// VarMarginals reads variable marginals out of region beliefs: for every
// variable, the mean of the marginals of all regions containing it,
// normalised to sum 1 (uniform if they sum to 0).
func (bd *Binding) VarMarginals(b [][]float64) [][]float64 {
	cards := bd.cards
	out := make([][]float64, len(cards))
	for v := range out {
		out[v] = make([]float64, cards[v])
	}
	var buf []float64
	for r := range bd.g.Regions {
		R := &bd.g.Regions[r]
		for _, v := range R.Vars {
			buf = resize(buf, cards[v])
			Marginalize(b[r], subIndex(cards, R.Vars, []int{v}), buf)
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
func (bd *Binding) FactorMarginals(b [][]float64) [][]float64 {
	out := make([][]float64, len(bd.scopes))
	for a, scope := range bd.scopes {
		out[a] = make([]float64, mrf.TableSize(bd.cards, scope))
	}
	var buf []float64
	for r := range bd.g.Regions {
		R := &bd.g.Regions[r]
		for _, a := range R.Factors {
			buf = resize(buf, len(out[a]))
			Marginalize(b[r], subIndex(bd.cards, R.Vars, bd.scopes[a]), buf)
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
// of the model's variables (row-major in variable order, the last variable
// fastest), e.g. the exact distribution of a small model.
func (bd *Binding) BeliefsFromJoint(joint []float64) ([][]float64, error) {
	cards := bd.cards
	all := seq(len(cards))
	size := 1
	for _, c := range cards {
		if size > MaxStates/c {
			return nil, fmt.Errorf("joint table of %d variables has more than %d states", len(cards), MaxStates)
		}
		size *= c
	}
	if len(joint) != size {
		return nil, fmt.Errorf("joint table has %d entries, the model's %d variables need %d", len(joint), len(cards), size)
	}
	b := make([][]float64, len(bd.g.Regions))
	for r := range bd.g.Regions {
		b[r] = make([]float64, bd.states[r])
		Marginalize(joint, subIndex(cards, all, bd.g.Regions[r].Vars), b[r])
	}
	return b, nil
}
