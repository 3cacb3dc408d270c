package main

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

func TestMain(m *testing.M) { clitest.Main(m, "run-baselines", main) }

// An option set on the command line reaches the method it names, zero
// damping included, and no other method.
func TestSetReachesTheMethod(t *testing.T) {
	dir := t.TempDir()
	models, regions, out := filepath.Join(dir, "m"), filepath.Join(dir, "r"), filepath.Join(dir, "out")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	if err := buildregions.Run(buildregions.Params{Models: models, Scheme: "faces"}, regions, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	code, stderr := clitest.Run(t, "--models", models, "--regions", regions, "--methods", "dbp,gbp,dlgbp",
		"--set", "tol=1e-7", "--set", "gbp.max_iter=3", "--set", "dbp.damping=0",
		"--set", "dlgbp.max_iter=4", "--set", "dlgbp.inner_iter=50", "--set", "dlgbp.inner_tol=1e-9", "--set", "dlgbp.max_seconds=60",
		"--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{
		"dbp":   {"tol": 1e-7, "max_iter": 1000, "damping": 0},
		"gbp":   {"tol": 1e-7, "max_iter": 3, "damping": 0},
		"dlgbp": {"tol": 1e-7, "max_iter": 4, "inner_iter": 50, "inner_tol": 1e-9, "max_seconds": 60},
	}
	for _, r := range est {
		var p struct {
			Method  string             `json:"method"`
			Options map[string]float64 `json:"options"`
		}
		if err := json.Unmarshal([]byte(r.Params), &p); err != nil {
			t.Fatal(err)
		}
		for k, v := range want[r.Method] {
			if p.Options[k] != v {
				t.Errorf("%s: option %s = %v, want %v (params %s)", r.Method, k, p.Options[k], v, r.Params)
			}
		}
	}
}

// Every option of the samplers reaches them, and their standard errors are
// written to stderrs.parquet, one row per variable and method.
func TestSamplerOptions(t *testing.T) {
	dir := t.TempDir()
	models, out := filepath.Join(dir, "m"), filepath.Join(dir, "out")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	code, stderr := clitest.Run(t, "--models", models, "--methods", "gibbs,pt", "--set", "seed=7", "--set", "chains=3",
		"--set", "sweeps=300", "--set", "max_seconds=30", "--set", "burn_in=0.3", "--set", "max_rhat=1.5",
		"--set", "pt.temps=3", "--set", "pt.beta_min=0.1", "--set", "pt.betas=1 0.5", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"seed": 7.0, "chains": 3.0, "sweeps": 300.0, "max_seconds": 30.0, "burn_in": 0.3, "max_rhat": 1.5}
	for _, r := range est {
		var p struct {
			Options map[string]any `json:"options"`
		}
		if err := json.Unmarshal([]byte(r.Params), &p); err != nil {
			t.Fatal(err)
		}
		w := maps.Clone(want)
		if r.Method == "pt" {
			w["temps"], w["beta_min"], w["betas"] = 3.0, 0.1, "1 0.5"
		}
		for k, v := range w {
			if p.Options[k] != v {
				t.Errorf("%s: option %s = %v, want %v", r.Method, k, p.Options[k], v)
			}
		}
		if r.Iterations != 300 {
			t.Errorf("%s: %d sweeps", r.Method, r.Iterations)
		}
	}
	se, _, err := formats.ReadStderrs(filepath.Join(out, formats.StderrsFile))
	if err != nil {
		t.Fatal(err)
	}
	vars, logZ := 0, map[string]float64{}
	for _, r := range se {
		switch r.Kind {
		case formats.StderrVar:
			vars++
		case formats.StderrLogZ:
			logZ[r.Method] = r.Stderr[0]
		default:
			t.Errorf("row of kind %q", r.Kind)
		}
	}
	if vars != 2*9 {
		t.Errorf("%d standard-error rows of variables, want 18", vars)
	}
	// pt's ln Z standard error, as in its diagnostics; gibbs makes no ln Z.
	for _, r := range est {
		var p struct {
			Diagnostics map[string]any `json:"diagnostics"`
		}
		if err := json.Unmarshal([]byte(r.Params), &p); err != nil {
			t.Fatal(err)
		}
		got, ok := logZ[r.Method]
		if want := p.Diagnostics["log_z_se"]; r.Method == "pt" && (!ok || got != want) || r.Method == "gibbs" && ok {
			t.Errorf("%s: ln Z standard error row %v (%v), diagnostics %v", r.Method, got, ok, want)
		}
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	base := "--models " + dir + " --out " + out
	for _, tc := range []struct {
		name, args string
		code       int
		want       string
	}{
		{"unknown method", base + " --methods lbp", 2, "unknown method"},
		{"zero tol", base + " --set tol=0", 2, "tol"},
		{"zero sweeps", base + " --set gbp.max_iter=0", 2, "max_iter"},
		{"negative time budget", base + " --set max_seconds=-1", 2, "max_seconds"},
		{"infinite time budget", base + " --set gbp.max_seconds=Inf", 2, "max_seconds"},
		{"auto: zero budget", base + " --methods auto --set auto.max_seconds=0", 2, "max_seconds"},
		{"auto: NaN budget", base + " --methods auto --set max_seconds=NaN", 2, "max_seconds"},
		{"auto: infinite budget", base + " --methods auto --set auto.max_seconds=+Inf", 2, "max_seconds"},
		{"option no method has", base + " --set lambda=1", 2, "lambda"},
		{"bad value", base + " --set tol=x", 2, "tol"},
		{"region method without regions", base + " --methods bp,gbp", 2, "method gbp needs --regions"},
		{"out is the models directory", "--models " + dir + " --methods mf --out " + dir, 2, "--out " + dir + " is the --models input"},
		{"empty out", "--models " + dir + " --methods mf --out=", 2, "--out: empty path"},
		{"no models file", base + " --methods mf", 2, "--models wants a folder written by sample-model (models.parquet and model_info.parquet); " + dir + " is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := clitest.Run(t, strings.Fields(tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// A method that fails on one model (infnet: the Bethe root of a factor over
// two 300-state variables has 90 000 states, more than its network takes)
// loses that run only, unless --strict; a stage where every run failed
// exits 1.
func TestFailedRunIsIsolated(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, grid); err != nil {
		t.Fatal(err)
	}
	ms, _, err := stageio.LoadModels(grid)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	table := make([]float64, 300*300)
	for i := range table {
		table[i] = r.NormFloat64()
	}
	wide := stageio.Model{ID: 1, Info: mrf.Info{Name: "wide", Graph: "uai"},
		Model: &mrf.Model{Cards: []int{300, 300}, Factors: []mrf.Factor{{Vars: []int{0, 1}, LogTable: table}}}}
	both, onlyWide := filepath.Join(dir, "both"), filepath.Join(dir, "wide")
	writeModels(t, both, ms[0], wide)
	wide.ID = 0
	writeModels(t, onlyWide, wide)

	run := func(models, methods string, extra ...string) (string, int, string) {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"--models", models, "--methods", methods, "--set", "infnet.max_iter=20", "--out", out}, extra...)
		code, stderr := clitest.Run(t, args...)
		return out, code, stderr
	}
	out, code, stderr := run(both, "mf,bp,infnet")
	if code != 0 || !strings.Contains(stderr, "1 of 6 runs failed") || !strings.Contains(stderr, "model 1 (wide) infnet: ") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	est, prov, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 5 {
		t.Errorf("%d estimates, want the 5 runs that finished", len(est))
	}
	for _, r := range est {
		if r.ModelID == 1 && r.Method == "infnet" {
			t.Error("the failed run has an estimate")
		}
	}
	if !strings.Contains(prov.Params, `"failed":[{"model_id":1,"model":"wide","method":"infnet","error":`) {
		t.Errorf("provenance params %s", prov.Params)
	}

	out, code, stderr = run(both, "mf,bp,infnet", "--strict")
	if code != 1 || !strings.Contains(stderr, "1 of 6 runs failed (--strict") {
		t.Errorf("--strict: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--strict left %s behind", out)
	}

	out, code, stderr = run(onlyWide, "infnet")
	if code != 1 || !strings.Contains(stderr, "every run failed (1)") {
		t.Errorf("every run failed: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed stage left %s behind", out)
	}
}

func writeModels(t *testing.T, dir string, models ...stageio.Model) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	infos, rows := stageio.Rows(models)
	prov := formats.Provenance{Stage: "test"}
	if err := formats.WriteModelInfo(filepath.Join(dir, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModels(filepath.Join(dir, formats.ModelsFile), rows, prov); err != nil {
		t.Fatal(err)
	}
}

// A variable of cardinality 2^31-1 (valid int32 in model_info.parquet) is
// refused when the models are read, naming the file and the bound, instead
// of every method allocating its marginal.
func TestHugeCardinalityRefused(t *testing.T) {
	dir := t.TempDir()
	huge := stageio.Model{ID: 0, Info: mrf.Info{Name: "huge", Graph: "uai"},
		Model: &mrf.Model{Cards: []int{2, 1<<31 - 1}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 1}}}}}
	models := filepath.Join(dir, "models")
	writeModels(t, models, huge)
	out := filepath.Join(dir, "out")
	code, stderr := clitest.Run(t, "--models", models, "--methods", "mf,bp", "--out", out)
	if code != 1 || !strings.Contains(stderr, "models.parquet") || !strings.Contains(stderr, "cardinality 2147483647, want 1 to 16777216") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the file and the bound", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
}

