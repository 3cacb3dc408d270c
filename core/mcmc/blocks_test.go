package mcmc

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// tiedModel is a small model whose zeros tie variables 1, 2 and 3 together
// (x1 = x2 exactly; a ternary factor over x1, x3, x4 with zeros), with soft
// factors to the others and a unary zero: blocks {1, 2, 3, 4} with 0 and 5
// outside.
func tiedModel() *mrf.Model {
	inf := math.Inf(-1)
	return &mrf.Model{
		Cards: []int{2, 3, 3, 2, 3, 2},
		Factors: []mrf.Factor{
			{Vars: []int{1, 2}, LogTable: []float64{0, inf, inf, inf, 0, inf, inf, inf, 0}},
			{Vars: []int{3, 1, 4}, LogTable: []float64{
				0.3, inf, 1.1, -0.4, 0.2, inf, 0.9, inf, -1.2,
				inf, 0.5, -0.7, 1.4, inf, 0.1, -0.3, 0.6, inf}},
			{Vars: []int{0, 1}, LogTable: []float64{0.8, -0.5, 0.1, -0.9, 1.3, 0.4}},
			{Vars: []int{2, 5}, LogTable: []float64{0.2, -1.1, 0.7, 0.3, -0.6, 1.0}},
			{Vars: []int{4, 5}, LogTable: []float64{-0.2, 0.9, 0.4, -0.8, 1.2, 0.0}},
			{Vars: []int{3}, LogTable: []float64{0.6, -0.6}},
			{Vars: []int{4}, LogTable: []float64{inf, 0.3, -0.2}},
			{Vars: []int{2}, LogTable: []float64{0.5, 0, -0.5}},
		},
	}
}

// A block draw is exact: the frequencies of the block's configurations
// over many draws, with the rest of the configuration held, match the
// tempered conditional computed by enumeration, at every temperature under
// both tempers.
func TestBlockDrawIsConditional(t *testing.T) {
	m := tiedModel()
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	vars := []int{1, 2, 3, 4}
	for _, all := range []bool{false, true} {
		for _, beta := range []float64{1, 0.4, 0} {
			t.Run(fmt.Sprintf("all=%v/beta=%v", all, beta), func(t *testing.T) {
				l := newLayout(m, g)
				if all {
					l.setTemperAll()
				}
				b := l.newBlock(vars, maxBlockTable, maxBlockCost)
				b.locate()
				l.blocks = []*block{b}
				w := newBlockWork(l.blocks, g.MaxCard)
				x := []int{1, 0, 0, 1, 1, 0} // 0 and 5 stay; the rest is redrawn
				want := blockConditional(l, x, vars, beta)
				r := l.newReplica(x)
				rng := mrf.NewRand(3)
				const n = 20000
				counts := map[int]int{} // by configuration, as a number in base 3
				for k := range n {
					l.sweepBlocks(r, beta, rng, w)
					counts[code(r.x)]++
					if k%1000 == 0 {
						if fresh := l.newReplica(append([]int(nil), r.x...)); !slices.Equal(fresh.idx, r.idx) {
							t.Fatalf("entry indices %v after a draw, want %v", r.idx, fresh.idx)
						}
					}
				}
				got := map[string]float64{}
				for c, k := range counts {
					got[fmt.Sprint(decode(c, len(x)))] = float64(k) / n
				}
				for k, p := range want {
					if se := math.Sqrt(p * (1 - p) / n); math.Abs(got[k]-p) > 5*se+1e-9 {
						t.Errorf("%s drawn with frequency %.4f, conditional %.4f", k, got[k], p)
					}
				}
				for k, q := range got {
					if _, ok := want[k]; !ok {
						t.Errorf("%s drawn with frequency %.4f, conditional 0", k, q)
					}
				}
			})
		}
	}
}

// blockConditional enumerates the configurations of vars with the rest of
// x held and returns their probabilities under l's tempered model at beta
// (those of probability 0 left out).
func blockConditional(l *layout, x, vars []int, beta float64) map[string]float64 {
	y := append([]int(nil), x...)
	logw := map[string]float64{}
	var walk func(k int)
	walk = func(k int) {
		if k == len(vars) {
			if lw := temperedLog(l, y, beta); !math.IsInf(lw, -1) {
				logw[fmt.Sprint(y)] = lw
			}
			return
		}
		for s := range l.cards[vars[k]] {
			y[vars[k]] = s
			walk(k + 1)
		}
	}
	walk(0)
	var all []float64
	for _, v := range logw {
		all = append(all, v)
	}
	lz := infer.LogSumExp(all)
	p := map[string]float64{}
	for k, v := range logw {
		p[k] = math.Exp(v - lz)
	}
	return p
}

// temperedLog is ln p_β(y) up to its normaliser, from the model's factors
// directly: -Inf at any zero; the finite entries of the factors of two or
// more variables times β, and the unary ones times β under temper "all".
func temperedLog(l *layout, y []int, beta float64) float64 {
	lw := 0.0
	for _, f := range l.m.Factors {
		v := f.LogTable[entryOf(f, l.cards, y)]
		switch {
		case math.IsInf(v, -1):
			return v
		case len(f.Vars) >= 2 || l.soft != nil:
			lw += beta * v
		default:
			lw += v
		}
	}
	return lw
}

func entryOf(f mrf.Factor, cards, y []int) int {
	t := 0
	for _, v := range f.Vars {
		t = t*cards[v] + y[v]
	}
	return t
}

// code numbers a configuration of variables of at most 3 states.
func code(x []int) int {
	c := 0
	for _, s := range x {
		c = 3*c + s
	}
	return c
}

func decode(c, n int) []int {
	x := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		x[i], c = c%3, c/3
	}
	return x
}
