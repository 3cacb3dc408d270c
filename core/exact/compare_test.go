package exact

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// relClose reports whether a and b agree to rel relative (entries below
// 1e-280 of scale may have been flushed to zero by either engine).
func relClose(a, b, rel float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+1e-280
}

// compareResults checks two results to rel relative, ln Z and every
// entry of every marginal.
func compareResults(t *testing.T, name string, got, want *Result, rel float64) {
	t.Helper()
	if !relClose(got.LogZ, want.LogZ, rel) {
		t.Errorf("%s: ln Z %.17g, reference %.17g", name, got.LogZ, want.LogZ)
	}
	bad := 0
	for v, wm := range want.Marginals.Vars {
		for s, x := range wm {
			if !relClose(got.Marginals.Vars[v][s], x, rel) && bad < 5 {
				bad++
				t.Errorf("%s: p(x%d=%d) = %.17g, reference %.17g", name, v, s, got.Marginals.Vars[v][s], x)
			}
		}
	}
	for a, wm := range want.Marginals.Factors {
		if len(got.Marginals.Factors[a]) != len(wm) {
			t.Fatalf("%s: factor %d marginal has %d entries, reference %d", name, a, len(got.Marginals.Factors[a]), len(wm))
		}
		for i, x := range wm {
			if !relClose(got.Marginals.Factors[a][i], x, rel) && bad < 10 {
				bad++
				t.Errorf("%s: factor %d marginal[%d] = %.17g, reference %.17g", name, a, i, got.Marginals.Factors[a][i], x)
			}
		}
	}
}

// suiteModels are models of every kind the tests use, small enough for the
// elimination engine to solve in well under a second each.
func suiteModels(t testing.TB) map[string]*mrf.Model {
	ms := map[string]*mrf.Model{
		"grid 7x7":       gridModel(t, 7, 1, 11),
		"grid 12x12":     gridModel(t, 12, 3, 12),
		"complete 14":    completeModel(14, 2),
		"random sparse":  randomSparse(60, 80, 4),
		"potts 24x5 tw3": must(t)(mrf.Potts{N: 24, K: 5, Treewidth: 3, Edges: 50}.Generate(3)),
		"csp kind":       mrf.KindCSP(30, 45, 6, 2),
		"mln kind":       mrf.KindMLN(80, 120, 8, 3),
		"promedas kind":  mrf.KindPromedas(40, 50, 12, 4),
		"pedigree kind":  mrf.KindPedigree(40, 8, 5),
		"segmentation":   mrf.KindSegmentation(6, 8, 5, 6),
	}
	for _, f := range []mrf.FactorFamily{{Family: mrf.FamilyCSP, Size: 40}, {Family: mrf.FamilyNoisyOR, Size: 16},
		{Family: mrf.FamilyPedigree, Size: 60}} {
		ms["family "+f.Family] = must(t)(f.Generate(9))
	}
	return ms
}

func must(t testing.TB) func(*mrf.Model, error) *mrf.Model {
	return func(m *mrf.Model, err error) *mrf.Model {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// TestSolveMatchesEliminationEngine solves every model of the suite and 200
// random awkward models with Solve and with the elimination engine that
// preceded it: ln Z and every marginal agree to 1e-12 relative.
func TestSolveMatchesEliminationEngine(t *testing.T) {
	ms := suiteModels(t)
	r := mrf.NewRand(31)
	for i := range 200 {
		ms["random "+itoa(i)] = randomModel(r)
	}
	for name, m := range ms {
		want, _, werr := solveElim(m, DefaultOptions())
		got, err := Solve(m, DefaultOptions())
		if (err != nil) != (werr != nil) {
			t.Fatalf("%s: error %v, reference error %v", name, err, werr)
		}
		if err != nil {
			continue
		}
		compareResults(t, name, got, want, 1e-12)
	}
}
