package outputs

import (
	"math"
	"testing"
)

// TestAggregate checks every aggregate over runs and over summary cells
// (a fact with its _std and _n), wmean weighting each cell by its count.
func TestAggregate(t *testing.T) {
	run := func(x float64) *Fact {
		o := NewFact("p", "", nil, "", "m")
		o.Num["x"] = x
		return o
	}
	cell := func(mean, std, n float64) *Fact {
		o := run(mean)
		o.Num["x_std"], o.Num["x_n"] = std, n
		return o
	}
	runs := []*Fact{run(1), run(3), run(math.NaN())}
	cells := []*Fact{cell(1, 0.5, 1), cell(0.5, 0, 3), cell(math.NaN(), 0, 0)}
	for _, tc := range []struct {
		name string
		obs  []*Fact
		agg  string
		want float64
	}{
		{"mean of runs", runs[:2], "mean", 2},
		{"population std", runs[:2], "std", 1},
		{"max with NaN", runs, "max", math.NaN()},
		{"sum", runs[:2], "sum", 4},
		{"count", runs, "count", 3},
		{"rms", runs[:2], "rms", math.Sqrt(5)},
		{"a summary cell's own std", cells[:1], "std", 0.5},
		{"models of summary cells", cells, "n", 4},
		{"rms of a summary cell", cells[:1], "rms", math.Hypot(1, 0.5)},
		{"mean weighted by the cells' counts", cells, "wmean", (1*1 + 0.5*3) / 4},
	} {
		got, ok := Aggregate(tc.obs, "x", tc.agg)
		if !ok || !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := Aggregate(runs, "y", "mean"); ok {
		t.Error("an aggregate of a fact no run has is ok")
	}
	if _, ok := Aggregate(cells[2:], "x", "wmean"); ok {
		t.Error("wmean over cells of no model is ok")
	}
}
