package report

import (
	"github.com/renn-go/renn/stages/stageio/outputs"

	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/score"
)

// addSummary adds a summary cell of a family's setting to s.
func addSummary(s *section, fam string, size int, method, metric string, mean, std float64, n int) {
	ps := outputs.SettingOf("grid", size, 1)
	g := s.data.Setting(fam+ps.Key, func() *group {
		ps.Family, ps.Label = fam, s.reader().Label(ps)
		return ps
	})
	o := s.data.Find(g, "", method)
	if len(o) == 0 {
		o = []*obs{s.data.Add(outputs.NewFact("amortized_", fam, g, "", method))}
	}
	o[0].Num[metric], o[0].Num[metric+"_std"], o[0].Num[metric+"_n"] = mean, std, float64(n)
}

func TestAmortizedMarkdown(t *testing.T) {
	s := emptySection(t, "amortized", "amortized_", "unscored")
	const fam = "grid-n01-gamma1"
	s.data.Families = []*family{{Name: fam, Stage: "amortized_n01_g1", Present: true}, {Name: "grid-u5", Stage: "amortized_u5"}}
	addSummary(s, fam, 100, "bp", metrics.L1, 0.05, 0, 100)
	addSummary(s, fam, 100, "bp", metrics.VarMeanAbs, 0.024, 0, 100)
	addSummary(s, fam, 100, "bp", metrics.LogZErr, 0.3, 0.4, 100) // RMSE 0.5
	addSummary(s, fam, 100, "bp", score.Seconds, 0.1, 0, 100)
	addSummary(s, fam, 100, "renn-family-fwd", metrics.L1, 0.002, 0, 100)
	addSummary(s, fam, 100, "gbp-blocks3", metrics.L1, 0.003, 0, 100)
	addSummary(s, fam, 100, "gbp-blocks3", metrics.VarMeanAbs, 0.0032, 0, 100)
	addSummary(s, fam, 100, "gbp-blocks3", metrics.LogZErr, 0.03, 0.04, 100) // RMSE 0.05
	addSummary(s, fam, 100, "gbp-blocks3", score.Seconds, 0.49, 0, 100)
	addSummary(s, fam, 400, "gbp", metrics.L1, 0.0004, 0, 20)      // its ln Z error not measured
	addSummary(s, fam, 100, "someone-else", metrics.L1, 1, 0, 100) // not a column
	s.data.SortSettings(s.spec.Order)
	s.data.SortMethods()
	got := markdownOf(t, s)
	for _, want := range []string{
		"## Beyond the paper: amortized inference",
		"### grid-n01-gamma1",
		"| 10x10 (100) | renn-family-fwd | 0.0020 | – | – | – |",
		"| 10x10 (100) | bp | 0.0500 | 0.0240 | 0.500 | 0.100 |",
		"| 10x10 (100) | gbp-blocks3 | 0.0030 | 0.0032 | 0.050 | 0.490 |",
		"| 20x20 (20) | gbp | 0.0004 | – | – | – |",
		"### grid-u5\n\nNot run yet (score stage amortized_u5).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "someone-else") {
		t.Errorf("a method outside the columns was shown:\n%s", got)
	}
	// Forward pass before refinement before bp within a setting; 10x10 before 20x20.
	if i, j := strings.Index(got, "renn-family-fwd"), strings.Index(got, "| bp |"); i > j || strings.Index(got, "| gbp-blocks3 |") > j {
		t.Errorf("methods out of order:\n%s", got)
	}
	if i, j := strings.Index(got, "10x10"), strings.Index(got, "20x20"); i > j {
		t.Errorf("settings out of order:\n%s", got)
	}
}

// Each family's table shows its own settings alone.
func TestAmortizedFamilyTables(t *testing.T) {
	s := emptySection(t, "amortized", "amortized_", "unscored")
	s.data.Families = []*family{{Name: "grid-a", Stage: "amortized_a", Present: true}, {Name: "grid-b", Stage: "amortized_b", Present: true}}
	addSummary(s, "grid-a", 100, "bp", metrics.L1, 0.05, 0, 100)
	addSummary(s, "grid-b", 25, "bp", metrics.L1, 0.07, 0, 100)
	got := markdownOf(t, s)
	a, b, ok := strings.Cut(got, "### grid-b")
	if !ok || !strings.Contains(a, "| 10x10 (100) | bp | 0.0500 |") || strings.Contains(a, "5x5") ||
		!strings.Contains(b, "| 5x5 (100) | bp | 0.0700 |") || strings.Contains(b, "10x10") {
		t.Errorf("a family's table shows another's settings:\n%s", got)
	}
}

func TestAmortizedSectionNoStages(t *testing.T) {
	if _, err := Section("amortized", SectionParams{Config: "../../pipeline.scale.toml"}); err == nil || !strings.Contains(err.Error(), "amortized_") {
		t.Fatalf("err = %v, want one naming the missing amortized_ stages", err)
	}
}

