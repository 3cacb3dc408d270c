package exact

import (
	"github.com/renn-go/renn/core/infer/infertest"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func benchSolve(b *testing.B, L int, opt Options) {
	m := gridModel(b, L, 1, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Solve(m, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSolveGrid20 is the headline figure: log Z and all marginals of a
// 20x20 Ising grid (cliques of 2^21 entries, about 600 MB of messages).
func BenchmarkSolveGrid20(b *testing.B) { benchSolve(b, 20, DefaultOptions()) }

// BenchmarkSolveGrid20Checkpointed is the same with a 128 MiB budget for
// stored messages, so the backward pass recomputes from checkpoints.
func BenchmarkSolveGrid20Checkpointed(b *testing.B) {
	benchSolve(b, 20, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = 128 << 20 }))
}

func BenchmarkSolveGrid10(b *testing.B) { benchSolve(b, 10, DefaultOptions()) }

func BenchmarkPlanGrid20(b *testing.B) {
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
