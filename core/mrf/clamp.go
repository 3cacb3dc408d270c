package mrf

import (
	"fmt"
	"math"
)

// Clamp returns a copy of m with variables vars observed in states (one
// state per variable), as evidence is: a point-mass unary factor appended
// per observed variable (Observe), after m's own factors. The clamped
// model's distribution is p(z | x_vars) and its partition function is
// Z(x_vars) = Σ_z exp(score(x_vars, z)), so ln Z(x_v) - ln Z is ln p(x_v).
func Clamp(m *Model, vars, states []int) (*Model, error) {
	if len(vars) != len(states) {
		return nil, fmt.Errorf("clamp: %d variables, %d states", len(vars), len(states))
	}
	c := m.Clone()
	for k, v := range vars {
		if err := c.Observe(v, states[k]); err != nil {
			return nil, fmt.Errorf("clamp: %w", err)
		}
	}
	return c, nil
}

// SetClamp re-clamps c, a model returned by Clamp(m, vars, ...) or any model
// with m's factors followed by one unary factor per variable of vars, to
// states: it copies m's tables into c's first factors and points the
// trailing point masses at states, so learning can re-clamp one model in
// place as its parameters and samples change. States must be in range.
func SetClamp(c, m *Model, vars, states []int) {
	for a := range m.Factors {
		copy(c.Factors[a].LogTable, m.Factors[a].LogTable)
	}
	for k := range vars {
		t := c.Factors[len(m.Factors)+k].LogTable
		for s := range t {
			t[s] = math.Inf(-1)
		}
		t[states[k]] = 0
	}
}
