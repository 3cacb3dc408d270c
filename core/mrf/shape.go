package mrf

import "math"

// Shape summarises a model for a table of models: its cardinalities, its
// own factors and the variables its evidence fixes.
type Shape struct {
	MinCard, MaxCard int
	Factors          int // the model's own factors, evidence excluded
	MaxArity         int // the largest scope of its own factors
	Zeros            int // zero entries (-Inf in the log tables) of its own factors
	Observed         int // variables fixed by evidence
}

// ShapeOf summarises m. Evidence is what applying it leaves (see stageio):
// trailing unary factors with one entry 0 and every other -Inf.
func ShapeOf(m *Model) Shape {
	s := Shape{MinCard: math.MaxInt32}
	for _, c := range m.Cards {
		s.MinCard, s.MaxCard = min(s.MinCard, c), max(s.MaxCard, c)
	}
	n := len(m.Factors)
	for n > 0 && isPointMass(m.Factors[n-1]) {
		n--
	}
	s.Observed, s.Factors = len(m.Factors)-n, n
	for _, f := range m.Factors[:n] {
		s.MaxArity = max(s.MaxArity, len(f.Vars))
		for _, l := range f.LogTable {
			if math.IsInf(l, -1) {
				s.Zeros++
			}
		}
	}
	return s
}

// isPointMass reports whether f is a unary factor of one state: one entry
// 0, the others -Inf.
func isPointMass(f Factor) bool {
	finite, at := 0, -1
	for x, l := range f.LogTable {
		if !math.IsInf(l, -1) {
			finite++
			at = x
		}
	}
	return len(f.Vars) == 1 && finite == 1 && f.LogTable[at] == 0
}
