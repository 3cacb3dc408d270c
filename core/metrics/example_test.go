package metrics_test

import (
	"fmt"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
)

func ExampleComparePaper() {
	// Two binary variables joined by one pairwise factor.
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{{Vars: []int{0, 1}, LogTable: []float64{1, 0, 0, 1}}}}
	exact := mrf.Marginals{
		Vars:    [][]float64{{0.5, 0.5}, {0.5, 0.5}},
		Factors: [][]float64{{0.36, 0.14, 0.14, 0.36}},
	}
	est := mrf.Marginals{
		Vars:    [][]float64{{0.4, 0.6}, {0.5, 0.5}},
		Factors: [][]float64{{0.25, 0.25, 0.25, 0.25}},
	}
	// Vectors [.5 .5 .36] and [.6 .5 .25].
	s, err := metrics.ComparePaper(m, exact, est)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, _ := metrics.CompareMarginals(m, exact, est)
	fmt.Printf("l1 %.4f corr %.3f\n", s.L1, s.Corr)
	fmt.Printf("variables: mean %.3f max %.3f; factors: mean %.3f max %.3f\n", e.VarMeanAbs, e.VarMaxAbs, e.FactorMeanAbs, e.FactorMaxAbs)
	// Output:
	// l1 0.0700 corr 0.961
	// variables: mean 0.050 max 0.100; factors: mean 0.110 max 0.110
}

func ExampleSummarize() {
	s := metrics.Summarize([]float64{0.02, 0.04, 0.03})
	fmt.Printf("%.3f ± %.4f (n=%d)\n", s.Mean, s.Std, s.N)
	// Output: 0.030 ± 0.0082 (n=3)
}
