package exact_test

import (
	"fmt"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

func ExampleSolve() {
	edges, _ := mrf.GridEdges(3, false)
	m := mrf.RandomIsing(9, edges, 1, 1)
	res, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("log Z = %.4f\n", res.LogZ)
	fmt.Printf("p(x0 = +1) = %.4f\n", res.Marginals.Vars[0][1])
	// Factor 9 is the first edge, (0, 1): states (-1,-1) and (+1,+1) agree.
	fmt.Printf("p(x0 = x1) = %.4f\n", res.Marginals.Factors[9][0]+res.Marginals.Factors[9][3])
	// Output:
	// log Z = 13.7939
	// p(x0 = +1) = 0.0619
	// p(x0 = x1) = 0.9803
}

func ExampleMakeOrder() {
	edges, _ := mrf.GridEdges(20, false)
	m := mrf.RandomIsing(400, edges, 1, 1)
	plan, err := exact.MakeOrder(m, exact.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s order, largest table %d entries\n", plan.Heuristic, plan.LargestTable)
	small := exact.DefaultOptions()
	small.MaxTable = 1 << 20
	_, err = exact.MakeOrder(m, small)
	fmt.Println(err)
	// Output:
	// bandwidth order, largest table 2097152 entries
	// exact inference needs a table of 2^21.0 entries (21 variables: 18 19 37 38 56 75 94 113 132 151 ... 11 more), above --max-table 2^20.0; the best bandwidth order has total cost 2^27.2, so this model is too wide for exact inference
}

func ExampleSample() {
	edges, _ := mrf.GridEdges(2, false)
	m := mrf.RandomIsing(4, edges, 0.2, 3)
	xs, logp, err := exact.Sample(m, 4, mrf.NewRand(1), exact.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, x := range xs {
		fmt.Printf("%v log p = %.4f\n", x, logp[i])
	}
	// Output:
	// [1 1 1 0] log p = -1.5631
	// [0 0 0 1] log p = -1.1863
	// [0 0 0 1] log p = -1.1863
	// [1 1 1 0] log p = -1.5631
}
