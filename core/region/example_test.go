package region_test

import (
	"fmt"
	"log"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

func ExampleBuild() {
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		log.Fatal(err)
	}
	m := mrf.RandomIsing(9, edges, 1, 1)
	g, err := region.Build(m, "grid", "auto")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("scheme:", g.Scheme)
	for _, R := range g.Regions {
		fmt.Printf("level %d vars %v c=%g parents %v\n", R.Level, R.Vars, R.Counting, R.Parents)
	}
	// Output:
	// scheme: faces
	// level 0 vars [0 1 3 4] c=1 parents []
	// level 0 vars [1 2 4 5] c=1 parents []
	// level 0 vars [3 4 6 7] c=1 parents []
	// level 0 vars [4 5 7 8] c=1 parents []
	// level 1 vars [1 4] c=-1 parents [0 1]
	// level 1 vars [3 4] c=-1 parents [0 2]
	// level 1 vars [4 5] c=-1 parents [1 3]
	// level 1 vars [4 7] c=-1 parents [2 3]
	// level 2 vars [4] c=1 parents [4 5 6 7]
}

func ExampleBinding_FreeEnergy() {
	// A chain 0 - 1 - 2 is a tree, so the Bethe free energy at the exact
	// marginals is -ln Z. Here every factor is uniform: Z = 2^3.
	m := &mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0, 0, 0, 0}},
		{Vars: []int{1, 2}, LogTable: []float64{0, 0, 0, 0}},
	}}
	g, err := region.Build(m, "uai", "bethe")
	if err != nil {
		log.Fatal(err)
	}
	bd, err := g.Bind(m) // checks g against m and sizes its regions, once
	if err != nil {
		log.Fatal(err)
	}
	E, err := bd.Energies(m)
	if err != nil {
		log.Fatal(err)
	}
	b := bd.NewBeliefs() // uniform: the exact marginals of this model
	F := bd.FreeEnergy(E, b)
	fmt.Printf("F = %.6f, -ln Z = %.6f, penalty = %g\n", F, -3*0.6931471805599453, bd.Penalty(bd.Edges(), b))
	// Output:
	// F = -2.079442, -ln Z = -2.079442, penalty = 0
}
