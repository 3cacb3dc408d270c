package exact

import "slices"

// contract writes into out (over ov) the product of x (over xv) and y (over
// yv) summed over the variables out lacks:
//
//	out[ov] = Σ x[xv] · y[yv]
//
// Every table is row-major over its variable list (last fastest) with
// card[v] states per variable. A variable of ov that neither operand holds
// is broadcast (out is constant along it).
func contract(card []int, x []float64, xv []int, y []float64, yv []int, out []float64, ov []int) {
	dims := make([]int, 0, len(ov)+len(xv)+len(yv))
	for _, vs := range [][]int{ov, xv, yv} {
		for _, v := range vs {
			if !slices.Contains(dims, v) {
				dims = append(dims, v)
			}
		}
	}
	cards := make([]int, len(dims))
	for d, v := range dims {
		cards[d] = card[v]
	}
	st := [][]int{stridesIn(card, xv, dims), stridesIn(card, yv, dims), stridesIn(card, ov, dims)}
	g := newGeom(cards, st, []int{2}, 2, 2)
	sumProduct(g, [][]float64{x, y}, out, false)
}

// stridesIn returns, for every variable of dims, its row-major stride in a
// table over vars, or 0 if vars lacks it.
func stridesIn(card []int, vars, dims []int) []int {
	st := make([]int, len(dims))
	s := 1
	for i := len(vars) - 1; i >= 0; i-- {
		if d := slices.Index(dims, vars[i]); d >= 0 {
			st[d] = s
		}
		s *= card[vars[i]]
	}
	return st
}
