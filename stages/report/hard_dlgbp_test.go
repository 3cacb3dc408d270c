package report

import (
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
)

// dlgbpRun is a run whose two variables have belief p of state 1 and whose
// one factor has belief table fac.
type dlgbpRun struct {
	p         float64
	fac       []float64
	converged bool
	seconds   float64
}

func dlgbpModel(name string, runs map[string]dlgbpRun) *scored {
	m := &scored{info: formats.ModelInfoRow{Name: name, Cards: []int32{2, 2}}, runs: map[string]*scoredRun{},
		model: &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{{Vars: []int{0, 1}, LogTable: make([]float64, 4)}}}}
	for meth, s := range runs {
		r := m.run(meth)
		r.est = &formats.EstimateRow{Method: meth, Converged: s.converged}
		r.metrics[score.Seconds] = s.seconds
		r.vars = [][]float64{{1 - s.p, s.p}, {1 - s.p, s.p}}
		r.factors = map[int32][]float64{0: s.fac}
	}
	return m
}

// The table counts dlgbp at GBP's point where GBP converged (a factor
// belief differing by more than the declared tolerance, 1e-6, is another
// point), dlgbp converged where GBP did not, and names the models where
// either fails.
func TestDLGBPTable(t *testing.T) {
	fac := []float64{0.4, 0.1, 0.1, 0.4}
	off := []float64{0.4 + 1e-5, 0.1 - 1e-5, 0.1, 0.4}
	s := emptySection(t, "hard", "hard_")
	for _, m := range []*scored{
		dlgbpModel("g-0", map[string]dlgbpRun{"gbp": {0.3, fac, true, 1}, "dlgbp": {0.3 + 1e-9, fac, true, 3}}),
		dlgbpModel("g-1", map[string]dlgbpRun{"gbp": {0.3, fac, true, 1}, "dlgbp": {0.3, off, true, 3}}),
		dlgbpModel("g-2", map[string]dlgbpRun{"gbp": {0.3, fac, false, 2}, "dlgbp": {0.2, fac, true, 5}}),
		dlgbpModel("g-3", map[string]dlgbpRun{"gbp": {0.3, fac, false, 2}, "dlgbp": {0.2, fac, false, 5}}),
		dlgbpModel("g-4", map[string]dlgbpRun{"gbp": {0.3, fac, true, 1}, "dlgbp": {0.3, fac, false, 4}}),
	} {
		addModel(s, "hard_", "grid", m)
	}
	addModel(s, "hard_", "gbp only", dlgbpModel("o-0", map[string]dlgbpRun{"gbp": {0.3, fac, true, 1}}))
	got := scope{s: s}.Table("dlgbp")
	for _, want := range []string{
		"| setting | models | gbp converged | of those: dlgbp converged at gbp's point | largest \\|Δb\\| there | gbp not converged | of those: dlgbp converged | seconds gbp | seconds dlgbp |",
		// Seconds: means 7/5 and 20/5.
		"| grid | 5 | 3 | 1 | 1e-05 | 2 | 1 | 1.40 | 4.00 |",
		"where gbp converged (3 models), dlgbp converged at its point on **1**; where gbp did not (2 models), dlgbp converged on **1**",
		"g-1 (another point: |Δb| 1e-05); g-3 (neither converged); g-4 (gbp converged, dlgbp did not)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "gbp only") {
		t.Errorf("a setting without dlgbp has a row:\n%s", got)
	}
	s = emptySection(t, "hard", "hard_")
	addModel(s, "hard_", "gbp only", dlgbpModel("o-0", map[string]dlgbpRun{"gbp": {0.3, fac, true, 1}}))
	if got := (scope{s: s}).Table("dlgbp"); got != "" {
		t.Errorf("a table without dlgbp:\n%s", got)
	}
}
