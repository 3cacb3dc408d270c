package infertest_test

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// TestBruteForceTwoVars checks BruteForce on a model small enough to work out
// by hand: p(x0, x1) ∝ ψ(x1, x0) φ(x0) with a reversed pairwise scope and one
// forbidden state.
func TestBruteForceTwoVars(t *testing.T) {
	ninf := math.Inf(-1)
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{1, 0}, LogTable: []float64{0, math.Log(2), math.Log(3), ninf}}, // ψ(x1,x0)
		{Vars: []int{0}, LogTable: []float64{0, math.Log(4)}},
	}}
	// Unnormalised: (x0,x1) = (0,0): 1·1, (1,0): 2·4, (0,1): 3·1, (1,1): 0.
	res, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	z := 12.0
	want := infer.Result{
		LogZ: math.Log(z),
		Marginals: mrf.Marginals{
			Vars:    [][]float64{{4 / z, 8 / z}, {9 / z, 3 / z}},
			Factors: [][]float64{{1 / z, 8 / z, 3 / z, 0}, {4 / z, 8 / z}},
		},
	}
	if math.Abs(res.LogZ-want.LogZ) > 1e-12 ||
		infertest.MaxAbsDiff(res.Marginals.Vars, want.Marginals.Vars) > 1e-12 ||
		infertest.MaxAbsDiff(res.Marginals.Factors, want.Marginals.Factors) > 1e-12 {
		t.Errorf("got %+v, want %+v", res, want)
	}
	if err := infertest.CheckResult(m, res); err != nil {
		t.Error(err)
	}
}

func TestBruteForceErrors(t *testing.T) {
	ninf := math.Inf(-1)
	zero := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{ninf, ninf}}}}
	big := &mrf.Model{Cards: make([]int, 30)}
	for i := range big.Cards {
		big.Cards[i] = 2
	}
	bad := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0}}}}
	for name, m := range map[string]*mrf.Model{"Z=0": zero, "too big": big, "invalid": bad} {
		if _, err := infertest.BruteForce(m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestGenerators(t *testing.T) {
	cfg := infertest.Config{MinCard: 1, MaxCard: 3, Scale: 1, ZeroProb: 0.3, Unary: true}
	for seed := int64(0); seed < 20; seed++ {
		for name, m := range map[string]*mrf.Model{
			"tree":  infertest.RandomTree(7, cfg, seed),
			"chain": infertest.Chain(5, cfg, seed),
			"loopy": infertest.RandomModel(6, infertest.RandomScopes(6, 5, 3, seed), cfg, seed),
		} {
			if err := m.Validate(); err != nil {
				t.Fatalf("%s %d: %v", name, seed, err)
			}
			for a, f := range m.Factors {
				if math.IsInf(infer.LogSumExp(f.LogTable), -1) {
					t.Fatalf("%s %d: factor %d has no allowed state", name, seed, a)
				}
			}
		}
	}
	tree := infertest.RandomTree(9, infertest.Config{MinCard: 2, MaxCard: 2}, 3)
	if len(tree.Factors) != 8 {
		t.Errorf("tree on 9 variables has %d factors, want 8", len(tree.Factors))
	}
	if s := infertest.RandomScopes(5, 10, 2, 1); len(s) != 10 {
		t.Errorf("RandomScopes(5,10,2) gave %d scopes, want all 10 pairs", len(s))
	}
}

func TestCheckResultRejects(t *testing.T) {
	m := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 0}}}}
	good := func() *infer.Result {
		return &infer.Result{Marginals: mrf.Marginals{Vars: [][]float64{{0.5, 0.5}}, Factors: [][]float64{{0.5, 0.5}}}, LogZ: math.Ln2, FreeEnergy: -math.Ln2}
	}
	if err := infertest.CheckResult(m, good()); err != nil {
		t.Fatalf("good result rejected: %v", err)
	}
	for name, spoil := range map[string]func(*infer.Result){
		"nan":       func(r *infer.Result) { r.Marginals.Vars[0][0] = math.NaN() },
		"unnormed":  func(r *infer.Result) { r.Marginals.Factors[0][0] = 0.7 },
		"short":     func(r *infer.Result) { r.Marginals.Vars[0] = r.Marginals.Vars[0][:1] },
		"logz":      func(r *infer.Result) { r.LogZ = 0 },
		"nan logz":  func(r *infer.Result) { r.LogZ, r.FreeEnergy = math.NaN(), math.NaN() },
		"no factor": func(r *infer.Result) { r.Marginals.Factors = nil },
	} {
		r := good()
		spoil(r)
		if err := infertest.CheckResult(m, r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
