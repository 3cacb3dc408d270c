package exact

import (
	"testing"

	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
)

// benchSolve solves m once per iteration and reports the plan's estimated
// peak memory and the process's CPU seconds per solve (all threads: on a
// shared machine steadier than the wall time).
func benchSolve(b *testing.B, m *mrf.Model, opt Options) {
	b.Helper()
	b.ReportAllocs()
	var plan *Plan
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := Solve(m, opt)
		if err != nil {
			b.Fatal(err)
		}
		plan = res.Plan
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(plan.PeakMemory)/(1<<20), "peak-MiB")
	b.ReportMetric(plan.Seconds, "est-s")
}

// BenchmarkExact solves the stand-ins of every kind of UAI 2014 model
// (mrf.UAIKinds: Potts, spin glass, CSP, Markov logic, Promedas, pedigree,
// segmentation), every factor family at the size of the shipped UAI models,
// and the paper's grids, with the default options: ln Z and every variable
// and factor marginal.
func BenchmarkExact(b *testing.B) {
	for _, k := range mrf.UAIKinds() {
		m, err := k.Build(k.Seed)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("kind="+k.Name, func(b *testing.B) { benchSolve(b, m, DefaultOptions()) })
	}
	for _, f := range []mrf.FactorFamily{{Family: mrf.FamilyCSP, Size: 60}, {Family: mrf.FamilyNoisyOR, Size: 60},
		{Family: mrf.FamilyPedigree, Size: 60}} {
		m, err := f.Generate(mrf.DeriveSeed(24, 0))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("family="+f.Family+"60", func(b *testing.B) { benchSolve(b, m, DefaultOptions()) })
	}
	for _, L := range []int{10, 20} {
		m := gridModel(b, L, 1, 1)
		b.Run("grid="+itoa(L), func(b *testing.B) { benchSolve(b, m, DefaultOptions()) })
	}
	// The 20x20 grid with a 128 MiB budget for stored tables: the backward
	// pass recomputes from checkpoints.
	m := gridModel(b, 20, 1, 1)
	b.Run("grid=20/memory=128MiB", func(b *testing.B) {
		benchSolve(b, m, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = 128 << 20 }))
	})
}

// BenchmarkEstimate plans the 20x20 grid and the Potts stand-in.
func BenchmarkEstimate(b *testing.B) {
	potts, err := mrf.DefaultPotts(60).Generate(1)
	if err != nil {
		b.Fatal(err)
	}
	for name, m := range map[string]*mrf.Model{"grid=20": gridModel(b, 20, 1, 1), "kind=potts": potts} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Estimate(m, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOrderGrid20(b *testing.B) {
	m := gridModel(b, 20, 1, 1)
	for b.Loop() {
		if _, err := MakeOrder(m, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSample draws 1000 exact samples of a 10x10 Ising grid.
func BenchmarkSample(b *testing.B) {
	m := gridModel(b, 10, 1, 1)
	for b.Loop() {
		if _, _, err := Sample(m, 1000, mrf.NewRand(1), DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
