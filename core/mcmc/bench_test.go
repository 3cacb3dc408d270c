package mcmc

import (
	"context"
	"testing"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// benchGrid is a 10x10 grid of the paper's kind (J ~ N(0,1), γ 1).
func benchGrid(b *testing.B) (*layout, *replica) {
	edges, err := mrf.GridEdges(10, false)
	if err != nil {
		b.Fatal(err)
	}
	m := mrf.RandomIsing(100, edges, 1, 1)
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		b.Fatal(err)
	}
	l := newLayout(m, g)
	return l, l.newReplica(make([]int, 100))
}

// One Gibbs sweep of a 10x10 grid: the hot path.
func BenchmarkSweep(b *testing.B) {
	l, r := benchGrid(b)
	rng := mrf.NewRand(1)
	buf := make([]float64, 2)
	for b.Loop() {
		l.sweep(r, 1, rng, buf)
	}
}

// One sweep and its record, as a chain of gibbs runs them.
func BenchmarkStep(b *testing.B) {
	l, _ := benchGrid(b)
	s, err := New(DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	chains, err := startChains(s, l)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]float64, 2)
	for b.Loop() {
		s.step(l, chains[0], buf)
	}
}

// A whole gibbs call of 500 sweeps on a 10x10 grid.
func BenchmarkGibbs(b *testing.B) {
	l, _ := benchGrid(b)
	o := DefaultOptions()
	o.Sweeps, o.MaxSeconds = 500, 0
	s, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Infer(context.Background(), l.m); err != nil {
			b.Fatal(err)
		}
	}
}

// One parallel-tempering sweep of a chain (default ladder, 21 replicas) on a
// 10x10 spin glass with couplings U(-10,10): the hot path of pt.
func BenchmarkPTStep(b *testing.B) {
	m := infertest.SpinGlass(10, false, 10, 1)
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		b.Fatal(err)
	}
	l := newLayout(m, g)
	s, err := NewPT(PTDefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	chains, err := startChains(s, l)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]float64, 2)
	for range 2000 { // past the start's transient
		s.step(l, chains[0], buf)
	}
	for b.Loop() {
		s.step(l, chains[0], buf)
	}
}

// startChains sets up s's ladder on l and starts its chains, as Infer does.
func startChains(s *Sampler, l *layout) ([]*chain, error) {
	dom, err := s.domains(l)
	if err != nil {
		return nil, err
	}
	if _, err := s.reference(l, dom, map[string]float64{}); err != nil {
		return nil, err
	}
	chains, _, err := s.start(context.Background(), l, dom, infer.Budget{MaxIter: 1}.Start(context.Background()))
	return chains, err
}

// The block draws of one sweep of a genetic-linkage pedigree of 16
// individuals (272 variables; the loci's pieces drawn jointly), against
// BenchmarkLinkageSweep, the single-site sweep of the same model.
func BenchmarkLinkageBlocks(b *testing.B) {
	l, r := benchLinkage(b)
	rng := mrf.NewRand(1)
	w := newBlockWork(l.blocks, l.g.MaxCard)
	for b.Loop() {
		l.sweepBlocks(r, 0.5, rng, w)
	}
}

func BenchmarkLinkageSweep(b *testing.B) {
	l, r := benchLinkage(b)
	l.skip = nil
	rng := mrf.NewRand(1)
	buf := make([]float64, l.g.MaxCard)
	for b.Loop() {
		l.sweep(r, 0.5, rng, buf)
	}
}

// benchLinkage is the linkage model of 16 individuals (seed
// mrf.DeriveSeed(1, 0)) with its blocks, and a feasible replica.
func benchLinkage(b *testing.B) (*layout, *replica) {
	m, err := mrf.FactorFamily{Family: mrf.FamilyLinkage, Size: 16}.Generate(mrf.DeriveSeed(1, 0))
	if err != nil {
		b.Fatal(err)
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		b.Fatal(err)
	}
	l := newLayout(m, g)
	dom := feasible.Full(l.cards)
	if !feasible.Propagate(g, m, dom) || l.setBlocks(dom, BlocksAuto) == 0 {
		b.Fatal("no blocks")
	}
	x, err := l.start(mrf.NewRand(1), dom, nil)
	if err != nil {
		b.Fatal(err)
	}
	return l, l.newReplica(x)
}
