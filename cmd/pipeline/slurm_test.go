package main

// Tests against a real Slurm cluster. They run only with RENN_SLURM=1, on a
// machine where .ci/slurm-up.sh has started one (as .ci/run does), and
// take a minute or so. RENN_SLURM_BIN=DIR makes them use the binaries in
// DIR (all of cmd/, pipeline included) instead of building them.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/build"
)

func needSlurm(t *testing.T) {
	t.Helper()
	if os.Getenv("RENN_SLURM") != "1" {
		t.Skip("needs a Slurm cluster: run .ci/slurm-up.sh as root, then RENN_SLURM=1 go test ./cmd/pipeline/")
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		t.Fatalf("RENN_SLURM=1 but %v", err)
	}
}

// TestSlurmDefaultExperiment runs the default experiment (the module's
// pipeline.toml) locally and through Slurm and compares every output table.
func TestSlurmDefaultExperiment(t *testing.T) {
	needSlurm(t)
	dir, bin, configs := twoCopies(t)
	plan, err := pipeline.Load(configs["local"])
	if err != nil {
		t.Fatal(err)
	}
	n := len(plan.Instances)

	start := time.Now()
	code, out, errs := invoke(t, "run", "--config", configs["local"], "--bin", bin)
	if code != 0 {
		t.Fatalf("local run: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("local run: %d instances in %s", n, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	code, out, errs = invoke(t, "run", "--config", configs["slurm"], "--bin", bin, "--executor", "slurm", "--poll", "500ms")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%d instances: %d ran", n, n)) {
		t.Fatalf("slurm run: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("slurm run: %d instances in %s", n, time.Since(start).Round(time.Millisecond))
	if !strings.Contains(errs, "msg=submitted") {
		t.Errorf("slurm run logged no submissions:\n%s", errs)
	}

	compared := compareRuns(t, plan, filepath.Join(dir, "local", "data"), filepath.Join(dir, "slurm", "data"))
	t.Logf("%d output files of %d instances equal, timings aside", compared, n)

	// A job Slurm has forgotten (MinJobAge, 300 s by default, when the run
	// took longer on a busy machine) shows as "ended (ran)", not COMPLETED.
	code, out, _ = invoke(t, "status", "--config", configs["slurm"], "--bin", bin)
	if code != 0 || strings.Count(out, "up to date  [slurm ") != n || strings.Count(out, " (ran)]") != n ||
		strings.Count(out, ": COMPLETED (ran)]")+strings.Count(out, ": ended (ran)]") != n {
		t.Errorf("status after the slurm run: exit %d\n%s", code, out)
	}
	code, out, errs = invoke(t, "run", "--config", configs["slurm"], "--bin", bin, "--executor", "slurm")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%d instances: %d up to date", n, n)) || strings.Contains(errs, "msg=submitted") {
		t.Errorf("second slurm run: exit %d\n%s\n%s", code, out, errs)
	}
}

// twoCopies copies the module's pipeline.toml into dir/local and
// dir/slurm, and returns dir, the binaries (built into dir/bin unless
// RENN_SLURM_BIN names prebuilt ones, pipeline among them) and the two
// configs by executor.
func twoCopies(t *testing.T) (dir, bin string, configs map[string]string) {
	t.Helper()
	root, err := build.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "pipeline.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	bin = os.Getenv("RENN_SLURM_BIN") // prebuilt binaries, pipeline among them
	if bin == "" {
		bin = filepath.Join(dir, "bin")
		var msgs strings.Builder
		if err := build.Build(context.Background(), root, bin, &msgs); err != nil {
			t.Fatalf("%v\n%s", err, msgs.String())
		}
	}
	configs = map[string]string{}
	for _, ex := range []string{"local", "slurm"} {
		configs[ex] = filepath.Join(dir, ex, "pipeline.toml")
		if err := os.MkdirAll(filepath.Dir(configs[ex]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(configs[ex], src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, bin, configs
}

// compareRuns compares the outputs of every instance of plan in two data
// directories, timings aside, and returns how many files it compared.
func compareRuns(t *testing.T, plan *pipeline.Plan, local, slurm string) int {
	t.Helper()
	compared := 0
	for _, inst := range plan.Instances {
		rel, err := filepath.Rel(plan.Config.DataDir, inst.OutDir)
		if err != nil {
			t.Fatal(err)
		}
		lo := outputs(t, filepath.Join(local, rel))
		so := outputs(t, filepath.Join(slurm, rel))
		if !slices.Equal(lo, so) || len(lo) == 0 {
			t.Errorf("%s: local run wrote %v, slurm run %v", inst.ID, lo, so)
			continue
		}
		for _, name := range lo {
			a := filepath.Join(local, rel, name)
			b := filepath.Join(slurm, rel, name)
			if err := sameContent(a, b); err != nil {
				t.Errorf("%s: %v", inst.ID, err)
				continue
			}
			compared++
		}
	}
	return compared
}

// TestSlurmKilledJob cancels a running job and checks that it is left
// unstamped, that its dependants do not run, and that the next run reruns
// just the cancelled instance and its dependants.
func TestSlurmKilledJob(t *testing.T) {
	needSlurm(t)
	dir, cfg, bin := killedJobProject(t)
	runs := filepath.Join(dir, "runs")
	ran := func() []string { return ranIn(t, runs) }

	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		code, out, errs := invoke(t, "run", "--config", cfg, "--bin", bin, "--executor", "slurm", "--poll", "200ms")
		done <- result{code, out, errs}
	}()
	job := waitForB(t, dir, ran)
	t.Logf("b started as job %s after %s; cancelling it", job, time.Since(start).Round(time.Millisecond))
	if out, err := exec.Command("scancel", job).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v\n%s", job, err, out)
	}
	var res result
	select {
	case res = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end within 2 minutes of scancel")
	}
	t.Logf("first run ended %s after start", time.Since(start).Round(time.Millisecond))
	checkKilledRun(t, dir, job, res.code, res.out, res.err)
	code, out, _ := invoke(t, "status", "--config", cfg, "--bin", bin)
	if code != 0 || !strings.Contains(out, "[slurm "+job+": CANCELLED") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	t.Logf("pipeline status after scancel:\n%s", out)
	ran()

	if err := os.Remove(filepath.Join(dir, "hold")); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	code, out, errs := invoke(t, "run", "--config", cfg, "--bin", bin, "--executor", "slurm", "--poll", "200ms")
	if code != 0 || !strings.Contains(out, "4 instances: 2 ran, 2 up to date") {
		t.Errorf("second run: exit %d\n%s\n%s", code, out, errs)
	}
	if got := ran(); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("second run ran %v, want [b c]", got)
	}
	t.Logf("second run: %s", time.Since(start).Round(time.Millisecond))
}

// checkKilledRun checks the run whose job of b was cancelled: b failed, c
// was blocked, and only a and d are stamped.
func checkKilledRun(t *testing.T, dir, job string, code int, out, errs string) {
	t.Helper()
	for _, want := range []string{"4 instances: 2 ran, 1 failed, 1 blocked", "FAILED b: Slurm job " + job + " CANCELLED", "blocked c: upstream b failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("first run lacks %q: exit %d\n%s\n%s", want, code, out, errs)
		}
	}
	if code != 1 {
		t.Errorf("first run: exit %d, want 1", code)
	}
	for id, stamped := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		_, err := pipeline.ReadStamp(filepath.Join(dir, "data", id))
		if (err == nil) != stamped {
			t.Errorf("%s: stamp read error %v, want stamped %v", id, err, stamped)
		}
	}
}

