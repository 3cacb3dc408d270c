package learn

import (
	"context"
	"github.com/renn-go/renn/core/infer/infertest"
	"testing"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// benchEpoch measures one epoch (8 updates of 500 samples) on a 10x10 grid.
func benchEpoch(b *testing.B, method func() infer.Method) {
	es, _ := mrf.GridEdges(10, false)
	truth := mrf.RandomIsing(100, es, 1, 1)
	xs, _, err := exact.Sample(truth, 4000, mrf.NewRand(2), exact.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	p, _ := NewIsing(truth)
	theta := p.Random(mrf.NewRand(3), 1, 1)
	d, _ := NewData(p.Model(theta), xs)
	l, err := New(method(), p, theta, d, infertest.With(DefaultOptions(), func(o *Options) { o.Decay = 0; o.Batch = 500; o.Tol = -1 }))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := l.Epoch(context.Background()); err != nil { // the cold start
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Epoch(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEpochGrid10Exact(b *testing.B) {
	benchEpoch(b, func() infer.Method { return NewExact(exact.DefaultOptions()) })
}

func BenchmarkEpochGrid10BP(b *testing.B) {
	benchEpoch(b, func() infer.Method { m, _ := bp.New(bp.DefaultOptions()); return m })
}
