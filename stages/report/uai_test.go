package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// uaiConfig has the stages of a UAI section: gbp and mf on auto regions,
// gbp on Bethe regions, each scored.
const uaiConfig = `
[stage.uai_models]
run = ["sample-model", "uai"]
[stage.uai_exact]
run = ["exact-infer"]
inputs = { models = "uai_models" }
[stage.uai_regions]
run = ["build-regions"]
flags = { scheme = "auto" }
inputs = { models = "uai_models" }
[stage.uai_regions_bethe]
run = ["build-regions"]
flags = { scheme = "bethe" }
inputs = { models = "uai_models" }
[stage.uai_base]
run = ["run-baselines"]
inputs = { models = "uai_models", regions = "uai_regions" }
[stage.uai_base_bethe]
run = ["run-baselines"]
inputs = { models = "uai_models", regions = "uai_regions_bethe" }
[stage.uai_score]
run = ["score"]
inputs = { models = "uai_models", truth = "uai_exact", pred = ["uai_base"] }
[stage.uai_bethe_score]
run = ["score"]
inputs = { models = "uai_models", truth = "uai_exact", pred = ["uai_base_bethe"] }
`

// uaiRun is one synthetic run and its scores.
type uaiRun struct {
	meanAbs, maxAbs, logzErr, seconds float64
	converged                         bool
	params                            string
}

// uaiRuns are the runs on the fixture's two models, a "pedigree" with three
// ternary variables, one factor of arity 2 with a zero entry and one
// observed variable, and a "grid" of two binary variables. gbp on auto
// regions fails the shared check on the pedigree.
var uaiRuns = map[string][2]uaiRun{
	"gbp": {
		{0.2, 0.5, 3, 0.5, false, `{"method":"gbp","regions":"cycles","check":"mass 0.1 on state 2 of variable 0, which evidence excludes"}`},
		{0.001, 0.002, 1e-4, 12, true, `{"method":"gbp","regions":"faces","check":""}`},
	},
	"mf": {
		{0.3, 0.6, 5, 0.01, true, `{"method":"mf","regions":"cycles","check":""}`},
		{0.1, 0.2, 1, 0.01, true, `{"method":"mf","regions":"faces","check":""}`},
	},
	"gbp (bethe)": {
		{0.05, 0.1, 0.5, 0.1, true, `{"method":"gbp","regions":"bethe"}`},
		{0.01, 0.02, 0.1, 0.1, true, `{"method":"gbp","regions":"bethe"}`},
	},
}

