package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// threeVars is a binary model with a unary factor, a pairwise factor and a
// pairwise factor whose scope is in descending order.
func threeVars() *mrf.Model {
	return &mrf.Model{Cards: []int{2, 2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{0, 0}},
		{Vars: []int{0, 1}, LogTable: []float64{0, 0, 0, 0}},
		{Vars: []int{2, 1}, LogTable: []float64{0, 0, 0, 0}},
	}}
}

// Hand-made marginals; consistency between them does not matter to the
// scores, only the entries do.
var (
	exactMarg = mrf.Marginals{
		Vars:    [][]float64{{0.4, 0.6}, {0.5, 0.5}, {0.8, 0.2}},
		Factors: [][]float64{{0.4, 0.6}, {0.1, 0.3, 0.4, 0.2}, {0.6, 0.2, 0.1, 0.1}},
	}
	estMarg = mrf.Marginals{
		Vars:    [][]float64{{0.5, 0.5}, {0.3, 0.7}, {0.8, 0.2}},
		Factors: [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.2, 0.3}, {0.5, 0.2, 0.1, 0.2}},
	}
)

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestPaperVector(t *testing.T) {
	got, err := PaperVector(threeVars(), exactMarg)
	if err != nil {
		t.Fatal(err)
	}
	// p(x_i=+1) = entry 1 of each variable, then entry 3 of factors 1 and 2;
	// the unary factor 0 is not in the vector.
	want := []float64{0.6, 0.5, 0.2, 0.2, 0.1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestComparePaper(t *testing.T) {
	s, err := ComparePaper(threeVars(), exactMarg, estMarg)
	if err != nil {
		t.Fatal(err)
	}
	// Vectors [.6 .5 .2 .2 .1] and [.5 .7 .2 .3 .2]: |diffs| sum to 0.5 over
	// 5 entries; centred cross products sum to 0.162, squares to 0.188 each.
	if !close(s.L1, 0.1) {
		t.Errorf("l1 = %v, want 0.1", s.L1)
	}
	if !close(s.Corr, 0.162/0.188) {
		t.Errorf("corr = %v, want %v", s.Corr, 0.162/0.188)
	}
	same, err := ComparePaper(threeVars(), exactMarg, exactMarg)
	if err != nil {
		t.Fatal(err)
	}
	if same.L1 != 0 || !close(same.Corr, 1) {
		t.Errorf("exact against itself: %+v, want l1 0, corr 1", same)
	}
}

func TestCompareMarginals(t *testing.T) {
	e, err := CompareMarginals(threeVars(), exactMarg, estMarg)
	if err != nil {
		t.Fatal(err)
	}
	// Variable |errors| .1 .1 .2 .2 0 0; factor |errors| .1 .1, .1 0 .2 .1, .1 0 0 .1.
	want := Errors{VarMeanAbs: 0.1, VarMaxAbs: 0.2, FactorMeanAbs: 0.08, FactorMaxAbs: 0.2, VarEntries: 6, FactorEntries: 10}
	if !close(e.VarMeanAbs, want.VarMeanAbs) || !close(e.VarMaxAbs, want.VarMaxAbs) ||
		!close(e.FactorMeanAbs, want.FactorMeanAbs) || !close(e.FactorMaxAbs, want.FactorMaxAbs) ||
		e.VarEntries != want.VarEntries || e.FactorEntries != want.FactorEntries {
		t.Errorf("got %+v, want %+v", e, want)
	}

	// A model with no factors has no factor scores.
	lone := &mrf.Model{Cards: []int{3}}
	e, err = CompareMarginals(lone, mrf.Marginals{Vars: [][]float64{{0.2, 0.3, 0.5}}}, mrf.Marginals{Vars: [][]float64{{0.3, 0.3, 0.4}}})
	if err != nil {
		t.Fatal(err)
	}
	if !close(e.VarMeanAbs, 0.2/3) || !close(e.VarMaxAbs, 0.1) || !math.IsNaN(e.FactorMeanAbs) || !math.IsNaN(e.FactorMaxAbs) || e.FactorEntries != 0 {
		t.Errorf("no factors: %+v", e)
	}

	// A NaN in the estimate shows in both the mean and the max.
	bad := mrf.Marginals{Vars: [][]float64{{math.NaN(), 0.5}, {0.3, 0.7}, {0.8, 0.2}}, Factors: estMarg.Factors}
	e, err = CompareMarginals(threeVars(), exactMarg, bad)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(e.VarMeanAbs) || !math.IsNaN(e.VarMaxAbs) {
		t.Errorf("NaN estimate hidden: %+v", e)
	}
}

func TestShapeErrors(t *testing.T) {
	m := threeVars()
	short := mrf.Marginals{Vars: exactMarg.Vars[:2], Factors: exactMarg.Factors}
	wrongVar := mrf.Marginals{Vars: [][]float64{{1}, {0.5, 0.5}, {0.8, 0.2}}, Factors: exactMarg.Factors}
	wrongFactor := mrf.Marginals{Vars: exactMarg.Vars, Factors: [][]float64{{0.4, 0.6}, {1, 0, 0}, {0.6, 0.2, 0.1, 0.1}}}
	fewFactors := mrf.Marginals{Vars: exactMarg.Vars, Factors: exactMarg.Factors[:1]}
	ternary := &mrf.Model{Cards: []int{2, 3}, Factors: []mrf.Factor{{Vars: []int{0, 1}, LogTable: make([]float64, 6)}}}
	ternaryMarg := mrf.Marginals{Vars: [][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}}, Factors: [][]float64{{0.1, 0.1, 0.2, 0.1, 0.2, 0.3}}}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"missing variable", func() error { _, err := CompareMarginals(m, exactMarg, short); return err }, "2 variable marginals for 3 variables"},
		{"variable length", func() error { _, err := CompareMarginals(m, exactMarg, wrongVar); return err }, "variable 0: marginal has 1 entries, cardinality is 2"},
		{"factor length", func() error { _, err := ComparePaper(m, exactMarg, wrongFactor); return err }, "factor 1: marginal has 3 entries"},
		{"missing factor", func() error { _, err := ComparePaper(m, fewFactors, estMarg); return err }, "exact marginals: 1 factor marginals for 3 factors"},
		{"non-binary paper vector", func() error { _, err := ComparePaper(ternary, ternaryMarg, ternaryMarg); return err }, "binary models only"},
		{"length mismatch", func() error { _, err := MeanAbsDiff([]float64{1, 2}, []float64{1}); return err }, "lengths 2 and 1"},
		{"empty", func() error { _, err := Pearson(nil, nil); return err }, "empty"},
	}
	for _, tc := range tests {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	// Generic scores work on the non-binary model.
	if _, err := CompareMarginals(ternary, ternaryMarg, ternaryMarg); err != nil {
		t.Errorf("non-binary generic scores: %v", err)
	}
}

