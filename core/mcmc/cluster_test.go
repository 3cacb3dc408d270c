package mcmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// clusterModels are the models the cluster move is checked on: binary
// pairwise ones (the fast path: a frustrated spin glass with fields, on a
// torus, and a ferromagnet-like Ising model) and general ones (three
// states, zeros, a factor of three variables).
func clusterModels(t *testing.T) map[string]*mrf.Model {
	ms := testModels(t)
	return map[string]*mrf.Model{
		"spin glass torus": infertest.SpinGlass(3, true, 3, 5),
		"spin glass":       ms["spin glass"],
		"ising 3x3":        ms["ising 3x3"],
		"K=3 grid":         ms["K=3 grid"],
		"zeros":            ms["zeros"],
		"arity 3":          ms["arity 3"],
		"evidence":         ms["evidence"],
	}
}

// logWeight is x's unnormalised log probability under m at inverse
// temperature beta (unary factors untempered).
func logWeight(m *mrf.Model, x []int, beta float64) float64 {
	s := 0.0
	for _, f := range m.Factors {
		idx, stride := 0, 1
		for p := len(f.Vars) - 1; p >= 0; p-- {
			idx += x[f.Vars[p]] * stride
			stride *= m.Cards[f.Vars[p]]
		}
		if len(f.Vars) >= 2 {
			s += beta * f.LogTable[idx]
		} else {
			s += f.LogTable[idx]
		}
	}
	return s
}

// A cluster move keeps the sum of the two replicas' log weights (so it is
// always accepted), exchanges states only where they disagreed, and keeps
// every replica's fields, log potential and factor entries equal to those
// recomputed from its states.
func TestHoudayerExchange(t *testing.T) {
	for name, m := range clusterModels(t) {
		for _, all := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/temper all %v", name, all), func(t *testing.T) { testExchange(t, m, all) })
		}
	}
}

