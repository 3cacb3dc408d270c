package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// amRun is one method's run on a model in the fixtures below.
type amRun struct {
	h, secs, cov float64
	cert         string
}

// addBudgetModel adds a model exact inference took exactSecs on, and its
// runs at budget, to the part of that budget.
func addBudgetModel(s *section, budget float64, setting, name string, exactSecs float64, runs map[string]amRun) {
	m := &scored{Info: formats.ModelInfoRow{Name: name, Cards: []int32{2}}, Model: &mrf.Model{Cards: []int{2}}, Runs: map[string]*outputs.ScoredRun{},
		Exact: true, ExactSeconds: exactSecs}
	for method, v := range runs {
		r := m.Run(method)
		r.Metrics["hellinger"], r.Metrics["logz_err"], r.Metrics["seconds"] = v.h, 2*v.h, v.secs
		if !math.IsNaN(v.cov) {
			r.Metrics["se_coverage"] = v.cov
		}
		r.Est = &formats.EstimateRow{Method: method, Certificate: v.cert, Params: fmt.Sprintf(`{"options":{"max_seconds":%g}}`, budget)}
	}
	addModel(s, fmt.Sprintf("score_budget%g", budget), setting, m)
}

// anyModelFixture is a 20 s budget on three models (a grid exact inference
// solves in 1 s, a torus it takes 60 s on, a CSP it takes 30 s on) and a
// 300 s budget on the torus alone.
func anyModelFixture(t *testing.T) *section {
	s := emptySection(t, "anymodel", "score_budget20", "score_beyond20", "score_budget300")
	nan := math.NaN()
	// Grid: auto exact; auto-approx 1.05x pt.
	addBudgetModel(s, 20, "grid 10x10", "grid10-0", 1, map[string]amRun{
		"auto": {0, 0.1, nan, "exact"}, "auto-approx": {0.0105, 20, 0.95, "monte-carlo"},
		"bp": {0.2, 0.1, nan, ""}, "pt": {0.01, 20, 0.97, ""}})
	// Torus: auto 1.2x pt and over time (25 s > 23 s); its coverage short.
	addBudgetModel(s, 20, "torus 12x12", "torus12-0", 60, map[string]amRun{
		"auto": {0.012, 25, 0.85, "monte-carlo"}, "auto-approx": {0.012, 21, 0.85, "monte-carlo"},
		"bp": {0.3, 0.2, nan, ""}, "pt": {0.01, 20, 0.9, ""}})
	// CSP: the best single is exact to rounding, auto converged above it.
	addBudgetModel(s, 20, "csp 60", "csp60-0", 30, map[string]amRun{
		"auto": {5e-5, 20, nan, "converged"}, "auto-approx": {5e-5, 20, nan, "converged"},
		"bp": {1e-12, 0.1, nan, ""}, "pt": {0.003, 20, 1, ""}})
	// At 300 s the torus is exact and auto keeps to 330 s + 1.
	addBudgetModel(s, 300, "torus 12x12", "torus12-0", 60, map[string]amRun{
		"auto": {0, 70, nan, "exact"}, "auto-approx": {0.004, 305, 0.95, "monte-carlo"}, "pt": {0.004, 300, 0.93, ""}})
	return s
}

