package region_test

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// exactRegionBeliefs returns the exact marginal of every region: each region
// gets a zero log-potential factor over its variables, whose factor marginal
// exact inference then reports.
func exactRegionBeliefs(t *testing.T, m *mrf.Model, g *region.Graph) ([][]float64, float64) {
	t.Helper()
	aug := m.Clone()
	for _, r := range g.Regions {
		aug.Factors = append(aug.Factors, mrf.Factor{Vars: r.Vars, LogTable: make([]float64, mrf.TableSize(m.Cards, r.Vars))})
	}
	res, err := exact.Solve(aug, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res.Marginals.Factors[len(m.Factors):], res.LogZ
}

// With the exact marginals as beliefs, the region free energy of grid
// plaquettes is close to -ln Z (it is exact only on trees): the gap is the
// approximation error of the region graph itself, before any method runs.
func TestFacesFreeEnergyGapAtExactMarginals(t *testing.T) {
	for _, tt := range []struct {
		L     int
		gamma float64
		bound float64
	}{{5, 0.1, 0.05}, {5, 1, 0.01}, {10, 0.1, 0.2}, {10, 1, 0.05}} {
		worst := 0.0
		for seed := int64(1); seed <= 3; seed++ {
			es, _ := mrf.GridEdges(tt.L, false)
			m := mrf.RandomIsing(tt.L*tt.L, es, tt.gamma, seed)
			g, err := region.Build(m, "grid", "faces")
			if err != nil {
				t.Fatal(err)
			}
			b, logZ := exactRegionBeliefs(t, m, g)
			bd, err := g.Bind(m)
			if err != nil {
				t.Fatal(err)
			}
			E, err := bd.Energies(m)
			if err != nil {
				t.Fatal(err)
			}
			gap := bd.FreeEnergy(E, b) + logZ
			worst = max(worst, math.Abs(gap))
			t.Logf("%dx%d gamma %g seed %d: F_R(exact) + ln Z = %.3g (ln Z %.4f)", tt.L, tt.L, tt.gamma, seed, gap, logZ)
		}
		if worst > tt.bound {
			t.Errorf("%dx%d gamma %g: |F_R + ln Z| up to %.3g at exact marginals, want < %g", tt.L, tt.L, tt.gamma, worst, tt.bound)
		}
	}
}
