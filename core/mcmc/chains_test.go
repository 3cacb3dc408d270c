package mcmc

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// maxFactorError is the largest |difference| between two sets of factor
// marginals.
func maxFactorError(a, b [][]float64) float64 {
	worst := 0.0
	for f := range a {
		for x := range a[f] {
			worst = max(worst, math.Abs(a[f][x]-b[f][x]))
		}
	}
	return worst
}

// Persistent chains reach the exact factor marginals on every kind of small
// model, and their statistics pass the shared check.
func TestChainsAgainstExact(t *testing.T) {
	t.Parallel()
	for name, m := range testModels(t) {
		t.Run(name, func(t *testing.T) {
			ex, err := infertest.BruteForce(m)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewChains(m, 20, 3)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := c.Sweep(ctx, 200); err != nil {
				t.Fatal(err)
			}
			c.ClearStats()
			if err := c.Sweep(ctx, 3000); err != nil {
				t.Fatal(err)
			}
			if c.Counted() != 20*3000 || c.SweepsRun() != 3200 {
				t.Errorf("counted %d, sweeps %d", c.Counted(), c.SweepsRun())
			}
			mg, err := c.Marginals()
			if err != nil {
				t.Fatal(err)
			}
			if why := infer.VerifyMarginals(m, &infer.Result{Marginals: mg, LogZ: math.NaN()}, nil); why != "" {
				t.Errorf("shared check: %s", why)
			}
			if d := maxFactorError(mg.Factors, ex.Marginals.Factors); d > 0.03 {
				t.Errorf("largest factor marginal error %.3g", d)
			}
			acc := make([][]float64, len(m.Factors))
			for a, f := range m.Factors {
				acc[a] = make([]float64, len(f.LogTable))
			}
			if err := c.AddFactorMarginals(2, acc); err != nil {
				t.Fatal(err)
			}
			for a := range acc {
				for x, v := range acc[a] {
					if math.Abs(v-2*mg.Factors[a][x]) > 1e-12 {
						t.Fatalf("AddFactorMarginals factor %d entry %d: %v, want %v", a, x, v, 2*mg.Factors[a][x])
					}
				}
			}
		})
	}
}