// The claims of each budget count that budget's models alone, and name
// the models they fail on with the numbers.
func TestAnyModelClaims(t *testing.T) {
	s := anyModelFixture(t)
	for _, c := range []struct {
		id, part string
		holds, n int
		fails    string
	}{
		{"exact-fits", "score_budget20", 1, 1, ""},
		{"exact-fits", "score_budget300", 1, 1, ""},
		{"auto-best", "score_budget20", 0, 2, "torus12-0 (0.012 against 0.010); csp60-0 (5.0e-05 against 1.0e-12)"},
		{"auto-best", "score_budget300", 0, 0, ""},
		{"approx-best", "score_budget20", 1, 3, "torus12-0"},
		{"approx-best", "score_budget300", 1, 1, ""},
		{"auto-time", "score_budget20", 2, 3, "torus12-0 (25.0 s against 20.0 s)"},
		{"approx-time", "score_budget300", 1, 1, ""},
		{"exact-honest", "score_budget20", 1, 1, ""},
		{"auto-converged-honest", "score_budget20", 1, 1, ""},
		{"auto-coverage", "score_budget20", 0, 1, "torus12-0 (0.850)"},
		{"approx-coverage", "score_budget20", 1, 2, "torus12-0"},
		{"pt-coverage", "score_budget20", 3, 3, ""},
	} {
		got, _ := scope{s: s}.In(c.part).Claim(c.id).(tally)
		fails := strings.Join(got.Fails, "; ")
		if got.Holds != c.holds || got.N != c.n || !strings.Contains(fails, c.fails) {
			t.Errorf("%s at %s: holds on %d of %d (%s), want %d of %d (%s)", c.id, c.part, got.Holds, got.N, fails, c.holds, c.n, c.fails)
		}
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
}

// The section writes each budget with its models, methods, claims and
// tables from the declaration alone.
func TestAnyModelMarkdown(t *testing.T) {
	md := markdownOf(t, anyModelFixture(t))
	for _, want := range []string{
		"### Budget 20 s\n\nModels: 3 (grid10-0, torus12-0, csp60-0). Methods: ",
		"Models: 1 (torus12-0). Methods: ",
		"- Exact where it fits: on the models where exact inference (without a budget) took at most the budget, auto's certificate is exact: holds on 1 of 1 models.",
		"| torus 12x12 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0.850 | 0.900 |",
		"| csp 60 | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |  | 1.000 |",
		"| csp 60 | csp60-0 | **1.0e-12** | 3.0e-03 | 5.0e-05 | 5.0e-05 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
}

// AnyModelSection reads the score stages of a config, their predictions'
// certificates and budgets and their truth's seconds; before any has run it
// says so.
func TestAnyModelSectionReads(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "am.toml")
	src := `data = "d"
[stage.models]
run = ["sample-model", "uai"]
[stage.exact]
run = ["exact-infer"]
inputs = { models = "models" }
[stage.auto]
run = ["run-baselines"]
inputs = { models = "models" }
[stage.score_budget20]
run = ["score"]
inputs = { models = "models", truth = "exact", pred = ["auto"] }
`
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Section("anymodel", SectionParams{Config: cfg}); err != nil || !strings.Contains(s, "Not run yet: score_budget20") {
		t.Fatalf("before any run: %v\n%s", err, s)
	}
	out := func(stage string) string {
		d := filepath.Join(dir, "d", stage)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	models := out("models")
	info := []formats.ModelInfoRow{{ModelID: 0, Name: "csp60-0.uai", Graph: "uai", Cards: []int32{2}}}
	if err := formats.WriteModelInfo(filepath.Join(models, formats.ModelInfoFile), info, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModels(filepath.Join(models, formats.ModelsFile), []formats.FactorRow{{ModelID: 0, Vars: []int32{0}, LogTable: []float64{0, 0}}}, prov); err != nil {
		t.Fatal(err)
	}
	sha, err := formats.FileSHA256(filepath.Join(models, formats.ModelsFile))
	if err != nil {
		t.Fatal(err)
	}
	p := prov
	p.Inputs = map[string]string{"models/" + formats.ModelsFile: sha}
	if err := formats.WriteEstimates(filepath.Join(out("exact"), formats.EstimatesFile), []formats.EstimateRow{{ModelID: 0, Method: "exact", Seconds: 3, Params: "{}"}}, p); err != nil {
		t.Fatal(err)
	}
	autoEst := formats.EstimateRow{ModelID: 0, Method: "auto", Seconds: 3.1, Params: `{"options":{"max_seconds":20}}`, Certificate: "exact"}
	if err := formats.WriteEstimates(filepath.Join(out("auto"), formats.EstimatesFile), []formats.EstimateRow{autoEst}, p); err != nil {
		t.Fatal(err)
	}
	scores := []formats.ScoreRow{
		{ModelID: 0, Models: "d/models", Name: "csp60-0.uai", Method: "auto", Metric: "hellinger", Value: 0},
		{ModelID: 0, Models: "d/models", Name: "csp60-0.uai", Method: "auto", Metric: "seconds", Value: 3.1},
	}
	if err := formats.WriteScores(filepath.Join(out("score_budget20"), formats.ScoresFile), scores, prov); err != nil {
		t.Fatal(err)
	}
	s, err := Section("anymodel", SectionParams{Config: cfg, Command: "report --anymodel am.toml"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Models: 1 (csp60-0.uai). Methods: auto.",
		"auto's certificate is exact: holds on 1 of 1 models.",
		"| csp 60 | 1 | 1 | 1 |",
		"Made by `report --anymodel am.toml`",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("section lacks %q:\n%s", want, s)
		}
	}
}