// killedJobProject makes the project of TestSlurmKilledJob: a -> b -> c
// and a -> d, where b waits while the file hold exists, every stage
// recording its run in runs/, and its binaries built into bin/.
func killedJobProject(t *testing.T) (dir, cfg, bin string) {
	t.Helper()
	root, err := build.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir = module(t, "")
	hold := filepath.Join(dir, "hold")
	runs := filepath.Join(dir, "runs")
	for _, d := range []string{runs, filepath.Join(dir, "bin")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`
[stage.a]
run = ["fakestage", "gen"]
flags = { value = "a", log = %[1]q }
untracked = ["log"]
[stage.b]                       # waits while the hold file exists
run = ["fakestage"]
flags = { value = "b", log = %[1]q, wait-while = %[2]q }
untracked = ["log", "wait-while"]
inputs = { in = "a" }
[stage.c]
run = ["fakestage"]
flags = { value = "c", log = %[1]q }
untracked = ["log"]
inputs = { in = "b" }
[stage.d]
run = ["fakestage"]
flags = { value = "d", log = %[1]q }
untracked = ["log"]
inputs = { in = "a" }
`, runs, hold)
	cfg = filepath.Join(dir, "pipeline.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "bin")
	for _, b := range []struct{ dir, pkg string }{{dir, "./cmd/fakestage"}, {root, "./cmd/pipeline"}} {
		cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator), b.pkg)
		cmd.Dir = b.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return dir, cfg, bin
}

// ranIn returns the instances the fake stage recorded in runs since the
// last call, sorted, and clears the record.
func ranIn(t *testing.T, runs string) []string {
	t.Helper()
	entries, err := os.ReadDir(runs)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(runs, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, strings.TrimPrefix(string(b), "data"+string(filepath.Separator)))
		os.Remove(filepath.Join(runs, e.Name()))
	}
	slices.Sort(ids)
	return ids
}

// waitForB waits until stage b has started (its record in runs/ appears:
// ran returns it) and returns its Slurm job.
func waitForB(t *testing.T, dir string, ran func() []string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !slices.Contains(ran(), "b") {
		if time.Now().After(deadline) {
			t.Fatal("b did not start within 2 minutes")
		}
		time.Sleep(100 * time.Millisecond)
	}
	var rec struct{ Job string }
	b, err := os.ReadFile(filepath.Join(dir, "data", "b", ".logs", "slurm.json"))
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil || rec.Job == "" {
		t.Fatalf("b's job record: %v %q", err, b)
	}
	return rec.Job
}

