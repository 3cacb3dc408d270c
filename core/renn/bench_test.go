package renn

import (
	"context"
	"fmt"
	"testing"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
	"github.com/renn-go/renn/core/region"
)

// benchModel returns a random Ising model on an L x L grid (gamma 1) and its
// faces region graph.
func benchModel(b *testing.B, L int) (*mrf.Model, *region.Graph) {
	return benchModelScheme(b, L, "faces")
}

// benchModelScheme is benchModel with another region scheme.
func benchModelScheme(b *testing.B, L int, scheme string) (*mrf.Model, *region.Graph) {
	b.Helper()
	es, err := mrf.GridEdges(L, false)
	if err != nil {
		b.Fatal(err)
	}
	m := mrf.RandomIsing(L*L, es, 1, 7)
	g, err := region.Build(m, "grid", scheme)
	if err != nil {
		b.Fatal(err)
	}
	return m, g
}

// benchStep times one optimisation step: the network forward, the beliefs,
// the loss and its gradient, the network backward and the Adam update.
func benchStep(b *testing.B, L int, o Options) {
	benchStepScheme(b, L, "faces", o)
}

func benchStepScheme(b *testing.B, L int, scheme string, o Options) {
	m, g := benchModelScheme(b, L, scheme)
	r, err := New(g, o)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.setup(m); err != nil {
		b.Fatal(err)
	}
	E, err := r.rb.Energies(m)
	if err != nil {
		b.Fatal(err)
	}
	if err := r.setMask(E); err != nil {
		b.Fatal(err)
	}
	if mn, ok := r.net.(*nn.MessageNet); ok {
		if _, err := r.readModel(context.Background(), mn, m, E); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		r.step(m, E, true)
	}
}

// benchConverge times a whole Infer from a fresh network to convergence (or
// the step cap) and reports the steps taken.
func benchConverge(b *testing.B, L int, o Options) {
	m, g := benchModel(b, L)
	steps, conv := 0, 0
	for b.Loop() {
		r, err := New(g, o)
		if err != nil {
			b.Fatal(err)
		}
		res, err := r.Infer(context.Background(), m)
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Iterations
		if res.Converged() {
			conv++
		}
	}
	b.ReportMetric(float64(steps)/float64(b.N), "steps")
	b.ReportMetric(float64(conv)/float64(b.N), "converged")
}

// The default width and block depth, and the paper's network: width 200
// with two-layer residual blocks.
var paperNet = opt(func(o *Options) { o.Dim = 200; o.BlockDepth = 2 })

func BenchmarkStepGrid10(b *testing.B)     { benchStep(b, 10, DefaultOptions()) }
func BenchmarkStepGrid10D200(b *testing.B) { benchStep(b, 10, paperNet) }
func BenchmarkStepGrid20(b *testing.B)     { benchStep(b, 20, DefaultOptions()) }
func BenchmarkStepGrid20D200(b *testing.B) { benchStep(b, 20, paperNet) }

// BenchmarkStepFace5 has the infinite face of a 5x5 grid as a root region:
// 16 variables, 65536 joint states, so the head's output layer dominates.
func BenchmarkStepFace5(b *testing.B) { benchStepScheme(b, 5, "faces+outer", DefaultOptions()) }

func BenchmarkConvergeGrid10(b *testing.B)     { benchConverge(b, 10, DefaultOptions()) }
func BenchmarkConvergeGrid10D200(b *testing.B) { benchConverge(b, 10, paperNet) }
func BenchmarkConvergeGrid20(b *testing.B)     { benchConverge(b, 20, DefaultOptions()) }

// The message net (net message): a step, and a whole run including the
// message passing that reads the model and the multiplier solve.
func BenchmarkStepGrid10Message(b *testing.B)     { benchStep(b, 10, withNet("message")) }
func BenchmarkStepGrid20Message(b *testing.B)     { benchStep(b, 20, withNet("message")) }
func BenchmarkConvergeGrid10Message(b *testing.B) { benchConverge(b, 10, withNet("message")) }
func BenchmarkConvergeGrid20Message(b *testing.B) { benchConverge(b, 20, withNet("message")) }

func withNet(net string) Options {
	o := DefaultOptions()
	o.Net = net
	return o
}

// BenchmarkWarmGrid10 runs RENN as learning does: every call warm-starts on a
// model of the same structure with slightly changed tables and takes
// WarmSteps (5) steps, so the per-call work (structure check, energies,
// read-out) shows beside the steps.
func BenchmarkWarmGrid10(b *testing.B) {
	m, g := benchModel(b, 10)
	m2 := m.Clone()
	for _, f := range m2.Factors {
		for i := range f.LogTable {
			f.LogTable[i] *= 1.001
		}
	}
	r, err := New(g, opt(func(o *Options) { o.MaxIter = 50; o.WarmSteps = 5 }))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Infer(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	models := []*mrf.Model{m2, m}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := r.Infer(context.Background(), models[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkSpinGlass times a whole run to convergence of GBP and of RENN with
// the message net on the same spin glass (fields U(−1,1), couplings U(−f,f),
// faces), for the ratio of their times where GBP converges.
func BenchmarkSpinGlass(b *testing.B) {
	// Models on which GBP converges (on the 20x20 f = 5 model of this seed it
	// does not).
	for _, c := range []struct {
		L int
		f float64
	}{{10, 2}, {10, 5}, {20, 2}} {
		L, f := c.L, c.f
		{
			es, err := mrf.GridEdges(L, false)
			if err != nil {
				b.Fatal(err)
			}
			m := mrf.RandomIsingWith(L*L, es, mrf.Uniform(1), mrf.Uniform(f), 3)
			g, err := region.Build(m, "grid", "faces")
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("L=%d/f=%g/gbp", L, f), func(b *testing.B) {
				for b.Loop() {
					gb, _ := gbp.New(g, gbp.DefaultOptions())
					if res, err := gb.Infer(context.Background(), m); err != nil || !res.Converged() {
						b.Fatalf("gbp: %v", err)
					}
				}
			})
			b.Run(fmt.Sprintf("L=%d/f=%g/renn-mp", L, f), func(b *testing.B) {
				steps := 0
				for b.Loop() {
					r, err := New(g, withNet("message"))
					if err != nil {
						b.Fatal(err)
					}
					res, err := r.Infer(context.Background(), m)
					if err != nil || !res.Converged() {
						b.Fatalf("renn-mp: %v", err)
					}
					steps += res.Iterations
				}
				b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
			})
		}
	}
}
