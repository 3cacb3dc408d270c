package exact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestSmallGemmBitIdentical runs random batches of small products (groups
// B, L, K, R of random sizes, every table in a random order of its
// variables, so y and the output are read in place or copied, either way
// round) by rows and by gatherGemm, and requires the same bits in every
// entry and the same maximum: both compute each entry as one chain of fused
// multiply-adds in the same order. Every product runs again with a batch
// variable added outermost, which makes it reach parallelMin multiply-adds,
// so its batches are split between two workers.
func TestSmallGemmBitIdentical(t *testing.T) {
	r := mrf.NewRand(33)
	ran, split := map[[3]bool]int{}, map[[3]bool]int{}
	for trial := 0; trial < 2000; trial++ {
		card, xv, yv, ov := randomProduct(r)
		bcard, bxv, byv, bov := withSplitBatch(card, xv, yv, ov)
		for _, p := range [][4][]int{{card, xv, yv, ov}, {bcard, bxv, byv, bov}} {
			layout, splits, ok := checkRows(t, r, trial, p[0], p[1], p[2], p[3])
			if !ok {
				break
			}
			ran[layout]++
			if splits {
				split[layout]++
			}
		}
	}
	t.Logf("row-kernel products by layout %v, of them split %v", ran, split)
	if !hasSmallRows {
		return // gatherGemm runs every product
	}
	for _, tr := range []bool{false, true} {
		for _, py := range []bool{false, true} {
			for _, po := range []bool{false, true} {
				l := [3]bool{tr, py, po}
				if split[l] < 3 || ran[l]-split[l] < 3 {
					t.Errorf("transposed %v, y copied %v, out copied %v: %d products split, %d unsplit; want 3 of each",
						tr, py, po, split[l], ran[l]-split[l])
				}
			}
		}
	}
}

// checkRows runs one batch of products by rows and by gatherGemm and fails
// t unless they give the same bits and maximum. The outputs start as NaNs
// of different bits, so an entry neither writes fails too. It returns the
// row kernel's layout (transposed, y copied, out copied) and whether the
// batches were split between two workers; ok is false if the product has
// no row kernel.
func checkRows(t *testing.T, r *rand.Rand, trial int, card, xv, yv, ov []int) (layout [3]bool, split, ok bool) {
	t.Helper()
	m := newMatmul(card, xv, yv, ov)
	if m == nil {
		return layout, false, false
	}
	m.prepare(card, xv, yv, ov)
	if m.small == nil {
		return layout, false, false
	}
	if !hasSmallRows {
		t.Fatalf("a row kernel on a CPU without one")
	}
	s := m.small
	layout = [3]bool{s.transposed, s.packY, s.packO}
	x := signedTable(r, tableSize(card, xv), trial)
	y := signedTable(r, tableSize(card, yv), trial+1)
	k := &kernel{card: card, xv: xv, yv: yv, ov: ov, mm: m}
	pl := &pool{free: map[int][][]float64{}, limit: 1 << 30}
	got := nanTable(tableSize(card, ov))
	gotMax := k.compute(x, y, got, pl, true)
	m.small = nil
	want := make([]float64, len(got))
	for i := range want {
		want[i] = math.Float64frombits(0x7ff8_0000_0bad_f00d)
	}
	wantMax := k.compute(x, y, want, pl, true)
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("trial %d x%v y%v out%v cards %v (m%d n%d k%d, %+v): entry %d = %v, gatherGemm's %v",
				trial, xv, yv, ov, card, s.m, s.n, s.k, layout, i, got[i], want[i])
		}
	}
	if gotMax != wantMax {
		t.Fatalf("trial %d: maximum %v, gatherGemm's %v", trial, gotMax, wantMax)
	}
	return layout, m.nb >= 2 && m.nb*m.nl*m.nk*m.nr >= parallelMin, true
}

// withSplitBatch adds to a product a batch variable, outermost in every
// table (so the tables are read and written as the product's were), with
// enough states that the products reach parallelMin multiply-adds.
func withSplitBatch(card, xv, yv, ov []int) ([]int, []int, []int, []int) {
	n := tableSize(card, seq(len(card)))
	b := len(card)
	card = append(slices.Clone(card), max(2, (parallelMin+n-1)/n))
	outer := func(vs []int) []int { return append([]int{b}, vs...) }
	return card, outer(xv), outer(yv), outer(ov)
}

