package exact

import (
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// ordinaryModels are models of every kind whose products stay within
// float64's range, each with the seed of its draws: the paper's grid and
// complete graph (its learning data), a spin glass at U(-15, 15), and
// UAI-like families with zeros and evidence.
func ordinaryModels(t *testing.T) []struct {
	name string
	m    *mrf.Model
	seed int64
	hash string // of the draws of the linear sampler before the log-space path existed
} {
	ges, err := mrf.GridEdges(10, false)
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name string
		m    *mrf.Model
		seed int64
		hash string
	}{
		{"paper grid 10x10", mrf.RandomIsing(100, ges, 1, 3), 11, "d258c8e1d51555a9"},
		{"paper complete 16", mrf.RandomIsing(16, mrf.CompleteEdges(16), 0.1, 4), 12, "3f81915384aef0a9"},
		{"spin glass U(-15,15)", mrf.RandomIsingWith(100, ges, mrf.Uniform(1), mrf.Uniform(15), 5), 13, "da892a178c0b49e0"},
		{"pedigree kind", mrf.KindPedigree(40, 8, 5), 14, "c88f5b72951b2a18"},
		{"noisy-or family", must(t)(mrf.FactorFamily{Family: mrf.FamilyNoisyOR, Size: 16}.Generate(9)), 16, "115bbaec22c118bb"},
		{"csp family", must(t)(mrf.FactorFamily{Family: mrf.FamilyCSP, Size: 40}.Generate(9)), 17, "882d4678f379cce5"},
		{"potts", must(t)(mrf.Potts{N: 24, K: 5, Treewidth: 3, Edges: 50}.Generate(3)), 15, "58da3de8ba7dad01"},
	}
}

