package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
)

// fakeBudget is a 20 s budget on three models: a grid exact inference
// solves in 1 s, a torus it takes 60 s on, a CSP it takes 30 s on.
func fakeBudget() *budgetRuns {
	br := &budgetRuns{stage: "score_budget20", budget: 20,
		models: []amModel{
			{id: 0, name: "grid10-Ju5-hu1-0.uai", family: familyLabel("grid10-Ju5-hu1-0.uai"), exact: 1},
			{id: 1, name: "torus12-Ju5-hu1-0.uai", family: familyLabel("torus12-Ju5-hu1-0.uai"), exact: 60},
			{id: 2, name: "csp60-0.uai", family: familyLabel("csp60-0.uai"), exact: 30},
		},
		methods: []string{"auto", "auto-approx", "bp", "pt"},
		values:  map[amKey]map[string]float64{}, certs: map[amKey]string{}}
	set := func(id int32, method string, h, secs, cov float64, cert string) {
		br.values[amKey{id, method}] = map[string]float64{"hellinger": h, "logz_err": 2 * h, "seconds": secs, "se_coverage": cov}
		if cert != "" {
			br.certs[amKey{id, method}] = cert
		}
	}
	// Grid: auto exact; auto-approx 1.05x pt.
	set(0, "auto", 0, 0.1, math.NaN(), "exact")
	set(0, "auto-approx", 0.0105, 20, 0.95, "monte-carlo")
	set(0, "bp", 0.2, 0.1, math.NaN(), "")
	set(0, "pt", 0.01, 20, 0.97, "")
	// Torus: auto 1.2x pt (fails), over time (25 s > 23 s).
	set(1, "auto", 0.012, 25, 0.85, "monte-carlo")
	set(1, "auto-approx", 0.012, 21, 0.85, "monte-carlo")
	set(1, "bp", 0.3, 0.2, math.NaN(), "")
	set(1, "pt", 0.01, 20, 0.9, "")
	// CSP: the best single is exact to rounding, auto within the floor.
	set(2, "auto", 5e-5, 20, math.NaN(), "converged")
	set(2, "auto-approx", 5e-5, 20, math.NaN(), "converged")
	set(2, "bp", 1e-12, 0.1, math.NaN(), "")
	set(2, "pt", 0.003, 20, 1, "")
	return br
}

func TestAnyModelClaims(t *testing.T) {
	br := fakeBudget()
	got := strings.Join(br.claims(), "\n")
	for _, want := range []string{
		"on the 1 models where exact inference took at most 20 s, auto's answer is certified exact on 1.",
		"auto's Hellinger at most 1.1x the best single method's (or at most 0.0001 above it) on the models where exact inference took longer than the budget: 1 of 2 (furthest: torus12-Ju5-hu1-0.uai, spin glass, torus, 0.0120 against pt's 0.0100, ratio 1.2)",
		"auto-approx's Hellinger at most 1.1x the best single method's (or at most 0.0001 above it) on every model: 2 of 3",
		"auto's wall time at most 23 s (1.1x the budget + 1 s) on 2 of 3 models; the longest 25 s.",
		"Certificates of auto: exact 1, converged 1, monte-carlo 1, bounds 0, none 0.",
		"of the 3 answers of auto and auto-approx certified monte-carlo, 1 have at least 90% of their variables within two standard errors",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("claims lack %q:\n%s", want, got)
		}
	}
}

func TestAnyModelTables(t *testing.T) {
	md := anyModelMarkdown([]*budgetRuns{fakeBudget()}, "report --anymodel x.toml")
	for _, want := range []string{
		"### Budget 20 s",
		"| spin glass, grid | 1 | 1 | 1 | 0 of 0 | 1 of 1 | exact 1, converged 0, monte-carlo 0, bounds 0, none 0 |",
		"| spin glass, torus | 1 | 0 | 0 | 0 of 1 | 0 of 1 |",
		"| soft CSP | 1 | 0 | 0 | 1 of 1 | 1 of 1 |",
		"| family | models | auto | auto-approx | bp | pt |",
		"| spin glass, grid | 1 | **0.0000** | 0.0105 | 0.2000 | 0.0100 |",
		"Made by `report --anymodel x.toml`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
	// Rows follow the families' order, whatever the models' order.
	if strings.Index(md, "| spin glass, torus |") > strings.Index(md, "| soft CSP |") {
		t.Errorf("torus after CSP:\n%s", md)
	}
	if md := anyModelMarkdown(nil, ""); !strings.Contains(md, "Not run yet.") {
		t.Errorf("no runs: %s", md)
	}
}

func TestFamilyLabel(t *testing.T) {
	for name, want := range map[string]string{
		"grid21-Ju5-hu1-1.uai":     "spin glass, grid",
		"bipartite24x24-Jn2-0.uai": "RBM",
		"noisy-or110-1.uai":        "noisy-OR, evidence",
		"linkage18-0.uai":          "genetic linkage, evidence",
		"mine.uai":                 "mine.uai",
		"potts60-k5-w4-0.uai":      "Potts",
	} {
		if got := familyLabel(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// AnyModelSection reads the score stages of a config, their predictions'
// certificates and their truth's seconds.
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
	if s, err := AnyModelSection(AnyModelParams{Config: cfg}); err != nil || !strings.Contains(s, "Not run yet.") {
		t.Fatalf("before any run: %v\n%s", err, s)
	}
	out := func(stage string) string {
		d := filepath.Join(dir, "d", stage)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if err := formats.WriteEstimates(filepath.Join(out("exact"), formats.EstimatesFile), []formats.EstimateRow{{ModelID: 0, Method: "exact", Seconds: 3, Params: "{}"}}, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteEstimates(filepath.Join(out("auto"), formats.EstimatesFile), []formats.EstimateRow{{ModelID: 0, Method: "auto", Seconds: 3.1, Params: "{}", Certificate: "exact"}}, prov); err != nil {
		t.Fatal(err)
	}
	scores := []formats.ScoreRow{
		{ModelID: 0, Models: "m", Name: "csp60-0.uai", Method: "auto", Metric: "hellinger", Value: 0},
		{ModelID: 0, Models: "m", Name: "csp60-0.uai", Method: "auto", Metric: "seconds", Value: 3.1},
	}
	if err := formats.WriteScores(filepath.Join(out("score_budget20"), formats.ScoresFile), scores, prov); err != nil {
		t.Fatal(err)
	}
	s, err := AnyModelSection(AnyModelParams{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Budget 20 s", "on the 1 models where exact inference took at most 20 s, auto's answer is certified exact on 1.", "| soft CSP | 1 | 1 | 1 |"} {
		if !strings.Contains(s, want) {
			t.Errorf("section lacks %q:\n%s", want, s)
		}
	}
}
