package renn

import (
	"context"
	"math"
	"testing"

	"github.com/renn-go/renn/core/nn"
)

func familyModels(t *testing.T, L, n int, seed int64) []Instance {
	t.Helper()
	var out []Instance
	for i := range n {
		m := grid(t, L, 1, seed+int64(i))
		out = append(out, Instance{Model: m, Graph: build(t, m, "grid", "faces")})
	}
	return out
}

// The gradient of the training loss, carried from the region free energy
// and penalty through the beliefs, the softmax and the family net, against
// central differences.
func TestFamilyLossGradient(t *testing.T) {
	in := familyModels(t, 3, 1, 7)[0]
	net, err := NewFamilyNet(3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range net.Params() {
		for j := range p.Value {
			p.Value[j] += 0.3 * math.Sin(float64(7*i+j)) // off the start, where the output weights are 0
		}
	}
	p, err := newFamilyProblem(context.Background(), in, &Family{Net: net, Sweeps: 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	zeroGrads(net.Params())
	p.loss(1)
	const h = 1e-6
	for _, par := range net.Params() {
		for j := range par.Value {
			old := par.Value[j]
			par.Value[j] = old + h
			fp := p.loss(0)
			par.Value[j] = old - h
			fm := p.loss(0)
			par.Value[j] = old
			num := (fp - fm) / (2 * h)
			if d := math.Abs(num - par.Grad[j]); d > 1e-6*math.Max(1, math.Abs(num)) {
				t.Errorf("%s[%d]: analytic %.10g, finite difference %.10g", par.Name, j, par.Grad[j], num)
			}
		}
	}
}

// Training lowers the validation loss from the untrained net's, and the
// trained net, run on unseen and larger grids, refines to GBP's fixed point.
func TestTrainFamilyAndRefine(t *testing.T) {
	o := DefaultTrainOptions()
	o.Epochs, o.Batch, o.Sweeps, o.Hidden = 15, 4, 3, 8
	models := familyModels(t, 4, 10, 100)
	var first float64
	f, rep, err := TrainFamily(context.Background(), models, o, func(epoch int, train, val float64) {
		if epoch == 1 {
			first = val
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Train != 8 || rep.Validation != 2 || rep.BestEpoch < 1 || !(rep.ValidationLoss <= first) {
		t.Fatalf("report %+v, first validation loss %v", rep, first)
	}
	for _, L := range []int{4, 7} {
		m := grid(t, L, 1, 999)
		g := build(t, m, "grid", "faces")
		want := runGBP(t, g, m)
		fwd, err := NewWithFamily(g, messageOptions(), f, true)
		if err != nil {
			t.Fatal(err)
		}
		res := mustInfer(t, fwd, m)
		if res.Converged() || res.Iterations != 0 || res.Diagnostics["forward_only"] != 1 {
			t.Errorf("%dx%d forward only: converged %v after %d steps", L, L, res.Converged(), res.Iterations)
		}
		if d := maxVarDiff(res.Marginals.Vars, want.Marginals.Vars); d > 0.1 {
			t.Errorf("%dx%d forward only: %.3g from gbp", L, L, d)
		}
		ref, err := NewWithFamily(g, messageOptions(), f, false)
		if err != nil {
			t.Fatal(err)
		}
		res = mustInfer(t, ref, m)
		t.Logf("%dx%d refined: %d steps, %.3g from gbp, lnZ %v vs %v", L, L, res.Iterations, maxVarDiff(res.Marginals.Vars, want.Marginals.Vars), res.LogZ, want.LogZ)
		if !res.Converged() {
			t.Errorf("%dx%d refined: not converged after %d steps", L, L, res.Iterations)
		}
		if d := maxVarDiff(res.Marginals.Vars, want.Marginals.Vars); d > 1e-3 {
			t.Errorf("%dx%d refined: %.3g from gbp", L, L, d)
		}
	}
}

func TestFamilyRejects(t *testing.T) {
	m := grid(t, 3, 1, 1)
	g := build(t, m, "grid", "faces")
	net, err := NewFamilyNet(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewWithFamily(g, DefaultOptions(), &Family{Net: net, Sweeps: 2}, false); err == nil {
		t.Error("attention net with a family accepted")
	}
	if _, err := NewWithFamily(g, messageOptions(), &Family{Net: net}, false); err == nil {
		t.Error("0 sweeps accepted")
	}
	other, err := nn.NewFamilyNet(nn.FamilyConfig{StateFeatures: 2, Hidden: 2, LinearInit: []float64{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewWithFamily(g, messageOptions(), &Family{Net: other, Sweeps: 2}, false); err == nil {
		t.Error("a net with other inputs accepted")
	}
	for _, o := range []TrainOptions{{}, func() TrainOptions { o := DefaultTrainOptions(); o.Validation = 1; return o }(), func() TrainOptions { o := DefaultTrainOptions(); o.Constraint = "none"; return o }()} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// Under auglag every model's multipliers take a step per epoch and end up
// non-zero; under the plain penalty they stay 0.
func TestTrainFamilyMultipliers(t *testing.T) {
	models := familyModels(t, 3, 4, 50)
	for _, c := range []string{"penalty", "auglag"} {
		o := DefaultTrainOptions()
		o.Epochs, o.Batch, o.Sweeps, o.Hidden, o.Validation, o.Constraint = 3, 2, 2, 4, 0, c
		net, err := NewFamilyNet(o.Hidden, o.Seed)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newFamilyProblem(context.Background(), models[0], &Family{Net: net, Sweeps: o.Sweeps}, o.Lambda)
		if err != nil {
			t.Fatal(err)
		}
		p.loss(0)
		if c == "auglag" {
			p.r.stepMultipliers()
		}
		moved := 0.0
		for _, mu := range p.r.mu {
			for _, v := range mu {
				moved = max(moved, math.Abs(v))
			}
		}
		if (c == "auglag") != (moved > 0) {
			t.Errorf("%s: largest multiplier %v", c, moved)
		}
		if _, rep, err := TrainFamily(context.Background(), models, o, nil); err != nil || rep.Epochs != 3 || math.IsNaN(rep.TrainLoss) {
			t.Errorf("%s: %+v, %v", c, rep, err)
		}
	}
}

// perturbedFamily returns an untrained family net moved off its start, so
// that its output (the corrections) is not 0.
func perturbedFamily(t *testing.T, sweeps int) *Family {
	t.Helper()
	net, err := NewFamilyNet(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range net.Params() {
		for j := range p.Value {
			p.Value[j] += 0.5 * math.Sin(float64(5*i+j+1))
		}
	}
	return &Family{Net: net, Sweeps: sweeps}
}

// Refinement by GBP from the family net's answer ends at cold GBP's fixed
// point (marginals and ln Z within 1e-6), converged, and says so in its
// diagnostics; with a sweep cap too small it falls back to the gradient
// refinement, which also ends at that fixed point.
func TestFamilyRefineGBP(t *testing.T) {
	for _, tc := range []struct {
		name   string
		L      int
		gamma  float64
		sweeps int
		cap    int
		gbp    bool // the warm-started GBP converges within the cap
	}{
		{"4x4", 4, 1, 2, 2000, true},
		{"6x6 weak", 6, 0.5, 3, 2000, true},
		{"5x5 one sweep", 5, 1, 1, 2000, true},
		{"4x4 capped", 4, 1, 2, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := grid(t, tc.L, tc.gamma, 77)
			g := build(t, m, "grid", "faces")
			want := runGBP(t, g, m)
			r, err := NewFamilyInference(g, messageOptions(), perturbedFamily(t, tc.sweeps), RefineGBP, tc.cap)
			if err != nil {
				t.Fatal(err)
			}
			res := mustInfer(t, r, m)
			if !res.Converged() {
				t.Fatalf("not converged: %v", res.Diagnostics)
			}
			if got := res.Diagnostics["refine_gbp"] == 1; got != tc.gbp {
				t.Errorf("refined by gbp %v, want %v (diagnostics %v)", got, tc.gbp, res.Diagnostics)
			}
			tol := 1e-6
			if !tc.gbp {
				tol = 1e-3 // the gradient refinement's own convergence rule
				if res.Diagnostics["refine_gbp_sweeps"] != 1 {
					t.Errorf("fallback after %v sweeps, want 1", res.Diagnostics["refine_gbp_sweeps"])
				}
			}
			if d := maxVarDiff(res.Marginals.Vars, want.Marginals.Vars); d > tol {
				t.Errorf("marginals %.3g from gbp", d)
			}
			if d := math.Abs(res.LogZ - want.LogZ); d > tol*10 {
				t.Errorf("ln Z %v, gbp %v", res.LogZ, want.LogZ)
			}
			b, _ := r.RegionBeliefs()
			if b == nil || len(b) != len(g.Regions) {
				t.Fatal("no region beliefs")
			}
		})
	}
}

// The corrections of refineGBP give every root, through the messages into
// its children from their other root parents, exactly the net's output.
func TestCorrectMessages(t *testing.T) {
	m := grid(t, 4, 1, 5)
	g := build(t, m, "grid", "faces")
	r, err := NewFamilyInference(g, messageOptions(), perturbedFamily(t, 2), RefineGBP, 10)
	if err != nil {
		t.Fatal(err)
	}
	mustInfer(t, r, m)
	zero := r.famGBP.EdgeMessages()
	for _, msg := range zero {
		clear(msg.Log)
	}
	out := make([][]float64, len(r.famOut))
	for k, o := range r.famOut {
		out[k] = make([]float64, len(o))
		for y := range o {
			out[k][y] = math.Cos(float64(3*k + y))
		}
	}
	r.correctMessages(zero, out)
	got := make(map[[2]int][]float64)
	for _, msg := range zero {
		got[[2]int{msg.Parent, msg.Child}] = msg.Log
	}
	isRoot := make(map[int]bool)
	for _, id := range r.roots {
		isRoot[id] = true
	}
	row := 0
	for _, e := range r.edges {
		if !isRoot[e.Parent] {
			continue
		}
		parents := 0
		sum := make([]float64, len(out[row]))
		for _, p := range g.Regions[e.Child].Parents {
			if p == e.Parent || !isRoot[p] {
				continue
			}
			parents++
			for y, v := range got[[2]int{p, e.Child}] {
				sum[y] += v
			}
		}
		for y := range sum {
			if parents > 0 && math.Abs(sum[y]-out[row][y]) > 1e-12 {
				t.Fatalf("root %d child %d state %d: messages add %v, net %v", e.Parent, e.Child, y, sum[y], out[row][y])
			}
		}
		row++
	}
	if _, err := NewFamilyInference(g, messageOptions(), perturbedFamily(t, 2), "newton", 1); err == nil {
		t.Error("unknown refinement accepted")
	}
	if _, err := NewFamilyInference(g, messageOptions(), perturbedFamily(t, 2), RefineGBP, 0); err == nil {
		t.Error("sweep cap 0 accepted")
	}
}
