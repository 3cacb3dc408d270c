package metrics

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
)

// The UAI inference competitions' scores, as they score .MAR and .PR files.
const (
	// Hellinger is the mean Hellinger distance between the exact and the
	// estimated marginal of every unobserved variable (Observed).
	Hellinger = "hellinger"
	// PRErr is |log10 Z_exact - log10 Z_est|.
	PRErr = "pr_err"
)

// Observed reports, for every variable of m, whether it is observed: some
// unary factor over it has exactly one finite entry and the variable has at
// least two states. That is how evidence is imported (a point-mass unary
// factor, 0 at the observed state and -Inf elsewhere), and a unary factor
// that rules out every state but one fixes its variable the same way. A
// variable of one state is not observed (the UAI evidence files list only
// variables of several states; its Hellinger distance is 0 anyway), nor is
// one fixed only by zeros of factors of two or more variables.
func Observed(m *mrf.Model) []bool {
	obs := make([]bool, len(m.Cards))
	for _, f := range m.Factors {
		if len(f.Vars) != 1 || m.Cards[f.Vars[0]] < 2 {
			continue
		}
		finite := 0
		for _, l := range f.LogTable {
			if !math.IsInf(l, -1) {
				finite++
			}
		}
		if finite == 1 {
			obs[f.Vars[0]] = true
		}
	}
	return obs
}

// HellingerDistance returns the Hellinger distance between distributions p
// and q of the same length: sqrt(1/2 Σ_x (sqrt p(x) - sqrt q(x))^2), which
// is sqrt(1 - Σ_x sqrt(p(x) q(x))) for normalised p and q, between 0 (equal)
// and 1 (disjoint supports). Computed as a sum of squares, it has no
// cancellation near 0.
func HellingerDistance(p, q []float64) float64 {
	s := 0.0
	for x := range p {
		d := math.Sqrt(p[x]) - math.Sqrt(q[x])
		s += d * d
	}
	return math.Sqrt(s / 2)
}

// MeanHellinger returns the mean Hellinger distance between the exact and
// the estimated variable marginals over the unobserved variables of m
// (Observed), and how many variables that is. It is NaN when every variable
// is observed. A NaN in an estimate makes it NaN.
func MeanHellinger(m *mrf.Model, exact, est mrf.Marginals) (float64, int, error) {
	if err := exact.Check(m); err != nil {
		return math.NaN(), 0, fmt.Errorf("exact marginals: %w", err)
	}
	if err := est.Check(m); err != nil {
		return math.NaN(), 0, fmt.Errorf("estimated marginals: %w", err)
	}
	obs := Observed(m)
	s, n := 0.0, 0
	for i := range m.Cards {
		if obs[i] {
			continue
		}
		s += HellingerDistance(exact.Vars[i], est.Vars[i])
		n++
	}
	if n == 0 {
		return math.NaN(), 0, nil
	}
	return s / float64(n), n, nil
}

// PRError returns |log10 Z_exact - log10 Z_est| from natural logarithms:
// |ln Z_exact - ln Z_est| / ln 10.
func PRError(exactLogZ, estLogZ float64) float64 {
	return math.Abs(exactLogZ-estLogZ) / math.Ln10
}
