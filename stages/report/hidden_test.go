package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
)

// hiddenConfig has the stages of a hidden-variables section: an RBM of
// 3 + 2 variables, its samples, and learning by exact, bp, gbp and renn-mp
// (gbp never ran).
const hiddenConfig = `
[stage.hidden_rbm]
run = ["sample-model", "ising"]
flags = { graph = "bipartite", left = 3, right = 2, hide = "right" }
[stage.hidden_rbm_samples]
run = ["sample-model", "data"]
inputs = { models = "hidden_rbm" }
[stage.hidden_rbm_fit]
run = ["learn-mrf"]
inputs = { models = "hidden_rbm", samples = "hidden_rbm_samples" }
[stage.hidden_rbm_fit.shard]
method = ["exact", "bp", "gbp", "renn-mp"]
`

// writeHiddenFixture writes the config (extra first) and the outputs of
// every stage but the gbp instance: true NLL 5, exact learning ending at
// 5.2 (best 5.1), bp at 5.6, renn-mp at 5.5 (best 5.3).
func writeHiddenFixture(t *testing.T, root, extra string) string {
	t.Helper()
	cfg := filepath.Join(root, "hidden.toml")
	if err := os.WriteFile(cfg, []byte(extra+"\n"+hiddenConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	models := mkdir(t, filepath.Join(data, "hidden_rbm"))
	infos := []formats.ModelInfoRow{{ModelID: 0, Name: "rbm", Cards: []int32{2, 2, 2, 2, 2}, Graph: "bipartite", Gamma: 0.5, Hidden: []int32{3, 4}}}
	if err := formats.WriteModelInfo(filepath.Join(models, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	samples := mkdir(t, filepath.Join(data, "hidden_rbm_samples"))
	x := []int32{0, 1, 0}
	srows := []formats.SampleRow{{ModelID: 0, Split: "test", X: x, LogP: -4}, {ModelID: 0, Split: "test", X: x, LogP: -6}, {ModelID: 0, Split: "train", X: x, LogP: -1}}
	if err := formats.WriteSamples(filepath.Join(samples, formats.SamplesFile), srows, prov); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for m, nll := range map[string][]float64{"exact": {6, 5.1, 5.2}, "bp": {6, 5.7, 5.6}, "renn-mp": {6, 5.3, 5.5}} {
		dir := mkdir(t, filepath.Join(data, "hidden_rbm_fit", "method="+m))
		var rows []formats.CurveRow
		for e, v := range nll {
			rows = append(rows, formats.CurveRow{ModelID: 0, Method: m, Iteration: int32(e + 1), TestNLL: v, Seconds: 2})
		}
		if err := formats.WriteCurves(filepath.Join(dir, formats.CurvesFile), rows, prov); err != nil {
			t.Fatal(err)
		}
		writeStamp(t, dir, t0, 6)
	}
	return cfg
}

func TestHiddenSection(t *testing.T) {
	root := t.TempDir()
	cfg := writeHiddenFixture(t, root, `data = "data"`)
	d := readHiddenOf(t, cfg)
	doc := markdownOf(t, d)
	for _, want := range []string{
		"<a id=\"beyond-the-paper-hidden-variables\"></a>\n\n## Beyond the paper: hidden variables",
		"From stages `hidden_rbm_fit`",
		"3 of 6 instances of the hidden_* stages have completed",
		"Not run yet: hidden_rbm_fit/method=gbp.",
		"### bipartite n=5 γ=0.5, 2 hidden",
		"| true model | 5.0000 | | | | | |",
		"| exact | 5.2000 | 0.000 | 5.1000 | 0.000 | 3 | 2.00 |",
		"| bp | 5.6000 | +0.400 | 5.6000 | +0.500 | 3 | 2.00 |",
		"| renn-mp | 5.5000 | +0.300 | 5.3000 | +0.200 | 3 | 2.00 |",
		"at most the better of BP's and GBP's (within 0.001 nats, the tables' precision) on **1 of 1** (RENN method, setting) pairs.",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("section lacks %q", want)
		}
	}
	if fs, _ := d.figures(); len(fs) != 1 || len(fs[0].fig.Panels) != 1 || len(fs[0].fig.Panels[0].Series) != 4 {
		t.Errorf("figures %+v: want one, with one panel, three methods and the true model", fs)
	}
	if t.Failed() {
		t.Log(doc)
	}
}

// A RENN method worse than BP is named with both gaps; a config without
// hidden_ learn stages says so.
func TestHiddenClaimFails(t *testing.T) {
	root := t.TempDir()
	cfg := writeHiddenFixture(t, root, `data = "data"`)
	d := readHiddenOf(t, cfg)
	setRENN := func(nll float64) {
		for _, o := range d.data.FindIn([]string{"hidden_"}, d.data.Settings[0], "", "renn-mp") {
			o.Num["nll"] = nll
		}
	}
	claim := func() string {
		doc := markdownOf(t, d)
		i := strings.Index(doc, "RENN's gap to exact learning")
		return doc[i : i+strings.Index(doc[i:], "\n")]
	}
	// Within the tables' precision of bp's gap: held.
	setRENN(5.6005)
	if c := claim(); !strings.Contains(c, "**1 of 1**") {
		t.Errorf("claim within the tolerance: %s", c)
	}
	setRENN(5.9)
	if c := claim(); !strings.Contains(c, "**0 of 1**") || !strings.Contains(c, "renn-mp on bipartite n=5 γ=0.5 (5.900 against 5.600)") {
		t.Errorf("claim: %s", c)
	}
	cfg = filepath.Join(root, "none.toml")
	os.WriteFile(cfg, []byte("data = \"data\"\n[stage.grid_score]\nrun = [\"score\"]\n"), 0o644)
	if doc := markdownOf(t, readHiddenOf(t, cfg)); !strings.Contains(doc, "Not run: the config has no hidden_* learn-mrf stages.") {
		t.Errorf("section without stages:\n%s", doc)
	}
}

// The report lists the section in its contents, prints it after the UAI
// section and draws its figure; its instances are not counted in the
// paper's time.
func TestRunHidden(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	cfg := writeHiddenFixture(t, root, fixtureConfig)
	out := filepath.Join(root, "REPORT.md")
	if err := Run(Params{Config: cfg, Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	contents := strings.Index(doc, "- [Beyond the paper: hidden variables](#beyond-the-paper-hidden-variables)")
	uai := strings.Index(doc, "## Beyond the paper: UAI models")
	section := strings.Index(doc, "## Beyond the paper: hidden variables")
	if contents < 0 || uai < 0 || section < uai {
		t.Errorf("contents entry at %d, UAI section at %d, hidden section at %d", contents, uai, section)
	}
	if strings.Contains(doc[:uai], "hidden_") {
		t.Error("the paper's part mentions the hidden_* stages")
	}
	if _, err := os.Stat(filepath.Join(root, "report", "hidden_learning_curves.png")); err != nil {
		t.Errorf("figure: %v", err)
	}
}
