package infer_test

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
)

// The shared options are checked in one place, and the error names the
// option as --set does.
func TestIterationCheck(t *testing.T) {
	ok := infer.Iteration{Tol: 1e-9, MaxIter: 10}
	for _, tc := range []struct {
		name string
		edit func(*infer.Iteration)
		want string // "" for valid
	}{
		{"defaults", func(*infer.Iteration) {}, ""},
		{"seconds", func(it *infer.Iteration) { it.MaxSeconds = 30 }, ""},
		{"huge seconds", func(it *infer.Iteration) { it.MaxSeconds = 1e300 }, ""},
		{"negative zero seconds", func(it *infer.Iteration) { it.MaxSeconds = math.Copysign(0, -1) }, ""},
		{"zero tol", func(it *infer.Iteration) { it.Tol = 0 }, "tol"},
		{"NaN tol", func(it *infer.Iteration) { it.Tol = math.NaN() }, "tol"},
		{"infinite tol", func(it *infer.Iteration) { it.Tol = math.Inf(1) }, "tol"},
		{"zero cap", func(it *infer.Iteration) { it.MaxIter = 0 }, "max_iter"},
		{"negative seconds", func(it *infer.Iteration) { it.MaxSeconds = -1 }, "max_seconds"},
		{"NaN seconds", func(it *infer.Iteration) { it.MaxSeconds = math.NaN() }, "max_seconds"},
		{"infinite seconds", func(it *infer.Iteration) { it.MaxSeconds = math.Inf(1) }, "max_seconds"},
	} {
		it := ok
		tc.edit(&it)
		err := it.Check()
		if (err == nil) != (tc.want == "") {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), tc.want+" ") {
			t.Errorf("%s: error %q does not name the option %s", tc.name, err, tc.want)
		}
		if tb := it.TimeBudget.Check(); (tb != nil) != (tc.want == "max_seconds") {
			t.Errorf("%s: TimeBudget.Check %v", tc.name, tb)
		}
	}
	if got := (infer.Iteration{MaxIter: 7, TimeBudget: infer.TimeBudget{MaxSeconds: 2}}).Budget(); got != (infer.Budget{MaxIter: 7, MaxSeconds: 2}) {
		t.Errorf("Budget() = %+v", got)
	}
}

// Every status reads back from its name, and the zero status is never
// converged.
func TestStatusNames(t *testing.T) {
	for s := infer.NotConverged; s <= infer.CheckFailed; s++ {
		got, err := infer.ParseStatus(s.String())
		if err != nil || got != s {
			t.Errorf("%v: parsed %v, %v", s, got, err)
		}
	}
	if _, err := infer.ParseStatus("done"); err == nil || !strings.Contains(err.Error(), "iteration_limit") {
		t.Errorf("unknown status: %v", err)
	}
	var r infer.Result
	if r.Converged() || r.Status.String() != "not_converged" {
		t.Errorf("zero result: converged %v, status %v", r.Converged(), r.Status)
	}
}