// drawsHash is a short hash of draws and their log-probabilities.
func drawsHash(xs [][]int, logp []float64) string {
	h := sha256.New()
	for i, x := range xs {
		fmt.Fprint(h, x, logp[i])
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestSampleOrdinaryDrawsUnchanged: on ordinary models Sample stays in
// linear space and draws, for a fixed seed, exactly what it drew before
// it had a log-space path (the hashes were taken from that code).
func TestSampleOrdinaryDrawsUnchanged(t *testing.T) {
	for _, c := range ordinaryModels(t) {
		xs, logp, err := Sample(c.m, 2000, mrf.NewRand(c.seed), DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h := drawsHash(xs, logp); h != c.hash {
			t.Errorf("%s: draws hash %s, before %s", c.name, h, c.hash)
		}
		tr, _, err := newTree(c.m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := sampleIn(tr, 1, mrf.NewRand(1), DefaultOptions(), false); err != nil {
			t.Errorf("%s: linear space refused: %v", c.name, err)
		}
	}
}

// TestSampleLogSpaceDrawsAsLinear: forced into log space on ordinary
// models, the sampler draws what the linear one draws (the same uniform
// numbers against the same conditionals, to rounding), with the same
// log-probabilities to 1e-10.
func TestSampleLogSpaceDrawsAsLinear(t *testing.T) {
	for _, c := range ordinaryModels(t) {
		tr, _, err := newTree(c.m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		const n = 500
		lin, llin, err := sampleIn(tr, n, mrf.NewRand(c.seed), DefaultOptions(), false)
		if err != nil {
			t.Fatal(err)
		}
		lg, llg, err := sampleIn(tr, n, mrf.NewRand(c.seed), DefaultOptions(), true)
		if err != nil {
			t.Fatalf("%s: log space: %v", c.name, err)
		}
		differ := 0
		for i := range lin {
			if !slices.Equal(lin[i], lg[i]) {
				differ++
			} else if !closeTo(llin[i], llg[i], 1e-10) {
				t.Errorf("%s: sample %d: log p %v in log space, %v in linear", c.name, i, llg[i], llin[i])
			}
		}
		if differ > 1 {
			t.Errorf("%s: %d of %d draws differ between log and linear space", c.name, differ, n)
		}
	}
}

// extremeModel is a 6x6 spin glass with couplings U(-400, 400) (factors
// spanning e^1600) conditioned against its own preferences: variable 14
// observed in its less likely state, and the likeliest joint state of
// pairwise factor 50 forbidden.
func extremeModel(t *testing.T, seed int64) *mrf.Model {
	es, err := mrf.GridEdges(6, false)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsingWith(36, es, mrf.Normal(1), mrf.Uniform(400), seed)
	free, err := Solve(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	unlikely := 0
	if free.Marginals.Vars[14][0] > 0.5 {
		unlikely = 1
	}
	if err := m.Observe(14, unlikely); err != nil {
		t.Fatal(err)
	}
	fm := free.Marginals.Factors[50]
	m.Factors[50].LogTable[slices.Index(fm, slices.Max(fm))] = math.Inf(-1)
	return m
}

// logSpaceSolve is Solve with its one slice solved in log space.
func logSpaceSolve(t *testing.T, m *mrf.Model) *Result {
	pr, err := prepare(m, DefaultOptions())
	if err != nil || pr.Plan.Slices != 1 {
		t.Fatalf("plan of %d slices, %v", pr.Plan.Slices, err)
	}
	nw := pr.p.nw
	acc := newAccum(nw)
	pr.p.logSlice(nil, acc)
	res := &Result{LogZ: nw.constant + acc.scale + math.Log(acc.sumW),
		Marginals: mrf.Marginals{Vars: make([][]float64, len(m.Cards)), Factors: make([][]float64, len(m.Factors))}}
	for _, v := range nw.loose {
		res.LogZ += math.Log(float64(nw.card[v]))
	}
	acc.marginals(res)
	return res
}

// TestSampleExtremeCouplings: on 6x6 spin glasses with couplings
// U(-400, 400), with and without evidence and zeros, where the linear
// tables cannot vouch for their numbers, Sample draws in log space: every
// draw respects the evidence and zeros, its log-probability is the
// model's over ln Z, and the empirical marginals match the exact ones
// (Solve's, its slice run in log space),
// within 5 standard errors.
func TestSampleExtremeCouplings(t *testing.T) {
	es, err := mrf.GridEdges(6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    *mrf.Model
	}{
		{"seed 1", mrf.RandomIsingWith(36, es, mrf.Normal(1), mrf.Uniform(400), 1)},
		{"seed 3, evidence and a zero", extremeModel(t, 3)},
		{"seed 6, evidence and a zero", extremeModel(t, 6)},
	} {
		m := c.m
		want := logSpaceSolve(t, m)
		tr, _, err := newTree(m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := sampleIn(tr, 1, mrf.NewRand(1), DefaultOptions(), false); err != errImprecise {
			t.Errorf("%s: linear space gave %v, want it refused", c.name, err)
		}
		const n = 20000
		xs, logp, err := Sample(m, n, mrf.NewRand(7), DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		few, _, err := Sample(m, n, mrf.NewRand(7), infertest.With(DefaultOptions(), func(o *Options) { o.Memory = 1 }))
		if err != nil || !slices.EqualFunc(xs, few, slices.Equal) {
			t.Errorf("%s: with messages recomputed from checkpoints: other draws, or %v", c.name, err)
		}
		counts := make([][]int, len(m.Cards))
		for v := range counts {
			counts[v] = make([]int, m.Cards[v])
		}
		for i, x := range xs {
			score := m.LogScore(x)
			if math.IsInf(score, -1) || !closeTo(logp[i], score-want.LogZ, 1e-9) {
				t.Fatalf("%s: sample %d: log score %v, log p %v, want %v", c.name, i, score, logp[i], score-want.LogZ)
			}
			for v, s := range x {
				counts[v][s]++
			}
		}
		for v, marg := range want.Marginals.Vars {
			for s, p := range marg {
				se := math.Sqrt(p * (1 - p) / n)
				if emp := float64(counts[v][s]) / n; math.Abs(emp-p) > 5*se+1e-9 {
					t.Errorf("%s: p(x%d=%d): empirical %.4f, exact %.4f", c.name, v, s, emp, p)
				}
			}
		}
	}
}

// TestSolveExtremeWithEvidence: a spin glass of couplings U(-400, 400)
// with evidence and a zero whose linear contraction ends in a value out of
// float64's range is solved in log space, not answered with ln Z NaN.
func TestSolveExtremeWithEvidence(t *testing.T) {
	for _, seed := range []int64{3, 6} {
		m := extremeModel(t, seed)
		got, err := Solve(m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		want := logSpaceSolve(t, m)
		if !closeTo(got.LogZ, want.LogZ, 1e-9) {
			t.Errorf("seed %d: ln Z %v, in log space %v", seed, got.LogZ, want.LogZ)
		}
		for v, marg := range want.Marginals.Vars {
			for s, p := range marg {
				if !(math.Abs(got.Marginals.Vars[v][s]-p) <= 1e-9) {
					t.Errorf("seed %d: p(x%d=%d) = %v, in log space %v", seed, v, s, got.Marginals.Vars[v][s], p)
				}
			}
		}
	}
}
