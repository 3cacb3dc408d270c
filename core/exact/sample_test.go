package exact

import (
	"github.com/renn-go/renn/core/infer/infertest"
	"math"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestSampleMatchesMarginals draws 100k samples of a 3x3 Ising grid and
// checks every empirical variable and pairwise marginal against the exact
// one within 5 standard errors, and every log-probability.
func TestSampleMatchesMarginals(t *testing.T) {
	m := gridModel(t, 3, 1, 2)
	const n = 100000
	for _, mem := range []int64{DefaultMemory, 1} {
		exact, err := Solve(m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		xs, logp, err := Sample(m, n, mrf.NewRand(5), infertest.With(DefaultOptions(), func(o *Options) { o.Memory = mem }))
		if err != nil {
			t.Fatal(err)
		}
		if len(xs) != n || len(logp) != n {
			t.Fatalf("got %d samples and %d log-probabilities, want %d", len(xs), len(logp), n)
		}
		within := func(what string, count int, p float64) {
			t.Helper()
			emp := float64(count) / n
			se := math.Sqrt(p * (1 - p) / n)
			if math.Abs(emp-p) > 5*se+1e-9 {
				t.Errorf("memory %d: %s: empirical %.5f, exact %.5f (se %.5f)", mem, what, emp, p, se)
			}
		}
		for v := range m.Cards {
			count := 0
			for _, x := range xs {
				count += x[v]
			}
			within("p(x"+itoa(v)+"=1)", count, exact.Marginals.Vars[v][1])
		}
		for a := 9; a < len(m.Factors); a++ {
			f := &m.Factors[a]
			counts := make([]int, 4)
			for _, x := range xs {
				counts[f.Index(m.Cards, x)]++
			}
			for s, c := range counts {
				within("factor "+itoa(a)+" state "+itoa(s), c, exact.Marginals.Factors[a][s])
			}
		}
		for i, x := range xs[:1000] {
			if want := m.LogScore(x) - exact.LogZ; math.Abs(logp[i]-want) > 1e-12 {
				t.Fatalf("sample %d: log p %v, want %v", i, logp[i], want)
			}
		}
	}
}

// TestSampleAwkwardModels samples random models with zeros, cardinality-1
// variables and several components: no sample may have probability zero,
// and the empirical distribution must follow the brute-force one.
func TestSampleAwkwardModels(t *testing.T) {
	r := mrf.NewRand(17)
	const n = 4000
	done := 0
	for i := 0; done < 30; i++ {
		m := randomModel(r)
		want := bruteForce(m)
		if math.IsInf(want.logZ, -1) {
			continue
		}
		done++
		xs, logp, err := Sample(m, n, mrf.NewRand(int64(i)), infertest.With(DefaultOptions(), func(o *Options) { o.Memory = []int64{DefaultMemory, 1}[i%2] }))
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		for j, x := range xs {
			if math.IsInf(logp[j], -1) || !closeTo(logp[j], m.LogScore(x)-want.logZ, 1e-9) {
				t.Fatalf("model %d sample %d: log p %v, want %v", i, j, logp[j], m.LogScore(x)-want.logZ)
			}
		}
		for v, marg := range want.vars {
			for s, p := range marg {
				count := 0
				for _, x := range xs {
					if x[v] == s {
						count++
					}
				}
				se := math.Sqrt(p * (1 - p) / n)
				if emp := float64(count) / n; math.Abs(emp-p) > 5*se+1e-9 {
					t.Errorf("model %d: p(x%d=%d): empirical %.4f, exact %.4f", i, v, s, emp, p)
				}
			}
		}
	}
}

func TestSampleDeterministic(t *testing.T) {
	m := gridModel(t, 4, 1, 8)
	a, la, err := Sample(m, 50, mrf.NewRand(3), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	b, lb, err := Sample(m, 50, mrf.NewRand(3), infertest.With(DefaultOptions(), func(o *Options) { o.Memory = 1 }))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := Sample(m, 50, mrf.NewRand(4), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y [][]int) bool {
		return slices.EqualFunc(x, y, func(p, q []int) bool { return slices.Equal(p, q) })
	}
	if !same(a, b) || !slices.Equal(la, lb) {
		t.Error("the same generator state gave different samples")
	}
	if same(a, c) {
		t.Error("different generator states gave the same 50 samples")
	}
	if xs, lp, err := Sample(m, 0, mrf.NewRand(3), DefaultOptions()); err != nil || len(xs) != 0 || len(lp) != 0 {
		t.Errorf("zero samples: %v %v %v", xs, lp, err)
	}
}
