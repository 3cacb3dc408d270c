package learn_test

import (
	"context"
	"fmt"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/learn"
	"github.com/renn-go/renn/core/mrf"
)

// Learn a 3x3 Ising grid back from exact samples, with loopy BP supplying
// ln Z and the marginals.
func Example() {
	edges, _ := mrf.GridEdges(3, false)
	truth := mrf.RandomIsing(9, edges, 1, 3)
	xs, _, _ := exact.Sample(truth, 3000, mrf.NewRand(1), exact.DefaultOptions())

	p, _ := learn.NewParam(learn.AutoParam, truth) // binary pairwise: ising
	start := p.Random(mrf.NewRand(2), 1, 1)        // a random model of the same structure
	train, _ := learn.NewData(p.Model(start), xs[:2000])
	test, _ := learn.NewData(p.Model(start), xs[2000:])

	method, _ := bp.New(bp.DefaultOptions())
	opts := learn.DefaultOptions()
	opts.Batch, opts.Seed = 200, 3
	l, _ := learn.New(method, p, start, train, opts)
	rep, _ := l.Fit(context.Background(), test, nil)

	first, last := rep.Epochs[0], rep.Epochs[len(rep.Epochs)-1]
	trueNLL, _, _ := learn.ExactNLL(truth, test, exact.DefaultOptions())
	fmt.Println("parameterisation:", p.Name(), "with", p.Len(), "parameters")
	fmt.Println("test NLL fell:", last.TestNLL < first.TestNLL)
	fmt.Println("within 0.05 of the true model's:", last.TestNLL-trueNLL < 0.05)
	// Output:
	// parameterisation: ising with 21 parameters
	// test NLL fell: true
	// within 0.05 of the true model's: true
}
