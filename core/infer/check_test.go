package infer_test

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// regions is a fixed RegionBeliefs: one parent over two binary variables and
// its child over the second.
type regions struct{ b [][]float64 }

func (r regions) RegionBeliefs() ([][]float64, []region.Edge) {
	return r.b, []region.Edge{{Parent: 0, Child: 1, Map: []int32{0, 1, 0, 1}}}
}

// Verify passes a correct answer and names each kind of failure.
func TestVerify(t *testing.T) {
	// p(x0, x1) ∝ ψ(x0, x1) with ψ(1, 1) = 0, and evidence x0 = 0 as a
	// point-mass unary factor: the answer is x0 = 0, x1 ~ (1/3, 2/3).
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0, math.Log(2), 0, math.Inf(-1)}},
		{Vars: []int{0}, LogTable: []float64{0, math.Inf(-1)}},
	}}
	good := func() *infer.Result {
		return &infer.Result{LogZ: math.Log(3), Marginals: mrf.Marginals{
			Vars:    [][]float64{{1, 0}, {1.0 / 3, 2.0 / 3}},
			Factors: [][]float64{{1.0 / 3, 2.0 / 3, 0, 0}, {1, 0}},
		}}
	}
	consistent := regions{[][]float64{{1.0 / 3, 2.0 / 3, 0, 0}, {1.0 / 3, 2.0 / 3}}}
	for _, tc := range []struct {
		name   string
		change func(*infer.Result)
		rb     infer.RegionBeliefs
		want   string // substring of the reason; "" passes
	}{
		{"correct", func(*infer.Result) {}, nil, ""},
		{"correct regions", func(*infer.Result) {}, consistent, ""},
		{"ln Z -Inf", func(r *infer.Result) { r.LogZ = math.Inf(-1) }, nil, "ln Z is -Inf"},
		{"ln Z NaN", func(r *infer.Result) { r.LogZ = math.NaN() }, nil, "ln Z is NaN"},
		{"NaN marginal", func(r *infer.Result) { r.Marginals.Vars[1][0] = math.NaN() }, nil, "variable 1: probability NaN"},
		{"negative", func(r *infer.Result) { r.Marginals.Vars[1] = []float64{-0.5, 1.5} }, nil, "probability -0.5"},
		{"unnormalised", func(r *infer.Result) { r.Marginals.Factors[0][0] = 0.5 }, nil, "factor 0: marginal sums to"},
		{"wrong length", func(r *infer.Result) { r.Marginals.Vars[0] = []float64{1} }, nil, "variable 0: marginal of 1 entries"},
		{"missing", func(r *infer.Result) { r.Marginals.Factors = r.Marginals.Factors[:1] }, nil, "1 factor marginals"},
		{"mass on a zero potential", func(r *infer.Result) {
			r.Marginals.Factors[0] = []float64{0.3, 0.6, 0, 0.1}
		}, nil, "factor 0: probability 0.1 on entry 3"},
		{"mass against evidence", func(r *infer.Result) {
			r.Marginals.Vars[0] = []float64{0.9, 0.1}
			r.Marginals.Factors[1] = []float64{1, 0}
		}, nil, "variable 0: probability 0.1 on state 1, which factor 1 excludes"},
		{"factor and variable disagree", func(r *infer.Result) { r.Marginals.Vars[1] = []float64{0.5, 0.5} }, nil, "factor 0 and variable 1 marginals differ"},
		{"regions disagree", func(*infer.Result) {}, regions{[][]float64{{1.0 / 3, 2.0 / 3, 0, 0}, {0.5, 0.5}}}, "region 1 and its parent 0 differ"},
	} {
		res := good()
		tc.change(res)
		got := infer.Verify(m, res, tc.rb)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Verify = %q, want %q", tc.name, got, tc.want)
		}
	}
}