// randomProduct returns cardinalities and the variables of x, y and out of
// a batch of products whose groups B, L, K and R have up to 20 states (1 to
// 3 variables each, B up to 600 states), each table in a random order.
func randomProduct(r interface {
	IntN(int) int
	Perm(int) []int
}) (card, xv, yv, ov []int) {
	var groups [4][]int
	for g := range groups {
		n := 1 + r.IntN(3)
		if g == 0 {
			n = r.IntN(4)
		}
		size := 1
		for range n {
			c := 1 + r.IntN(6)
			if g != 0 && size*c > 20 {
				c = 1 + r.IntN(2)
			}
			if g == 0 && size*c > 600 {
				break
			}
			size *= c
			groups[g] = append(groups[g], len(card))
			card = append(card, c)
		}
	}
	b, l, k, rr := groups[0], groups[1], groups[2], groups[3]
	shuffle := func(vs []int) []int {
		out := make([]int, len(vs))
		for i, j := range r.Perm(len(vs)) {
			out[i] = vs[j]
		}
		return out
	}
	return card, shuffle(concat(b, l, k)), shuffle(concat(b, k, rr)), shuffle(concat(b, l, rr))
}

// signedTable returns n random entries of both signs, every fourth one zero
// on odd seeds (as evidence gives), and a few huge or tiny ones.
func signedTable(r interface{ Float64() float64 }, n, seed int) []float64 {
	t := randTable(r, n)
	for i := range t {
		switch {
		case seed%2 == 1 && i%4 == 0:
			t[i] = 0
		case i%7 == 0:
			t[i] = -t[i]
		case i%11 == 0:
			t[i] *= 1e300
		case i%13 == 0:
			t[i] *= 1e-300
		}
	}
	return t
}

func nanTable(n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = math.NaN()
	}
	return t
}

// BenchmarkSmallGemm times batches of small products of the shapes and
// layouts the plans of the UAI stand-ins give, by rows and by gatherGemm:
// the Potts stand-in's largest (variables of 11 states, tables as its plan
// lays them out), and others with each group one variable (B, L, K, R).
func BenchmarkSmallGemm(b *testing.B) {
	potts := []struct {
		name      string
		x, y, out []int
	}{
		{"y-copied", []int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 6, 5}, []int{0, 1, 2, 3, 4, 6}},
		{"out-copied", []int{0, 1, 2, 3, 4, 6}, []int{0, 1, 2, 3, 6, 5}, []int{5, 0, 1, 2, 4, 3}},
		{"in-place", []int{0, 1, 2, 3, 4, 6}, []int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 6, 5}},
		{"r121", []int{3, 4, 6, 2, 7}, []int{3, 4, 6, 7, 0, 1}, []int{0, 1, 2, 3, 4, 6}},
	}
	r := mrf.NewRand(1)
	for _, c := range potts {
		benchProducts(b, r, "potts/"+c.name, []int{11, 11, 11, 11, 11, 11, 11, 11}, c.x, c.y, c.out)
	}
	cases := []struct {
		name           string
		nb, nl, nk, nr int
		x, y, out      string
	}{
		{"r121/batch-fastest", 1331, 11, 11, 121, "BLK", "BKR", "LRB"},
		{"csp/k64", 256, 16, 64, 16, "BLK", "BRK", "LRB"},
		{"csp/l4", 256, 4, 4, 64, "BLK", "BKR", "LRB"},
		{"promedas/l4", 512, 4, 16, 256, "BLK", "BKR", "LRB"},
		{"mln/r32", 128, 16, 4, 32, "BLK", "BKR", "LRB"},
		{"mln/r16", 256, 16, 4, 16, "BLK", "BKR", "LRB"},
		{"segmentation/k32", 256, 8, 32, 16, "BLK", "BKR", "LRB"},
		{"segmentation/l4", 8, 4, 4, 256, "BLK", "BKR", "LRB"},
		{"segmentation/k16", 32, 32, 16, 4, "BLK", "BKR", "LRB"},
		{"l256/in-place", 64, 256, 64, 16, "BLK", "BKR", "BLR"},
		{"l64/in-place", 256, 64, 16, 16, "BLK", "BKR", "BLR"},
	}
	for _, c := range cases {
		vars := func(layout string) []int {
			vs := make([]int, len(layout))
			for i, g := range layout {
				vs[i] = map[rune]int{'B': 0, 'L': 1, 'K': 2, 'R': 3}[g]
			}
			return vs
		}
		benchProducts(b, r, c.name, []int{c.nb, c.nl, c.nk, c.nr}, vars(c.x), vars(c.y), vars(c.out))
	}
}

func benchProducts(b *testing.B, r *rand.Rand, name string, card, xv, yv, ov []int) {
	x, y := randTable(r, tableSize(card, xv)), randTable(r, tableSize(card, yv))
	out := make([]float64, tableSize(card, ov))
	for _, path := range []string{"rows", "gatherGemm"} {
		m := newMatmul(card, xv, yv, ov)
		m.prepare(card, xv, yv, ov)
		if m.small == nil && path == "rows" {
			continue
		}
		if path == "gatherGemm" {
			m.small = nil
		}
		k := &kernel{card: card, xv: xv, yv: yv, ov: ov, mm: m}
		b.Run(name+"/"+path, func(b *testing.B) {
			for b.Loop() {
				k.compute(x, y, out, nil, true)
			}
		})
	}
}
