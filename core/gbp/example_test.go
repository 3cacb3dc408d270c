package gbp_test

import (
	"context"
	"fmt"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

func ExampleGBP() {
	// A 3x3 Ising grid with random couplings, and its plaquette region graph.
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := mrf.RandomIsing(9, edges, 1, 42)
	g, err := region.Build(m, "grid", "faces")
	if err != nil {
		fmt.Println(err)
		return
	}
	method, err := gbp.New(g, gbp.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := method.Infer(context.Background(), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s on %d regions: converged %v, p(x4=+1) = %.4f, lnZ = %.4f\n",
		method.Name(), len(g.Regions), res.Converged(), res.Marginals.Vars[4][1], res.LogZ)
	// Output: gbp on 9 regions: converged true, p(x4=+1) = 0.9773, lnZ = 16.0107
}
