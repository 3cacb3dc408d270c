package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

const scaleFixtureConfig = `data = "data"

[stage.models]
run = ["sample-model", "ising"]
[stage.models.shard]
size = [2, 4, 8]

[stage.regions]
run = ["build-regions"]
inputs = { models = "models" }

[stage.bp]
run = ["run-baselines"]
flags = { methods = ["bp"] }
inputs = { models = "models" }

[stage.gbp]
run = ["run-baselines"]
flags = { methods = ["gbp"] }
inputs = { models = "models", regions = "regions" }

[stage.renn]
run = ["train-renn"]
inputs = { models = "models", regions = "regions" }

[stage.renn_short]
run = ["train-renn"]
flags = { name = "renn-mp-short", max-steps = 50 }
inputs = { models = "models", regions = "regions" }
`

// writeScaleStamp writes a stamp with the given usage (0: not recorded).
func writeScaleStamp(t *testing.T, dir string, seconds, cpu float64, rssKiB int64) {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b, err := json.Marshal(pipeline.Stamp{Version: 1, ID: filepath.Base(dir), Started: t0,
		Finished: t0.Add(time.Duration(seconds * float64(time.Second))), Seconds: seconds, CPUSeconds: cpu, MaxRSSKiB: rssKiB})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pipeline.StampName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeScaleFixture writes grids of side 2, 4 and 8 (4, 16 and 64
// variables) with bp, gbp and renn-mp outputs whose seconds grow like N
// (bp, gbp) and N^1.5 (renn-mp), iterations constant, so the exponents are
// known, and a short run of renn-mp (50 steps) whose CPU time against the
// full run's gives 0.001 N^1.2 CPU seconds per step and 0.05 N besides.
// renn-mp's marginals differ from gbp's by 0.001 on every variable
// (0.004 on variable 0); the short run's by 0.1. unstamped names stage instances left without a
// stamp (not run).
func writeScaleFixture(t *testing.T, unstamped ...string) string {
	t.Helper()
	root := t.TempDir()
	cfg := filepath.Join(root, "pipeline.scale.toml")
	if err := os.WriteFile(cfg, []byte(scaleFixtureConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	for _, side := range []int{2, 4, 8} {
		n := side * side
		shard := "size=" + strconv.Itoa(side)
		models := mkdir(t, filepath.Join(data, "models", shard))
		cards := make([]int32, n)
		for i := range cards {
			cards[i] = 2
		}
		if err := formats.WriteModelInfo(filepath.Join(models, formats.ModelInfoFile),
			[]formats.ModelInfoRow{{ModelID: 0, Name: "g", Cards: cards, Graph: "grid", Gamma: 1}}, prov); err != nil {
			t.Fatal(err)
		}
		N := float64(n)
		// renn-mp's processes: 0.05 N CPU seconds besides the steps and
		// 0.001 N^1.2 per step.
		step, besides := 0.001*math.Pow(N, 1.2), 0.05*N
		for _, m := range []struct {
			stage, method string
			seconds       float64
			iters         int32
			converged     bool
			shift         float64
			rssKiB        int64
			cpu           float64 // 0: 1.1 * seconds
		}{
			{"bp", "bp", 0.01 * N, 1000, side == 2, 0.02, 1024 * int64(n), 0},
			{"gbp", "gbp", 0.002 * N, 20, true, 0, 2048 * int64(n), 0},
			{"renn", "renn-mp", 0.1 * math.Pow(N, 1.5), 300, true, 0.001, 4096 * int64(n), besides + 300*step},
			{"renn_short", "renn-mp-short", 0.01, 50, false, 0.1, 100, besides + 50*step},
		} {
			dir := mkdir(t, filepath.Join(data, m.stage, shard))
			est := []formats.EstimateRow{{ModelID: 0, Method: m.method, Iterations: m.iters, Converged: m.converged, Seconds: m.seconds}}
			if err := formats.WriteEstimates(filepath.Join(dir, formats.EstimatesFile), est, prov); err != nil {
				t.Fatal(err)
			}
			var marg []formats.MarginalRow
			for i := range n {
				p := 0.3 + m.shift
				if i == 0 && m.method == "renn-mp" {
					p += 0.003
				}
				marg = append(marg, formats.MarginalRow{ModelID: 0, Method: m.method, Kind: "var", Index: int32(i), Vars: []int32{int32(i)}, Probs: []float64{1 - p, p}})
			}
			marg = append(marg, formats.MarginalRow{ModelID: 0, Method: m.method, Kind: "factor", Index: 0, Vars: []int32{0, 1}, Probs: []float64{0.25, 0.25, 0.25, 0.25}})
			if err := formats.WriteMarginals(filepath.Join(dir, formats.MarginalsFile), marg, prov); err != nil {
				t.Fatal(err)
			}
			id := m.stage + "/" + shard
			skip := false
			for _, u := range unstamped {
				skip = skip || u == id
			}
			if !skip {
				cpu := m.cpu
				if cpu == 0 {
					cpu = 1.1 * m.seconds
				}
				writeScaleStamp(t, dir, 1.25*m.seconds, cpu, m.rssKiB)
			}
		}
	}
	return cfg
}

// row returns the cells of the table row whose first cell is label.
func row(t *testing.T, table, label string) []string {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		// An escaped pipe, \|, is part of a cell.
		cells := strings.Split(strings.Trim(strings.ReplaceAll(line, `\|`, "\x00"), "|"), "|")
		for i := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "\x00", `\|`)
		}
		if len(cells) > 1 && cells[0] == label {
			return cells
		}
	}
	t.Fatalf("no row %q in\n%s", label, table)
	return nil
}

func TestScaleTable(t *testing.T) {
	cfg := writeScaleFixture(t)
	spec, err := loadSection("scale")
	if err != nil {
		t.Fatal(err)
	}
	spec.Cost.MinFitN = 16
	s, err := newSection(spec, SectionParams{Config: cfg, Command: "report --scale X"})
	if err != nil {
		t.Fatal(err)
	}
	md, err := s.markdown()
	if err != nil {
		t.Fatal(err)
	}
	header := row(t, md, "grid")
	want := []string{"grid", "N", "bp s", "iters", "s/iter", "MiB", "conv", "gbp s", "iters", "s/iter", "MiB", "conv",
		"renn-mp s", "steps", "s/step", "MiB", "conv", `renn-mp − gbp mean \|ΔP\| (max)`}
	if strings.Join(header, ";") != strings.Join(want, ";") {
		t.Errorf("header %q\nwant   %q", header, want)
	}
	// 8x8: bp 0.64 s over 1000 sweeps, 64 MiB, not converged; gbp 0.128 s,
	// 20 sweeps; renn-mp 0.1*64^1.5 = 51.2 s over 300 steps, 256 MiB; mean
	// |Δ| (63*0.001 + 0.004)/64.
	r := row(t, md, "8x8")
	wantRow := []string{"8x8", "64", "0.640", "1000", "6.40e-04", "64", "no", "0.128", "20", "0.00640", "128", "yes",
		"51.2", "300", "0.171", "256", "yes", "1.0e-03 (4.0e-03)"}
	if strings.Join(r, ";") != strings.Join(wantRow, ";") {
		t.Errorf("8x8 row %q\nwant    %q", r, wantRow)
	}
	if r := row(t, md, "2x2"); r[6] != "yes" {
		t.Errorf("2x2 bp converged: %q", r[6])
	}
	// Exponents over 4x4 and 8x8 (MinFitN 16): seconds like N for bp and
	// gbp, N^1.5 for renn-mp; memory like N.
	e := row(t, md, "exponent (4x4 to 8x8)")
	wantExp := []string{"exponent (4x4 to 8x8)", "", "1.00", "", "1.00", "1.00", "", "1.00", "", "1.00", "1.00", "",
		"1.50", "", "1.50", "1.00", "", ""}
	if strings.Join(e, ";") != strings.Join(wantExp, ";") {
		t.Errorf("exponents %q\nwant       %q", e, wantExp)
	}
	// The process table: wall and CPU seconds from the stamps.
	tables := strings.SplitN(md, "The whole stage process", 2)
	if len(tables) != 2 {
		t.Fatalf("no process table in\n%s", md)
	}
	pr := row(t, tables[1], "8x8")
	// renn-mp: CPU 3.2 + 300*0.147 = 47.3 s, so 0.158 s per step over
	// the whole process, 0.001*64^1.2 = 0.147 s per step alone, 3.20 s
	// besides.
	wantPr := []string{"8x8", "64", "0.800", "0.704", "7.04e-04", "0.160", "0.141", "0.00704", "64.0", "47.3", "0.158", "0.147", "3.20"}
	if strings.Join(pr, ";") != strings.Join(wantPr, ";") {
		t.Errorf("process 8x8 %q\nwant        %q", pr, wantPr)
	}
	pe := row(t, tables[1], "exponent (4x4 to 8x8)")
	wantPe := []string{"exponent (4x4 to 8x8)", "", "1.00", "1.00", "1.00", "1.00", "1.00", "1.00", "1.50", "1.18", "1.18", "1.20", "1.00"}
	if strings.Join(pe, ";") != strings.Join(wantPe, ";") {
		t.Errorf("process exponents %q\nwant               %q", pe, wantPe)
	}
	if strings.Contains(md, "renn-mp-short s") {
		t.Errorf("the short run has columns of its own:\n%s", md)
	}
	for _, s := range []string{"Made by `report --scale X`", "over the 2 settings from 4x4 to 8x8", "(renn-mp-short, stopped after 50 steps)"} {
		if !strings.Contains(md, s) {
			t.Errorf("no %q in\n%s", s, md)
		}
	}
	if strings.Contains(md, "Partial") {
		t.Errorf("a complete run called partial:\n%s", md)
	}
}

func TestScaleTablePartial(t *testing.T) {
	cfg := writeScaleFixture(t, "renn/size=8", "gbp/size=2")
	// A stamp written before usage was recorded.
	writeScaleStamp(t, filepath.Join(filepath.Dir(cfg), "data", "bp", "size=4"), 1, 0, 0)
	md, err := Section("scale", SectionParams{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"**Partial:** 10 of 12 inference instances", "Some bp stamps do not record"} {
		if !strings.Contains(md, s) {
			t.Errorf("no %q in\n%s", s, md)
		}
	}
	r := row(t, md, "8x8")
	if len(r) != 18 || r[12] != "" || r[17] != "" {
		t.Errorf("8x8 without renn-mp: %q", r)
	}
	r = row(t, md, "2x2")
	if r[7] != "" || r[17] != "" {
		t.Errorf("2x2 without gbp: %q", r)
	}
	if r := row(t, md, "4x4"); r[5] != "—" {
		t.Errorf("4x4 bp memory without usage: %q", r[5])
	}
	// Too few settings of 400 variables or more: no exponent.
	if e := row(t, md, "exponent"); e[2] != "—" {
		t.Errorf("exponent without settings: %q", e)
	}
}

func TestScaleTableNothingRun(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "p.toml")
	if err := os.WriteFile(cfg, []byte(scaleFixtureConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Section("scale", SectionParams{Config: cfg})
	if err == nil || !strings.Contains(err.Error(), "no stage instance") {
		t.Errorf("err %v", err)
	}
}

func TestFmtSig(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{{0.0135, "0.0135"}, {55.3, "55.3"}, {1234.6, "1235"}, {0.00043, "4.30e-04"}, {0.5, "0.500"}, {math.NaN(), "—"}} {
		if got := fmtSig(tc.x); got != tc.want {
			t.Errorf("fmtSig(%g) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
