package metrics

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func TestHellingerDistance(t *testing.T) {
	tests := []struct {
		name string
		p, q []float64
		want float64
	}{
		{"equal", []float64{0.3, 0.7}, []float64{0.3, 0.7}, 0},
		{"disjoint", []float64{1, 0}, []float64{0, 1}, 1},
		// sqrt(1 - (sqrt(.5*.8) + sqrt(.5*.2))) = sqrt(1 - 0.9486833) .
		{"binary", []float64{0.5, 0.5}, []float64{0.8, 0.2}, math.Sqrt(1 - (math.Sqrt(0.4) + math.Sqrt(0.1)))},
		// Three states: Σ sqrt(pq) = sqrt(.25*.5)+sqrt(.25*.25)+sqrt(.5*.25).
		{"three", []float64{0.25, 0.25, 0.5}, []float64{0.5, 0.25, 0.25}, math.Sqrt(1 - (2*math.Sqrt(0.125) + 0.25))},
	}
	for _, tt := range tests {
		if got := HellingerDistance(tt.p, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// evidenceModel has four variables: 0 observed by evidence (0/-Inf), 1
// fixed by a unary factor with one finite entry that is not 0, 2 with a
// soft unary factor, 3 of one state, and a pairwise factor with zeros over
// 0 and 2 (which does not make 2 observed).
func evidenceModel() *mrf.Model {
	ninf := math.Inf(-1)
	return &mrf.Model{Cards: []int{2, 3, 2, 1}, Factors: []mrf.Factor{
		{Vars: []int{0, 2}, LogTable: []float64{0, ninf, ninf, 0}},
		{Vars: []int{2}, LogTable: []float64{0.5, -1}},
		{Vars: []int{3}, LogTable: []float64{0}},
		{Vars: []int{1}, LogTable: []float64{ninf, 2.5, ninf}},
		{Vars: []int{0}, LogTable: []float64{0, ninf}},
	}}
}

func TestObserved(t *testing.T) {
	got := Observed(evidenceModel())
	want := []bool{true, true, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Observed = %v, want %v", got, want)
		}
	}
}

func TestMeanHellinger(t *testing.T) {
	m := evidenceModel()
	exact := mrf.Marginals{
		Vars:    [][]float64{{1, 0}, {0, 1, 0}, {1, 0}, {1}},
		Factors: [][]float64{{1, 0, 0, 0}, {1, 0}, {1}, {0, 1, 0}, {1, 0}},
	}
	est := mrf.Marginals{
		// Observed variables 0 and 1 are wrong on purpose: they do not count.
		Vars:    [][]float64{{0.5, 0.5}, {0.2, 0.6, 0.2}, {0.64, 0.36}, {1}},
		Factors: exact.Factors,
	}
	got, n, err := MeanHellinger(m, exact, est)
	if err != nil {
		t.Fatal(err)
	}
	// Unobserved: 2 with distance sqrt(1 - sqrt(.64)) = sqrt(.2), and 3
	// with 0; their mean.
	want := math.Sqrt(0.2) / 2
	if n != 2 || math.Abs(got-want) > 1e-12 {
		t.Errorf("MeanHellinger = %v over %d variables, want %v over 2", got, n, want)
	}
	all := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{math.Inf(-1), 0}}}}
	one := mrf.Marginals{Vars: [][]float64{{0, 1}}, Factors: [][]float64{{0, 1}}}
	if got, n, err := MeanHellinger(all, one, one); err != nil || n != 0 || !math.IsNaN(got) {
		t.Errorf("every variable observed: got %v over %d (%v), want NaN over 0", got, n, err)
	}
	if _, _, err := MeanHellinger(m, exact, mrf.Marginals{}); err == nil {
		t.Error("misshapen estimate: no error")
	}
}

func TestPRError(t *testing.T) {
	// ln Z = 10 ln 10 and 7 ln 10 are log10 Z = 10 and 7.
	if got := PRError(10*math.Ln10, 7*math.Ln10); math.Abs(got-3) > 1e-12 {
		t.Errorf("PRError = %v, want 3", got)
	}
	if got := PRError(1, 1+math.Ln10); math.Abs(got-1) > 1e-12 {
		t.Errorf("PRError = %v, want 1", got)
	}
}
