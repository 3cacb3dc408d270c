package learn

import (
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// Data is a set of complete samples of a model's variables, stored as each
// sample's entry in every factor table, so scores and sufficient statistics
// of a batch cost one lookup per factor.
type Data struct {
	factors int
	sizes   []int       // table length of every factor
	idx     []int32     // idx[s*factors+a]: sample s's entry in factor a's table
	hidden  *hiddenData // samples of the visible variables only (NewHiddenData); idx is empty
}

// NewData indexes samples xs (one state index per variable) against m's
// factor tables. It fails if a sample has the wrong length or a state out of
// range, naming the sample.
func NewData(m *mrf.Model, xs [][]int) (*Data, error) {
	if m == nil {
		return nil, errors.New("data: nil model")
	}
	d := &Data{factors: len(m.Factors), sizes: make([]int, len(m.Factors)), idx: make([]int32, 0, len(xs)*len(m.Factors))}
	for a, f := range m.Factors {
		d.sizes[a] = len(f.LogTable)
	}
	for s, x := range xs {
		if len(x) != len(m.Cards) {
			return nil, fmt.Errorf("sample %d has %d values, the model has %d variables", s, len(x), len(m.Cards))
		}
		for i, v := range x {
			if v < 0 || v >= m.Cards[i] {
				return nil, fmt.Errorf("sample %d: variable %d has state %d, want 0..%d", s, i, v, m.Cards[i]-1)
			}
		}
		for a := range m.Factors {
			d.idx = append(d.idx, int32(m.Factors[a].Index(m.Cards, x)))
		}
	}
	return d, nil
}

// Len returns the number of samples.
func (d *Data) Len() int {
	if d.Hidden() {
		return len(d.hidden.group)
	}
	if d == nil || d.factors == 0 {
		return 0
	}
	return len(d.idx) / d.factors
}

func (d *Data) row(s int) []int32 { return d.idx[s*d.factors : (s+1)*d.factors] }

// MeanScore returns the mean over the samples of Σ_a LogTable_a(x_a), the
// unnormalised log-probability, under m (a model with the structure d was
// indexed against). It is -Inf if any sample has zero potential, and NaN
// for samples with hidden variables, which have no score.
func (d *Data) MeanScore(m *mrf.Model) float64 {
	n := d.Len()
	if n == 0 || d.Hidden() {
		return math.NaN()
	}
	sum := 0.0
	for s := 0; s < n; s++ {
		for a, x := range d.row(s) {
			sum += m.Factors[a].LogTable[x]
		}
	}
	return sum / float64(n)
}

// NLL returns the mean negative log-likelihood per sample of d under m with
// log partition function logZ: logZ - MeanScore(m).
func (d *Data) NLL(m *mrf.Model, logZ float64) float64 { return logZ - d.MeanScore(m) }

// ExactNLL returns the mean negative log-likelihood per sample of d under m,
// with m's log Z computed exactly by exact.Solve, and that log Z. For
// samples with hidden variables it is the mean of -ln p(x_v) = ln Z -
// ln Z(x_v), exactly (exact.LogMarginals).
func ExactNLL(m *mrf.Model, d *Data, opts exact.Options) (nll, logZ float64, err error) {
	if d.Hidden() {
		return exactHiddenNLL(m, d, opts)
	}
	res, err := exact.Solve(m, opts)
	if err != nil {
		return math.NaN(), math.NaN(), fmt.Errorf("exact log Z: %w", err)
	}
	return d.NLL(m, res.LogZ), res.LogZ, nil
}

// addFrequencies adds w times the count of each table entry among samples
// rows of d into freq (one slice per factor, zeroed by the caller).
func (d *Data) addFrequencies(rows []int, w float64, freq [][]float64) {
	for _, s := range rows {
		for a, x := range d.row(s) {
			freq[a][x] += w
		}
	}
}

// meanScore is MeanScore over the samples rows.
func (d *Data) meanScore(m *mrf.Model, rows []int) float64 {
	sum := 0.0
	for _, s := range rows {
		for a, x := range d.row(s) {
			sum += m.Factors[a].LogTable[x]
		}
	}
	return sum / float64(len(rows))
}

// Gradient writes into grad the gradient with respect to θ of the mean
// log-likelihood of samples rows of d (every sample when rows is nil) under
// p.Model(theta), with ln Z's gradient given by the factor marginals b (the
// gradient of ln Z with respect to LogTable_a(x_a) is the marginal
// p(x_a); an approximate method supplies its beliefs). It returns the mean
// log-score of those samples, so the mean NLL is lnZ minus it.
func Gradient(p Param, m *mrf.Model, d *Data, rows []int, b [][]float64, grad []float64) float64 {
	if rows == nil {
		rows = make([]int, d.Len())
		for s := range rows {
			rows[s] = s
		}
	}
	tg := make([][]float64, len(b))
	for a := range b {
		tg[a] = make([]float64, len(b[a]))
	}
	return gradient(p, m, d, rows, b, tg, grad)
}

// gradient is Gradient with caller-owned scratch tg (one slice per factor).
func gradient(p Param, m *mrf.Model, d *Data, rows []int, b, tg [][]float64, grad []float64) float64 {
	for a := range tg {
		for x, v := range b[a] {
			tg[a][x] = -v
		}
	}
	d.addFrequencies(rows, 1/float64(len(rows)), tg)
	p.Chain(tg, grad)
	return d.meanScore(m, rows)
}