func testExchange(t *testing.T, m *mrf.Model, temperAll bool) {
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	l := newLayout(m, g)
	if temperAll {
		l.setTemperAll()
	}
	rng := mrf.NewRand(7)
	var dom feasible.Domains
	if feasible.HasZeros(m) {
		dom = feasible.Full(l.cards)
		feasible.Propagate(g, m, dom)
	}
	x0, err := l.start(rng, dom, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := l.newReplica(x0), l.newReplica(append([]int(nil), x0...))
	w := newClusterWork(len(m.Cards))
	buf := make([]float64, g.MaxCard)
	sizes := 0
	for step := range 200 {
		l.sweep(a, 0.7, rng, buf)
		l.sweep(b, 0.7, rng, buf)
		xa, xb := append([]int(nil), a.x...), append([]int(nil), b.x...)
		before := logWeight(m, xa, 0.7) + logWeight(m, xb, 0.7)
		sizes += l.houdayer(a, b, rng, w)
		after := logWeight(m, a.x, 0.7) + logWeight(m, b.x, 0.7)
		if !(math.Abs(after-before) <= 1e-9*max(1, math.Abs(before))) {
			t.Fatalf("step %d: log weights %v before, %v after", step, before, after)
		}
		for i := range xa {
			exchanged := a.x[i] == xb[i] && b.x[i] == xa[i]
			if a.x[i] != xa[i] && (!exchanged || xa[i] == xb[i]) {
				t.Fatalf("step %d: variable %d went %d/%d -> %d/%d", step, i, xa[i], xb[i], a.x[i], b.x[i])
			}
		}
		for _, r := range []*replica{a, b} {
			fresh := l.newReplica(append([]int(nil), r.x...))
			if l.is != nil {
				for i := range r.h {
					if math.Abs(r.h[i]-fresh.h[i]) > 1e-9 {
						t.Fatalf("step %d: field %d is %v, recomputed %v", step, i, r.h[i], fresh.h[i])
					}
				}
				if math.Abs(r.e-fresh.e) > 1e-9 {
					t.Fatalf("step %d: log potential %v, recomputed %v", step, r.e, fresh.e)
				}
			} else {
				for _, f := range l.pairs {
					if r.idx[f] != fresh.idx[f] {
						t.Fatalf("step %d: factor %d entry %d, recomputed %d", step, f, r.idx[f], fresh.idx[f])
					}
				}
			}
		}
	}
	if sizes == 0 {
		t.Error("no cluster was ever exchanged")
	}
}

func houdayerOpts() PTOptions {
	o := ptOpts()
	o.Cluster = ClusterHoudayer
	return o
}

// pt with either temper, with and without the cluster move, samples the
// exact marginals and ln Z (within a few standard errors), on binary
// pairwise and general models, evidence included.
func TestTemperAndClusterAgainstExact(t *testing.T) {
	variants := map[string]PTOptions{}
	for _, temper := range []string{TemperPairs, TemperAll} {
		for _, o := range []PTOptions{ptOpts(), houdayerOpts()} {
			o.Temper = temper
			variants["temper "+temper+", cluster "+o.Cluster] = o
		}
	}
	for name, m := range clusterModels(t) {
		for vn, o := range variants {
			t.Run(name+"/"+vn, func(t *testing.T) {
				ex, err := infertest.BruteForce(m)
				if err != nil {
					t.Fatal(err)
				}
				s, res := inferPT(t, o, m)
				if why := infer.VerifyMarginals(m, res, nil); why != "" {
					t.Fatalf("shared check: %s", why)
				}
				if worst, bad := worstError(res, s.StandardErrors(), ex.Marginals.Vars); bad != "" || worst > 0.03 {
					t.Errorf("largest error %.3g; %s", worst, bad)
				}
				if c, ok := res.Diagnostics["cluster_size_mean"]; ok != (o.Cluster == ClusterHoudayer) || ok && !(c > 0) {
					t.Errorf("cluster_size_mean %v (present %v)", c, ok)
				}
				se0 := res.Diagnostics["log_z_se"]
				if d := math.Abs(res.LogZ - ex.LogZ); d > 5*se0+0.02 {
					t.Errorf("ln Z %.4f, exact %.4f, standard error %.4f", res.LogZ, ex.LogZ, se0)
				}
			})
		}
	}
}

// worstError returns the largest |error| of p against exact and a message
// when some state is off by more than 5 standard errors (plus 1e-3).
func worstError(res *infer.Result, se [][]float64, exact [][]float64) (float64, string) {
	worst, bad := 0.0, ""
	for i, p := range res.Marginals.Vars {
		for x, q := range p {
			d := math.Abs(q - exact[i][x])
			if d > 5*se[i][x]+1e-3 && bad == "" {
				bad = fmt.Sprintf("variable %d state %d: %.4f, exact %.4f, standard error %.4f", i, x, q, exact[i][x], se[i][x])
			}
			worst = max(worst, d)
		}
	}
	return worst, bad
}

// The exact check can see a wrong cluster move: exchanging only the drawn
// site, not its whole cluster of disagreement, changes the replicas' joint
// weight yet is always accepted, and biases the marginals far beyond the
// errors the correct move leaves (the largest is 0.13, 4 times the bound
// the correct move meets).
func TestBrokenClusterMoveFails(t *testing.T) {
	m := infertest.SpinGlass(3, true, 3, 5)
	ex, err := infertest.BruteForce(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPT(houdayerOpts())
	if err != nil {
		t.Fatal(err)
	}
	s.move = func(l *layout, a, b *replica, rng *rand.Rand, w *clusterWork) int {
		w.diff = w.diff[:0]
		for i, v := range a.x {
			if b.x[i] != v {
				w.diff = append(w.diff, int32(i))
			}
		}
		if len(w.diff) == 0 {
			return 0
		}
		i := int(w.diff[rng.IntN(len(w.diff))])
		sa, sb := a.x[i], b.x[i]
		l.set(a, i, sb)
		l.set(b, i, sa)
		return 1
	}
	res, err := s.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	// The correct move stays within 0.03 on this model
	// (TestTemperAndClusterAgainstExact).
	worst, _ := worstError(res, s.StandardErrors(), ex.Marginals.Vars)
	if worst < 0.05 {
		t.Errorf("a broken cluster move passed: largest error %.3g", worst)
	}
}