// --uai-out from the command line: a sampler, which has no estimate of
// ln Z, gets no PR file (not one holding a bare NaN), and the summary says
// so; a second run (another --out) into the same --uai-out exits 2 with a
// message naming --overwrite, and runs with it; --overwrite alone is a
// usage error.
func TestUAIOutRuns(t *testing.T) {
	dir := t.TempDir()
	models, uai := filepath.Join(dir, "m"), filepath.Join(dir, "uai")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	args := []string{"--models", models, "--methods", "bp,gibbs", "--set", "gibbs.sweeps=300", "--set", "gibbs.seed=1", "--uai-out", uai}
	code, stderr := clitest.Run(t, append(args, "--out", filepath.Join(dir, "a"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if pr, err := os.ReadFile(filepath.Join(uai, "gibbs", "grid3-gamma1-0.uai.PR")); err == nil {
		t.Errorf("gibbs PR file written: %q", pr)
	}
	if _, err := formats.ReadMARFile(filepath.Join(uai, "gibbs", "grid3-gamma1-0.uai.MAR"), nil); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stderr, "no .uai.PR files for gibbs: no estimate of ln Z") {
		t.Errorf("summary on stderr does not say gibbs has no PR files:\n%s", stderr)
	}
	code, stderr = clitest.Run(t, append(args, "--out", filepath.Join(dir, "b"))...)
	if code != 2 || !strings.Contains(stderr, "another run") || !strings.Contains(stderr, "--overwrite") {
		t.Errorf("second run: exit %d, stderr %s", code, stderr)
	}
	if code, stderr = clitest.Run(t, append(args, "--out", filepath.Join(dir, "b"), "--overwrite")...); code != 0 {
		t.Errorf("with --overwrite: exit %d: %s", code, stderr)
	}
	code, stderr = clitest.Run(t, "--models", models, "--methods", "bp", "--overwrite", "--out", filepath.Join(dir, "c"))
	if code != 2 || !strings.Contains(stderr, "--uai-out") {
		t.Errorf("--overwrite without --uai-out: exit %d, stderr %s", code, stderr)
	}
}
