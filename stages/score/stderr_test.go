package score

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
)

// A sampler without a ln Z claim (gibbs) is scored with its NaN ln Z: no
// logz_err, the table cell blank; its standard errors give se_coverage. The
// same NaN from a method that claims a ln Z (bp) is still refused.
func TestSamplerScores(t *testing.T) {
	root := t.TempDir()
	ms := gridModels(t, 0.1, 1)
	models, truth, pred := filepath.Join(root, "models"), filepath.Join(root, "exact"), filepath.Join(root, "pred")
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms)
	// Every p(x_i = +1) is off by 0.01; variables 0 and 1 have standard
	// errors that cover it (0.006), 2 and 3 ones that do not (0.004).
	marg := perturbed(ms[0], "gibbs", 0.01, 0)
	est := []formats.EstimateRow{{ModelID: 0, Method: "gibbs", LogZ: math.NaN(), Params: `{"diagnostics":{}}`}}
	writeRun(t, pred, provFrom(t, models), marg, est)
	var se []formats.StderrRow
	for i, s := range []float64{0.006, 0.006, 0.004, 0.004} {
		se = append(se, formats.StderrRow{ModelID: 0, Method: "gibbs", Kind: formats.StderrVar, Index: int32(i), Stderr: []float64{s, s}})
	}
	if err := formats.WriteStderrs(filepath.Join(pred, formats.StderrsFile), se, provFrom(t, models)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := Params{Models: []string{models}, Truth: []string{truth}, Pred: []string{pred}, Table: "text"}
	if err := Run(p, filepath.Join(root, "score"), &out); err != nil {
		t.Fatal(err)
	}
	scores, _, err := formats.ReadScores(filepath.Join(root, "score", formats.ScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range scores {
		got[r.Metric] = r.Value
	}
	if _, ok := got[metrics.LogZErr]; ok {
		t.Errorf("gibbs has a ln Z error: %v", got)
	}
	if got[SECoverage] != 0.5 {
		t.Errorf("se_coverage %v, want 0.5", got[SECoverage])
	}
	if strings.Contains(out.String(), "NaN") {
		t.Errorf("table shows NaN:\n%s", out.String())
	}

	est[0].Method = "bp"
	for k := range marg {
		marg[k].Method = "bp"
	}
	writeRun(t, pred, provFrom(t, models), marg, est)
	if err := formats.WriteStderrs(filepath.Join(pred, formats.StderrsFile), nil, provFrom(t, models)); err != nil {
		t.Fatal(err)
	}
	if err := Run(p, filepath.Join(root, "score2"), &out); err == nil || !strings.Contains(err.Error(), "ln Z is NaN") {
		t.Errorf("bp's NaN ln Z: %v", err)
	}
}

// pt's ln Z standard error (the "log_z" row of stderrs.parquet) gives
// logz_se_coverage: 1 when it covers half the ln Z error, 0 when not; a
// row of another kind, or of two values, is refused.
func TestLogZSECoverage(t *testing.T) {
	root := t.TempDir()
	ms := gridModels(t, 0.1, 1)
	models, truth, pred := filepath.Join(root, "models"), filepath.Join(root, "exact"), filepath.Join(root, "pred")
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms)
	exact, _, err := formats.ReadEstimates(filepath.Join(truth, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	marg := perturbed(ms[0], "pt", 0.01, 0)
	est := []formats.EstimateRow{{ModelID: 0, Method: "pt", LogZ: exact[0].LogZ + 0.1, Params: `{"diagnostics":{}}`}}
	writeRun(t, pred, provFrom(t, models), marg, est)
	for k, tc := range []struct {
		row  formats.StderrRow
		want float64
		err  string
	}{
		{formats.StderrRow{Kind: formats.StderrLogZ, Stderr: []float64{0.06}}, 1, ""},
		{formats.StderrRow{Kind: formats.StderrLogZ, Stderr: []float64{0.04}}, 0, ""},
		{formats.StderrRow{Kind: formats.StderrLogZ, Stderr: []float64{math.NaN()}}, 0, ""},
		{formats.StderrRow{Kind: formats.StderrLogZ, Stderr: []float64{0.1, 0.1}}, 0, "want 1"},
		{formats.StderrRow{Kind: "logz", Stderr: []float64{0.1}}, 0, "kind"},
	} {
		tc.row.Method = "pt"
		if err := formats.WriteStderrs(filepath.Join(pred, formats.StderrsFile), []formats.StderrRow{tc.row}, provFrom(t, models)); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(root, "score", string(rune('a'+k)))
		err := Run(Params{Models: []string{models}, Truth: []string{truth}, Pred: []string{pred}, Table: "text"}, out, &bytes.Buffer{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("row %v: error %v, want one with %q", tc.row, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		scores, _, err := formats.ReadScores(filepath.Join(out, formats.ScoresFile))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := math.NaN(), false
		for _, r := range scores {
			if r.Metric == LogZSECoverage {
				got, ok = r.Value, true
			}
		}
		if !ok || got != tc.want {
			t.Errorf("row %v: logz_se_coverage %v (%v), want %v", tc.row, got, ok, tc.want)
		}
	}
}
