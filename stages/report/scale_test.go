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
// known. renn-mp's marginals differ from gbp's by 0.001 on every variable
// (0.004 on variable 0). unstamped names stage instances left without a
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
		for _, m := range []struct {
			stage, method string
			seconds       float64
			iters         int32
			converged     bool
			shift         float64
			rssKiB        int64
		}{
			{"bp", "bp", 0.01 * N, 1000, side == 2, 0.02, 1024 * int64(n)},
			{"gbp", "gbp", 0.002 * N, 20, true, 0, 2048 * int64(n)},
			{"renn", "renn-mp", 0.1 * math.Pow(N, 1.5), 300, true, 0.001, 4096 * int64(n)},
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
			if m.method == "renn-mp" && side > 2 {
				// Progress lines 200 steps apart, at a quarter of the
				// seconds per 100 steps: setup is a quarter of the run.
				logs := mkdir(t, filepath.Join(dir, ".logs"))
				t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
				t1 := t0.Add(time.Duration(m.seconds / 2 * float64(time.Second)))
				lines := "time=" + t0.Format(time.RFC3339Nano) + " level=INFO msg=training model=0 method=renn-mp step=50 loss=-1\n" +
					"time=2026-01-02T03:04:06Z level=INFO msg=other model=0 method=renn-mp step=60\n" +
					"time=" + t1.Format(time.RFC3339Nano) + " level=INFO msg=training model=0 method=renn-mp step=250 loss=-2\n" +
					"time=" + t1.Format(time.RFC3339Nano) + " level=INFO msg=trained model=0 method=renn-mp steps=300\n"
				if err := os.WriteFile(filepath.Join(logs, "stderr.log"), []byte(lines), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			id := m.stage + "/" + shard
			skip := false
			for _, u := range unstamped {
				skip = skip || u == id
			}
			if !skip {
				writeScaleStamp(t, dir, 1.25*m.seconds, 1.1*m.seconds, m.rssKiB)
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
	p := DefaultScaleParams(cfg)
	p.MinFitN = 16
	p.Command = "report --scale X"
	md, err := ScaleTable(p)
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
	// renn-mp: 51.2 s, 0.128 s per step between its progress lines, so
	// 51.2 - 300*0.128 = 12.8 s before its first step.
	wantPr := []string{"8x8", "64", "0.800", "0.704", "0.160", "0.141", "64.0", "56.3", "12.8", "0.128"}
	if strings.Join(pr, ";") != strings.Join(wantPr, ";") {
		t.Errorf("process 8x8 %q\nwant        %q", pr, wantPr)
	}
	if r := row(t, tables[1], "2x2"); r[8] != "—" || r[9] != "—" {
		t.Errorf("process 2x2 without progress lines: %q", r)
	}
	pe := row(t, tables[1], "exponent (4x4 to 8x8)")
	wantPe := []string{"exponent (4x4 to 8x8)", "", "1.00", "1.00", "1.00", "1.00", "1.50", "1.50", "1.50", "1.50"}
	if strings.Join(pe, ";") != strings.Join(wantPe, ";") {
		t.Errorf("process exponents %q\nwant               %q", pe, wantPe)
	}
	for _, s := range []string{"Made by `report --scale X`", "over the 2 settings from 4x4 to 8x8"} {
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
	md, err := ScaleTable(DefaultScaleParams(cfg))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"**Partial:** 7 of 9 inference instances", "Some bp stamps do not record"} {
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
	_, err := ScaleTable(DefaultScaleParams(cfg))
	if err == nil || !strings.Contains(err.Error(), "no stage instance") {
		t.Errorf("err %v", err)
	}
}

func TestFitExponent(t *testing.T) {
	n := []float64{10, 100, 1000, 10000}
	y := []float64{5, 3 * math.Pow(100, 1.1), 3 * math.Pow(1000, 1.1), 3 * math.Pow(10000, 1.1)}
	if got := fitExponent(n, y, 100); math.Abs(got-1.1) > 1e-12 {
		t.Errorf("slope %g, want 1.1", got)
	}
	if got := fitExponent(n, y, 5000); !math.IsNaN(got) {
		t.Errorf("one point: slope %g, want NaN", got)
	}
	if got := fitExponent(n, []float64{1, math.NaN(), 0, 4}, 1); math.Abs(got-math.Log(4)/math.Log(1000)) > 1e-12 {
		t.Errorf("NaN and 0 not skipped: %g", got)
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
