package exact

import (
	"context"
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func TestShapeKey(t *testing.T) {
	card := []int{2, 3, 2, 3, 4}
	base := shapeKey(card, []int{0, 1}, []int{1, 4}, []int{0, 4})
	for _, c := range []struct {
		name       string
		xv, yv, ov []int
		same       bool
	}{
		{"renamed, same cardinalities", []int{2, 3}, []int{3, 4}, []int{2, 4}, true},
		{"a cardinality differs", []int{0, 1}, []int{1, 3}, []int{0, 3}, false},
		{"x laid out otherwise", []int{1, 0}, []int{1, 4}, []int{0, 4}, false},
		{"output laid out otherwise", []int{0, 1}, []int{1, 4}, []int{4, 0}, false},
		{"x and y trade places", []int{1, 4}, []int{0, 1}, []int{0, 4}, false},
		{"a variable moves from y to the output", []int{0, 1}, []int{1}, []int{0, 4}, false},
	} {
		got := string(shapeKey(card, c.xv, c.yv, c.ov)) == string(base)
		if got != c.same {
			t.Errorf("%s: same key %v, want %v", c.name, got, c.same)
		}
	}
}

// TestKernelShapeOnly checks what the cache relies on: a kernel made for a
// contraction with its variables renamed (any permutation of their
// numbers) computes the same bits, kernels of every kind included.
func TestKernelShapeOnly(t *testing.T) {
	r := mrf.NewRand(36)
	kinds := map[string]int{}
	for trial := range 1000 {
		card, xv, yv, ov := randomContraction(r, false)
		nv := len(card)
		if tableSize(card, xv)*tableSize(card, yv) > 1<<20 {
			continue
		}
		name := r.Perm(nv)
		rcard := make([]int, nv)
		for v, w := range name {
			rcard[w] = card[v]
		}
		rename := func(vs []int) []int {
			out := make([]int, len(vs))
			for i, v := range vs {
				out[i] = name[v]
			}
			return out
		}
		k, rk := newKernel(card, xv, yv, ov), newKernel(rcard, rename(xv), rename(yv), rename(ov))
		kinds[kernelKind(k)]++
		if kernelKind(k) != kernelKind(rk) {
			t.Fatalf("trial %d: a %s kernel, renamed a %s one", trial, kernelKind(k), kernelKind(rk))
		}
		x, y := signedTable(r, tableSize(card, xv), trial), signedTable(r, tableSize(card, yv), trial+1)
		pl := &pool{free: map[int][][]float64{}, limit: 1 << 30}
		want, got := nanTable(tableSize(card, ov)), nanTable(tableSize(card, ov))
		k.compute(x, y, want, pl, false)
		rk.compute(x, y, got, pl, false)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d (%s): entry %d = %v renamed, %v", trial, kernelKind(k), i, got[i], want[i])
			}
		}
	}
	for _, kind := range []string{"sweep", "blocks", "matrix products", "gathered products"} {
		if kinds[kind] < 10 {
			t.Errorf("only %d %s kernels of %v", kinds[kind], kind, kinds)
		}
	}
}

func kernelKind(k *kernel) string {
	switch {
	case k.bg != nil:
		return "blocks"
	case k.mm != nil && k.mm.g != nil:
		return "gathered products"
	case k.mm != nil:
		return "matrix products"
	}
	return "sweep"
}

// TestPlanSharesKernels solves a grid, whose many pairwise factors lie
// alike, and requires its plan to make far fewer kernels than it uses.
func TestPlanSharesKernels(t *testing.T) {
	pr, err := Prepare(gridModel(t, 8, 1, 3), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Solve(context.Background()); err != nil {
		t.Fatal(err)
	}
	used, made := 0, map[*kernel]bool{}
	count := func(k *kernel) {
		if k != nil {
			used++
			made[k] = true
		}
	}
	for _, ks := range pr.p.kern {
		for _, k := range ks {
			count(k)
		}
	}
	for _, ks := range pr.p.leafKern {
		for _, k := range ks {
			count(k)
		}
	}
	if used < 200 || len(made)*3 > used {
		t.Errorf("the plan made %d kernels for %d uses", len(made), used)
	}
}
