package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/mrf"
)

// Param is a parameterisation of a model family: a vector θ that determines
// every log table linearly. Learning moves θ and never the structure.
type Param interface {
	// Name is "ising" or "table".
	Name() string
	// Len is the number of parameters.
	Len() int
	// Model returns a new model of the family with parameters theta.
	Model(theta []float64) *mrf.Model
	// Set writes the log tables of theta into m, a model returned by Model.
	Set(m *mrf.Model, theta []float64)
	// Chain maps a gradient with respect to every log-table entry of the
	// family's models (tableGrad[a][x]) to the gradient with respect to θ.
	Chain(tableGrad [][]float64, grad []float64)
	// Params returns the θ of the family member closest to m, a model with
	// the structure the family was built from: the same distribution when m
	// lies in the family (always for "table"; for "ising" when m is an Ising
	// model), otherwise its projection.
	Params(m *mrf.Model) ([]float64, error)
	// Random draws a starting θ: fields (unary log-potentials) with standard
	// deviation fieldStd and couplings (higher-arity ones) with couplingStd.
	Random(rng *rand.Rand, fieldStd, couplingStd float64) []float64
}

// Names of the parameterisations.
const (
	IsingParam = "ising"
	TableParam = "table"
	AutoParam  = "auto" // ising for binary pairwise models, table otherwise
)

// NewParam returns the parameterisation kind ("ising", "table" or "auto")
// of the family of models with m's structure.
func NewParam(kind string, m *mrf.Model) (Param, error) {
	switch kind {
	case IsingParam:
		return NewIsing(m)
	case TableParam:
		return NewTable(m)
	case AutoParam, "":
		if IsBinaryPairwise(m) {
			return NewIsing(m)
		}
		return NewTable(m)
	}
	return nil, fmt.Errorf("unknown parameterisation %q (want ising, table or auto)", kind)
}

// IsBinaryPairwise reports whether every variable of m is binary and every
// factor has at most two variables: the models an Ising parameterisation
// can describe.
func IsBinaryPairwise(m *mrf.Model) bool {
	if m == nil || len(m.Cards) == 0 {
		return false
	}
	for _, c := range m.Cards {
		if c != 2 {
			return false
		}
	}
	for _, f := range m.Factors {
		if len(f.Vars) > 2 {
			return false
		}
	}
	return true
}

// Ising is the parameterisation of binary pairwise models by one field per
// variable and one coupling per edge: ln p(x) = Σ_i h_i x_i + Σ_(i,j) J_ij
// x_i x_j - ln Z with x = 2s - 1 for state index s. θ is h_0..h_{n-1} followed
// by the couplings in edge order. Its models have the layout of mrf.Ising:
// factor i is variable i's field [-h_i, h_i], factor n+e is edge e's coupling
// [J, -J, -J, J] over (I, J) with I < J.
type Ising struct {
	n     int
	Edges []mrf.Edge // the edges, in order of first appearance among m's pairwise factors
	index map[mrf.Edge]int
}

