package learn

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/mrf"
)

// bruteHiddenLogLik is the mean of ln p(x_v) over xs (visible vectors, in
// the order of vis) under m, by enumerating every joint state.
func bruteHiddenLogLik(t *testing.T, m *mrf.Model, vis []int, xs [][]int) float64 {
	t.Helper()
	n := len(m.Cards)
	x := make([]int, n)
	var all []float64
	byVis := map[string][]float64{}
	for {
		sc := m.LogScore(x)
		all = append(all, sc)
		key := ""
		for _, v := range vis {
			key += string(rune('0' + x[v]))
		}
		byVis[key] = append(byVis[key], sc)
		k := n - 1
		for k >= 0 {
			x[k]++
			if x[k] < m.Cards[k] {
				break
			}
			x[k] = 0
			k--
		}
		if k < 0 {
			break
		}
	}
	logZ := infer.LogSumExp(all)
	sum := 0.0
	for _, xv := range xs {
		key := ""
		for _, s := range xv {
			key += string(rune('0' + s))
		}
		sum += infer.LogSumExp(byVis[key]) - logZ
	}
	return sum / float64(len(xs))
}

// smallRBM is a 4-visible x 3-hidden RBM (variables 0..3 visible) with
// visible data that repeats vectors.
func smallRBM(t *testing.T) (*mrf.Model, []int, [][]int) {
	t.Helper()
	edges, err := mrf.BipartiteEdges(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsingWith(7, edges, mrf.Normal(0.5), mrf.Normal(1), 4)
	xs := [][]int{{0, 1, 1, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {1, 0, 1, 1}, {1, 1, 1, 1}, {0, 1, 1, 0}}
	return m, []int{4, 5, 6}, xs
}

// TestHiddenGradientMatchesFiniteDifferences checks the hand-written
// gradient of the hidden-variable log-likelihood (exact clamped minus exact
// free marginals) against central differences of its brute-force value, for
// the Ising and the table parameterisations, with the hidden variables not
// all at the end.
func TestHiddenGradientMatchesFiniteDifferences(t *testing.T) {
	rbm, rbmHidden, rbmXs := smallRBM(t)
	general := &mrf.Model{Cards: []int{3, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{0.1, math.Inf(-1), -0.4}},
		{Vars: []int{2, 0, 1}, LogTable: []float64{0.3, -0.2, 0.5, 0.1, -0.7, 0.2, 0.4, 0.0, -0.1, 0.6, 0.2, -0.3}},
		{Vars: []int{1, 2}, LogTable: []float64{0.2, -0.5, 0.3, 0.1}},
	}}
	cases := []struct {
		name   string
		model  *mrf.Model
		kind   string
		hidden []int
		xs     [][]int
	}{
		{"rbm-ising", rbm, IsingParam, rbmHidden, rbmXs},
		{"rbm-hidden-inside", rbm, IsingParam, []int{1, 5}, [][]int{{0, 1, 1, 0, 1}, {1, 0, 0, 1, 1}, {0, 1, 1, 0, 1}}},
		{"table", general, TableParam, []int{0}, [][]int{{1, 0}, {0, 1}, {1, 1}}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewParam(c.kind, c.model)
			if err != nil {
				t.Fatal(err)
			}
			theta := p.Random(mrf.NewRand(9), 0.7, 0.7)
			m := p.Model(theta)
			d, err := NewHiddenData(m, c.hidden, c.xs)
			if err != nil {
				t.Fatal(err)
			}
			res, err := infertest.BruteForce(m)
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, p.Len())
			st, err := GradientHidden(ctx, p, m, d, nil, res.Marginals.Factors, ExactClamped(exact.DefaultOptions()), grad)
			if err != nil {
				t.Fatal(err)
			}
			vis := d.Visible()
			if ll := bruteHiddenLogLik(t, m, vis, c.xs); math.Abs(st.LogZ-res.LogZ-ll) > 1e-10 {
				t.Errorf("mean ln Z(x_v) - ln Z = %v, brute-force log-likelihood %v", st.LogZ-res.LogZ, ll)
			}
			if nll, _, err := ExactNLL(m, d, exact.DefaultOptions()); err != nil || math.Abs(nll+bruteHiddenLogLik(t, m, vis, c.xs)) > 1e-10 {
				t.Errorf("ExactNLL %v (%v), brute force %v", nll, err, -bruteHiddenLogLik(t, m, vis, c.xs))
			}
			const h = 1e-5
			for k := range theta {
				tp := append([]float64(nil), theta...)
				tm := append([]float64(nil), theta...)
				tp[k] += h
				tm[k] -= h
				fd := (bruteHiddenLogLik(t, p.Model(tp), vis, c.xs) - bruteHiddenLogLik(t, p.Model(tm), vis, c.xs)) / (2 * h)
				if math.Abs(fd-grad[k]) > 1e-7 {
					t.Errorf("parameter %d: gradient %.9f, finite difference %.9f", k, grad[k], fd)
				}
			}
		})
	}
}

