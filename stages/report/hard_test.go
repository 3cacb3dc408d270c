package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// hardConfig has a bipartite family that has been scored (but for one
// method stage that has not run) and a grid family whose score has not run.
const hardConfig = `
[stage.hard_bip]
run = ["sample-model", "ising"]
[stage.hard_bip_exact]
run = ["exact-infer"]
inputs = { models = "hard_bip" }
[stage.hard_bip_base]
run = ["run-baselines"]
inputs = { models = "hard_bip" }
[stage.hard_bip_mp]
run = ["train-renn"]
inputs = { models = "hard_bip" }
# A method stage added to the score's inputs that has not run yet: the
# section shows what has.
[stage.hard_bip_new]
run = ["run-baselines"]
inputs = { models = "hard_bip" }
[stage.hard_bip_score]
run = ["score"]
inputs = { models = "hard_bip", truth = "hard_bip_exact", pred = ["hard_bip_base", "hard_bip_mp", "hard_bip_new"] }

[stage.hard_grid]
run = ["sample-model", "ising"]
[stage.hard_grid.shard]
size = [10]
[stage.hard_grid_score]
run = ["score"]
inputs = { models = "hard_grid", truth = "hard_grid", pred = ["hard_grid"] }
`

// hardRunSpec is one synthetic run: every variable gets belief p of state
// 1 (bp and dbp only), and the run its scores and estimates.
type hardRunSpec struct {
	p, meanAbs, maxAbs, logzErr, seconds, F float64
	converged                               bool
}

// pFixed is the belief of state 1 at the one BP fixed point of the
// fixture's models, whose factors are a unary log table (0, 1) on each of
// four variables: the exact marginal e/(1+e).
var pFixed = math.E / (1 + math.E)

// hardModels are the synthetic runs on three "bipartite 2+2" models (whose
// factors are in fact four unary ones: see pFixed), whose exact ln Z is
// 10, 20, 30:
//   - model 0: bp and dbp converge to one point (beliefs 1e-8 apart), the
//     fixed point;
//   - model 1: both converge, to different points; dbp's has the higher
//     free energy (-18 against -20) and the larger error, and is not a
//     fixed point;
//   - model 2: dbp does not converge.
var hardModels = []map[string]hardRunSpec{
	{
		"bp":      {p: pFixed, meanAbs: 0.02, maxAbs: 0.03, logzErr: 0.1, seconds: 0.01, F: -10.1, converged: true},
		"dbp":     {p: pFixed + 1e-8, meanAbs: 0.02, maxAbs: 0.03, logzErr: 0.1, seconds: 0.02, F: -10.1, converged: true},
		"gbp":     {meanAbs: 0.001, maxAbs: 0.002, logzErr: 0.01, seconds: 0.1, F: -10.01, converged: true},
		"renn-mp": {meanAbs: 0.001, maxAbs: 0.004, logzErr: 0.01, seconds: 1, F: -10.01, converged: true},
	},
	{
		"bp":      {p: pFixed, meanAbs: 0.05, maxAbs: 0.1, logzErr: 0, seconds: 0.01, F: -20, converged: true},
		"dbp":     {p: 0.1, meanAbs: 0.75, maxAbs: 0.8, logzErr: 2, seconds: 0.02, F: -18, converged: true},
		"gbp":     {meanAbs: 0.003, maxAbs: 0.004, logzErr: 0.02, seconds: 0.1, F: -20.02, converged: true},
		"renn-mp": {meanAbs: 0.002, maxAbs: 0.003, logzErr: 0.02, seconds: 2, F: -20.02, converged: true},
	},
	{
		"bp":      {p: 0.5, meanAbs: 0.2, maxAbs: 0.4, logzErr: 1, seconds: 0.01, F: -31, converged: true},
		"dbp":     {p: 0.6, meanAbs: 0.3, maxAbs: 0.5, logzErr: 3, seconds: 0.02, F: -27, converged: false},
		"gbp":     {meanAbs: 0.005, maxAbs: 0.006, logzErr: 0.03, seconds: 0.1, F: -30.03, converged: true},
		"renn-mp": {meanAbs: 0.006, maxAbs: 0.007, logzErr: 0.03, seconds: 3, F: -30.03, converged: true},
	},
}