// NewIsing returns the Ising parameterisation of models with m's variables
// and edges. m must be binary and pairwise; its factors may be laid out in
// any way (several factors on one edge share its coupling).
func NewIsing(m *mrf.Model) (*Ising, error) {
	if m == nil {
		return nil, errors.New("ising parameterisation: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("ising parameterisation: %w", err)
	}
	for i, c := range m.Cards {
		if c != 2 {
			return nil, fmt.Errorf("ising parameterisation needs binary variables: variable %d has %d states (use table)", i, c)
		}
	}
	p := &Ising{n: len(m.Cards), index: map[mrf.Edge]int{}}
	for a, f := range m.Factors {
		switch len(f.Vars) {
		case 0, 1:
		case 2:
			e := mrf.Edge{I: min(f.Vars[0], f.Vars[1]), J: max(f.Vars[0], f.Vars[1])}
			if _, ok := p.index[e]; !ok {
				p.index[e] = len(p.Edges)
				p.Edges = append(p.Edges, e)
			}
		default:
			return nil, fmt.Errorf("ising parameterisation needs a pairwise model: factor %d has %d variables (use table)", a, len(f.Vars))
		}
	}
	return p, nil
}

// Name returns "ising".
func (p *Ising) Name() string { return IsingParam }

// Len returns the number of fields plus the number of edges.
func (p *Ising) Len() int { return p.n + len(p.Edges) }

// Model returns the Ising model with fields theta[:n] and couplings theta[n:].
func (p *Ising) Model(theta []float64) *mrf.Model {
	return mrf.Ising(p.n, p.Edges, theta[:p.n], theta[p.n:])
}

// Set writes theta into m, a model returned by Model.
func (p *Ising) Set(m *mrf.Model, theta []float64) {
	for i := 0; i < p.n; i++ {
		t := m.Factors[i].LogTable
		t[0], t[1] = -theta[i], theta[i]
	}
	for e := range p.Edges {
		j := theta[p.n+e]
		t := m.Factors[p.n+e].LogTable
		t[0], t[1], t[2], t[3] = j, -j, -j, j
	}
}

// Chain maps a gradient over the tables of Model's layout to (∂/∂h, ∂/∂J).
func (p *Ising) Chain(tableGrad [][]float64, grad []float64) {
	for i := 0; i < p.n; i++ {
		g := tableGrad[i]
		grad[i] = g[1] - g[0]
	}
	for e := range p.Edges {
		g := tableGrad[p.n+e]
		grad[p.n+e] = g[0] - g[1] - g[2] + g[3]
	}
}

// Params returns the fields and couplings of m, any binary pairwise model
// over p's variables whose pairwise factors lie on p's edges (the model p was
// built from, or one of Model's). Every binary pairwise table decomposes
// exactly as c + a·x_i + b·x_j + J·x_i·x_j, so the result is m's
// distribution; -Inf entries (hard zeros) have no Ising form and give an
// error.
func (p *Ising) Params(m *mrf.Model) ([]float64, error) {
	if len(m.Cards) != p.n {
		return nil, fmt.Errorf("ising parameters: model has %d variables, want %d", len(m.Cards), p.n)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("ising parameters: %w", err)
	}
	theta := make([]float64, p.Len())
	for a, f := range m.Factors {
		for _, v := range f.LogTable {
			if math.IsInf(v, -1) {
				return nil, fmt.Errorf("ising parameters: factor %d has a zero potential, which no Ising model has (use table)", a)
			}
		}
		t := f.LogTable
		if len(t) != 1<<len(f.Vars) {
			return nil, fmt.Errorf("ising parameters: factor %d is not over binary variables", a)
		}
		switch len(f.Vars) {
		case 0: // a constant
		case 1:
			theta[f.Vars[0]] += (t[1] - t[0]) / 2
		case 2:
			// t[s_i*2+s_j] = c + a x_i + b x_j + J x_i x_j.
			i, j := f.Vars[0], f.Vars[1]
			e, ok := p.index[mrf.Edge{I: min(i, j), J: max(i, j)}]
			if !ok {
				return nil, fmt.Errorf("ising parameters: factor %d couples %d and %d, which is not an edge of the family", a, i, j)
			}
			theta[i] += (t[2] + t[3] - t[0] - t[1]) / 4
			theta[j] += (t[1] + t[3] - t[0] - t[2]) / 4
			theta[p.n+e] += (t[0] - t[1] - t[2] + t[3]) / 4
		default:
			return nil, fmt.Errorf("ising parameters: factor %d has %d variables", a, len(f.Vars))
		}
	}
	return theta, nil
}

// Random draws h_i ~ N(0, fieldStd²) in variable order, then J ~ N(0,
// couplingStd²) in edge order, as mrf.RandomIsing does.
func (p *Ising) Random(rng *rand.Rand, fieldStd, couplingStd float64) []float64 {
	theta := make([]float64, p.Len())
	for i := range theta {
		s := couplingStd
		if i < p.n {
			s = fieldStd
		}
		theta[i] = s * rng.NormFloat64()
	}
	return theta
}

// Table is the parameterisation of general discrete models by every finite
// log-potential entry of every factor (overcomplete: many θ give one
// distribution, which gradient ascent does not mind). Entries that are -Inf
// in the model the family was built from are structural zeros (evidence,
// constraints) and stay -Inf. θ lists the free entries factor by factor in
// table order.
type Table struct {
	structure *mrf.Model // cards and scopes; tables hold -Inf at the fixed zeros
	free      [][]int    // free[a] lists the free entries of factor a
	offset    []int      // θ of factor a starts at offset[a]
	size      int
}

// NewTable returns the table parameterisation of models with m's structure
// and zero pattern.
func NewTable(m *mrf.Model) (*Table, error) {
	if m == nil {
		return nil, errors.New("table parameterisation: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("table parameterisation: %w", err)
	}
	p := &Table{structure: m.Clone(), free: make([][]int, len(m.Factors)), offset: make([]int, len(m.Factors))}
	for a, f := range p.structure.Factors {
		p.offset[a] = p.size
		for x, v := range f.LogTable {
			if math.IsInf(v, -1) {
				continue
			}
			p.free[a] = append(p.free[a], x)
			f.LogTable[x] = 0
		}
		p.size += len(p.free[a])
	}
	return p, nil
}

// Name returns "table".
func (p *Table) Name() string { return TableParam }

// Len returns the number of free entries.
func (p *Table) Len() int { return p.size }

// Model returns a model with the family's structure and free entries theta.
func (p *Table) Model(theta []float64) *mrf.Model {
	m := p.structure.Clone()
	p.Set(m, theta)
	return m
}

// Set writes theta into the free entries of m.
func (p *Table) Set(m *mrf.Model, theta []float64) {
	for a, free := range p.free {
		t := m.Factors[a].LogTable
		for k, x := range free {
			t[x] = theta[p.offset[a]+k]
		}
	}
}

// Chain picks the free entries out of tableGrad.
func (p *Table) Chain(tableGrad [][]float64, grad []float64) {
	for a, free := range p.free {
		g := tableGrad[a]
		for k, x := range free {
			grad[p.offset[a]+k] = g[x]
		}
	}
}

// Params returns the free entries of m, which must have the family's
// structure and zero pattern.
func (p *Table) Params(m *mrf.Model) ([]float64, error) {
	if len(m.Cards) != len(p.structure.Cards) || len(m.Factors) != len(p.free) {
		return nil, fmt.Errorf("table parameters: model has %d variables and %d factors, want %d and %d",
			len(m.Cards), len(m.Factors), len(p.structure.Cards), len(p.free))
	}
	theta := make([]float64, p.size)
	for a, free := range p.free {
		t := m.Factors[a].LogTable
		if len(t) != len(p.structure.Factors[a].LogTable) {
			return nil, fmt.Errorf("table parameters: factor %d has %d entries, want %d", a, len(t), len(p.structure.Factors[a].LogTable))
		}
		for k, x := range free {
			if math.IsInf(t[x], -1) {
				return nil, fmt.Errorf("table parameters: factor %d entry %d is a zero potential the family leaves free", a, x)
			}
			theta[p.offset[a]+k] = t[x]
		}
	}
	return theta, nil
}

// Random draws every free entry of a unary factor from N(0, fieldStd²) and
// of a larger factor from N(0, couplingStd²), in θ order.
func (p *Table) Random(rng *rand.Rand, fieldStd, couplingStd float64) []float64 {
	theta := make([]float64, p.size)
	for a, free := range p.free {
		s := couplingStd
		if len(p.structure.Factors[a].Vars) <= 1 {
			s = fieldStd
		}
		for k := range free {
			theta[p.offset[a]+k] = s * rng.NormFloat64()
		}
	}
	return theta
}