// TestExactHiddenLearningMatchesBruteForce runs exact learning with hidden
// variables (full batch, plain gradient ascent) and the same ascent with
// the gradient by enumeration and finite differences-free closed form:
// E_{p(z|x_v)}[features] - E_p[features] of the Ising features, computed by
// brute force over the 2^10 states. The parameters must agree after every
// epoch, and the NLL must fall.
func TestExactHiddenLearningMatchesBruteForce(t *testing.T) {
	edges, err := mrf.BipartiteEdges(6, 4)
	if err != nil {
		t.Fatal(err)
	}
	truth := mrf.RandomIsingWith(10, edges, mrf.Normal(0.5), mrf.Normal(1), 7)
	hidden := []int{6, 7, 8, 9}
	full, _, err := exact.Sample(truth, 200, mrf.NewRand(3), exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	xs := make([][]int, len(full))
	for s, x := range full {
		xs[s] = x[:6]
	}
	p, err := NewIsing(truth)
	if err != nil {
		t.Fatal(err)
	}
	theta := p.Random(mrf.NewRand(5), 0.5, 0.5)
	d, err := NewHiddenData(p.Model(theta), hidden, xs)
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Optimizer, opts.LR, opts.Decay, opts.Batch, opts.Tol = "sgd", 0.2, 0, len(xs), -1
	l, err := NewHidden(NewExact(exact.DefaultOptions()), ExactClamped(exact.DefaultOptions()), p, theta, d, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]float64(nil), theta...)
	vis := d.Visible()
	first, last := math.NaN(), math.NaN()
	for e := 0; e < 5; e++ {
		st, err := l.Epoch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// The epoch's training NLL is taken at the parameters it started from.
		if ll := bruteHiddenLogLik(t, p.Model(want), vis, xs); math.Abs(st.TrainNLL+ll) > 1e-9 {
			t.Errorf("epoch %d: train NLL %v, brute force %v", e+1, st.TrainNLL, -ll)
		}
		if e == 0 {
			first = st.TrainNLL
		}
		last = st.TrainNLL
		g := bruteHiddenGradient(p, p.Model(want), vis, xs)
		for k := range want {
			want[k] += opts.LR * g[k]
		}
		got := l.Theta()
		for k := range want {
			if math.Abs(got[k]-want[k]) > 1e-9 {
				t.Fatalf("epoch %d parameter %d: learned %v, brute-force ascent %v", e+1, k, got[k], want[k])
			}
		}
	}
	if !(last < first) {
		t.Errorf("training NLL went from %v to %v", first, last)
	}
}

// bruteHiddenGradient is the gradient of the mean ln p(x_v) over the Ising
// parameters of p by enumeration: the mean over xs of the features'
// expectation given x_v, minus their expectation.
func bruteHiddenGradient(p *Ising, m *mrf.Model, vis []int, xs [][]int) []float64 {
	n := len(m.Cards)
	feats := func(x []int, f []float64) {
		for i := 0; i < n; i++ {
			f[i] = float64(2*x[i] - 1)
		}
		for e, ed := range p.Edges {
			f[n+e] = f[ed.I] * f[ed.J]
		}
	}
	k := p.Len()
	free := make([]float64, k)
	cond := map[string][]float64{} // unnormalised Σ w f, and Σ w in the last slot
	total := 0.0
	f := make([]float64, k)
	x := make([]int, n)
	for s := 0; s < 1<<n; s++ {
		for i := range x {
			x[i] = (s >> i) & 1
		}
		w := math.Exp(m.LogScore(x))
		feats(x, f)
		key := ""
		for _, v := range vis {
			key += string(rune('0' + x[v]))
		}
		c := cond[key]
		if c == nil {
			c = make([]float64, k+1)
			cond[key] = c
		}
		for j, v := range f {
			free[j] += w * v
			c[j] += w * v
		}
		c[k] += w
		total += w
	}
	g := make([]float64, k)
	for _, xv := range xs {
		key := ""
		for _, s := range xv {
			key += string(rune('0' + s))
		}
		c := cond[key]
		for j := range g {
			g[j] += c[j] / c[k] / float64(len(xs))
		}
	}
	for j := range g {
		g[j] -= free[j] / total
	}
	return g
}

