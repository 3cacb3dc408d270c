package exact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/renn-go/renn/core/mrf"
)

// TestGemmMatchesNaive checks gemm with every micro kernel this machine
// runs against a triple loop: random shapes (odd sizes, k of 0 and 1, m
// and n off the tile, k and n over a packed block, products large enough
// to split), both transpositions of each operand, leading dimensions
// longer than the rows, and beta 0 (c's old NaNs must not show), 1 and 0.5.
func TestGemmMatchesNaive(t *testing.T) {
	r := mrf.NewRand(3)
	shapes := [][3]int{{1, 1, 1}, {11, 11, 11}, {12, 4, 1}, {13, 5, 0}, {1, 300, 7}, {300, 1, 7}, {5, 7, 600},
		{25, 270, 3}, {121, 121, 121}, {11, 1331, 121}, {4, 12, 257}, {140, 130, 90}}
	for range 40 {
		shapes = append(shapes, [3]int{1 + r.IntN(40), 1 + r.IntN(40), r.IntN(40)})
	}
	for name, micro := range testMicros() {
		for _, s := range shapes {
			for _, tr := range [][2]blas.Transpose{{blas.NoTrans, blas.NoTrans}, {blas.Trans, blas.NoTrans},
				{blas.NoTrans, blas.Trans}, {blas.Trans, blas.Trans}} {
				for _, beta := range []float64{0, 1, 0.5} {
					checkGemm(t, r, name, micro, tr[0], tr[1], s[0], s[1], s[2], beta)
				}
			}
		}
	}
}

func checkGemm(t *testing.T, r *rand.Rand, name string, micro microKernel, tA, tB blas.Transpose, m, n, k int, beta float64) {
	t.Helper()
	ar, ac := m, k
	if tA == blas.Trans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB == blas.Trans {
		br, bc = n, k
	}
	lda, ldb, ldc := ac+r.IntN(3), bc+r.IntN(3), n+r.IntN(3)
	a := randTable(r, max(ar*lda, 1))
	b := randTable(r, max(br*ldb, 1))
	c := randTable(r, m*ldc)
	want := make([]float64, len(c))
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				x, y := entry(a, lda, tA, i, p), entry(b, ldb, tB, p, j)
				s += x * y
			}
			want[i*ldc+j] = s + beta*c[i*ldc+j]
		}
	}
	if beta == 0 {
		for i := range c {
			c[i] = math.NaN()
		}
	}
	orig := slices.Clone(c)
	gemm(micro, tA, tB, m, n, k, a, lda, b, ldb, beta, c, ldc)
	for i := range m {
		for j := range n {
			got, w := c[i*ldc+j], want[i*ldc+j]
			if math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
				t.Fatalf("%s %c%c m%d n%d k%d beta %v: c[%d,%d] = %v, want %v", name, tA, tB, m, n, k, beta, i, j, got, w)
			}
		}
		for j := n; j < ldc; j++ {
			if math.Float64bits(c[i*ldc+j]) != math.Float64bits(orig[i*ldc+j]) {
				t.Fatalf("%s: padding of row %d written", name, i)
			}
		}
	}
}

// entry returns op(a)[i,j] of a row-major a.
func entry(a []float64, lda int, tr blas.Transpose, i, j int) float64 {
	if tr == blas.Trans {
		return a[j*lda+i]
	}
	return a[i*lda+j]
}

