package metrics

import (
	"math"
	"testing"
)

func sameOrNaN(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestTailMeanAndLowest(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name         string
		curve        []float64
		k            int
		tail, lowest float64
	}{
		{"last k", []float64{9, 1, 2, 3}, 3, 2, 1},
		{"fewer epochs than k", []float64{1, 3}, 10, 2, 1},
		{"NaN epochs skipped", []float64{9, nan, 4}, 2, 4, 4},
		{"all NaN", []float64{nan}, 1, nan, nan},
		{"empty", nil, 3, nan, nan},
	} {
		if got := TailMean(tc.curve, tc.k); !sameOrNaN(got, tc.tail) {
			t.Errorf("%s: TailMean = %v, want %v", tc.name, got, tc.tail)
		}
		if got := Lowest(tc.curve); !sameOrNaN(got, tc.lowest) {
			t.Errorf("%s: Lowest = %v, want %v", tc.name, got, tc.lowest)
		}
	}
}

func TestMeanCurve(t *testing.T) {
	got := MeanCurve([][]float64{{4, 2}, {6}, {math.NaN(), 1, 0}})
	// epoch 1: (4+6)/2, NaN skipped; epoch 2: (2+6+1)/3; epoch 3: (2+6+0)/3.
	want := []float64{5, 3, 8.0 / 3}
	if len(got) != len(want) {
		t.Fatalf("MeanCurve: %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("MeanCurve[%d] = %g, want %g", i, got[i], want[i])
		}
	}
	if got := MeanCurve([][]float64{{math.NaN()}}); len(got) != 1 || !math.IsNaN(got[0]) {
		t.Errorf("all NaN: %v", got)
	}
}

func TestLastWithin(t *testing.T) {
	secs := []float64{1.5, 1.5, 1.5, 1.5, 1.5}
	for _, tc := range []struct {
		budget float64
		want   int
	}{{6, 3}, {1, -1}, {100, 4}, {1.5, 0}} {
		if got := LastWithin(secs, tc.budget); got != tc.want {
			t.Errorf("LastWithin(budget %v) = %d, want %d", tc.budget, got, tc.want)
		}
	}
}

func TestGrowthExponent(t *testing.T) {
	n := []float64{10, 100, 1000, 10000}
	y := []float64{5, 3 * math.Pow(100, 1.1), 3 * math.Pow(1000, 1.1), 3 * math.Pow(10000, 1.1)}
	if got := GrowthExponent(n, y, 100); math.Abs(got-1.1) > 1e-12 {
		t.Errorf("slope %g, want 1.1", got)
	}
	if got := GrowthExponent(n, y, 5000); !math.IsNaN(got) {
		t.Errorf("one point: slope %g, want NaN", got)
	}
	if got := GrowthExponent(n, []float64{1, math.NaN(), 0, 4}, 1); math.Abs(got-math.Log(4)/math.Log(1000)) > 1e-12 {
		t.Errorf("NaN and 0 not skipped: %g", got)
	}
}

func TestMaxAbsDiffAndRMS(t *testing.T) {
	a := [][]float64{{0.3, 0.7}, nil, {0.5, 0.5}}
	if d, ok := MaxAbsDiff(a, [][]float64{{0.2, 0.8}, nil, {0.5, 0.5}}); !ok || math.Abs(d-0.1) > 1e-12 {
		t.Errorf("MaxAbsDiff = %v, %v; want 0.1, true", d, ok)
	}
	for _, b := range [][][]float64{{{0.3, 0.7}, nil}, {{0.3, 0.7}, {1}, {0.5, 0.5}}, {{0.3}, nil, {0.5, 0.5}}} {
		if _, ok := MaxAbsDiff(a, b); ok {
			t.Errorf("MaxAbsDiff(%v) matched", b)
		}
	}
	if got := RootMeanSquare([]float64{3, -4}); math.Abs(got-math.Sqrt(12.5)) > 1e-12 {
		t.Errorf("RMS %g", got)
	}
	if !math.IsNaN(RootMeanSquare(nil)) {
		t.Error("RMS of nothing is not NaN")
	}
}