// TestClampedPhaseByMethods checks the clamped phase of BP (exact on an RBM
// with its visible units clamped: every loop passes through an observed
// variable) against the exact one, per group and shared, and that mean
// field gives normalised marginals with its ln Z a lower bound.
func TestClampedPhaseByMethods(t *testing.T) {
	m, hidden, xs := smallRBM(t)
	d, err := NewHiddenData(m, hidden, xs)
	if err != nil {
		t.Fatal(err)
	}
	if d.Groups() != 4 || d.Len() != 6 {
		t.Fatalf("%d groups of %d samples, want 4 of 6", d.Groups(), d.Len())
	}
	groups, w := batchGroups(d, []int{0, 1, 2, 3, 4, 5}, make([]int, d.Groups()), nil, nil)
	acc := func() [][]float64 {
		out := make([][]float64, len(m.Factors))
		for a, f := range m.Factors {
			out[a] = make([]float64, len(f.LogTable))
		}
		return out
	}
	ctx := context.Background()
	// The general exact phase (core/exact on every clamped model) is the
	// reference; the factorised one (an RBM's hidden units are independent
	// given the visible ones) and BP must agree with it.
	want := acc()
	general := NewMethodClamped("exact", func(*mrf.Model) (infer.Method, error) { return NewExact(exact.DefaultOptions()), nil }, false)
	ex, err := general.Clamped(ctx, m, d, groups, w, want)
	if err != nil {
		t.Fatal(err)
	}
	fact := ExactClamped(exact.DefaultOptions())
	if fact.(*exactClamped).fact != nil {
		t.Fatal("factorised before the first call")
	}
	got := acc()
	fs, err := fact.Clamped(ctx, m, d, groups, w, got)
	if err != nil {
		t.Fatal(err)
	}
	if fact.(*exactClamped).fact == nil {
		t.Fatal("an RBM's clamped phase is not factorised")
	}
	if math.Abs(fs.LogZ-ex.LogZ) > 1e-10 {
		t.Errorf("factorised ln Z(x_v) %v, exact %v", fs.LogZ, ex.LogZ)
	}
	for a := range got {
		for x := range got[a] {
			if math.Abs(got[a][x]-want[a][x]) > 1e-10 {
				t.Fatalf("factorised factor %d entry %d: %v, exact %v", a, x, got[a][x], want[a][x])
			}
		}
	}
	newBP := func(*mrf.Model) (infer.Method, error) { return bp.New(bp.DefaultOptions()) }
	for _, perGroup := range []bool{false, true} {
		c := NewMethodClamped("bp", newBP, perGroup)
		for round := 0; round < 2; round++ { // the second round warm-starts
			got := acc()
			st, err := c.Clamped(ctx, m, d, groups, w, got)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(st.LogZ-ex.LogZ) > 1e-8 || st.Calls != 4 {
				t.Errorf("perGroup %v round %d: ln Z(x_v) %v, exact %v; %d calls", perGroup, round, st.LogZ, ex.LogZ, st.Calls)
			}
			for a := range got {
				for x := range got[a] {
					if math.Abs(got[a][x]-want[a][x]) > 1e-8 {
						t.Fatalf("perGroup %v factor %d entry %d: %v, exact %v", perGroup, a, x, got[a][x], want[a][x])
					}
				}
			}
		}
	}
	mf := NewMethodClamped("mf", func(*mrf.Model) (infer.Method, error) { return meanfield.New(meanfield.DefaultOptions()) }, false)
	got = acc()
	st, err := mf.Clamped(ctx, m, d, groups, w, got)
	if err != nil {
		t.Fatal(err)
	}
	if st.LogZ > ex.LogZ+1e-9 {
		t.Errorf("mean field ln Z(x_v) %v above the exact %v", st.LogZ, ex.LogZ)
	}
	for a := range got {
		sum := 0.0
		for _, v := range got[a] {
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("factor %d: clamped marginals sum to %v", a, sum)
		}
	}
}

// TestHiddenDataRejects checks the errors of hidden data and learners.
func TestHiddenDataRejects(t *testing.T) {
	m, hidden, xs := smallRBM(t)
	for _, tt := range []struct {
		name   string
		hidden []int
		xs     [][]int
		err    string
	}{
		{"full samples", hidden, [][]int{{0, 1, 1, 0, 1, 1, 1}}, "4 visible variables"},
		{"state", hidden, [][]int{{0, 1, 2, 0}}, "state 2"},
		{"none hidden", nil, xs, "no hidden"},
		{"all hidden", []int{0, 1, 2, 3, 4, 5, 6}, xs, "every one"},
		{"out of range", []int{7}, xs, "out of range"},
	} {
		if _, err := NewHiddenData(m, tt.hidden, tt.xs); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
		}
	}
	p, _ := NewIsing(m)
	theta := p.Random(mrf.NewRand(1), 1, 1)
	d, err := NewHiddenData(m, hidden, xs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(NewExact(exact.DefaultOptions()), p, theta, d, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "NewHidden") {
		t.Errorf("New with hidden data: %v", err)
	}
	full, _ := NewData(m, [][]int{{0, 0, 0, 0, 0, 0, 0}})
	if _, err := NewHidden(NewExact(exact.DefaultOptions()), ExactClamped(exact.DefaultOptions()), p, theta, full, DefaultOptions()); err == nil {
		t.Error("NewHidden with complete data: no error")
	}
}
