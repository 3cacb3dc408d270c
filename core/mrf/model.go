// Package mrf defines discrete Markov random fields as factor graphs with
// log-space tables, and the seeded Ising generators used by the experiments.
//
// A Model has variables 0..n-1 with cardinalities Cards and a list of factors.
// Each factor's LogTable is row-major over its Vars: the LAST variable changes
// fastest (the UAI convention), and -Inf marks a zero potential.
//
// Marginals are a model's variable and factor marginals in the same layout:
// the one type exact inference, every inference method and the metrics share.
package mrf

import (
	"errors"
	"fmt"
	"math"
)

// Factor is a log-potential over an ordered scope of variables.
type Factor struct {
	Vars     []int     // scope, in table order; not necessarily sorted
	LogTable []float64 // row-major over Vars, last variable fastest
}

// Model is a discrete factor graph: p(x) ∝ exp(Σ_a LogTable_a(x_a)).
type Model struct {
	Cards   []int // cardinality of every variable
	Factors []Factor
}

// Info describes where a model came from. It travels beside the model in
// model_info.parquet.
type Info struct {
	Name   string
	Graph  string  // "grid", "torus", "complete", "uai", ...
	Gamma  float64 // field strength of Ising models; 0 otherwise
	Seed   int64   // seed the model was generated from; 0 for imported models
	Source string  // generator or file the model came from
	// Hidden lists the variables that are never observed, in increasing
	// order (CheckHidden); empty when every variable is visible. Data sets of
	// such a model hold the visible values only.
	Hidden []int
}

// CheckHidden reports whether hidden is a valid set of hidden variables of
// a model of n variables: indices in [0, n), strictly increasing, and at
// least one variable left visible.
func CheckHidden(hidden []int, n int) error {
	for k, v := range hidden {
		if v < 0 || v >= n {
			return fmt.Errorf("hidden variable %d out of range [0,%d)", v, n)
		}
		if k > 0 && v <= hidden[k-1] {
			return fmt.Errorf("hidden variables must be strictly increasing: %d after %d", v, hidden[k-1])
		}
	}
	if n > 0 && len(hidden) == n {
		return fmt.Errorf("every one of the %d variables is hidden: a data set would observe nothing", n)
	}
	return nil
}

// Visible returns the variables of a model of n variables that hidden (a
// valid set, CheckHidden) leaves visible, in increasing order.
func Visible(hidden []int, n int) []int {
	vis := make([]int, 0, n-len(hidden))
	k := 0
	for i := 0; i < n; i++ {
		if k < len(hidden) && hidden[k] == i {
			k++
			continue
		}
		vis = append(vis, i)
	}
	return vis
}

// NumVars returns the number of variables.
func (m *Model) NumVars() int { return len(m.Cards) }

// TableSize returns the number of joint states of vars under cards.
func TableSize(cards []int, vars []int) int {
	n := 1
	for _, v := range vars {
		n *= cards[v]
	}
	return n
}

// Size bounds of a model, checked by Validate and by the readers before they
// allocate. A cardinality is a single number in a file but every method
// allocates marginals of that size, so it is bounded on its own; variable
// ids, cardinalities and factor ids are int32 in the Parquet tables.
const (
	MaxCardinality = 1 << 24 // states of one variable
	MaxStates      = 1 << 28 // states summed over all variables (2 GiB of marginals)
	MaxTableSize   = 1 << 28 // entries of one factor table (2 GiB)
	MaxFactors     = 1 << 28 // factors of one model
)

