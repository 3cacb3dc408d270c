// Package infertest provides what the tests of inference methods share: a
// brute-force exact solver for small models, seeded generators of small
// random models (trees, chains, loopy graphs, hard constraints), and a check
// that a Result is well formed.
package infertest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// MaxStates bounds the number of joint states BruteForce enumerates.
const MaxStates = 1 << 22

// BruteForce computes ln Z and every variable and factor marginal of m by
// enumerating all joint states. It returns an error for models with more than
// MaxStates joint states or with Z = 0.
func BruteForce(m *mrf.Model) (*infer.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("brute force: %w", err)
	}
	total := 1
	for _, c := range m.Cards {
		total *= c
		if total > MaxStates {
			return nil, fmt.Errorf("brute force: more than %d joint states", MaxStates)
		}
	}
	scores := make([]float64, total)
	x := make([]int, len(m.Cards))
	for s := range scores {
		scores[s] = m.LogScore(x)
		next(x, m.Cards)
	}
	logZ := infer.LogSumExp(scores)
	if math.IsInf(logZ, -1) {
		return nil, errors.New("brute force: every joint state has zero probability")
	}
	res := &infer.Result{
		Marginals:  mrf.Marginals{Vars: make([][]float64, len(m.Cards)), Factors: make([][]float64, len(m.Factors))},
		LogZ:       logZ,
		FreeEnergy: -logZ,
		Status:     infer.Converged,
	}
	for i, c := range m.Cards {
		res.Marginals.Vars[i] = make([]float64, c)
	}
	for a, f := range m.Factors {
		res.Marginals.Factors[a] = make([]float64, len(f.LogTable))
	}
	clear(x)
	for s := range scores {
		p := math.Exp(scores[s] - logZ)
		for i, xi := range x {
			res.Marginals.Vars[i][xi] += p
		}
		for a := range m.Factors {
			f := &m.Factors[a]
			res.Marginals.Factors[a][f.Index(m.Cards, x)] += p
		}
		next(x, m.Cards)
	}
	return res, nil
}

// next advances x to the next joint state, last variable fastest.
func next(x, cards []int) {
	for i := len(x) - 1; i >= 0; i-- {
		x[i]++
		if x[i] < cards[i] {
			return
		}
		x[i] = 0
	}
}

// Config describes a random model.
type Config struct {
	MinCard, MaxCard int     // cardinalities drawn uniformly in [MinCard, MaxCard]
	Scale            float64 // log-table entries are Scale·N(0,1)
	ZeroProb         float64 // chance that a table entry of a pairwise or larger factor is -Inf
	Unary            bool    // give every variable a unary factor
}

func (c Config) card(r interface{ IntN(int) int }) int {
	lo, hi := max(c.MinCard, 1), max(c.MaxCard, c.MinCard, 1)
	return lo + r.IntN(hi-lo+1)
}

// RandomTree returns a model whose factor graph is a tree: a random
// spanning tree on n variables (variable i > 0 joins a uniformly chosen
// earlier one) with one pairwise factor per edge, each scope randomly
// reversed, plus unary factors if cfg.Unary.
func RandomTree(n int, cfg Config, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = cfg.card(r)
	}
	var scopes [][]int
	for i := 1; i < n; i++ {
		j := r.IntN(i)
		if r.IntN(2) == 0 {
			scopes = append(scopes, []int{i, j})
		} else {
			scopes = append(scopes, []int{j, i})
		}
	}
	addFactors(m, scopes, cfg, r)
	return m
}

// Chain returns the chain 0-1-...-(n-1) with pairwise factors and, if
// cfg.Unary, unary factors.
func Chain(n int, cfg Config, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = cfg.card(r)
	}
	var scopes [][]int
	for i := 0; i+1 < n; i++ {
		scopes = append(scopes, []int{i, i + 1})
	}
	addFactors(m, scopes, cfg, r)
	return m
}

// RandomModel returns a model on n variables with the given scopes' factors
// (drawn with cfg) and, if cfg.Unary, unary factors.
func RandomModel(n int, scopes [][]int, cfg Config, seed int64) *mrf.Model {
	r := mrf.NewRand(seed)
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = cfg.card(r)
	}
	addFactors(m, scopes, cfg, r)
	return m
}

// RandomScopes returns k distinct random scopes of the given arity on n
// variables, each in a random order (so scopes are usually not sorted).
func RandomScopes(n, k, arity int, seed int64) [][]int {
	r := mrf.NewRand(seed)
	seen := map[string]bool{}
	var out [][]int
	for tries := 0; len(out) < k && tries < 100*k; tries++ {
		perm := r.Perm(n)[:arity]
		sorted := append([]int(nil), perm...)
		for i := 1; i < len(sorted); i++ {
			for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
		key := fmt.Sprint(sorted)
		if !seen[key] {
			seen[key] = true
			out = append(out, perm)
		}
	}
	return out
}

type rng interface {
	IntN(int) int
	Float64() float64
	NormFloat64() float64
}

func addFactors(m *mrf.Model, scopes [][]int, cfg Config, r rng) {
	if cfg.Unary {
		for i, c := range m.Cards {
			t := make([]float64, c)
			for k := range t {
				t[k] = cfg.Scale * r.NormFloat64()
			}
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i}, LogTable: t})
		}
	}
	for _, s := range scopes {
		t := make([]float64, mrf.TableSize(m.Cards, s))
		for k := range t {
			t[k] = cfg.Scale * r.NormFloat64()
			if cfg.ZeroProb > 0 && r.Float64() < cfg.ZeroProb {
				t[k] = math.Inf(-1)
			}
		}
		if !math.IsInf(infer.LogSumExp(t), 0) {
			m.Factors = append(m.Factors, mrf.Factor{Vars: append([]int(nil), s...), LogTable: t})
			continue
		}
		t[r.IntN(len(t))] = 0 // keep at least one allowed state
		m.Factors = append(m.Factors, mrf.Factor{Vars: append([]int(nil), s...), LogTable: t})
	}
}