// writeHardFixture writes the config (with extra stages before it) and the
// outputs of the hard_bip stages; the score's models column is models.
func writeHardFixture(t *testing.T, root, extra, models string) string {
	t.Helper()
	cfg := filepath.Join(root, "pipeline.paper.toml")
	if err := os.WriteFile(cfg, []byte(extra+"\n"+hardConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	mdir := mkdir(t, filepath.Join(data, "hard_bip"))
	var factors []formats.FactorRow
	var infos []formats.ModelInfoRow
	for id := range hardModels {
		for v := range 4 {
			factors = append(factors, formats.FactorRow{ModelID: int32(id), FactorID: int32(v), Vars: []int32{int32(v)}, LogTable: []float64{0, 1}})
		}
		infos = append(infos, formats.ModelInfoRow{ModelID: int32(id), Name: "bipartite2x2-Jn2-hu1-" + string(rune('0'+id)),
			Cards: []int32{2, 2, 2, 2}, Graph: "bipartite", Source: "sample-model ising couplings=normal:2 fields=uniform:1"})
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
	from := formats.Provenance{Stage: "test", Version: "test", Inputs: map[string]string{"data/hard_bip/models.parquet": sha}}

	exact := mkdir(t, filepath.Join(data, "hard_bip_exact"))
	var exactRows []formats.EstimateRow
	for id := range hardModels {
		exactRows = append(exactRows, formats.EstimateRow{ModelID: int32(id), Method: "exact", LogZ: float64(10 * (id + 1)), FreeEnergy: -float64(10 * (id + 1)), Converged: true})
	}
	if err := formats.WriteEstimates(filepath.Join(exact, formats.EstimatesFile), exactRows, from); err != nil {
		t.Fatal(err)
	}
	var scores []formats.ScoreRow
	for _, stage := range []string{"hard_bip_base", "hard_bip_mp"} {
		dir := mkdir(t, filepath.Join(data, stage))
		var est []formats.EstimateRow
		var marg []formats.MarginalRow
		for id, runs := range hardModels {
			for _, m := range []string{"bp", "dbp", "gbp", "renn-mp"} {
				if (m == "renn-mp") != (stage == "hard_bip_mp") {
					continue
				}
				r := runs[m]
				est = append(est, formats.EstimateRow{ModelID: int32(id), Method: m, LogZ: -r.F, FreeEnergy: r.F, Converged: r.converged, Seconds: r.seconds})
				if m == "bp" || m == "dbp" {
					for v := range 4 {
						marg = append(marg, formats.MarginalRow{ModelID: int32(id), Method: m, Kind: "var", Index: int32(v), Vars: []int32{int32(v)}, Probs: []float64{1 - r.p, r.p}},
							formats.MarginalRow{ModelID: int32(id), Method: m, Kind: "factor", Index: int32(v), Vars: []int32{int32(v)}, Probs: []float64{1 - r.p, r.p}})
					}
				}
				conv := 0.0
				if r.converged {
					conv = 1
				}
				for metric, v := range map[string]float64{metrics.VarMeanAbs: r.meanAbs, metrics.VarMaxAbs: r.maxAbs, metrics.LogZErr: r.logzErr, score.Seconds: r.seconds, score.Converged: conv} {
					scores = append(scores, formats.ScoreRow{ModelID: int32(id), Models: models, Name: infos[id].Name, Method: m, Metric: metric, Value: v})
				}
			}
		}
		if err := formats.WriteEstimates(filepath.Join(dir, formats.EstimatesFile), est, from); err != nil {
			t.Fatal(err)
		}
		if err := formats.WriteMarginals(filepath.Join(dir, formats.MarginalsFile), marg, from); err != nil {
			t.Fatal(err)
		}
	}
	sdir := mkdir(t, filepath.Join(data, "hard_bip_score"))
	if err := formats.WriteScores(filepath.Join(sdir, formats.ScoresFile), scores, prov); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestHardSection(t *testing.T) {
	root := t.TempDir()
	cfg := writeHardFixture(t, root, `data = "data"`, "data/hard_bip")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	writeStamp(t, filepath.Join(root, "data", "hard_bip_exact"), t0, 30)
	writeStamp(t, filepath.Join(root, "data", "hard_bip_mp"), t0.Add(time.Minute), 90)
	sec := sectionOf(t, "hard", cfg)
	if sets := sec.settingsOf(&tableSpec{}); len(sets) != 1 || len(sec.data.ModelsOf(sets[0])) != 3 {
		t.Fatalf("settings %+v, want one of three models", sets)
	}
	if got := strings.Join(sec.data.Methods, ","); got != "bp,dbp,gbp,renn-mp" {
		t.Errorf("methods %s, want bp,dbp,gbp,renn-mp (registry order)", got)
	}
	doc := markdownOf(t, sec)
	const s = "bipartite 2+2, J ~ N(0,2²), h ~ U(−1,1)"
	for _, want := range []string{
		"## Beyond the paper: hard models",
		"stages `hard_bip_score`, `hard_grid_score`",
		"Not run yet: hard_grid_score/size=10.",
		"Run time (not counted in the paper's, above): 2 of 8 instances of the hard_* stages have completed, in **2.0 min** summed over the instances (one core each), between 2026-01-02 03:04:05 and 2026-01-02 03:06:35 (UTC).",
		"| hard_bip_base | 0 / 1 | 0 s | 0 s |\n| hard_bip_mp | 1 / 1 | 1.5 min | 1.5 min |\n| hard_bip_new | 0 / 1 | 0 s | 0 s |\n| hard_bip_score | 0 / 1 | 0 s | 0 s |",
		"| metric | setting | models | bp | dbp | gbp | renn-mp |",
		// Means over the three models; gbp's is the lowest (bold).
		"| mean \\|ΔP(x_i)\\| | " + s + " | 3 | 0.090 | 0.357 | **3.0e-03** | 3.0e-03 |",
		// The largest over the models.
		"| max \\|ΔP(x_i)\\| | " + s + " | 3 | 0.400 | 0.800 | **6.0e-03** | 7.0e-03 |",
		"| converged | " + s + " | 3 | 1.00 | 0.67 | 1.00 | 1.00 |",
		"| seconds | " + s + " | 3 | 0.0100 | 0.0200 | 0.100 | 2.00 |",
		// Free energies: exact -ln Z -20 on average; bp's F -20.37, 0.367
		// below; dbp's -18.37, 1.633 above.
		"| setting | exact −ln Z | bp | dbp | gbp | renn-mp |",
		"| " + s + " | -20.0000 | -20.3667 (−0.367) | -18.3667 (+1.633) | -20.0200 (−0.020) | -20.0200 (−0.020) |",
		// Fixed points: both converged on models 0 and 1, to one point on 0
		// and to two on 1, where the lower F (bp's) is the more accurate.
		"| " + s + " | 3 | 3 of 5 | 2 | 1 | 1 | 1 | 1 |",
		"Of the 5 converged bp and dbp runs, 3 are at a stationary point by this measure.",
		"both converged on 2 of 3 models, to different points on 1; of these, the point of lower Bethe free energy was the more accurate on 1, and damped BP's point was the one of higher free energy on 1.",
		"### " + s + ", model by model",
		// Residuals: model 0's dbp is 1e-8 off the fixed point, 2.5e-8 in
		// nats; model 1's dbp (0.1) is |ln(0.1/0.9) - 1|/2 = 1.6 off, model
		// 2's bp (0.5) 0.5 and dbp (0.6) 0.30.
		"| bipartite2x2-Jn2-hu1-0 | -10.0000 | yes, 0.020, -10.1000 | yes, 0.020, -10.1000 | yes, 1.0e-03, -10.0100 | 0e+00, 3e-08 | same fixed point (beliefs within 1.0e-08) |",
		"| bipartite2x2-Jn2-hu1-1 | -20.0000 | yes, 0.050, -20.0000 | yes, 0.750, -18.0000 | yes, 3.0e-03, -20.0200 | 0e+00, 2e+00 | two different converged points, not both stationary: dbp's F higher by 2.000 |",
		"| bipartite2x2-Jn2-hu1-2 | -30.0000 | yes, 0.200, -31.0000 | no, 0.300, -27.0000 | yes, 5.0e-03, -30.0300 | 5e-01, 3e-01 | dbp did not converge |",
		"bp and dbp both converged on 2 of 3 models: to the same point on 1, to different points on 1 (the one of lower Bethe free energy the more accurate on 1 of them; damped BP's the higher on 1, undamped BP's on 0).",
		// renn-mp: 0.003 against gbp's 0.003: within 1.2x; below bp's 0.09.
		"- mean |ΔP(x_i)| at most 1.2 × the better of gbp and renn-direct, on the settings where either converged on every model: holds on 1 of 1 settings.",
		"- mean |ΔP(x_i)| no worse than loopy BP's: holds on 1 of 1 settings.",
		"- seconds at most 10 × gbp's, on the grids where gbp converged on every model: holds on 0 of 0 settings.",
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

func TestHardSectionNotRun(t *testing.T) {
	for _, c := range []struct {
		name, config, want string
	}{
		{"no hard stages", `data = "data"
[stage.grid_score]
run = ["score"]
`, "Not run: the config has no hard_* score stages."},
		{"nothing scored", `data = "data"
[stage.hard_grid]
run = ["sample-model", "ising"]
[stage.hard_grid_score]
run = ["score"]
inputs = { models = "hard_grid", truth = "hard_grid", pred = ["hard_grid"] }
`, "Not run yet: hard_grid_score.\n\nRun time (not counted in the paper's, above): 0 of 2 instances of the hard_* stages have completed. The stages that took a minute or more, or have not finished:\n\n| stage | instances done | summed time | longest instance |\n|---|---:|---:|---:|\n| hard_grid | 0 / 1 | 0 s | 0 s |\n| hard_grid_score | 0 / 1 | 0 s | 0 s |\n\nNo setting has been scored yet."},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := filepath.Join(root, "p.toml")
			if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
				t.Fatal(err)
			}
			if doc := markdownOf(t, sectionOf(t, "hard", cfg)); !strings.Contains(doc, c.want) {
				t.Errorf("section:\n%s\nlacks %q", doc, c.want)
			}
		})
	}
}

func TestHardSectionErrors(t *testing.T) {
	root := t.TempDir()
	// Scores of models the score stage did not read.
	cfg := writeHardFixture(t, root, `data = "data"`, "data/elsewhere")
	if _, err := readSection("hard", cfg); err == nil || !strings.Contains(err.Error(), "not a models input") {
		t.Errorf("error %v, want one saying the models are not an input", err)
	}
	// Estimates computed from other models.
	cfg = writeHardFixture(t, root, `data = "data"`, "data/hard_bip")
	est := filepath.Join(root, "data", "hard_bip_mp", formats.EstimatesFile)
	if err := formats.WriteEstimates(est, []formats.EstimateRow{{ModelID: 0, Method: "renn-mp"}},
		formats.Provenance{Stage: "test", Inputs: map[string]string{"x/models.parquet": "feed"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := readSection("hard", cfg); err == nil || !strings.Contains(err.Error(), "x/models.parquet") {
		t.Errorf("error %v, want one naming x/models.parquet", err)
	}
}

// TestRunHard checks that the report prints the section, listed in the
// contents, after the paper's tables.
func TestRunHard(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	cfg := writeHardFixture(t, root, fixtureConfig, "data/hard_bip")
	out := filepath.Join(root, "REPORT.md")
	if err := Run(Params{Config: cfg, Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	contents := strings.Index(doc, "- [Beyond the paper: hard models](#beyond-the-paper-hard-models)")
	section := strings.Index(doc, "<a id=\"beyond-the-paper-hard-models\"></a>\n\n## Beyond the paper: hard models")
	lastTable := strings.LastIndex(doc, "## Table ")
	if contents < 0 || section < 0 || section < lastTable {
		t.Errorf("contents entry at %d, section at %d, last paper table at %d", contents, section, lastTable)
	}
	if !strings.Contains(doc, "not both stationary: dbp's F higher by 2.000") {
		t.Error("the report lacks the model-by-model table")
	}
	// The paper's run time counts the paper's instances only.
	if !strings.Contains(doc, "**This report is partial:** 2 of 11 stage instances") || strings.Contains(doc[:section], "hard_bip") {
		t.Error("the paper's run time counts the hard_* stages")
	}
}

func TestVerdict(t *testing.T) {
	c := outputs.CompareSpec{A: "bp", B: "dbp", Same: 1e-3, Stationary: 1e-6}
	for _, tc := range []struct {
		convA, convB       bool
		dist, fA, fB, resB float64
		want               string
	}{
		{false, false, 0, 0, 0, 0, "neither converged"},
		{false, true, 0, 0, 0, 0, "bp did not converge"},
		{true, false, 0, 0, 0, 0, "dbp did not converge"},
		{true, true, 2e-4, 0, 0, 0, "same fixed point (beliefs within 2.0e-04)"},
		{true, true, 0.9, -130.24, -123.86, 0, "two stationary points of the Bethe F: dbp's F higher by 6.380"},
		{true, true, 0.9, -256.875, -262.076, 0, "two stationary points of the Bethe F: bp's F higher by 5.201"},
		{true, true, 0.9, -20, -18, 1.6, "two different converged points, not both stationary: dbp's F higher by 2.000"},
		{true, true, 0.9, -20, -18, math.NaN(), "two different converged points, not both stationary: dbp's F higher by 2.000"},
	} {
		if got := verdict(c, tc.convA, tc.convB, tc.dist, tc.fA, tc.fB, 0, tc.resB); got != tc.want {
			t.Errorf("verdict(%+v) = %q, want %q", tc, got, tc.want)
		}
	}
}
