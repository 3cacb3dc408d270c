package mcmc

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// Zeros in factors of several variables hold at every temperature, so
// every replica stays feasible: on pedigrees, noisy-OR networks with
// evidence and soft CSPs big enough that a configuration drawn ignoring the
// zeros is almost never feasible, pt's ln Z is finite and within a few
// standard errors of the exact one, and replicas travel the whole ladder
// (a β = 0 replica that dropped those factors would be infeasible: ln Z
// -Inf, no swap with it accepted).
func TestHardConstraintsLogZ(t *testing.T) {
	fam := func(family string, size int) *mrf.Model {
		m, err := mrf.FactorFamily{Family: family, Size: size}.Generate(7)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for name, m := range map[string]*mrf.Model{
		"pedigree": fam(mrf.FamilyPedigree, 40),
		"noisy-or": fam(mrf.FamilyNoisyOR, 24),
		"csp":      fam(mrf.FamilyCSP, 24),
	} {
		t.Run(name, func(t *testing.T) {
			ex := exactOf(t, m)
			o := ptOpts()
			o.Sweeps, o.Temps, o.BetaMin = 3000, 8, 0.02
			_, res := inferPT(t, o, m)
			se := res.Diagnostics["log_z_se"]
			if d := math.Abs(res.LogZ - ex.LogZ); !(d <= 5*se+0.02) {
				t.Errorf("ln Z %v, exact %.4f, standard error %.4f", res.LogZ, ex.LogZ, se)
			}
			if !(res.Diagnostics["round_trips"] > 0) || !(res.Diagnostics["swap_rate_min"] > 0.05) {
				t.Errorf("the ladder does not mix: %v", res.Diagnostics)
			}
		})
	}
}

// exactOf returns m's exact answer (core/exact).
func exactOf(t *testing.T, m *mrf.Model) *exact.Result {
	t.Helper()
	e, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// On a genetic-linkage pedigree (transmission is deterministic: a child's
// allele is the one its selector picks from its parent) single-site moves
// on the feasible set are all but frozen, and pt with them alone does not
// mix: R̂ far above 1, not converged. Drawing each piece of the zeros'
// constraints jointly (blocks auto: here the loci of the pedigree) every
// replica reaches every feasible configuration, and pt converges to the
// exact answer: ln Z within 5 standard errors, every marginal close.
func TestLinkageBlocks(t *testing.T) {
	m, err := mrf.FactorFamily{Family: mrf.FamilyLinkage, Size: 7}.Generate(mrf.DeriveSeed(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	ex := exactOf(t, m)
	o := ptOpts()
	o.Sweeps, o.Blocks = 600, BlocksOff
	_, res := inferPT(t, o, m)
	if res.Converged || !(res.Diagnostics["rhat_max"] > 1.05) {
		t.Errorf("blocks off: converged %v, diagnostics %v", res.Converged, res.Diagnostics)
	}
	o.Sweeps, o.Blocks = 2500, BlocksAuto
	s, res := inferPT(t, o, m)
	se := res.Diagnostics["log_z_se"]
	if d := math.Abs(res.LogZ - ex.LogZ); !res.Converged || !(d <= 5*se) || res.Diagnostics["relax_rungs"] != 0 {
		t.Errorf("blocks auto: ln Z %v, exact %.4f, standard error %.4f, converged %v (diagnostics %v)", res.LogZ, ex.LogZ, se, res.Converged, res.Diagnostics)
	}
	for i, p := range ex.Marginals.Vars {
		for x, q := range p {
			if d := math.Abs(res.Marginals.Vars[i][x] - q); d > 0.05 || d > 5*s.StandardErrors()[i][x]+0.005 {
				t.Errorf("blocks auto: P(x%d = %d) %.4f, exact %.4f, standard error %.4f", i, x, res.Marginals.Vars[i][x], q, s.StandardErrors()[i][x])
			}
		}
	}
}