// CheckResult returns an error unless res has one normalised, NaN-free
// marginal of the right length per variable and per factor of m, and a
// non-NaN LogZ equal to -FreeEnergy.
func CheckResult(m *mrf.Model, res *infer.Result) error {
	if res == nil {
		return errors.New("nil result")
	}
	if len(res.Marginals.Vars) != len(m.Cards) {
		return fmt.Errorf("%d variable marginals, want %d", len(res.Marginals.Vars), len(m.Cards))
	}
	if len(res.Marginals.Factors) != len(m.Factors) {
		return fmt.Errorf("%d factor marginals, want %d", len(res.Marginals.Factors), len(m.Factors))
	}
	for i, p := range res.Marginals.Vars {
		if err := checkDist(p, m.Cards[i]); err != nil {
			return fmt.Errorf("variable %d: %w", i, err)
		}
	}
	for a, p := range res.Marginals.Factors {
		if err := checkDist(p, len(m.Factors[a].LogTable)); err != nil {
			return fmt.Errorf("factor %d: %w", a, err)
		}
	}
	if math.IsNaN(res.LogZ) || math.IsNaN(res.FreeEnergy) {
		return fmt.Errorf("LogZ %v, FreeEnergy %v", res.LogZ, res.FreeEnergy)
	}
	if res.LogZ != -res.FreeEnergy {
		return fmt.Errorf("LogZ %v != -FreeEnergy %v", res.LogZ, -res.FreeEnergy)
	}
	return nil
}

func checkDist(p []float64, n int) error {
	if len(p) != n {
		return fmt.Errorf("length %d, want %d", len(p), n)
	}
	s := 0.0
	for k, v := range p {
		if math.IsNaN(v) || v < 0 || v > 1+1e-12 {
			return fmt.Errorf("entry %d is %v", k, v)
		}
		s += v
	}
	if math.Abs(s-1) > 1e-9 {
		return fmt.Errorf("sums to %v", s)
	}
	return nil
}

// MaxAbsDiff returns the largest absolute difference between corresponding
// entries of a and b, or +Inf if their shapes differ.
func MaxAbsDiff(a, b [][]float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return math.Inf(1)
		}
		for k := range a[i] {
			d = max(d, math.Abs(a[i][k]-b[i][k]))
		}
	}
	return d
}

// With returns o changed by set: how tests vary one option of a method's
// DefaultOptions, since no constructor fills in a zero option.
func With[O any](o O, set func(*O)) O {
	set(&o)
	return o
}

// PinModel is a small awkward model for pinning a method's outputs: a
// 3-state variable, a 3-ary factor and a zero potential.
func PinModel() *mrf.Model {
	return &mrf.Model{Cards: []int{2, 3, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{1, 0}, LogTable: []float64{0.3, -0.2, 0.5, 0.1, math.Inf(-1), 0.7}},
		{Vars: []int{2, 1, 3}, LogTable: []float64{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0, 0.2, 0.3}},
		{Vars: []int{0, 3}, LogTable: []float64{0.5, -0.5, -0.5, 0.5}},
		{Vars: []int{2}, LogTable: []float64{0.2, -0.1}},
	}}
}

// Digest adds to h every bit of a region method's output on m, for tests
// that pin outputs bit for bit: iterations, convergence, ln Z, F, the region
// beliefs of g and the marginals read out of them.
func Digest(t testing.TB, h []byte, g *region.Graph, m *mrf.Model, res *infer.Result, beliefs [][]float64) []byte {
	t.Helper()
	bd, err := g.Bind(m)
	if err != nil {
		t.Fatal(err)
	}
	conv := int64(0)
	if res.Converged() {
		conv = 1
	}
	h = binary.LittleEndian.AppendUint64(h, uint64(res.Iterations))
	h = binary.LittleEndian.AppendUint64(h, uint64(conv))
	h = binary.LittleEndian.AppendUint64(h, math.Float64bits(res.LogZ))
	h = binary.LittleEndian.AppendUint64(h, math.Float64bits(res.FreeEnergy))
	for _, tabs := range [][][]float64{beliefs, bd.VarMarginals(beliefs), bd.FactorMarginals(beliefs)} {
		for _, tab := range tabs {
			h = binary.LittleEndian.AppendUint64(h, uint64(len(tab)))
			for _, x := range tab {
				h = binary.LittleEndian.AppendUint64(h, math.Float64bits(x))
			}
		}
	}
	return h
}
