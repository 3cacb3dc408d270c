package exact

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/renn-go/renn/core/mrf"
)

// BenchmarkGemm times the matrix products of the Potts stand-in's plan
// (m, n, k and transpositions as its contractions call them) by gemm with
// the native micro kernel and by gonum's Dgemm; flops are multiply-adds.
func BenchmarkGemm(b *testing.B) {
	shapes := []struct {
		tA, tB  blas.Transpose
		m, n, k int
	}{
		{blas.NoTrans, blas.NoTrans, 11, 11, 11}, {blas.Trans, blas.NoTrans, 11, 121, 121},
		{blas.NoTrans, blas.Trans, 11, 11, 121}, {blas.Trans, blas.NoTrans, 121, 121, 11},
		{blas.NoTrans, blas.NoTrans, 121, 121, 121}, {blas.NoTrans, blas.NoTrans, 11, 14641, 11},
		{blas.NoTrans, blas.Trans, 11, 11, 14641},
	}
	for _, s := range shapes {
		x := randTable(mrf.NewRand(1), s.m*s.k)
		y := randTable(mrf.NewRand(1), s.k*s.n)
		c := make([]float64, s.m*s.n)
		lda, ldb := s.k, s.n
		if s.tA == blas.Trans {
			lda = s.m
		}
		if s.tB == blas.Trans {
			ldb = s.k
		}
		name := fmt.Sprintf("%c%c/m=%d/n=%d/k=%d", s.tA, s.tB, s.m, s.n, s.k)
		flops := float64(s.m * s.n * s.k)
		b.Run(name+"/gemm", func(b *testing.B) {
			for b.Loop() {
				gemm(nativeMicro, s.tA, s.tB, s.m, s.n, s.k, x, lda, y, ldb, 0, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmadd/s")
		})
		b.Run(name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				blas64.Dgemm(s.tA, s.tB, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmadd/s")
		})
	}
}
