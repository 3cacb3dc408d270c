package infer

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
)

// Incidence says that a variable sits at position Pos of factor Factor's scope.
type Incidence struct{ Factor, Pos int }

// Axis locates one variable of a factor's scope inside the factor's row-major
// table: the variable's state at table entry t is (t / Stride) % Card.
type Axis struct{ Stride, Card int }

// State returns the variable's state at table entry t.
func (ax Axis) State(t int) int { return (t / ax.Stride) % ax.Card }

// FactorGraph is the structure of a model's factor graph: the real
// neighbourhoods of every variable, on any graph, and where each scope variable
// lives in its factor's table. It holds copies of the cardinalities and
// scopes, not the tables, so a method can keep one across calls and check
// whether a new model has the same structure.
type FactorGraph struct {
	Cards  []int   // cardinality of every variable
	Scopes [][]int // Scopes[a] is factor a's Vars, in table order
	Sizes  []int   // Sizes[a] is the length of factor a's table
	// Axes[a][p] locates Scopes[a][p] in factor a's table.
	Axes [][]Axis
	// VarFactors[i] lists every factor containing variable i (unary factors
	// included), in factor order, with i's position in its scope.
	VarFactors [][]Incidence
	MaxSize    int // largest factor table
	MaxCard    int // largest cardinality
}

// NewFactorGraph validates m and returns its factor graph.
func NewFactorGraph(m *mrf.Model) (*FactorGraph, error) {
	if m == nil {
		return nil, fmt.Errorf("factor graph: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("factor graph: %w", err)
	}
	g := &FactorGraph{
		Cards:      append([]int(nil), m.Cards...),
		Scopes:     make([][]int, len(m.Factors)),
		Sizes:      make([]int, len(m.Factors)),
		Axes:       make([][]Axis, len(m.Factors)),
		VarFactors: make([][]Incidence, len(m.Cards)),
	}
	for _, c := range g.Cards {
		g.MaxCard = max(g.MaxCard, c)
	}
	for a, f := range m.Factors {
		g.Scopes[a] = append([]int(nil), f.Vars...)
		axes := make([]Axis, len(f.Vars))
		stride := 1
		for p := len(f.Vars) - 1; p >= 0; p-- { // last variable fastest
			c := g.Cards[f.Vars[p]]
			axes[p] = Axis{Stride: stride, Card: c}
			stride *= c
		}
		g.Axes[a] = axes
		g.Sizes[a] = stride
		g.MaxSize = max(g.MaxSize, stride)
		for p, v := range f.Vars {
			g.VarFactors[v] = append(g.VarFactors[v], Incidence{Factor: a, Pos: p})
		}
	}
	return g, nil
}

// NumVars returns the number of variables.
func (g *FactorGraph) NumVars() int { return len(g.Cards) }

// NumFactors returns the number of factors.
func (g *FactorGraph) NumFactors() int { return len(g.Scopes) }

// Degree returns the number of factors containing variable i.
func (g *FactorGraph) Degree(i int) int { return len(g.VarFactors[i]) }

// SameStructure reports whether m has the cardinalities and factor scopes g
// was built from (the tables may differ), so state kept for g can warm-start a
// run on m.
func (g *FactorGraph) SameStructure(m *mrf.Model) bool {
	if g == nil || m == nil || len(m.Cards) != len(g.Cards) || len(m.Factors) != len(g.Scopes) {
		return false
	}
	for i, c := range m.Cards {
		if c != g.Cards[i] {
			return false
		}
	}
	for a, f := range m.Factors {
		s := g.Scopes[a]
		if len(f.Vars) != len(s) {
			return false
		}
		for p, v := range f.Vars {
			if v != s[p] {
				return false
			}
		}
	}
	return true
}

// AddAlong adds v[x] to every entry of table whose state on axis ax is x: in
// log space, it multiplies a message over that variable into the table.
func AddAlong(table []float64, ax Axis, v []float64) {
	block := ax.Stride * ax.Card
	for base := 0; base+block <= len(table); base += block {
		for x := 0; x < ax.Card; x++ {
			row := table[base+x*ax.Stride : base+(x+1)*ax.Stride]
			vx := v[x]
			for k := range row {
				row[k] += vx
			}
		}
	}
}

// ScaleAlong multiplies every entry of table whose state on axis ax is x by
// v[x]: it multiplies a probability vector over that variable into the table.
func ScaleAlong(table []float64, ax Axis, v []float64) {
	block := ax.Stride * ax.Card
	for base := 0; base+block <= len(table); base += block {
		for x := 0; x < ax.Card; x++ {
			row := table[base+x*ax.Stride : base+(x+1)*ax.Stride]
			vx := v[x]
			for k := range row {
				row[k] *= vx
			}
		}
	}
}

// SumAlong sets out[x] (len(out) >= ax.Card) to the sum of the entries of
// table whose state on axis ax is x: it marginalises the table onto that
// variable.
func SumAlong(table []float64, ax Axis, out []float64) {
	out = out[:ax.Card]
	clear(out)
	block := ax.Stride * ax.Card
	for base := 0; base+block <= len(table); base += block {
		for x := range out {
			s := 0.0
			for _, t := range table[base+x*ax.Stride : base+(x+1)*ax.Stride] {
				s += t
			}
			out[x] += s
		}
	}
}

// LogSumAlong sets out[x] (len(out) >= ax.Card) to ln Σ exp(entries of table
// whose state on axis ax is x): it marginalises a log table onto that
// variable, without overflow. A state with no finite entry gets -Inf.
func LogSumAlong(table []float64, ax Axis, out []float64) {
	out = out[:ax.Card]
	for x := range out {
		out[x] = math.Inf(-1)
	}
	block := ax.Stride * ax.Card
	for base := 0; base+block <= len(table); base += block {
		for x := range out {
			for _, t := range table[base+x*ax.Stride : base+(x+1)*ax.Stride] {
				if t > out[x] {
					out[x] = t
				}
			}
		}
	}
	var sums [16]float64 // avoids allocation for the usual small cardinalities
	var s []float64
	if ax.Card <= len(sums) {
		s = sums[:ax.Card]
	} else {
		s = make([]float64, ax.Card)
	}
	for base := 0; base+block <= len(table); base += block {
		for x := range out {
			mx := out[x]
			if math.IsInf(mx, -1) {
				continue
			}
			for _, t := range table[base+x*ax.Stride : base+(x+1)*ax.Stride] {
				s[x] += math.Exp(t - mx)
			}
		}
	}
	for x := range out {
		if !math.IsInf(out[x], -1) {
			out[x] += math.Log(s[x])
		}
	}
}
