package exact

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestLogMarginalsBruteForce checks ln p(x_v) against enumeration of every
// joint state on a small RBM-like model (4 visible, 3 hidden) with the hidden
// variables in the middle of the numbering.
func TestLogMarginalsBruteForce(t *testing.T) {
	edges, err := mrf.BipartiteEdges(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	m := mrf.RandomIsingWith(7, edges, mrf.Normal(0.7), mrf.Normal(1.2), 3)
	hidden := []int{1, 4, 6}
	vis := mrf.Visible(hidden, 7)
	var xs [][]int
	for s := 0; s < 1<<len(vis); s++ {
		x := make([]int, len(vis))
		for k := range x {
			x[k] = (s >> k) & 1
		}
		xs = append(xs, x, x) // every vector twice: the repeat is looked up
	}
	got, logZ, err := LogMarginals(m, vis, xs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// Brute force: Z and Z(x_v) by summing over all 2^7 states.
	z := 0.0
	zv := map[int]float64{}
	full := make([]int, 7)
	for s := 0; s < 1<<7; s++ {
		for i := range full {
			full[i] = (s >> i) & 1
		}
		w := math.Exp(m.LogScore(full))
		z += w
		key := 0
		for k, v := range vis {
			key |= full[v] << k
		}
		zv[key] += w
	}
	if math.Abs(logZ-math.Log(z)) > 1e-10 {
		t.Fatalf("ln Z %v, brute force %v", logZ, math.Log(z))
	}
	total := 0.0
	for s, x := range xs {
		key := 0
		for k, v := range x {
			key |= v << k
		}
		want := math.Log(zv[key] / z)
		if math.Abs(got[s]-want) > 1e-10 {
			t.Errorf("vector %v: ln p %v, brute force %v", x, got[s], want)
		}
		total += math.Exp(got[s]) / 2
	}
	if math.Abs(total-1) > 1e-10 {
		t.Errorf("p(x_v) sums to %v", total)
	}
}