// writeUAIFixture writes the config (with extra stages before it) and the
// outputs of every uai_* stage but the regions; with scored false the score
// stages have not run.
func writeUAIFixture(t *testing.T, root, extra string, scored bool) string {
	t.Helper()
	cfg := filepath.Join(root, "pipeline.paper.toml")
	if err := os.WriteFile(cfg, []byte(extra+"\n"+uaiConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	mdir := mkdir(t, filepath.Join(data, "uai_models"))
	inf := math.Inf(-1)
	factors := []formats.FactorRow{
		{ModelID: 0, FactorID: 0, Vars: []int32{0, 1}, LogTable: []float64{0, 1, inf, 0, 0, 0, 0, 0, 0}},
		{ModelID: 0, FactorID: 1, Vars: []int32{1, 2}, LogTable: []float64{0, 1, 0, 0, 0, 0, 0, 0, 0}},
		{ModelID: 0, FactorID: 2, Vars: []int32{2}, LogTable: []float64{inf, 0, inf}}, // evidence: x2 = 1
		{ModelID: 1, FactorID: 0, Vars: []int32{0, 1}, LogTable: []float64{1, 0, 0, 1}},
	}
	infos := []formats.ModelInfoRow{
		{ModelID: 0, Name: "pedigree3-0.uai", Cards: []int32{3, 3, 3}, Graph: "uai", Source: "MARKOV x"},
		{ModelID: 1, Name: "grid2-0.uai", Cards: []int32{2, 2}, Graph: "uai", Source: "MARKOV y"},
	}
	mpath := filepath.Join(mdir, formats.ModelsFile)
	if err := formats.WriteModels(mpath, factors, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModelInfo(filepath.Join(mdir, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	sha, err := formats.FileSHA256(mpath)
	if err != nil {
		t.Fatal(err)
	}
	from := formats.Provenance{Stage: "test", Version: "test", Inputs: map[string]string{"data/uai_models/models.parquet": sha}}
	exact := mkdir(t, filepath.Join(data, "uai_exact"))
	if err := formats.WriteEstimates(filepath.Join(exact, formats.EstimatesFile), []formats.EstimateRow{
		{ModelID: 0, Method: "exact", LogZ: -4.5, FreeEnergy: 4.5, Converged: true},
		{ModelID: 1, Method: "exact", LogZ: 2.25, FreeEnergy: -2.25, Converged: true},
	}, from); err != nil {
		t.Fatal(err)
	}
	for _, st := range []struct {
		pred, score string
		cols        []string
	}{{"uai_base", "uai_score", []string{"gbp", "mf"}}, {"uai_base_bethe", "uai_bethe_score", []string{"gbp (bethe)"}}} {
		dir := mkdir(t, filepath.Join(data, st.pred))
		var est []formats.EstimateRow
		var scores []formats.ScoreRow
		for _, col := range st.cols {
			method, _, _ := strings.Cut(col, " ")
			for id, r := range uaiRuns[col] {
				est = append(est, formats.EstimateRow{ModelID: int32(id), Method: method, Converged: r.converged, Seconds: r.seconds, Params: r.params})
				conv := 0.0
				if r.converged {
					conv = 1
				}
				for metric, v := range map[string]float64{metrics.VarMeanAbs: r.meanAbs, metrics.VarMaxAbs: r.maxAbs, metrics.LogZErr: r.logzErr, score.Seconds: r.seconds, score.Converged: conv} {
					scores = append(scores, formats.ScoreRow{ModelID: int32(id), Models: "data/uai_models", Name: infos[id].Name, Method: method, Metric: metric, Value: v})
				}
			}
		}
		if err := formats.WriteEstimates(filepath.Join(dir, formats.EstimatesFile), est, from); err != nil {
			t.Fatal(err)
		}
		// run-baselines writes marginals beside the estimates; the
		// section reads gbp's (for the dlgbp table), none here.
		if err := formats.WriteMarginals(filepath.Join(dir, formats.MarginalsFile), nil, from); err != nil {
			t.Fatal(err)
		}
		if scored {
			sdir := mkdir(t, filepath.Join(data, st.score))
			if err := formats.WriteScores(filepath.Join(sdir, formats.ScoresFile), scores, prov); err != nil {
				t.Fatal(err)
			}
		}
	}
	return cfg
}

func TestUAISection(t *testing.T) {
	root := t.TempDir()
	cfg := writeUAIFixture(t, root, `data = "data"`, true)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	writeStamp(t, filepath.Join(root, "data", "uai_exact"), t0, 30)
	writeStamp(t, filepath.Join(root, "data", "uai_base"), t0.Add(time.Minute), 90)
	s := sectionOf(t, "uai", cfg)
	if got := strings.Join(s.data.Methods, ","); got != "mf,gbp,gbp (bethe)" {
		t.Errorf("columns %s, want mf,gbp,gbp (bethe): methods in registry order, then those on other regions", got)
	}
	doc := markdownOf(t, s)
	for _, want := range []string{
		"<a id=\"beyond-the-paper-uai-models\"></a>\n\n## Beyond the paper: UAI models",
		"From stages `uai_score`, `uai_bethe_score`",
		"Run time (not counted in the paper's, above): 2 of 8 instances of the uai_* stages have completed, in **2.0 min**",
		"| uai_base | 1 / 1 | 1.5 min | 1.5 min |",
		// The models: shapes from their factors, evidence split off.
		"| pedigree3-0.uai | 3 | 3 | 2 | 2 | 1 | 1 | -4.50000 | cycles |",
		"| grid2-0.uai | 2 | 2 | 1 | 2 | 0 | 0 | 2.25000 | faces |",
		"| metric | model | mf | gbp | gbp (bethe) |",
		"| mean \\|ΔP(x_i)\\| | pedigree3-0.uai | 0.300 | 0.200 | **0.050** |",
		"|  | grid2-0.uai | 0.100 | **1.0e-03** | 0.010 |",
		"|  | **all models** | 0.200 | 0.101 | **0.030** |",
		"| max \\|ΔP(x_i)\\| | pedigree3-0.uai | 0.600 | 0.500 | **0.100** |",
		"|  | **all models** | 0.600 | 0.500 | **0.100** |",
		"|  | grid2-0.uai | 1.000 | **1.0e-04** | 0.100 |",
		"| converged | pedigree3-0.uai | yes | no | yes |",
		"|  | **all models** | 1.00 | 0.50 | 1.00 |",
		// The check: failed on one run; the Bethe runs record none.
		"| shared check failed | pedigree3-0.uai | no | **yes** | no |",
		"| | **all models** | 0 of 2 | 1 of 2 | 0 of 2 |",
		"- mean |ΔP(x_i)| at most 2 × that of gbp on Bethe regions: holds on 1 of 2 models; not on pedigree3-0.uai (0.200 against 0.050).",
		"- at most 10 s: holds on 1 of 2 models; not on grid2-0.uai (12.0 s).",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("section lacks %q", want)
		}
	}
	if strings.Contains(doc, "NaN") {
		t.Error("section shows NaN")
	}
	if t.Failed() {
		t.Log(doc)
	}
}

func TestUAISectionNotRun(t *testing.T) {
	root := t.TempDir()
	cfg := writeUAIFixture(t, root, `data = "data"`, false)
	doc := markdownOf(t, sectionOf(t, "uai", cfg))
	for _, want := range []string{"Not run yet: uai_score, uai_bethe_score.", "0 of 8 instances of the uai_* stages", "No model has been scored yet."} {
		if !strings.Contains(doc, want) {
			t.Errorf("section:\n%s\nlacks %q", doc, want)
		}
	}
	cfg = filepath.Join(root, "none.toml")
	os.WriteFile(cfg, []byte("data = \"data\"\n[stage.grid_score]\nrun = [\"score\"]\n"), 0o644)
	if doc := markdownOf(t, sectionOf(t, "uai", cfg)); !strings.Contains(doc, "Not run: the config has no uai_* score stages.") {
		t.Errorf("section without stages:\n%s", doc)
	}
	// Estimates without a check field: no check recorded, so no check rows.
	sec := emptySection(t, "uai", "uai_")
	m := &scored{Info: formats.ModelInfoRow{Name: "m", Cards: []int32{2}}, Model: &mrf.Model{Cards: []int{2}}, Runs: map[string]*outputs.ScoredRun{}}
	m.Run("bp").Est = &formats.EstimateRow{Method: "bp", Params: `{"method":"bp","regions":"bethe"}`}
	addModel(sec, "uai_", "m", m)
	sec.data.parts[0].Stages = []string{"uai_score"}
	o := sec.data.Find(nil, "m", "bp")[0]
	if _, ok := o.Num["check_recorded"]; ok || o.Text["regions"] != "bethe" || o.Num["check_failed"] != 0 {
		t.Errorf("params without check: %v %v", o.Num, o.Text)
	}
	if doc := markdownOf(t, sec); strings.Contains(doc, "shared check failed |") || !strings.Contains(doc, "The estimates record no shared check") {
		t.Errorf("a section without checks:\n%s", doc)
	}
}

// The report lists the section in its contents and prints it after the
// hard-models section; its instances are not counted in the paper's time.
func TestRunUAI(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	cfg := writeUAIFixture(t, root, fixtureConfig, true)
	out := filepath.Join(root, "REPORT.md")
	if err := Run(Params{Config: cfg, Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	contents := strings.Index(doc, "- [Beyond the paper: UAI models](#beyond-the-paper-uai-models)")
	hard := strings.Index(doc, "## Beyond the paper: hard models")
	section := strings.Index(doc, "## Beyond the paper: UAI models")
	if contents < 0 || hard < 0 || section < hard {
		t.Errorf("contents entry at %d, hard section at %d, UAI section at %d", contents, hard, section)
	}
	if strings.Contains(doc[:hard], "uai_") {
		t.Error("the paper's run time counts the uai_* stages")
	}
}
