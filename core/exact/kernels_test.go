package exact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestKernelsMatchContract runs random contractions of every shape (batch,
// kept, summed groups of random sizes, layouts in random orders) through
// the prepared kernels, matrix products included, and checks them against
// a plain sum over every joint state: small ones, and ones over at least
// parallelMin joint states, whose loops are split between two workers.
func TestKernelsMatchContract(t *testing.T) {
	r, rz := mrf.NewRand(5), mrf.NewRand(6)
	gemm, gathers, blocks := 0, 0, 0
	split := splitCounts{}
	for trial := 0; trial < 600; trial++ {
		large := trial >= 500
		card, xv, yv, ov := randomContraction(r, large)
		if !large && tableSize(card, xv)*tableSize(card, yv) > 1<<22 {
			continue
		}
		k := checkContraction(t, r, rz, trial, card, xv, yv, ov)
		if k.mm != nil {
			gemm++
			if k.mm.g != nil {
				gathers++
			}
		}
		if k.bg != nil {
			blocks++
		}
		split.addKernel(k)
	}
	if gemm-gathers < 20 || gathers < 20 || blocks < 20 {
		t.Errorf("only %d contractions ran as permuted matrix products, %d as products on the tables in place, %d as blocks",
			gemm-gathers, gathers, blocks)
	}
	split.require(t, 3, splitSweep, splitBlocks, splitPermute, splitDgemm, splitGather, splitRows)
}

// randomContraction draws cardinalities and the variables of x, y and out:
// every variable in x or y, out any subset of their union in which no
// variable is summed in one table alone. With large, the union has from
// parallelMin to 4 parallelMin joint states (drawn again until it has).
func randomContraction(r *rand.Rand, large bool) (card, xv, yv, ov []int) {
	for {
		nv := 2 + r.IntN(6)
		card = make([]int, nv)
		for v := range card {
			card[v] = 1 + r.IntN(6)
			if r.IntN(3) == 0 {
				card[v] = 8 + r.IntN(24)
			}
		}
		if n := tableSize(card, seq(nv)); !large || (n >= parallelMin && n <= 4*parallelMin) {
			break
		}
	}
	xv, yv, ov = nil, nil, nil
	for _, v := range r.Perm(len(card)) {
		switch r.IntN(3) {
		case 0:
			xv = append(xv, v)
		case 1:
			yv = append(yv, v)
		default:
			xv = append(xv, v)
			yv = append(yv, v)
		}
	}
	for _, v := range r.Perm(len(card)) {
		inX, inY := contains(xv, v), contains(yv, v)
		if (inX != inY) || r.IntN(2) == 0 {
			ov = append(ov, v)
		}
	}
	return card, xv, yv, ov
}

// checkContraction runs one contraction through its prepared kernel (x
// with zeros on every third trial, as evidence and hard constraints give)
// and fails t unless every entry and the maximum match the plain sum. It
// returns the kernel.
func checkContraction(t *testing.T, r, rz *rand.Rand, trial int, card, xv, yv, ov []int) *kernel {
	t.Helper()
	x := randTable(r, tableSize(card, xv))
	y := randTable(r, tableSize(card, yv))
	if trial%3 == 0 {
		for i := range x {
			if rz.IntN(4) == 0 {
				x[i] = 0
			}
		}
	}
	want := bruteContract(card, x, xv, y, yv, ov)
	k := newKernel(card, xv, yv, ov)
	out := nanTable(len(want)) // the kernel must write every entry
	pl := &pool{free: map[int][][]float64{}, limit: 1 << 30}
	// The maximum the kernel took as it wrote is the table's, however
	// small the table (run takes it so from fuseMin on).
	if mx := k.compute(x, y, out, pl, true); mx != maxOf(out) {
		t.Fatalf("trial %d (matmul %v, blocks %v): kernel's maximum %v, table's %v", trial, k.mm != nil, k.bg != nil, mx, maxOf(out))
	}
	for i := range want {
		// Negated, so that an entry left NaN fails.
		if !(math.Abs(out[i]-want[i]) <= 1e-12*math.Max(1, math.Abs(want[i]))) {
			t.Fatalf("trial %d (matmul %v, blocks %v): x%v y%v out%v cards %v: entry %d = %v, want %v", trial, k.mm != nil, k.bg != nil, xv, yv, ov, card, i, out[i], want[i])
		}
	}
	return k
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func randTable(r interface{ Float64() float64 }, n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = r.Float64()
	}
	return t
}

// bruteContract sums x·y over every joint state of all variables.
func bruteContract(card []int, x []float64, xv []int, y []float64, yv []int, ov []int) []float64 {
	out := make([]float64, tableSize(card, ov))
	all := make([]int, len(card))
	for v := range all {
		all[v] = v
	}
	index := func(vs []int, idx []int) int {
		o := 0
		for _, v := range vs {
			o = o*card[v] + idx[v]
		}
		return o
	}
	states(card, all, func(_ int, idx []int) {
		out[index(ov, idx)] += x[index(xv, idx)] * y[index(yv, idx)]
	})
	// Variables in no table multiply every entry by their cardinality.
	for v := range card {
		if !contains(xv, v) && !contains(yv, v) && !contains(ov, v) {
			for i := range out {
				out[i] /= float64(card[v])
			}
		}
	}
	return out
}

func TestNormaliseMaxSubnormal(t *testing.T) {
	for _, mx := range []float64{1e-320, 3e-310, math.SmallestNonzeroFloat64, 1e-300, 5} {
		vals := []float64{mx, mx / 2, 0}
		ls, lmax := normaliseMax(vals, true)
		half := 0.5
		if mx/2 == 0 {
			half = 0
		}
		if math.Abs(vals[0]-1) > 1e-15 || math.Abs(vals[1]-half) > 1e-3 || vals[2] != 0 {
			t.Errorf("max %g: normalised to %v, want [1 ~0.5 0]", mx, vals)
		}
		if ls != math.Log(mx) || lmax != 0 {
			t.Errorf("max %g: log scale %g, log max %g; want %g, 0", mx, ls, lmax, math.Log(mx))
		}
	}
}
