package formats_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"strings"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

func ExampleReadUAI() {
	// Two variables; a unary factor on variable 1 and a pairwise factor
	// whose scope (1 0) is not sorted. Tables list variable 0 fastest in
	// the second factor, as the scope's last variable.
	const model = `MARKOV
2
2 3
2
1 1
2 1 0

3
1 2 1

6
1 0
0.5 0.5
0 1
`
	m, kind, err := formats.ReadUAI(strings.NewReader(model), "example.uai")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(kind, m.Cards)
	for _, f := range m.Factors {
		fmt.Print(f.Vars)
		for _, l := range f.LogTable {
			fmt.Printf(" %g", math.Exp(l))
		}
		fmt.Println()
	}
	// Output:
	// MARKOV [2 3]
	// [1] 1 2 1
	// [1 0] 1 0 0.5 0.5 0 1
}

func ExampleWriteUAI() {
	m := &mrf.Model{
		Cards: []int{2, 2},
		Factors: []mrf.Factor{
			{Vars: []int{0, 1}, LogTable: []float64{0, math.Inf(-1), math.Log(0.25), 0}},
		},
	}
	if err := formats.WriteUAI(os.Stdout, m); err != nil {
		log.Fatal(err)
	}
	// Output:
	// MARKOV
	// 2
	// 2 2
	// 1
	// 2 0 1
	//
	// 4
	// 1 0
	// 0.25 1
}

func ExampleReadEvidence() {
	// The older form: one case observing variable 0 in state 1 and
	// variable 3 in state 0.
	cases, err := formats.ReadEvidence(strings.NewReader("1\n2 0 1 3 0\n"), "example.evid", []int{2, 2, 2, 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cases)
	// Output:
	// [[{0 1} {3 0}]]
}