// outputs lists the output files of an instance directory.
func outputs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names
}

// sameContent compares two stage outputs, leaving out timings, the only
// numbers that change from run to run. Parquet files are compared by their
// tables, cell by cell, without a column named "seconds" and rows whose
// metric is "seconds"; their key/value metadata is not compared, as it
// names input files by path. Markdown tables are compared line by line
// without the rows of metric "seconds". Other files must be equal byte for
// byte.
func sameContent(a, b string) error {
	read := tableRows
	switch {
	case strings.HasSuffix(a, ".md"):
		read = markdownRows
	case !strings.HasSuffix(a, ".parquet"):
		read = func(path string) ([]string, error) {
			b, err := os.ReadFile(path)
			return []string{string(b)}, err
		}
	}
	x, err := read(a)
	if err != nil {
		return err
	}
	y, err := read(b)
	if err != nil {
		return err
	}
	if len(x) != len(y) {
		return fmt.Errorf("%s has %d rows, %s %d", a, len(x), b, len(y))
	}
	for i := range x {
		if x[i] != y[i] {
			return fmt.Errorf("%s row %d:\n  %s\n%s row %d:\n  %s", a, i, x[i], b, i, y[i])
		}
	}
	return nil
}

// tableRows renders every row of a Parquet file as "column=value ...".
func tableRows(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tbl.Release()
	rows := make([]string, tbl.NumRows())
	skip := make([]bool, tbl.NumRows())
	for c := 0; c < int(tbl.NumCols()); c++ {
		name := tbl.Schema().Field(c).Name
		if name == "seconds" {
			continue
		}
		row := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				v := valueString(chunk, i)
				rows[row] += name + "=" + v + " "
				if name == "metric" && v == "seconds" {
					skip[row] = true
				}
				row++
			}
		}
	}
	var out []string
	for i, r := range rows {
		if !skip[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// markdownRows returns the lines of a Markdown file without the rows of
// a table whose first cell is "seconds", and the rows after them whose
// first cell is empty (the same metric, continued).
func markdownRows(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	timing := false
	for _, line := range strings.Split(string(b), "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.TrimSpace(cells[0]) == "" {
			if first := strings.TrimSpace(cells[1]); first != "" {
				timing = first == "seconds"
			}
			if timing {
				continue
			}
		} else {
			timing = false
		}
		out = append(out, line)
	}
	return out, nil
}

func valueString(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	return a.ValueStr(i)
}

// TestSameContent checks the comparison the Slurm test relies on: it must
// ignore timings and metadata, and nothing else.
func TestSameContent(t *testing.T) {
	dir := t.TempDir()
	n := 0
	path := func(ext string) string {
		n++
		return filepath.Join(dir, fmt.Sprintf("%d.%s", n, ext))
	}
	estimates := func(logZ, seconds float64, input string) string {
		t.Helper()
		p := path("parquet")
		rows := []formats.EstimateRow{{Method: "bp", LogZ: logZ, Iterations: 7, Converged: true, Seconds: seconds, Params: "{}"}}
		if err := formats.WriteEstimates(p, rows, formats.Provenance{Stage: "x", Inputs: map[string]string{input: "00"}}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	scores := func(l1, seconds float64) string {
		t.Helper()
		p := path("parquet")
		rows := []formats.ScoreRow{{Method: "bp", Metric: "l1", Value: l1}, {Method: "bp", Metric: "seconds", Value: seconds}}
		if err := formats.WriteScores(p, rows, formats.Provenance{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	markdown := func(l1, seconds string) string {
		t.Helper()
		p := path("md")
		body := "| metric | mf |\n| --- | ---: |\n| l1 | 0.1 |\n|  | " + l1 + " |\n| seconds | " + seconds + " |\n|  | " + seconds + " |\n\nnote\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"estimates: other timing and metadata", estimates(1.5, 0.1, "/one/in"), estimates(1.5, 9, "/two/in"), true},
		{"estimates: other log Z", estimates(1.5, 0.1, "/in"), estimates(1.5000001, 0.1, "/in"), false},
		{"scores: other timing", scores(0.25, 0.1), scores(0.25, 3), true},
		{"scores: other value", scores(0.25, 0.1), scores(0.26, 0.1), false},
		{"markdown: other timing", markdown("0.2", "1.0"), markdown("0.2", "2.0"), true},
		{"markdown: other value", markdown("0.2", "1.0"), markdown("0.3", "1.0"), false},
	}
	for _, tt := range tests {
		err := sameContent(tt.a, tt.b)
		if (err == nil) != tt.same {
			t.Errorf("%s: error %v, want same %v", tt.name, err, tt.same)
		}
	}
}
