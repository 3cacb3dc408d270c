package mrf_test

import (
	"fmt"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

func ExampleMarginals() {
	// x0 has two states and x1 three. The one factor's scope is (x1, x0), so
	// its table, and its marginal, are row-major over x1 then x0, x0 fastest.
	m := &mrf.Model{Cards: []int{2, 3}, Factors: []mrf.Factor{
		{Vars: []int{1, 0}, LogTable: []float64{0, 1, 0, 0, 2, 0}},
	}}
	res, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	mg := res.Marginals
	if err := mg.Check(m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("p(x0) = %.3f\n", mg.Vars[0])
	fmt.Printf("p(x1) = %.3f\n", mg.Vars[1])
	fmt.Printf("p(x1, x0) = %.3f\n", mg.Factors[0])
	// Factor.Index finds a joint state in the marginal as in the LogTable.
	f := &m.Factors[0]
	x := []int{1, 2} // x0 = 1, x1 = 2
	fmt.Printf("p(x0 = 1, x1 = 2) = entry %d = %.3f\n", f.Index(m.Cards, x), mg.Factors[0][f.Index(m.Cards, x)])
	// Check reports marginals of the wrong shape.
	bad := mrf.Marginals{Vars: mg.Vars, Factors: [][]float64{{0.5, 0.5}}}
	fmt.Println(bad.Check(m))
	// Output:
	// p(x0) = [0.666 0.334]
	// p(x1) = [0.264 0.142 0.595]
	// p(x1, x0) = [0.071 0.193 0.071 0.071 0.524 0.071]
	// p(x0 = 1, x1 = 2) = entry 5 = 0.071
	// factor 0: marginal has 2 entries, scope [1 0] needs 6
}