// TestGroupFill checks the offsets of a group's states from any start
// against a walk over all of them, and which groups are consecutive.
func TestGroupFill(t *testing.T) {
	for _, c := range []struct {
		g    group
		unit bool
	}{
		{group{step: 3}, false},
		{group{step: 1}, true},
		{group{card: []int{3, 4}, stride: []int{4, 1}}, true},
		{group{card: []int{3, 1, 4}, stride: []int{4, 9, 1}}, true},
		{group{card: []int{3, 4}, stride: []int{1, 3}}, false},
		{group{card: []int{2, 5, 3}, stride: []int{1, 30, 2}}, false},
		{group{card: []int{}, stride: []int{}}, true},
	} {
		n := 1
		for _, k := range c.g.card {
			n *= k
		}
		if c.g.card == nil {
			n = 7
		}
		want := make([]int, n)
		for i := range want {
			o, r := 0, i
			for d := len(c.g.card) - 1; d >= 0; d-- {
				o += r % c.g.card[d] * c.g.stride[d]
				r /= c.g.card[d]
			}
			if c.g.card == nil {
				o = i * c.g.step
			}
			want[i] = o
		}
		for start := range n {
			got := make([]int, n-start)
			c.g.fill(got, start)
			if !slices.Equal(got, want[start:]) {
				t.Fatalf("%+v from %d: offsets %v, want %v", c.g, start, got, want[start:])
			}
		}
		if c.g.consecutive() != c.unit {
			t.Errorf("%+v: consecutive %v, want %v", c.g, !c.unit, c.unit)
		}
	}
}

// TestGatherGemmMatchesNaive multiplies tables read through groups of
// their variables in scattered layouts (rows and columns interleaved in
// memory, groups longer than a packed block), with every micro kernel,
// against a triple loop over the groups' offsets.
func TestGatherGemmMatchesNaive(t *testing.T) {
	r := mrf.NewRand(9)
	for name, micro := range testMicros() {
		for trial := range 30 {
			// Variables 0, 1 form the rows, 2 the summed group, 3, 4 the
			// columns; each table holds its two groups in a random order.
			card := []int{1 + r.IntN(7), 1 + r.IntN(25), 1 + r.IntN(300), 1 + r.IntN(9), 1 + r.IntN(40)}
			xg, yg, cg := [][]int{{0, 1}, {2}}, [][]int{{2}, {3, 4}}, [][]int{{0, 1}, {3, 4}}
			layout := func(gs [][]int) []int {
				vs := append(slices.Clone(gs[0]), gs[1]...)
				r.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
				return vs
			}
			xl, yl, cl := layout(xg), layout(yg), layout(cg)
			x, y := randTable(r, tableSize(card, xl)), randTable(r, tableSize(card, yl))
			c := make([]float64, tableSize(card, cl))
			gx := newGathered(x, groupIn(card, xg[0], xl), groupIn(card, xg[1], xl))
			gy := newGathered(y, groupIn(card, yg[0], yl), groupIn(card, yg[1], yl))
			gc := newGathered(c, groupIn(card, cg[0], cl), groupIn(card, cg[1], cl))
			m, k, n := card[0]*card[1], card[2], card[3]*card[4]
			offs := func(g group, n int) []int {
				o := make([]int, n)
				g.fill(o, 0)
				return o
			}
			xr, xc, yr, yc, cr, cc := offs(gx.rows, m), offs(gx.cols, k), offs(gy.rows, k), offs(gy.cols, n), offs(gc.rows, m), offs(gc.cols, n)
			for i := range c {
				c[i] = math.NaN()
			}
			// The maximum gatherGemm takes as it writes is the table's.
			if mx := gatherGemm(micro, new(gemmBuffer), m, n, k, gx, gy, 0, gc, true); mx != maxOf(c) {
				t.Fatalf("%s trial %d cards %v: maximum %v, table's %v", name, trial, card, mx, maxOf(c))
			}
			for i := range m {
				for j := range n {
					want := 0.0
					for p := range k {
						want += x[xr[i]+xc[p]] * y[yr[p]+yc[j]]
					}
					if got := c[cr[i]+cc[j]]; math.Abs(got-want) > 1e-12*math.Max(1, want) {
						t.Fatalf("%s trial %d cards %v layouts %v %v %v: c[%d,%d] = %v, want %v", name, trial, card, xl, yl, cl, i, j, got, want)
					}
				}
			}
		}
	}
}
