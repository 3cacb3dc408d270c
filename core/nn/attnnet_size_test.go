package nn

import (
	"runtime"
	"strings"
	"testing"
)

// gridFaces returns the 2x2 plaquettes of an L x L grid, the roots renn
// builds on grids.
func gridFaces(L int) [][]int {
	var roots [][]int
	for i := 0; i+1 < L; i++ {
		for j := 0; j+1 < L; j++ {
			v := i*L + j
			roots = append(roots, []int{v, v + 1, v + L, v + L + 1})
		}
	}
	return roots
}

// The size estimate is checked against the bytes NewAttentionNet allocates,
// and a width whose blocks would need gigabytes is refused before
// allocating, naming --dim.
func TestAttentionNetSizeBound(t *testing.T) {
	cards := make([]int, 9)
	for i := range cards {
		cards[i] = 2
	}
	roots := gridFaces(3)
	states := []int{16, 16, 16, 16}
	for _, d := range []int{8, 64, 200} {
		est := netEntries(len(cards), d, roots, states, true)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		net, err := NewAttentionNet(len(cards), roots, cards, Config{Dim: d})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		params := 0
		for _, p := range net.Params() {
			params += len(p.Value)
		}
		// Every parameter has a value and a gradient; the estimate counts
		// values and activations, the allocation both.
		alloc := int64(after.TotalAlloc-before.TotalAlloc) / 8
		t.Logf("dim %d: estimate %d entries, %d parameters, %d float64s allocated", d, est, params, alloc)
		if est < int64(params) || alloc > 3*est || alloc < est {
			t.Errorf("dim %d: estimate %d entries, %d parameters, %d allocated", d, est, params, alloc)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewAttentionNet(len(cards), roots, cards, Config{Dim: 8192})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "--dim") || !strings.Contains(err.Error(), "above the bound") {
		t.Errorf("dim 8192: got %v, want a size error naming --dim", err)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
		t.Errorf("dim 8192: allocated %d bytes before refusing", a)
	}
}
