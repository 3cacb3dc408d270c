package learn

import (
	"context"
	"math"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mcmc"
	"github.com/renn-go/renn/core/mrf"
)

// newAcc returns zeroed accumulators for m's factors.
func newAcc(m *mrf.Model) [][]float64 {
	out := make([][]float64, len(m.Factors))
	for a, f := range m.Factors {
		out[a] = make([]float64, len(f.LogTable))
	}
	return out
}

// PCD's clamped phase is the exact factorised one on an RBM, and on a model
// whose hidden variables touch each other its persistent chains reach the
// exact clamped marginals.
func TestPCDClamped(t *testing.T) {
	ctx := context.Background()
	m, hidden, xs := smallRBM(t)
	d, err := NewHiddenData(m, hidden, xs)
	if err != nil {
		t.Fatal(err)
	}
	groups, w := batchGroups(d, []int{0, 1, 2, 3, 4, 5}, make([]int, d.Groups()), nil, nil)
	want, got := newAcc(m), newAcc(m)
	ex, err := ExactClamped(exact.DefaultOptions()).Clamped(ctx, m, d, groups, w, want)
	if err != nil {
		t.Fatal(err)
	}
	c, err := PCDClamped(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Clamped(ctx, m, d, groups, w, got)
	if err != nil {
		t.Fatal(err)
	}
	if c.(*pcdClamped).fact == nil || st.LogZ != ex.LogZ || maxDiff(got, want) != 0 {
		t.Errorf("RBM: not the exact factorised phase (ln Z %v, exact %v; marginals off by %v)", st.LogZ, ex.LogZ, maxDiff(got, want))
	}

	// A 3x3 grid with its middle row hidden: 3-4 and 4-5 join two hidden
	// variables.
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		t.Fatal(err)
	}
	g := mrf.RandomIsingWith(9, edges, mrf.Normal(0.7), mrf.Normal(0.7), 6)
	gxs := [][]int{{0, 1, 1, 0, 1, 0}, {1, 1, 0, 0, 0, 1}, {0, 1, 1, 0, 1, 0}}
	gd, err := NewHiddenData(g, []int{3, 4, 5}, gxs)
	if err != nil {
		t.Fatal(err)
	}
	groups, w = batchGroups(gd, []int{0, 1, 2}, make([]int, gd.Groups()), nil, nil)
	want = newAcc(g)
	if _, err := ExactClamped(exact.DefaultOptions()).Clamped(ctx, g, gd, groups, w, want); err != nil {
		t.Fatal(err)
	}
	c, err = PCDClamped(20000, 2)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the second round continues the chains
		got = newAcc(g)
		st, err = c.Clamped(ctx, g, gd, groups, w, got)
		if err != nil {
			t.Fatal(err)
		}
		if c.(*pcdClamped).fact != nil || !math.IsNaN(st.LogZ) || st.Calls != 2 || st.Unconverged != 2 || st.Iterations != 40000 {
			t.Errorf("round %d: factorised %v, stats %+v", round, c.(*pcdClamped).fact != nil, st)
		}
		if dm := maxDiff(got, want); dm > 0.02 {
			t.Errorf("round %d: sampled clamped marginals off by %.3g", round, dm)
		}
	}
	if _, err := PCDClamped(0, 1); err == nil {
		t.Error("0 sweeps accepted")
	}
}

func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	for f := range a {
		for x := range a[f] {
			d = max(d, math.Abs(a[f][x]-b[f][x]))
		}
	}
	return d
}

// PCD learning of an RBM from its visible samples gets close to exact
// learning's NLL from the same start and the same batches.
func TestPCDLearningNearExact(t *testing.T) {
	edges, err := mrf.BipartiteEdges(5, 3)
	if err != nil {
		t.Fatal(err)
	}
	truth := mrf.RandomIsingWith(8, edges, mrf.Normal(0.8), mrf.Normal(0.5), 11)
	hidden := []int{5, 6, 7}
	// Visible samples of the truth: 50 chains, every 5th sweep after 50.
	ch, err := mcmc.NewChains(truth, 50, 12)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ch.Sweep(ctx, 50); err != nil {
		t.Fatal(err)
	}
	var xs [][]int
	for range 20 {
		if err := ch.Sweep(ctx, 5); err != nil {
			t.Fatal(err)
		}
		for k := range ch.Len() {
			xs = append(xs, ch.State(k)[:5])
		}
	}
	p, err := NewIsing(truth)
	if err != nil {
		t.Fatal(err)
	}
	theta := p.Random(mrf.NewRand(13), 0.5, 0.5)
	d, err := NewHiddenData(truth, hidden, xs)
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Epochs, opts.Batch, opts.LR, opts.Tol, opts.Decay = 15, 100, 0.05, -1, 0
	fit := func(m infer.Method, c ClampedPhase) float64 {
		l, err := NewHidden(m, c, p, theta, d, opts)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := l.Fit(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() == "pcd" && !math.IsNaN(rep.Epochs[0].TrainNLL) {
			t.Errorf("pcd train NLL %v, want NaN (no ln Z)", rep.Epochs[0].TrainNLL)
		}
		nll, _, err := exactHiddenNLL(l.model, d, exact.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return nll
	}
	start, _, err := exactHiddenNLL(p.Model(theta), d, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	exactNLL := fit(NewExact(exact.DefaultOptions()), ExactClamped(exact.DefaultOptions()))
	pcd, err := mcmc.NewPCD(mcmc.PCDOptions{Seed: 1, Chains: 100, Sweeps: 5})
	if err != nil {
		t.Fatal(err)
	}
	clamped, err := PCDClamped(5, 2)
	if err != nil {
		t.Fatal(err)
	}
	pcdNLL := fit(pcd, clamped)
	t.Logf("train NLL: start %.4f, exact learning %.4f, pcd %.4f", start, exactNLL, pcdNLL)
	if !(exactNLL < start-0.1) {
		t.Fatalf("exact learning did not learn: %.4f -> %.4f", start, exactNLL)
	}
	if math.Abs(pcdNLL-exactNLL) > 0.05 {
		t.Errorf("pcd NLL %.4f, exact learning's %.4f", pcdNLL, exactNLL)
	}
}