func TestAmortizedSectionNotRun(t *testing.T) {
	got, err := Section("amortized", SectionParams{Config: "../../pipeline.amortize.toml", Command: "go run ./cmd/report --amortized pipeline.amortize.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "### grid-n01-gamma1") || !strings.Contains(got, "### grid-u5") {
		t.Fatalf("families not named by their weights:\n%s", got)
	}
	if !strings.Contains(got, "gbp-blocks3") {
		t.Errorf("BPNN's note does not name gbp-blocks3:\n%s", got)
	}
	if !strings.HasSuffix(got, "\n\nMade by `go run ./cmd/report --amortized pipeline.amortize.toml`.\n") {
		t.Errorf("the section does not end with how it was made:\n%s", got)
	}
}

func TestCompareAnswers(t *testing.T) {
	run := func(p0, p1, lz0, lz1 float64) *outputs.Answers {
		return &outputs.Answers{
			Vars: map[[2]int32][]float64{{0, 0}: {p0, 1 - p0}, {0, 1}: {0.5, 0.5}, {1, 0}: {p1, 1 - p1}, {1, 1}: {0.5, 0.5}},
			LogZ: map[int32]float64{0: lz0, 1: lz1}, Seconds: map[int32]float64{0: 1, 1: 3},
		}
	}
	ref := run(0.5, 0.5, 10, 20)
	ref.Seconds = map[int32]float64{0: 0.25, 1: 0.75}
	s := emptySection(t, "amortized", "amortized_", "unscored")
	g := &group{Family: "grid-u2", Key: "t30", Label: "30x30 (2)", Graph: "grid", Size: 900}
	g = s.data.Setting("t30", func() *group { return g })
	pt := newPart("unscored")
	if err := s.reader().CompareAnswers(&pt.Progress, g, "renn-family-fwd", run(0.6, 0.3, 13, 16), ref, "gbp"); err != nil {
		t.Fatal(err)
	}
	if err := s.reader().CompareAnswers(&pt.Progress, g, "gbp", ref, ref, "gbp"); err != nil {
		t.Fatal(err)
	}
	// Model 0: entries |0.1|,|0.1|,0,0 -> 0.05; model 1: 0.2,0.2,0,0 -> 0.1.
	// ln Z errors 3 and -4: RMS sqrt(12.5).
	o := s.data.Find(g, "", "renn-family-fwd")[0]
	if math.Abs(o.Num["ref_mean_abs"]-0.075) > 1e-12 || math.Abs(o.Num["ref_logz_rms"]-math.Sqrt(12.5)) > 1e-12 || o.Num["seconds"] != 2 {
		t.Fatalf("got %v", o.Num)
	}
	bad := run(0.6, 0.3, 13, 16)
	bad.Vars[[2]int32{0, 0}] = []float64{1}
	if err := s.reader().CompareAnswers(&pt.Progress, g, "x", bad, ref, "gbp"); err == nil || !strings.Contains(err.Error(), "states") {
		t.Fatalf("err = %v, want a state-count mismatch", err)
	}
	s.data.SortMethods()
	md := scope{s: s}.Table("against-gbp")
	for _, want := range []string{"| grid-u2 | 30x30 (2) | renn-family-fwd | 0.0750 | 3.536 | 2.000 |", "| grid-u2 | 30x30 (2) | gbp | – | – | 0.500 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
}

// TestRunAmortized checks that Params.Amortized puts the section, listed
// in the contents, into the report, and that a config without the
// amortized_* stages fails the report.
func TestRunAmortized(t *testing.T) {
	root := t.TempDir()
	writeFixture(t, root)
	cfg := writeHardFixture(t, root, fixtureConfig, "data/hard_bip")
	out := filepath.Join(root, "REPORT.md")
	amortized, err := filepath.Abs("../../pipeline.amortize.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(Params{Config: cfg, Out: out, Sections: map[string]string{"amortized": amortized}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	contents := strings.Index(doc, "- [Beyond the paper: amortized inference](#"+"beyond-the-paper-amortized-inference"+")")
	section := strings.Index(doc, "<a id=\""+"beyond-the-paper-amortized-inference"+"\"></a>\n\n## Beyond the paper: amortized inference")
	if contents < 0 || section < 0 || section < strings.LastIndex(doc, "## Table ") {
		t.Errorf("contents entry at %d, section at %d", contents, section)
	}
	scale, err := filepath.Abs("../../pipeline.scale.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(Params{Config: cfg, Out: out, Sections: map[string]string{"amortized": scale}}); err == nil || !strings.Contains(err.Error(), "amortized_") {
		t.Errorf("err = %v, want one naming the missing amortized_ stages", err)
	}
}

// TestAmortizedSectionCommitted: with no test outputs, REPORT.md takes the
// section from the committed RESULTS.md and says so; report --amortized,
// which writes that file, still says "Not run yet".
func TestAmortizedSectionCommitted(t *testing.T) {
	results, err := os.ReadFile("../../data/networks/RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := loadSection("amortized")
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSection(spec, SectionParams{Config: "../../pipeline.amortize.toml"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.write(true)
	if err != nil {
		t.Fatal(err)
	}
	_, tables, _ := strings.Cut(string(results), "\n")
	for _, want := range []string{"## Beyond the paper: amortized inference" + "\n\nThe tables below are data/networks/RESULTS.md, written by `report --amortized ../../pipeline.amortize.toml`", tables} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Not run yet") {
		t.Errorf("section says Not run yet:\n%s", got)
	}
	plain, err := Section("amortized", SectionParams{Config: "../../pipeline.amortize.toml"})
	if err != nil || !strings.Contains(plain, "Not run yet") {
		t.Errorf("report --amortized without outputs: %v\n%s", err, plain)
	}
}
