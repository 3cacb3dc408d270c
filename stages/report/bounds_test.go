package report

import (
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
)

// boundModel is a model with exact ln Z lnZ and the given methods' ln Z,
// their bound_held scored as score does.
func boundModel(name string, lnZ float64, est map[string]float64) *scored {
	m := &scored{info: formats.ModelInfoRow{Name: name, Cards: []int32{2}}, model: &mrf.Model{Cards: []int{2}}, negLogZ: -lnZ, exact: true, runs: map[string]*scoredRun{}}
	lower := est["mf"]
	for meth, l := range est {
		r := m.run(meth)
		r.est = &formats.EstimateRow{Method: meth, LogZ: l}
		switch meth {
		case "mf":
			r.metrics[score.BoundHeld] = b2f(l <= lnZ)
		case "trw":
			r.metrics[score.BoundHeld] = b2f(l >= lnZ)
			r.metrics[score.SandwichWidth] = l - lower
		}
	}
	return m
}

// The bounds table counts where each bound held, over every setting with a
// bound method of either part, and skips settings without one.
func TestBoundsTable(t *testing.T) {
	s := emptySection(t, "hard", "hard_", "bounds_")
	addModel(s, "hard_", "grid", boundModel("g0", 10, map[string]float64{"mf": 9, "trw": 12, "bp": 10.5}))
	addModel(s, "hard_", "grid", boundModel("g1", 20, map[string]float64{"mf": 19, "trw": 19.5, "bp": 20})) // trw fails
	addModel(s, "bounds_", "K9", boundModel("k0", 5, map[string]float64{"mf": 4.5, "trw": 6}))
	addModel(s, "hard_", "bp only", boundModel("b0", 1, map[string]float64{"bp": 1}))
	got := scope{s: s}.Table("bounds")
	for _, want := range []string{
		"| setting | models | mf held | mf slack | trw held | trw slack | trw width |",
		// mf slack: mean of 1 and 1; trw slack: mean of 2 and -0.5; width: mean of 3 and 0.5.
		"| grid | 2 | 2 / 2 | 1.000 | 1 / 2 | 0.750 | 1.750 |",
		"| K9 | 1 | 1 / 1 | 0.500 | 1 / 1 | 1.000 | 1.500 |",
		"- mf's ln Z was at or below the exact ln Z on 3 of 3 models (100.0%).",
		"- trw's ln Z was at or above the exact ln Z on 2 of 3 models (66.7%).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "bp only") {
		t.Errorf("a setting without bound methods has a row:\n%s", got)
	}
	s = emptySection(t, "hard", "hard_", "bounds_")
	addModel(s, "hard_", "bp only", boundModel("b0", 1, map[string]float64{"bp": 1}))
	if got := (scope{s: s}).Table("bounds"); got != "" {
		t.Errorf("a table without bound methods:\n%s", got)
	}
}
