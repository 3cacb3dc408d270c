package mrf_test

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// TestLinkageEvidencePossible: on models small enough for exact inference
// Z > 0 (the evidence is a sampled state's) and Z <= 1 (the model is a
// Bayesian network restricted by evidence, so Z is the evidence's
// probability), and every observed state has marginal 1.
func TestLinkageEvidencePossible(t *testing.T) {
	for _, n := range []int{7, 10, 14} {
		for k := range 4 {
			seed := mrf.DeriveSeed(5, k)
			m, err := mrf.FactorFamily{Family: mrf.FamilyLinkage, Size: n}.Generate(seed)
			if err != nil {
				t.Fatal(err)
			}
			res, err := exact.Solve(m, exact.DefaultOptions())
			if err != nil {
				t.Fatalf("size %d seed %d: %v", n, seed, err)
			}
			if !(res.LogZ > math.Inf(-1)) || res.LogZ > 1e-9 {
				t.Errorf("size %d seed %d: ln Z %v, want in (-Inf, 0]", n, seed, res.LogZ)
			}
			for _, f := range m.Factors {
				if len(f.Vars) != 1 {
					continue
				}
				for x, l := range f.LogTable {
					if l == 0 && len(f.LogTable) == 2 && math.IsInf(f.LogTable[1-x], -1) {
						if p := res.Marginals.Vars[f.Vars[0]][x]; math.Abs(p-1) > 1e-9 {
							t.Errorf("size %d seed %d: observed variable %d has P(state %d) = %v", n, seed, f.Vars[0], x, p)
						}
					}
				}
			}
		}
	}
}