// Validate checks that the model is well formed: cardinalities in
// [1, MaxCardinality] summing to at most MaxStates, at most MaxFactors
// factors, scopes within range without repeats, table lengths matching
// scopes, and no NaN or +Inf entries.
func (m *Model) Validate() error {
	if len(m.Cards) == 0 {
		return errors.New("model has no variables")
	}
	states := 0
	for i, c := range m.Cards {
		if c < 1 || c > MaxCardinality {
			return fmt.Errorf("variable %d has cardinality %d, want 1 to %d", i, c, MaxCardinality)
		}
		if states += c; states > MaxStates {
			return fmt.Errorf("variables 0 to %d have %d states in all, above the bound %d", i, states, MaxStates)
		}
	}
	if len(m.Factors) > MaxFactors {
		return fmt.Errorf("model has %d factors, above the bound %d", len(m.Factors), MaxFactors)
	}
	for a, f := range m.Factors {
		if err := f.validate(m.Cards); err != nil {
			return fmt.Errorf("factor %d: %w", a, err)
		}
	}
	return nil
}

func (f *Factor) validate(cards []int) error {
	seen := make(map[int]bool, len(f.Vars))
	size := 1
	for _, v := range f.Vars {
		if v < 0 || v >= len(cards) {
			return fmt.Errorf("variable %d out of range [0,%d)", v, len(cards))
		}
		if seen[v] {
			return fmt.Errorf("variable %d repeated in scope %v", v, f.Vars)
		}
		seen[v] = true
		if size *= cards[v]; size > MaxTableSize { // cards <= MaxCardinality: no overflow
			return fmt.Errorf("scope %v needs a table above the bound of %d entries", f.Vars, MaxTableSize)
		}
	}
	if len(f.LogTable) != size {
		return fmt.Errorf("table has %d entries, scope %v needs %d", len(f.LogTable), f.Vars, size)
	}
	for i, x := range f.LogTable {
		if math.IsNaN(x) || math.IsInf(x, 1) {
			return fmt.Errorf("table entry %d is %v", i, x)
		}
	}
	return nil
}

// Index returns the position in f.LogTable of the joint state that x (a full
// assignment, one state index per model variable) gives f's scope.
func (f *Factor) Index(cards []int, x []int) int {
	idx := 0
	for _, v := range f.Vars {
		idx = idx*cards[v] + x[v]
	}
	return idx
}

// LogScore returns Σ_a LogTable_a(x_a), the unnormalised log-probability of
// the full assignment x.
func (m *Model) LogScore(x []int) float64 {
	s := 0.0
	for a := range m.Factors {
		f := &m.Factors[a]
		s += f.LogTable[f.Index(m.Cards, x)]
	}
	return s
}

// Neighbours returns, for every variable, the sorted list of variables that
// share a factor with it.
func (m *Model) Neighbours() [][]int {
	sets := make([]map[int]bool, len(m.Cards))
	for i := range sets {
		sets[i] = map[int]bool{}
	}
	for _, f := range m.Factors {
		for _, u := range f.Vars {
			for _, v := range f.Vars {
				if u != v {
					sets[u][v] = true
				}
			}
		}
	}
	out := make([][]int, len(m.Cards))
	for i, s := range sets {
		for v := range s {
			out[i] = append(out[i], v)
		}
		sortInts(out[i])
	}
	return out
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := &Model{Cards: append([]int(nil), m.Cards...), Factors: make([]Factor, len(m.Factors))}
	for a, f := range m.Factors {
		c.Factors[a] = Factor{Vars: append([]int(nil), f.Vars...), LogTable: append([]float64(nil), f.LogTable...)}
	}
	return c
}

// Observe fixes variable v to state s by appending a unary factor that is 0
// at s and -Inf elsewhere, so marginals of observed variables are point masses
// and the rest of the model is conditioned on the observation.
func (m *Model) Observe(v, s int) error {
	if v < 0 || v >= len(m.Cards) {
		return fmt.Errorf("observed variable %d out of range [0,%d)", v, len(m.Cards))
	}
	if s < 0 || s >= m.Cards[v] {
		return fmt.Errorf("observed state %d of variable %d out of range [0,%d)", s, v, m.Cards[v])
	}
	t := make([]float64, m.Cards[v])
	for i := range t {
		if i != s {
			t[i] = math.Inf(-1)
		}
	}
	m.Factors = append(m.Factors, Factor{Vars: []int{v}, LogTable: t})
	return nil
}
