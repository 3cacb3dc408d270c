package renn_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
)

func ExampleRENN() {
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		log.Fatal(err)
	}
	m := mrf.RandomIsing(9, edges, 1, 1)
	g, err := region.Build(m, "grid", "faces")
	if err != nil {
		log.Fatal(err)
	}
	r, err := renn.New(g, renn.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	res, err := r.Infer(context.Background(), m)
	if err != nil {
		log.Fatal(err)
	}
	ex, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	worst := 0.0
	for i := range m.Cards {
		worst = max(worst, math.Abs(res.Marginals.Vars[i][1]-ex.Marginals.Vars[i][1]))
	}
	fmt.Println("converged:", res.Converged())
	fmt.Printf("p(x_0 = +1): renn %.3f, exact %.3f\n", res.Marginals.Vars[0][1], ex.Marginals.Vars[0][1])
	fmt.Println("largest error below 0.005:", worst < 0.005)
	// Output:
	// converged: true
	// p(x_0 = +1): renn 0.062, exact 0.062
	// largest error below 0.005: true
}
