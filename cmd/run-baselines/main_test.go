package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
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
	code, stderr := clitest.Run(t, "--models", models, "--regions", regions, "--methods", "dbp,gbp",
		"--set", "tol=1e-7", "--set", "gbp.max_iter=3", "--set", "dbp.damping=0", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]float64{
		"dbp": {"tol": 1e-7, "max_iter": 1000, "damping": 0},
		"gbp": {"tol": 1e-7, "max_iter": 3, "damping": 0},
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
		{"option no method has", base + " --set lambda=1", 2, "lambda"},
		{"bad value", base + " --set tol=x", 2, "tol"},
		{"no models file", base + " --methods mf", 1, "model_info.parquet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := clitest.Run(t, strings.Fields(tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
