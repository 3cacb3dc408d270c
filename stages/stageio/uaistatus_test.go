package stageio

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/formats"
)

// honest fails t unless the result files at base (without .MAR/.PR) keep
// the promise of UAIOut: a MAR file's marginals are normalised and a PR
// file's value finite, or the file's first line says the answer failed its
// check.
func honest(t *testing.T, base string, cards []int) {
	t.Helper()
	failed := func(path string) bool {
		head, err := formats.ReadUAIResultHeader(path)
		if err != nil {
			t.Fatal(err)
		}
		return len(head) > 0 && strings.HasPrefix(head[0], uaiStatusFailed)
	}
	mg, err := formats.ReadMARFile(base+".MAR", cards)
	if err != nil {
		t.Fatal(err)
	}
	if marginalFlaw(mg) != "" && !failed(base+".MAR") {
		t.Errorf("%s.MAR: marginals %v not normalised, and the file does not say the answer failed", base, mg)
	}
	z, err := formats.ReadPRFile(base + ".PR")
	if errors.Is(err, os.ErrNotExist) {
		return // no estimate of ln Z: no PR file
	}
	if err != nil {
		t.Fatal(err)
	}
	if (math.IsNaN(z) || math.IsInf(z, 0)) && !failed(base+".PR") {
		t.Errorf("%s.PR: log10 Z %v written as a bare number", base, z)
	}
}

// Every answer's files begin with its status: converged, not converged
// (how it stopped), or failed its check (the reason); a MAR file whose
// marginals are not normalised or a PR file whose ln Z is not finite says
// it failed even when no check was recorded.
func TestUAIOutputsStatus(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	row := func(res infer.Result) formats.EstimateRow {
		return EstimateRow(4, "m", &res, 1, nil, "")
	}
	tests := []struct {
		name     string
		est      formats.EstimateRow
		var0     []float64 // the marginal of variable 0
		mar, pr  string    // the first line of each file
		marState UAIState
	}{
		{"converged", row(infer.Result{LogZ: 1, Status: infer.Converged}), nil,
			uaiStatusConverged, uaiStatusConverged, UAIConverged},
		{"iteration cap", row(infer.Result{LogZ: 1, Iterations: 2000, Status: infer.IterationLimit}), nil,
			uaiStatusNotConverged + "the method stopped after 2000 iterations (its iteration cap) before its convergence test passed; the answer passed the shared check",
			uaiStatusNotConverged + "the method stopped after 2000 iterations", UAINotConverged},
		{"time budget", EstimateRow(4, "m", &infer.Result{LogZ: 1, Iterations: 7, Status: infer.TimeLimit}, 1, map[string]float64{"max_seconds": 2}, ""), nil,
			uaiStatusNotConverged + "the method stopped after 7 iterations before its convergence test passed (its time budget, max_seconds 2, ran out)",
			uaiStatusNotConverged + "the method stopped after 7", UAINotConverged},
		{"diverged", row(infer.Result{LogZ: 1, Iterations: 9, Status: infer.Diverged}), nil,
			uaiStatusNotConverged + "the method stopped after 9 iterations: the iteration diverged, the answer is its last sound iterate; the answer passed the shared check",
			uaiStatusNotConverged + "the method stopped after 9", UAINotConverged},
		{"own rule", row(infer.Result{LogZ: 1, Iterations: 3, Status: infer.NotConverged}), nil,
			uaiStatusNotConverged + "the method stopped after 3 iterations without passing its convergence test (its diagnostics say why); the answer passed the shared check",
			uaiStatusNotConverged + "the method stopped after 3", UAINotConverged},
		{"old file: time budget in the diagnostics", formats.EstimateRow{ModelID: 4, Method: "m", LogZ: 1, Iterations: 7,
			Status: formats.EstimateStatus(false, `{"options":{"max_seconds":2},"diagnostics":{"time_limit":1,"max_seconds":2}}`),
			Params: `{"options":{"max_seconds":2},"diagnostics":{"time_limit":1,"max_seconds":2}}`}, nil,
			uaiStatusNotConverged + "the method stopped after 7 iterations before its convergence test passed (its time budget, max_seconds 2, ran out)",
			uaiStatusNotConverged + "the method stopped after 7", UAINotConverged},
		{"failed check", row(infer.Result{LogZ: nan, Check: "ln Z is NaN", Status: infer.CheckFailed}), nil,
			uaiStatusFailed + "ln Z is NaN; the numbers below are what the method returned, not a valid answer",
			uaiStatusFailed + "ln Z is NaN;", UAIFailed},
		{"check on marginals, line break in the reason", row(infer.Result{LogZ: 1, Check: "variable 0:\nsums to 1.0077", Status: infer.CheckFailed}), []float64{0.25, 0.7577},
			uaiStatusFailed + "variable 0: sums to 1.0077;", uaiStatusFailed + "variable 0: sums to 1.0077;", UAIFailed},
		{"no estimate of ln Z (a sampler)", row(infer.Result{LogZ: nan, Status: infer.Converged}), nil,
			uaiStatusConverged, "", UAIConverged},
		{"unchecked, not normalised", row(infer.Result{LogZ: 1, Status: infer.Converged}), []float64{0.3, 0.8},
			uaiStatusFailed + "variable 0: probabilities sum to 1.1", uaiStatusConverged, UAIFailed},
		{"unchecked, negative", row(infer.Result{LogZ: 1, Status: infer.Converged}), []float64{1.5, -0.5},
			uaiStatusFailed + "variable 0: probability -0.5 of state 1", uaiStatusConverged, UAIFailed},
		{"unchecked, infinite ln Z", row(infer.Result{LogZ: inf, Status: infer.Converged}), nil,
			uaiStatusConverged, uaiStatusFailed + "ln Z is +Inf;", UAIConverged},
	}
	models := []Model{uaiTestModel("net")}
	for _, tc := range tests {
		dir := t.TempDir()
		r, _ := uaiTestRows("m")
		if tc.var0 != nil {
			r[0].Probs = tc.var0
		}
		u := UAIOut{Dir: filepath.Join(dir, "uai"), Out: filepath.Join(dir, "out"), Stage: "test"}
		outs, answers, err := u.Outputs([]string{"m"}, models, r, []formats.EstimateRow{tc.est})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := Commit(u.Out, outs...); err != nil {
			t.Fatal(err)
		}
		base := filepath.Join(u.Dir, "m", "net.uai")
		for suf, want := range map[string]string{".MAR": tc.mar, ".PR": tc.pr} {
			if want == "" {
				if _, err := os.Stat(base + suf); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: %s written (%v), want none", tc.name, suf, err)
				}
				continue
			}
			head, err := formats.ReadUAIResultHeader(base + suf)
			if err != nil || len(head) != 2 || !strings.HasPrefix(head[0], want) {
				t.Errorf("%s: %s header %q, %v; want it to begin %q", tc.name, suf, head, err, want)
			}
		}
		if len(answers) != 1 || answers[0].MAR.State != tc.marState {
			t.Errorf("%s: answers %+v", tc.name, answers)
		}
		honest(t, base, models[0].Model.Cards)
	}
}

