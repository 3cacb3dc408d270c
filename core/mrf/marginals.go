package mrf

import "fmt"

// Marginals are the variable and factor marginals of one model: exact ones
// (core/exact), every inference method's estimates (infer.Result) and what
// the metrics compare. They are laid out like the model's tables:
//
//   - Vars[i] is the marginal of variable i, with Cards[i] entries (one per
//     state, summing to one).
//   - Factors[a] is the marginal of factor a's scope, row-major over the
//     factor's own Vars order with the last variable fastest, exactly like
//     its LogTable: entry Factor.Index(cards, x) is the probability of the
//     joint state x gives the scope.
//
// Copying a Marginals copies the slice headers only: the copies share the
// probabilities.
type Marginals struct {
	Vars    [][]float64
	Factors [][]float64
}

// Check reports whether mg has the shape m requires: one marginal per
// variable and per factor, each of the right length. It does not look at the
// values.
func (mg Marginals) Check(m *Model) error {
	if len(mg.Vars) != len(m.Cards) {
		return fmt.Errorf("%d variable marginals for %d variables", len(mg.Vars), len(m.Cards))
	}
	if len(mg.Factors) != len(m.Factors) {
		return fmt.Errorf("%d factor marginals for %d factors", len(mg.Factors), len(m.Factors))
	}
	for i, p := range mg.Vars {
		if len(p) != m.Cards[i] {
			return fmt.Errorf("variable %d: marginal has %d entries, cardinality is %d", i, len(p), m.Cards[i])
		}
	}
	for a, p := range mg.Factors {
		if n := TableSize(m.Cards, m.Factors[a].Vars); len(p) != n {
			return fmt.Errorf("factor %d: marginal has %d entries, scope %v needs %d", a, len(p), m.Factors[a].Vars, n)
		}
	}
	return nil
}