// SetModel keeps every chain's configuration, and the chains then sample
// the new model; a model of another structure is refused.
func TestChainsSetModel(t *testing.T) {
	t.Parallel()
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mrf.RandomIsing(9, edges, 1, 1), mrf.RandomIsing(9, edges, 1, 2)
	c, err := NewChains(a, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Sweep(ctx, 50); err != nil {
		t.Fatal(err)
	}
	before := [][]int{c.State(0), c.State(9)}
	if err := c.SetModel(b); err != nil {
		t.Fatal(err)
	}
	if after := [][]int{c.State(0), c.State(9)}; !reflect.DeepEqual(before, after) {
		t.Errorf("SetModel moved the chains: %v -> %v", before, after)
	}
	c.ClearStats()
	if err := c.Sweep(ctx, 4000); err != nil {
		t.Fatal(err)
	}
	mg, _ := c.Marginals()
	ex, err := infertest.BruteForce(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxFactorError(mg.Factors, ex.Marginals.Factors); d > 0.03 {
		t.Errorf("after SetModel: largest factor marginal error %.3g", d)
	}
	other := mrf.RandomIsing(9, edges[:len(edges)-1], 1, 3)
	if err := c.SetModel(other); err == nil || !strings.Contains(err.Error(), "structure") {
		t.Errorf("another structure: %v", err)
	}
	// A table that makes a chain's configuration impossible is refused.
	zero := b.Clone()
	x := c.State(0)
	f := &zero.Factors[0]
	f.LogTable[f.Index(zero.Cards, x)] = math.Inf(-1)
	if err := c.SetModel(zero); err == nil || !strings.Contains(err.Error(), "probability zero") {
		t.Errorf("impossible configuration: %v", err)
	}
}

// Fixed variables stay where SetState put them, and the others sample the
// conditional: the clamped model's exact marginals.
func TestChainsFix(t *testing.T) {
	t.Parallel()
	m := testModels(t)["K=3 grid"]
	vars, states := []int{0, 4, 8}, []int{2, 1, 0}
	c, err := NewChains(m, 10, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Fix(vars); err != nil {
		t.Fatal(err)
	}
	for k := range c.Len() {
		x := c.State(k)
		for j, v := range vars {
			x[v] = states[j]
		}
		if err := c.SetState(k, x); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if err := c.Sweep(ctx, 100); err != nil {
		t.Fatal(err)
	}
	c.ClearStats()
	if err := c.Sweep(ctx, 3000); err != nil {
		t.Fatal(err)
	}
	for k := range c.Len() {
		x := c.State(k)
		for j, v := range vars {
			if x[v] != states[j] {
				t.Fatalf("chain %d: fixed variable %d moved to %d", k, v, x[v])
			}
		}
	}
	cm, err := mrf.Clamp(m, vars, states)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := infertest.BruteForce(cm)
	if err != nil {
		t.Fatal(err)
	}
	mg, _ := c.Marginals()
	if d := maxFactorError(mg.Factors, ex.Marginals.Factors[:len(m.Factors)]); d > 0.03 {
		t.Errorf("clamped: largest factor marginal error %.3g", d)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{c.Fix([]int{9}), "out of range"},
		{c.SetState(10, make([]int, 9)), "chain 10"},
		{c.SetState(0, make([]int, 8)), "8 values"},
		{c.SetState(0, []int{3, 0, 0, 0, 0, 0, 0, 0, 0}), "state 3"},
		{c.Sweep(ctx, -1), "sweeps"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%v, want an error with %q", tc.err, tc.want)
		}
	}
}

// The same seed gives the same chains; the context stops a sweep.
func TestChainsReproducible(t *testing.T) {
	t.Parallel()
	m := testModels(t)["zeros"]
	run := func(seed int64) mrf.Marginals {
		c, err := NewChains(m, 4, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Sweep(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		mg, _ := c.Marginals()
		return mg
	}
	if !reflect.DeepEqual(run(1), run(1)) {
		t.Error("same seed, different chains")
	}
	if reflect.DeepEqual(run(1), run(2)) {
		t.Error("different seeds, same chains")
	}
	c, _ := NewChains(m, 2, 1)
	if _, err := c.Marginals(); err == nil {
		t.Error("marginals before any sweep")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sweep(ctx, 5); err == nil {
		t.Error("a cancelled context did not stop the sweeps")
	}
	if _, err := NewChains(m, 0, 1); err == nil {
		t.Error("zero chains accepted")
	}
}

// PCD's calls, averaged, give the exact marginals: each call continues the
// chains of the last.
func TestPCD(t *testing.T) {
	t.Parallel()
	m := testModels(t)["ising 3x3"]
	ex, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPCD(PCDOptions{Seed: 2, Chains: 10, Sweeps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p.ClaimsLogZ() || p.Name() != "pcd" {
		t.Errorf("pcd claims ln Z or is called %q", p.Name())
	}
	avg := make([][]float64, len(m.Factors))
	for a, f := range m.Factors {
		avg[a] = make([]float64, len(f.LogTable))
	}
	const calls = 1500
	for k := range calls {
		res, err := p.Infer(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(res.LogZ) || res.Converged() || res.Iterations != 2 {
			t.Fatalf("call %d: ln Z %v, converged %v, iterations %d", k, res.LogZ, res.Converged(), res.Iterations)
		}
		for a := range avg {
			for x, v := range res.Marginals.Factors[a] {
				avg[a][x] += v / calls
			}
		}
	}
	if got := p.Chains().SweepsRun(); got != 2*calls {
		t.Errorf("chains ran %d sweeps, want %d (persistent)", got, 2*calls)
	}
	if d := maxFactorError(avg, ex.Marginals.Factors); d > 0.03 {
		t.Errorf("largest factor marginal error %.3g", d)
	}
	for _, tc := range []struct {
		o    PCDOptions
		want string
	}{
		{PCDOptions{Chains: 0, Sweeps: 1}, "chains"},
		{PCDOptions{Chains: 1, Sweeps: 0}, "sweeps"},
		{PCDOptions{Chains: maxPCDChains + 1, Sweeps: 1}, "chains"},
	} {
		if _, err := NewPCD(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", tc.o, err, tc.want)
		}
	}
}
