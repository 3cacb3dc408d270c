package report

import (
	"bytes"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

// fixtureConfig has every stage the paper tables name; only some get
// outputs in the tests.
const fixtureConfig = `data = "data"

[stage.grid_score]
run = ["score"]
[stage.complete_score]
run = ["score"]
[stage.face_score]
run = ["score"]
[stage.lambda0_score]
run = ["score"]

[stage.learn_grid]
run = ["sample-model", "ising"]
[stage.learn_grid.shard]
size = [5]
[stage.learn_grid_samples]
run = ["sample-model", "data"]
inputs = { models = "learn_grid" }
[stage.learn_grid_fit]
run = ["learn-mrf"]
inputs = { models = "learn_grid", samples = "learn_grid_samples" }
[stage.learn_grid_fit.shard]
method = ["exact", "renn"]

[stage.learn_complete]
run = ["sample-model", "ising"]
[stage.learn_complete.shard]
size = [9]
[stage.learn_complete_samples]
run = ["sample-model", "data"]
inputs = { models = "learn_complete" }
[stage.learn_complete_fit]
run = ["learn-mrf"]
inputs = { models = "learn_complete", samples = "learn_complete_samples" }
`

var prov = formats.Provenance{Stage: "test", Version: "test"}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeStamp(t *testing.T, dir string, started time.Time, seconds float64) {
	t.Helper()
	b, err := json.Marshal(pipeline.Stamp{Version: 1, ID: filepath.Base(dir), Started: started,
		Finished: started.Add(time.Duration(seconds * float64(time.Second))), Seconds: seconds})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pipeline.StampName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFixture writes a grid_score summary for grid n=25 gamma=0.1 (RENN
// best on l1 and corr, GBP best on log Z) and learning curves of exact and
// renn on two 25-node grid models.
func writeFixture(t *testing.T, root string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "pipeline.paper.toml"), []byte(fixtureConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	score := mkdir(t, filepath.Join(data, "grid_score"))
	var rows []formats.SummaryRow
	add := func(method, metric string, mean, std float64) {
		rows = append(rows, formats.SummaryRow{Group: []string{"grid", "25", "0.1"}, Method: method, Metric: metric, Mean: mean, Std: std, N: 2})
	}
	l1 := map[string]float64{"mf": 0.3, "bp": 0.08, "dbp": 0.07, "gbp": 0.05, "infnet": 0.06, "renn": 0.01}
	for m, v := range l1 {
		add(m, "l1", v, 0.002)
		add(m, "corr", 1-v, 0.01)
		add(m, "seconds", 10*v, 0.1)
	}
	for m, v := range map[string]float64{"mf": 2, "bp": 0.5, "dbp": 0.6, "gbp": 0.1, "infnet": 0.7, "renn": 0.3} {
		add(m, "logz_err", v, 0.05)
	}
	add("renn", "converged", 0.5, 0.5)
	// A second size, so the plots have lines.
	rows = append(rows, formats.SummaryRow{Group: []string{"grid", "100", "0.1"}, Method: "renn", Metric: "l1", Mean: 0.02, Std: 0.001, N: 2})
	if err := formats.WriteSummary(filepath.Join(score, formats.SummaryFile), []string{"graph", "size", "gamma"}, rows, prov); err != nil {
		t.Fatal(err)
	}
	writeStamp(t, score, t0, 2)

	models := mkdir(t, filepath.Join(data, "learn_grid", "size=5"))
	cards := make([]int32, 25)
	for i := range cards {
		cards[i] = 2
	}
	infos := []formats.ModelInfoRow{
		{ModelID: 0, Name: "g0", Cards: cards, Graph: "grid", Gamma: 1},
		{ModelID: 1, Name: "g1", Cards: cards, Graph: "grid", Gamma: 1},
	}
	if err := formats.WriteModelInfo(filepath.Join(models, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	samples := mkdir(t, filepath.Join(data, "learn_grid_samples", "size=5"))
	x := make([]int32, 25)
	srows := []formats.SampleRow{
		{ModelID: 0, Split: "test", X: x, LogP: -9}, {ModelID: 0, Split: "test", X: x, LogP: -11},
		{ModelID: 0, Split: "train", X: x, LogP: -100}, {ModelID: 1, Split: "test", X: x, LogP: -12},
	}
	if err := formats.WriteSamples(filepath.Join(samples, formats.SamplesFile), srows, prov); err != nil {
		t.Fatal(err)
	}
	curves := map[string][]formats.CurveRow{
		"exact": {
			{ModelID: 0, Method: "exact", Iteration: 2, TestNLL: 10.5, Seconds: 3},
			{ModelID: 0, Method: "exact", Iteration: 1, TestNLL: 12, Seconds: 1},
			{ModelID: 1, Method: "exact", Iteration: 1, TestNLL: 12.5, Seconds: 4},
		},
		"renn": {
			{ModelID: 0, Method: "renn", Iteration: 1, TestNLL: 11, Seconds: 2},
			{ModelID: 1, Method: "renn", Iteration: 1, TestNLL: 12.2, Seconds: 2},
		},
	}
	for m, cs := range curves {
		dir := mkdir(t, filepath.Join(data, "learn_grid_fit", "size=5,method="+m))
		if err := formats.WriteCurves(filepath.Join(dir, formats.CurvesFile), cs, prov); err != nil {
			t.Fatal(err)
		}
		if m == "exact" {
			writeStamp(t, dir, t0.Add(10*time.Second), 3)
		}
	}
}

func TestRun(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	out := filepath.Join(root, "REPORT.md")
	if err := Run(Params{Config: filepath.Join(root, "pipeline.paper.toml"), Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		"**This report is partial:** 2 of 11 stage instances",
		// Table 5, l1 at n = 25: RENN bold (our best), the paper's below;
		// Inference Net ran, RENN (direct) did not.
		"| ℓ1 error | 25 | 0.300 ± 0.0020<br><sub>paper 0.271 ± 0.051</sub> |",
		"| **0.010** ± 0.0020<br><sub>paper 0.049 ± 0.078</sub> | not run |",
		// log Z: GBP is our best.
		"| **0.100** ± 0.050<br><sub>paper 0.169 ± 0.142</sub> |",
		// Table 3: the true model's test NLL (10 and 12), exact learning's
		// last epoch (10.5 and 12.5), renn's (11 and 12.2).
		"| grid | 25 | 11.00 ± 1.000<br><sub>paper 9.000</sub> | 11.50 ± 1.000<br><sub>paper 9.004</sub> |",
		"| 11.60 ± 0.600<br><sub>paper 9.048</sub> |",
		// Table 12: seconds per epoch of renn (2 and 2).
		"| RENN | 2.00<br><sub>paper 1.371</sub> |",
		// No stage learn_grid_fit_family in the config: its column is not run.
		"| RENN (family net) | not run | not run |",
		// The discussion counts the one complete row.
		"RENN has the lowest ℓ1 error of the paper's six methods in 1 of 1 settings (paper: 7 of 8)",
		"log Z: RENN's error is the lowest in 0 of 1 settings (paper: 7 of 18). Our lowest log Z error by method, counting settings: gbp 1.",
		// RENN 0.01 against GBP 0.05, both ± 0.002: apart.
		"RENN's mean ℓ1 is within one standard deviation (the smaller of the two) of GBP's in 0 of 1 settings (paper: 1 of 8)",
		"its mean gap to exact learning is 0.100 (paper: 0.323) nats per sample",
		"Our RENN reported convergence in 50% of 2 runs on the grid settings",
		"2 random models per setting",
		"Summed run time of the completed stage instances: **5 s**",
		"Wall time while the pipeline was running: **13 s**",
		"| grid_score | 1 / 1 | 2 s | 2 s |",
		"Not run yet: 1 of 3 learn-mrf instances.",
		"![learning curves](report/learning_curves.png)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(doc, "NaN") {
		t.Error("report shows NaN")
	}
	// The sections with a config of their own are left out without it.
	for _, own := range []string{"## Beyond the paper: amortized inference", "## Any model, within a budget"} {
		if strings.Contains(doc, own) {
			t.Errorf("report has %q without its config", own)
		}
	}
	for _, f := range []string{"l1_vs_size.png", "logz_err_vs_size.png", "seconds_vs_size.png", "learning_curves.png"} {
		data, err := os.ReadFile(filepath.Join(root, "report", f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if !strings.Contains(doc, "(report/"+f+")") {
			t.Errorf("report does not link %s", f)
		}
	}
}

// A learning stage in a table's optional_sources counts when the config has
// it: the family-network column of Table 12 shows its seconds per epoch, and
// "not run" (not an error) in a config without the stage (TestRun).
func TestRunOptionalLearningStage(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	config := fixtureConfig + `
[stage.learn_grid_fit_family]
run = ["learn-mrf"]
inputs = { models = "learn_grid", samples = "learn_grid_samples" }
`
	if err := os.WriteFile(filepath.Join(root, "pipeline.paper.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := mkdir(t, filepath.Join(root, "data", "learn_grid_fit_family", "size=5"))
	rows := []formats.CurveRow{
		{ModelID: 0, Method: "renn-family", Iteration: 1, TestNLL: 11, Seconds: 1},
		{ModelID: 1, Method: "renn-family", Iteration: 1, TestNLL: 12.4, Seconds: 2},
	}
	if err := formats.WriteCurves(filepath.Join(dir, formats.CurvesFile), rows, prov); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "REPORT.md")
	if err := Run(Params{Config: filepath.Join(root, "pipeline.paper.toml"), Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// Table 12: the fastest (1.5 against renn's 2): bold.
		"| RENN (family net) | **1.50** | not run |",
		// Table 3: its last test NLL, 11 and 12.4.
		"| 11.70 ± 0.700 |",
		"Ours from stages `learn_grid_fit`, `learn_complete_fit`, `learn_grid_fit_family`.",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	cfg := filepath.Join(root, "pipeline.paper.toml")
	out := filepath.Join(root, "REPORT.md")

	// A config without a stage the tables need.
	short := filepath.Join(root, "short.toml")
	if err := os.WriteFile(short, []byte(strings.Replace(fixtureConfig, "[stage.face_score]\nrun = [\"score\"]\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(Params{Config: short, Out: out}); err == nil || !strings.Contains(err.Error(), "face_score") {
		t.Errorf("missing stage: error %v, want one naming face_score", err)
	}
	// A summary grouped without size.
	bad := filepath.Join(root, "data", "complete_score")
	mkdir(t, bad)
	rows := []formats.SummaryRow{{Group: []string{"complete"}, Method: "bp", Metric: "l1", Mean: 0.1, N: 1}}
	if err := formats.WriteSummary(filepath.Join(bad, formats.SummaryFile), []string{"graph"}, rows, prov); err != nil {
		t.Fatal(err)
	}
	if err := Run(Params{Config: cfg, Out: out}); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("summary without size: error %v, want one naming size", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s", out)
	}
	if err := Run(Params{Config: filepath.Join(root, "nope.toml"), Out: out}); err == nil {
		t.Error("no error for a missing config")
	}
}

func TestFormatNumber(t *testing.T) {
	for _, c := range []struct {
		metric string
		v      float64
		want   string
	}{
		{"l1", 0.0251, "0.025"},
		{"l1", 0.00342, "0.0034"},
		{"corr", 0.9994, "0.999"},
		{"logz_err", 13.094, "13.09"},
		{"logz_err", 178.66, "178.7"},
		{"logz_err", 0.5244, "0.524"},
		{"nll", 9.0, "9.000"},
		{"seconds", 0.000917, "0.000917"},
		{"seconds", 335.1, "335"},
		{"l1", 0, "0.000"},
		{"l1", math.NaN(), "NaN"},
	} {
		if got := formatNumber(c.metric, c.v); got != c.want {
			t.Errorf("formatNumber(%s, %g) = %q, want %q", c.metric, c.v, got, c.want)
		}
	}
	// The formats written through formatNumber, orDash and significant.
	for _, c := range []struct {
		format string
		v      float64
		want   string
	}{
		{"signed", -1.5, "−1.500"}, {"signed", math.Copysign(0, -1), "+0.000"}, {"signed", math.NaN(), "NaN"},
		{"gap", 0.0004, "0.000"}, {"gap", -0.0123, "-0.012"}, {"gap", math.NaN(), "—"},
		{"sig3e", 1234.5, "1234"}, {"sig3e", 0.01234, "0.0123"}, {"sig3e", 0.0001234, "1.23e-04"}, {"sig3e", math.NaN(), "—"},
	} {
		if got, _ := formatted(c.format, c.v); got != c.want {
			t.Errorf("%s(%g) = %q, want %q", c.format, c.v, got, c.want)
		}
	}
}

func TestBest(t *testing.T) {
	cols := []column{{item: leadColumn{Ref: true}}, {}, {}, {}}
	val := func(v float64) cellValue { return cellValue{ok: true, numeric: true, value: v} }
	bold := func(vals []cellValue, higher, ties bool) []bool {
		markBest(vals, cols, higher, ties)
		var out []bool
		for _, v := range vals {
			out = append(out, v.bold)
		}
		return out
	}
	if got := bold([]cellValue{val(0.1), val(0.5), val(0.3), {}}, false, true); !slices.Equal(got, []bool{false, false, true, false}) {
		t.Errorf("lowest: bold %v, want column 2 (the reference never wins)", got)
	}
	if got := bold([]cellValue{val(0.1), val(0.5), val(0.3), {}}, true, true); !slices.Equal(got, []bool{false, true, false, false}) {
		t.Errorf("highest: bold %v, want column 1", got)
	}
	if got := bold([]cellValue{val(0.1), val(0.3), val(0.3), val(0.5)}, false, true); !slices.Equal(got, []bool{false, true, true, false}) {
		t.Errorf("ties: bold %v, want columns 1 and 2", got)
	}
	if got := bold([]cellValue{val(0.1), val(0.3), val(0.3), val(0.5)}, false, false); !slices.Equal(got, []bool{false, true, false, false}) {
		t.Errorf("without ties: bold %v, want column 1 alone", got)
	}
	if got := bold([]cellValue{{}, val(1), {}, {}}, false, true); slices.Contains(got, true) {
		t.Error("a lone value is bold")
	}
}

// procField reads the first "key: value" line of the key, trimmed, and ""
// for a key or file it does not find.
func TestProcField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	if err := os.WriteFile(path, []byte("processor\t: 0\nmodel name\t: Some CPU  \n\nprocessor\t: 1\nmodel name\t: Other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, key, want string }{
		{path, "model name", "Some CPU"}, {path, "processor", "0"}, {path, "flags", ""}, {path + ".none", "model name", ""},
	} {
		if got := procField(c.path, c.key); got != c.want {
			t.Errorf("procField(%s, %q) = %q, want %q", filepath.Base(c.path), c.key, got, c.want)
		}
	}
}
