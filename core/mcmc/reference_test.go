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

// A clique of hard clauses too wide to count gives no reference: without
// relaxation rungs pt says so (log_z_ref_too_wide), its ln Z is NaN and
// the marginals are still there; with them (relax auto) ln Z comes from the
// stones down to the free end, near the exact one.
func TestRefTooWide(t *testing.T) {
	const n = 22
	or := []float64{math.Inf(-1), 0, 0, 0} // x_i or x_j
	m := &mrf.Model{Cards: make([]int, n)}
	h := make([]float64, n)
	for i := range n {
		m.Cards[i], h[i] = 2, 0.1*float64(i%3)
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i}, LogTable: []float64{0, h[i]}})
		for j := i + 1; j < n; j++ {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i, j}, LogTable: or})
		}
	}
	// The feasible configurations: all ones, or all ones but one.
	all := 0.0
	for _, v := range h {
		all += v
	}
	terms := []float64{all}
	for _, v := range h {
		terms = append(terms, all-v)
	}
	exact := infer.LogSumExp(terms)
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newLayout(m, g).refLogZ(nil); !errors.Is(err, errRefTooWide) {
		t.Fatalf("error %v, want errRefTooWide", err)
	}
	o := ptOpts()
	o.Sweeps, o.Relax = 200, RelaxOff
	_, res := inferPT(t, o, m)
	if !math.IsNaN(res.LogZ) || res.Diagnostics["log_z_ref_too_wide"] != 1 || res.Converged {
		t.Errorf("relax off: ln Z %v, converged %v, diagnostics %v", res.LogZ, res.Converged, res.Diagnostics)
	}
	if why := infer.VerifyMarginals(m, res, nil); why != "" {
		t.Errorf("marginals: %s", why)
	}
	for _, temper := range []string{TemperAll, TemperPairs} {
		o.Sweeps, o.Relax, o.Temper = 2000, RelaxAuto, temper
		_, res = inferPT(t, o, m)
		se := res.Diagnostics["log_z_se"]
		if d := math.Abs(res.LogZ - exact); !(d <= 5*se+0.02) || res.Diagnostics["relax_rungs"] != float64(o.RelaxRungs+1) {
			t.Errorf("relax auto, temper %s: ln Z %v, exact %.4f, standard error %.4f (diagnostics %v)", temper, res.LogZ, exact, se, res.Diagnostics)
		}
	}
}

// Where zeros tie variables together so that no single-site move leaves a
// feasible configuration feasible (x0 = x1 = x2 = x3: the feasible set is
// two configurations apart), every temperature rung is stuck where it
// started: the chains disagree and pt is not converged. The relaxation
// rungs (relax auto: the equality factors are deterministic, and with
// blocks off no block draws their variables together) let replicas cross,
// and the answer is the exact one.
func TestRelaxCrossesPieces(t *testing.T) {
	eq := []float64{0, math.Inf(-1), math.Inf(-1), 0}
	m := &mrf.Model{Cards: []int{2, 2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: eq}, {Vars: []int{1, 2}, LogTable: eq}, {Vars: []int{2, 3}, LogTable: eq},
		{Vars: []int{0}, LogTable: []float64{0, 0.5}}, {Vars: []int{3}, LogTable: []float64{0.2, 0}},
	}}
	p1 := math.Exp(0.5) / (math.Exp(0.5) + math.Exp(0.2)) // P(all ones)
	exact := math.Log(math.Exp(0.5) + math.Exp(0.2))
	o := ptOpts()
	o.Sweeps, o.Chains, o.Relax, o.Blocks = 2000, 4, RelaxOff, BlocksOff
	_, res := inferPT(t, o, m)
	if res.Converged || !(res.Diagnostics["rhat_max"] > 1.1) {
		t.Errorf("relax off: converged %v, diagnostics %v", res.Converged, res.Diagnostics)
	}
	for _, temper := range []string{TemperAll, TemperPairs} {
		o.Relax, o.Temper = RelaxAuto, temper
		s, res := inferPT(t, o, m)
		se := s.StandardErrors()
		if d := math.Abs(res.Marginals.Vars[2][1] - p1); !res.Converged || d > 5*se[2][1] {
			t.Errorf("relax auto, temper %s: P(x2 = 1) %.4f, exact %.4f, standard error %.4f, converged %v", temper, res.Marginals.Vars[2][1], p1, se[2][1], res.Converged)
		}
		if lse := res.Diagnostics["log_z_se"]; math.Abs(res.LogZ-exact) > 5*lse+0.01 {
			t.Errorf("relax auto, temper %s: ln Z %.4f, exact %.4f, standard error %.4f", temper, res.LogZ, exact, lse)
		}
	}
}
