// Package metrics compares estimated marginals and log partition functions
// of a discrete MRF with exact ones, as the RENN paper's experiments do
// (section 5.1), and summarises scores over the models of a setting.
//
// Two families of scores are provided. The paper's scores apply to binary
// models (every cardinality 2, state index 1 meaning x = +1): they compare the
// vector [p(x_i = +1) for every variable i] followed by
// [p(x_i = +1, x_j = +1) for every pairwise factor, in factor order] by its
// mean absolute difference (l1) and its Pearson correlation (corr). The
// generic scores apply to any model: the mean and largest absolute error over
// all entries of all variable marginals, and the same over factor marginals.
// The UAI inference competitions' scores (uai.go) apply to any model too:
// the mean Hellinger distance of the unobserved variables' marginals and the
// error of log10 Z.
//
// Marginals come as mrf.Marginals, the type exact inference (exact.Result)
// and every method (infer.Result) return them in.
package metrics

import (
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
)

// Names of the scores, as they appear in scores.parquet.
const (
	L1            = "l1"              // mean |difference| of the paper's vectors
	Corr          = "corr"            // Pearson correlation of the paper's vectors
	LogZErr       = "logz_err"        // |ln Z_exact - ln Z_est|
	VarMeanAbs    = "var_mean_abs"    // mean |error| over variable marginal entries
	VarMaxAbs     = "var_max_abs"     // largest |error| over variable marginal entries
	FactorMeanAbs = "factor_mean_abs" // mean |error| over factor marginal entries
	FactorMaxAbs  = "factor_max_abs"  // largest |error| over factor marginal entries
)

// IsBinary reports whether every variable of m has two states, the case the
// paper's vector is defined for.
func IsBinary(m *mrf.Model) bool {
	for _, c := range m.Cards {
		if c != 2 {
			return false
		}
	}
	return len(m.Cards) > 0
}

// PaperVector returns the paper's vector of a binary model: p(x_i = +1) for
// every variable (entry 1 of its marginal), then p(x_i = +1, x_j = +1) for
// every factor of arity 2 in factor order (entry 3 of its marginal, whatever
// the scope order). Factors of other arities do not enter the vector.
func PaperVector(m *mrf.Model, mg mrf.Marginals) ([]float64, error) {
	if !IsBinary(m) {
		return nil, errors.New("the paper's vector is defined for binary models only")
	}
	if err := mg.Check(m); err != nil {
		return nil, err
	}
	v := make([]float64, 0, len(m.Cards)+len(m.Factors))
	for _, p := range mg.Vars {
		v = append(v, p[1])
	}
	for a, p := range mg.Factors {
		if len(m.Factors[a].Vars) == 2 {
			v = append(v, p[3])
		}
	}
	return v, nil
}

// MeanAbsDiff returns the mean of |a_k - b_k|: the paper's l1 error when a
// and b are paper vectors. It is an error for the lengths to differ or be 0.
func MeanAbsDiff(a, b []float64) (float64, error) {
	if err := sameLength(a, b); err != nil {
		return math.NaN(), err
	}
	s := 0.0
	for k := range a {
		s += math.Abs(a[k] - b[k])
	}
	return s / float64(len(a)), nil
}

// Pearson returns the Pearson correlation of a and b. When either vector has
// zero variance (for example a single entry, or all entries equal) the
// correlation is undefined and Pearson returns NaN without an error; it is an
// error for the lengths to differ or be 0.
func Pearson(a, b []float64) (float64, error) {
	if err := sameLength(a, b); err != nil {
		return math.NaN(), err
	}
	ma, mb := mean(a), mean(b)
	var sab, saa, sbb float64
	for k := range a {
		da, db := a[k]-ma, b[k]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return math.NaN(), nil
	}
	// Rounding can push |r| a hair above 1.
	return math.Max(-1, math.Min(1, sab/math.Sqrt(saa*sbb))), nil
}

// LogZError returns |ln Z_exact - ln Z_est|.
func LogZError(exact, est float64) float64 { return math.Abs(exact - est) }

// Paper holds the paper's scores of one estimate against the exact marginals.
type Paper struct {
	L1   float64 // mean absolute difference of the paper's vectors
	Corr float64 // Pearson correlation of the paper's vectors; NaN if either has zero variance
}

// ComparePaper computes the paper's scores of est against exact on the binary
// model m.
func ComparePaper(m *mrf.Model, exact, est mrf.Marginals) (Paper, error) {
	ve, err := PaperVector(m, exact)
	if err != nil {
		return Paper{}, fmt.Errorf("exact marginals: %w", err)
	}
	vp, err := PaperVector(m, est)
	if err != nil {
		return Paper{}, fmt.Errorf("estimated marginals: %w", err)
	}
	var s Paper
	if s.L1, err = MeanAbsDiff(ve, vp); err != nil {
		return Paper{}, err
	}
	if s.Corr, err = Pearson(ve, vp); err != nil {
		return Paper{}, err
	}
	return s, nil
}

// Errors holds the generic scores of one estimate against the exact
// marginals: mean and largest absolute error over every entry of every
// variable marginal, and the same over factor marginals. The factor scores
// are NaN when the model has no factors (FactorEntries == 0). A NaN in an
// estimate makes the scores NaN.
type Errors struct {
	VarMeanAbs, VarMaxAbs       float64
	FactorMeanAbs, FactorMaxAbs float64
	VarEntries, FactorEntries   int // number of entries compared
}

// CompareMarginals computes the generic scores of est against exact on m.
func CompareMarginals(m *mrf.Model, exact, est mrf.Marginals) (Errors, error) {
	if err := exact.Check(m); err != nil {
		return Errors{}, fmt.Errorf("exact marginals: %w", err)
	}
	if err := est.Check(m); err != nil {
		return Errors{}, fmt.Errorf("estimated marginals: %w", err)
	}
	var e Errors
	e.VarMeanAbs, e.VarMaxAbs, e.VarEntries = absErrors(exact.Vars, est.Vars)
	e.FactorMeanAbs, e.FactorMaxAbs, e.FactorEntries = absErrors(exact.Factors, est.Factors)
	return e, nil
}

// absErrors returns the mean and the largest |a - b| over all entries of
// equally shaped tables, and the number of entries; NaN for no entries.
func absErrors(a, b [][]float64) (meanAbs, maxAbs float64, n int) {
	var sum float64
	for t := range a {
		for k := range a[t] {
			d := math.Abs(a[t][k] - b[t][k])
			sum += d
			// math.Max keeps a NaN, so a NaN estimate is not hidden.
			maxAbs = math.Max(maxAbs, d)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return sum / float64(n), maxAbs, n
}

// Summary is the mean and population standard deviation of a score over N
// models.
type Summary struct {
	Mean, Std float64
	N         int
	NaN       int // how many of the N values were NaN
}

// Summarize returns the mean and population standard deviation of xs (the
// paper's tables report mean ± population std). NaN values are kept, so a
// summary with NaN > 0 has NaN mean and std: an undefined score is shown, not
// silently dropped. An empty xs gives NaN mean and std with N = 0.
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	for _, x := range xs {
		if math.IsNaN(x) {
			s.NaN++
		}
	}
	if len(xs) == 0 {
		s.Mean, s.Std = math.NaN(), math.NaN()
		return s
	}
	s.Mean = mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.Std = math.Sqrt(ss / float64(len(xs)))
	return s
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func sameLength(a, b []float64) error {
	if len(a) != len(b) {
		return fmt.Errorf("vectors have lengths %d and %d", len(a), len(b))
	}
	if len(a) == 0 {
		return errors.New("empty vectors")
	}
	return nil
}
