package exact

import (
	"errors"
	"math"
	"slices"
)

// Tables hold scaled linear values, so an entry below float64's range
// relative to its table's maximum is lost: harmless while the entries that
// carry the partition function stay in range, wrong when contractions
// multiply such entries together (spin glasses with couplings in the
// hundreds: every product of a contraction can fall below 2^-1022 although
// Z is positive). The forward pass therefore carries, per table, a bound on
// the absolute error of its entries from flushed values (lerr), a lower
// bound on its positive entries (lmin) and its maximum (lmax), all natural
// logs in the units of its stored values. A slice whose Z is not certain to
// 1e-12 relative by that bound (or whose zero might be an underflow) is
// solved again in log space (logSlice), exactly and more slowly.

// Natural logs of the smallest normal float64 (a product below it may be
// rounded to the denormal grid or to zero) and of the denormal spacing
// (the absolute error of such a rounding).
const (
	lnTiny   = -708.3964185322641
	lnDenorm = -744.4400719213812
)

// maxRelErr is the relative error of a slice's Z that the linear run
// accepts.
const maxRelErr = 1e-12

// errImprecise stops a slice whose linear run cannot vouch for its Z.
var errImprecise = errors.New("exact: slice beyond the range of scaled linear tables")

// logAdd returns ln(e^a + e^b).
func logAdd(a, b float64) float64 {
	hi, lo := max(a, b), min(a, b)
	if math.IsInf(hi, -1) {
		return hi
	}
	return hi + math.Log1p(math.Exp(lo-hi))
}

// bound sets out's error bounds for out = Σ x·y over e^lnK summed states,
// computed and then divided by e^ls; it reports false if out is all zero
// but might not be (an underflow, not a zero of the model).
func bound(x, y, out *table, lnK, ls float64) bool {
	raw := lnK + logAdd(logAdd(x.lerr+y.lmax, y.lerr+x.lmax), x.lerr+y.lerr)
	if x.lmin+y.lmin < lnTiny { // a product may have been rounded
		raw = logAdd(raw, lnK+lnDenorm)
	}
	if math.IsInf(ls, -1) {
		return math.IsInf(raw, -1)
	}
	out.lerr, out.lmin = raw-ls, x.lmin+y.lmin-ls
	if out.lmin < lnTiny { // stored on the denormal grid
		out.lerr = logAdd(out.lerr, lnDenorm)
	}
	return true
}

// precise reports whether a scalar table's value v is within maxRelErr of
// the true one. A value out of float64's range (an infinity or NaN, as
// scaling a table whose maximum is denormal by its inverse leaves) is not.
func (t *table) precise(v float64) bool {
	return v > 0 && v <= math.MaxFloat64 && t.lerr-math.Log(v) < math.Log(maxRelErr)
}

// lnSummed returns ln of the number of joint states of the variables of
// xv or yv that ov lacks: the terms of each sum of a contraction.
func lnSummed(card []int, xv, yv, ov []int) float64 {
	s := 0.0
	for _, v := range xv {
		if !slices.Contains(ov, v) {
			s += math.Log(float64(card[v]))
		}
	}
	for _, v := range yv {
		if !slices.Contains(ov, v) && !slices.Contains(xv, v) {
			s += math.Log(float64(card[v]))
		}
	}
	return s
}

// logContract returns out[ov] = ln Σ exp(x[xv] + y[yv]) over the variables
// ov lacks, for tables of logs (y nil: a scalar 0).
func logContract(card []int, x []float64, xv []int, y []float64, yv []int, ov []int) []float64 {
	if y == nil {
		y = []float64{0}
	}
	var sum []int
	for _, vs := range [][]int{xv, yv} {
		for _, v := range vs {
			if !slices.Contains(ov, v) && !slices.Contains(sum, v) {
				sum = append(sum, v)
			}
		}
	}
	n, no := tableSize(card, sum), tableSize(card, ov)
	offsets := func(vs, over []int, count int) []int {
		off := make([]int, count)
		odometer(card, over, stridesIn(card, vs, over), func(k, o int) { off[k] = o })
		return off
	}
	xs, ys := offsets(xv, sum, n), offsets(yv, sum, n)
	xo, yo := offsets(xv, ov, no), offsets(yv, ov, no)
	out := make([]float64, no)
	terms := make([]float64, n)
	for o := range out {
		mx := math.Inf(-1)
		for k := range terms {
			terms[k] = x[xo[o]+xs[k]] + y[yo[o]+ys[k]]
			mx = max(mx, terms[k])
		}
		if math.IsInf(mx, -1) {
			out[o] = mx
			continue
		}
		t := 0.0
		for _, v := range terms {
			t += math.Exp(v - mx)
		}
		out[o] = mx + math.Log(t)
	}
	return out
}

// logSlice is runSlice in log space: every table holds the logs of its
// entries, so no value leaves float64's range. It adds the slice's leaf
// marginals to acc unless the slice's Z is zero.
func (p *cplan) logSlice(assign []int, acc *accum) {
	nw, card := p.nw, p.nw.card
	subs := make([][]float64, len(nw.leaves))
	subVars := make([][]int, len(nw.leaves))
	leaf := make([][]float64, len(nw.leaves))
	for i := range nw.leaves {
		subs[i], subVars[i] = p.restrictVals(i, nw.leafLogs(i), assign)
		leaf[i] = logContract(card, subs[i], subVars[i], nil, nil, p.leafVars[i])
	}
	operand := func(val [][]float64, o int) ([]float64, []int) {
		if o < 0 {
			return leaf[-1-o], p.leafVars[-1-o]
		}
		return val[o], p.steps[o].vars
	}
	marginal := func(i int, adj []float64) {
		pm := logContract(card, subs[i], subVars[i], adj, p.leafVars[i], subVars[i])
		mx := slices.Max(pm)
		for k, v := range pm {
			pm[k] = math.Exp(v - mx)
		}
		acc.add(i, p.sliced, assign, pm)
	}
	if len(p.steps) == 0 {
		if len(leaf) == 1 && !math.IsInf(leaf[0][0], -1) {
			acc.begin(leaf[0][0])
			marginal(0, []float64{0})
		}
		return
	}
	val := make([][]float64, len(p.steps))
	for k := range p.steps {
		s := &p.steps[k]
		x, xv := operand(val, s.x)
		y, yv := operand(val, s.y)
		val[k] = logContract(card, x, xv, y, yv, s.vars)
	}
	root := len(p.steps) - 1
	if math.IsInf(val[root][0], -1) {
		return
	}
	acc.begin(val[root][0])
	adj := make([][]float64, len(p.steps))
	adj[root] = []float64{0}
	for k := root; k >= 0; k-- {
		s := &p.steps[k]
		for i, o := range []int{s.x, s.y} {
			other := s.y
			if i == 1 {
				other = s.x
			}
			y, yv := operand(val, other)
			_, ov := operand(val, o)
			a := logContract(card, adj[k], s.vars, y, yv, ov)
			if o < 0 {
				marginal(-1-o, a)
			} else {
				adj[o] = a
			}
		}
		adj[k], val[k] = nil, nil
	}
}