func TestPearson(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64 // NaN for undefined
	}{
		{"linear", []float64{1, 2, 3}, []float64{10, 12, 14}, 1},
		{"anti", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		{"uncorrelated", []float64{1, 2, 3, 4}, []float64{1, -1, -1, 1}, 0},
		// a: centred -1 0 1, b: centred -1/3 -1/3 2/3: r = 1/sqrt(2*2/3).
		{"partial", []float64{1, 2, 3}, []float64{0, 0, 1}, 1 / math.Sqrt(4.0/3)},
		{"constant", []float64{0.5, 0.5, 0.5}, []float64{0.1, 0.2, 0.3}, math.NaN()},
		{"single entry", []float64{0.5}, []float64{0.7}, math.NaN()},
	}
	for _, tc := range tests {
		got, err := Pearson(tc.a, tc.b)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && !close(got, tc.want)) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMeanAbsDiffAndLogZ(t *testing.T) {
	got, err := MeanAbsDiff([]float64{1, 2, 3, 4}, []float64{1.5, 2, 2, 4})
	if err != nil || !close(got, 0.375) {
		t.Errorf("MeanAbsDiff = %v, %v; want 0.375", got, err)
	}
	if got := LogZError(10.5, 12); got != 1.5 {
		t.Errorf("LogZError(10.5, 12) = %v, want 1.5", got)
	}
	if got := LogZError(12, 10.5); got != 1.5 {
		t.Errorf("LogZError(12, 10.5) = %v, want 1.5", got)
	}
}

func TestIsBinary(t *testing.T) {
	tests := []struct {
		cards []int
		want  bool
	}{
		{[]int{2, 2, 2}, true},
		{[]int{2, 3}, false},
		{[]int{2, 1}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := IsBinary(&mrf.Model{Cards: tc.cards}); got != tc.want {
			t.Errorf("IsBinary(%v) = %v, want %v", tc.cards, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name      string
		xs        []float64
		mean, std float64 // NaN for undefined
		n, nan    int
	}{
		// Population std: squared deviations 2.25 .25 .25 2.25 over 4.
		{"four", []float64{1, 2, 3, 4}, 2.5, math.Sqrt(1.25), 4, 0},
		{"two", []float64{0.1, 0.3}, 0.2, 0.1, 2, 0},
		{"one", []float64{7}, 7, 0, 1, 0},
		{"empty", nil, math.NaN(), math.NaN(), 0, 0},
		{"with NaN", []float64{1, math.NaN()}, math.NaN(), math.NaN(), 2, 1},
	}
	for _, tc := range tests {
		s := Summarize(tc.xs)
		if !same(s.Mean, tc.mean) || !same(s.Std, tc.std) || s.N != tc.n || s.NaN != tc.nan {
			t.Errorf("%s: got %+v, want mean %v std %v n %d nan %d", tc.name, s, tc.mean, tc.std, tc.n, tc.nan)
		}
	}
}

func same(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return close(a, b)
}
