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
		if res.Converged || res.Iterations != 0 || res.Diagnostics["forward_only"] != 1 {
			t.Errorf("%dx%d forward only: converged %v after %d steps", L, L, res.Converged, res.Iterations)
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
		if !res.Converged {
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
