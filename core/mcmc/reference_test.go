package mcmc

import (
	"errors"
	"math"
	"testing"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// bruteRef is Z_0 by enumeration: Σ over the configurations of non-zero
// probability of exp(U(x)) (temper "pairs") or 1 ("all").
func bruteRef(m *mrf.Model, all bool) float64 {
	x := make([]int, len(m.Cards))
	terms := []float64{}
	for {
		if !math.IsInf(m.LogScore(x), -1) {
			u := 0.0
			for _, f := range m.Factors {
				if len(f.Vars) == 1 && !all {
					u += f.LogTable[x[f.Vars[0]]]
				}
			}
			terms = append(terms, u)
		}
		k := 0
		for ; k < len(x); k++ {
			if x[k]++; x[k] < m.Cards[k] {
				break
			}
			x[k] = 0
		}
		if k == len(x) {
			break
		}
	}
	return infer.LogSumExp(terms)
}

// The reference normaliser is the exact weighted count of the feasible
// configurations, under both tempers, on models whose zeros sit in factors
// of two to four variables, with evidence, fixed variables, independent
// pieces and a zero-arity factor.
func TestRefLogZ(t *testing.T) {
	pieces := infertest.RandomModel(10, [][]int{{0, 1}, {1, 2, 3}, {4, 5}, {5, 6}, {7, 8, 9}},
		infertest.Config{MinCard: 2, MaxCard: 3, Scale: 0.5, ZeroProb: 0.4, Unary: true}, 12)
	// A soft factor joins two pieces of constraints: they stay two pieces.
	bridge := mrf.Factor{Vars: []int{2, 7}, LogTable: make([]float64, pieces.Cards[2]*pieces.Cards[7])}
	for k := range bridge.LogTable {
		bridge.LogTable[k] = 0.3 * float64(k%4)
	}
	pieces.Factors = append(pieces.Factors, bridge, mrf.Factor{LogTable: []float64{0.3}})
	models := map[string]*mrf.Model{
		"pieces":   pieces,
		"pedigree": infertest.Pedigree(9, 3),
		"noisy-or": infertest.NoisyOR(4, 6, 2),
		"csp":      infertest.SoftCSP(8, 10, 5),
		"zeros":    testModels(t)["zeros"],
		"evidence": testModels(t)["evidence"],
	}
	for name, m := range models {
		g, err := infer.NewFactorGraph(m)
		if err != nil {
			t.Fatal(err)
		}
		dom := feasible.Full(m.Cards)
		if !feasible.Propagate(g, m, dom) {
			t.Fatalf("%s: infeasible", name)
		}
		for _, all := range []bool{false, true} {
			l := newLayout(m, g)
			if all {
				l.setTemperAll()
			}
			got, err := l.refLogZ(dom)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := bruteRef(m, all) // without the zero-arity factors: logZ adds them
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%s (all %v): ln Z_0 %.12f, enumerated %.12f", name, all, got, want)
			}
		}
	}
}

// A clique of hard clauses too wide to count gives no reference: pt says
// so (log_z_ref_too_wide), its ln Z is NaN, and the marginals are still
// there.
func TestRefTooWide(t *testing.T) {
	const n = 22
	or := []float64{math.Inf(-1), 0, 0, 0} // x_i or x_j
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range n {
		m.Cards[i] = 2
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i}, LogTable: []float64{0, 0.1 * float64(i%3)}})
		for j := i + 1; j < n; j++ {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i, j}, LogTable: or})
		}
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newLayout(m, g).refLogZ(nil); !errors.Is(err, errRefTooWide) {
		t.Fatalf("error %v, want errRefTooWide", err)
	}
	o := ptOpts()
	o.Sweeps = 200
	_, res := inferPT(t, o, m)
	if !math.IsNaN(res.LogZ) || res.Diagnostics["log_z_ref_too_wide"] != 1 || res.Converged {
		t.Errorf("ln Z %v, converged %v, diagnostics %v", res.LogZ, res.Converged, res.Diagnostics)
	}
	if why := infer.VerifyMarginals(m, res, nil); why != "" {
		t.Errorf("marginals: %s", why)
	}
}
