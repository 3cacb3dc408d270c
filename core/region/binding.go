package region

import (
	"errors"
	"fmt"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// Binding is a region graph bound to the structure of a model: the
// cardinalities and factor scopes, not the tables. Bind checks the graph
// against that structure once and sizes every region. The methods that
// allocate, fill or read region tables are Binding's, so none of them can
// meet a region graph that does not fit or a region too large to allocate.
//
// One Binding serves every model of its structure (learning changes only the
// tables): Energies, the one method that reads tables, checks the model
// against it. A Binding keeps its Graph, not a copy, which must not change
// afterwards. It holds no mutable state and may be used concurrently.
type Binding struct {
	g      *Graph
	cards  []int   // copy of the model's cardinalities
	scopes [][]int // copy of the model's factor scopes, in table order
	states []int   // states[r] is the number of joint states of region r
}

// Bind checks m (a well-formed model without constant factors), checks that
// g is a valid region graph of it (see Validate) and that every region has at
// most MaxStates joint states, and returns g bound to m's structure.
func (g *Graph) Bind(m *mrf.Model) (*Binding, error) {
	if g == nil {
		return nil, errors.New("nil region graph")
	}
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if err := g.validate(m); err != nil {
		return nil, fmt.Errorf("region graph does not fit the model: %w", err)
	}
	states, err := stateCounts(g, m.Cards)
	if err != nil {
		return nil, err
	}
	bd := &Binding{g: g, cards: slices.Clone(m.Cards), scopes: make([][]int, len(m.Factors)), states: states}
	for a, f := range m.Factors {
		bd.scopes[a] = slices.Clone(f.Vars)
	}
	return bd, nil
}

// stateCounts returns the number of joint states of every region of g, whose
// variables are in range of cards. It fails if a region has more than
// MaxStates states, as its tables could not be allocated.
func stateCounts(g *Graph, cards []int) ([]int, error) {
	out := make([]int, len(g.Regions))
	for r := range g.Regions {
		n := 1
		for _, v := range g.Regions[r].Vars {
			c := cards[v]
			if n > MaxStates/c {
				return nil, fmt.Errorf("region %d over %d variables has more than %d joint states", r, len(g.Regions[r].Vars), MaxStates)
			}
			n *= c
		}
		out[r] = n
	}
	return out, nil
}

// Graph returns the bound region graph.
func (bd *Binding) Graph() *Graph { return bd.g }

// NumStates returns the number of joint states of region r: the length of
// its tables.
func (bd *Binding) NumStates(r int) int { return bd.states[r] }

// SameStructure reports whether m has the cardinalities and factor scopes bd
// was bound to (the tables may differ), so that bd serves m. It is false for a
// nil Binding or model.
func (bd *Binding) SameStructure(m *mrf.Model) bool {
	if bd == nil || m == nil || !slices.Equal(m.Cards, bd.cards) || len(m.Factors) != len(bd.scopes) {
		return false
	}
	for a := range m.Factors {
		if !slices.Equal(m.Factors[a].Vars, bd.scopes[a]) {
			return false
		}
	}
	return true
}

// checkTables checks that m has bd's structure and tables of the lengths its
// scopes need, which is all Energies relies on to index them. It is cheaper
// than m.Validate, which also inspects every table entry, and it runs on
// every learning step.
func (bd *Binding) checkTables(m *mrf.Model) error {
	if !bd.SameStructure(m) {
		return errors.New("model does not have the structure (cardinalities and factor scopes) the region graph was bound to")
	}
	for a := range m.Factors {
		if n, want := len(m.Factors[a].LogTable), mrf.TableSize(bd.cards, bd.scopes[a]); n != want {
			return fmt.Errorf("factor %d: table has %d entries, scope %v needs %d", a, n, bd.scopes[a], want)
		}
	}
	return nil
}
