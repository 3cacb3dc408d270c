package region

import (
	"slices"
	"testing"
)

// Prune narrows parents to states whose child state is allowed and children
// to states some allowed parent state reaches, through a chain of edges, and
// leaves arc-consistent masks alone.
func TestPrune(t *testing.T) {
	// Regions: 0 = {a,b}, 1 = {b,c}, 2 = {b}; edges 0→2 and 1→2. Region
	// 0 allows only b=0 states, region 1 only (b=1, c=0) and (b=0, c=1).
	toB0 := []int32{0, 1, 0, 1} // {a,b} → {b}
	toB1 := []int32{0, 0, 1, 1} // {b,c} → {b}
	edges := []Edge{{Parent: 0, Child: 2, Map: toB0}, {Parent: 1, Child: 2, Map: toB1}}
	allowed := [][]bool{{true, false, true, false}, {false, true, true, false}, {true, true}}
	if !Prune(allowed, edges) {
		t.Fatal("nothing removed")
	}
	want := [][]bool{{true, false, true, false}, {false, true, false, false}, {true, false}}
	for r := range want {
		if !slices.Equal(allowed[r], want[r]) {
			t.Errorf("region %d: allowed %v, want %v", r, allowed[r], want[r])
		}
	}
	if Prune(allowed, edges) {
		t.Error("pruned arc-consistent masks again")
	}
}

func TestMaxInconsistency(t *testing.T) {
	edges := []Edge{{Parent: 0, Child: 1, Map: []int32{0, 1, 0, 1}}}
	b := [][]float64{{0.1, 0.2, 0.3, 0.4}, {0.4, 0.6}}
	if got := MaxInconsistency(edges, b); got > 1e-15 {
		t.Errorf("consistent beliefs: %v", got)
	}
	b[1] = []float64{0.5, 0.5}
	if got := MaxInconsistency(edges, b); got < 0.1-1e-12 || got > 0.1+1e-12 {
		t.Errorf("off by 0.1: %v", got)
	}
}