// The summary counts the answers and lists those that failed their check or
// did not converge, with the files that say so.
func TestWriteUAISummary(t *testing.T) {
	t.Parallel()
	failed := UAIStatus{UAIFailed, "ln Z is NaN"}
	slow := UAIStatus{UAINotConverged, "the method stopped after 9 iterations"}
	ok := UAIStatus{State: UAIConverged}
	answers := []UAIAnswer{
		{ModelID: 0, Model: "a", Method: "bp", MAR: ok, PR: ok, Base: "U/bp/a.uai"},
		{ModelID: 1, Model: "b", Method: "trw", MAR: failed, PR: failed, Base: "U/trw/b.uai"},
		{ModelID: 1, Model: "b", Method: "gbp", MAR: slow, PR: slow, Base: "U/gbp/b.uai"},
		{ModelID: 2, Model: "c", Method: "pt", MAR: ok, PR: UAIStatus{UAIFailed, "ln Z is -Inf"}, Base: "U/pt/c.uai"},
		{ModelID: 2, Model: "c", Method: "gibbs", MAR: slow, PR: UAIStatus{UAINoEstimate, "the method gives no estimate of ln Z"}, Base: "U/gibbs/c.uai"},
	}
	var b bytes.Buffer
	WriteUAISummary(&b, "U", answers)
	got := b.String()
	for _, want := range []string{
		"5 answers: 1 converged, 2 not converged but passing the shared check, 2 failed the shared check; UAI result files in U/<method>/<name>.uai.MAR|PR",
		"failed the shared check",
		"  model 1 (b) trw: ln Z is NaN [U/trw/b.uai.MAR, .PR]\n",
		"  model 2 (c) pt: MAR converged [U/pt/c.uai.MAR]; PR failed its check: ln Z is -Inf [U/pt/c.uai.PR]\n",
		"not converged (",
		"  model 1 (b) gbp: the method stopped after 9 iterations [U/gbp/b.uai.MAR, .PR]\n",
		"  model 2 (c) gibbs: the method stopped after 9 iterations [U/gibbs/c.uai.MAR]\n",
		"no .uai.PR files for gibbs: no estimate of ln Z\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "(a)") {
		t.Errorf("summary lists a converged answer:\n%s", got)
	}
	b.Reset()
	for i := range answers {
		answers[i].Base = ""
	}
	WriteUAISummary(&b, "", answers)
	if got := b.String(); !strings.Contains(got, "no UAI result files (no --uai-out)") || !strings.Contains(got, "  model 1 (b) trw: ln Z is NaN\n") {
		t.Errorf("summary without --uai-out:\n%s", got)
	}
}

// The status column holds infer.Status's names: every status of a result
// is one formats knows, and back.
func TestStatusNamesAgree(t *testing.T) {
	var names []string
	for s := infer.NotConverged; s <= infer.CheckFailed; s++ {
		names = append(names, s.String())
		row := EstimateRow(0, "m", &infer.Result{Status: s}, 0, nil, "")
		if row.Status != s.String() || row.Converged != (s == infer.Converged) {
			t.Errorf("%v: row status %q, converged %v", s, row.Status, row.Converged)
		}
	}
	if !slices.Equal(names, formats.Statuses()) {
		t.Errorf("infer statuses %v, formats %v", names, formats.Statuses())
	}
}
