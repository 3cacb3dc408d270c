package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
)

func TestMain(m *testing.M) { clitest.Main(m, "train-renn", main) }

// Every network option given as a flag reaches the method: a run with a
// non-default value for each records exactly those values in its
// estimates, zero included. A new option without a value here fails.
func TestFlagsReachTheMethod(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	values := map[string]string{
		"net": "direct", "dim": "34", "heads": "2", "scale": "true", "block_depth": "2", "lambda": "0",
		"constraint": "penalty", "multiplier_every": "21", "lr": "0.006", "max_steps": "7", "window": "3",
		"tol": "2e-06", "cons_tol": "0.002", "warm_steps": "1", "seed": "2", "rounds": "0", "dense_lambda": "4", "lambda_growth": "2",
		"max_seconds": "30",
	}
	e, _ := methods.Lookup("renn")
	out := filepath.Join(dir, "out")
	args := []string{"--models", models, "--scheme", "faces", "--out", out}
	for _, d := range e.Options(false).Describe() {
		if d.Name == "name" {
			continue // the --name flag of the command
		}
		v, ok := values[d.Name]
		if !ok {
			t.Fatalf("option %s has no test value", d.Name)
		}
		if v == d.Default {
			t.Fatalf("option %s: test value %s is its default", d.Name, v)
		}
		args = append(args, fmt.Sprintf("--%s=%s", strings.ReplaceAll(d.Name, "_", "-"), v))
	}
	if code, stderr := clitest.Run(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	var params struct {
		Method  string         `json:"method"`
		Options map[string]any `json:"options"`
	}
	if err := json.Unmarshal([]byte(est[0].Params), &params); err != nil {
		t.Fatal(err)
	}
	if est[0].Method != "renn-direct" || params.Method != "renn-direct" {
		t.Errorf("method %q / %q, want renn-direct", est[0].Method, params.Method)
	}
	for name, want := range values {
		if got := fmt.Sprint(params.Options[name]); got != want {
			t.Errorf("option %s: recorded %s, flag gave %s", name, got, want)
		}
	}
}

// Options not given take the chosen method's defaults: the paper's network
// for renn, the message net with constraint auto for the default renn-mp;
// a flag given is kept whatever the method.
func TestMethodDefaults(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		name string
		want map[string]string
	}{
		{nil, "renn-mp", map[string]string{"net": "message", "constraint": "auto", "max_steps": "20000"}},
		{[]string{"--method", "renn"}, "renn", map[string]string{"net": "attention", "constraint": "auglag", "max_steps": "5000"}},
		{[]string{"--method", "renn", "--max-steps", "40"}, "renn", map[string]string{"net": "attention", "max_steps": "40"}},
		{[]string{"--method", "renn-direct"}, "renn-direct", map[string]string{"net": "direct", "max_steps": "5000"}},
		{[]string{"--net", "attention", "--max-steps", "30"}, "renn", map[string]string{"net": "attention", "constraint": "auto", "max_steps": "30"}},
	} {
		out := filepath.Join(dir, fmt.Sprint("out", len(tc.args), tc.name))
		args := append([]string{"--models", models, "--scheme", "faces", "--out", out}, tc.args...)
		if code, stderr := clitest.Run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		var params struct {
			Options map[string]any `json:"options"`
		}
		if err := json.Unmarshal([]byte(est[0].Params), &params); err != nil {
			t.Fatal(err)
		}
		if est[0].Method != tc.name {
			t.Errorf("%v: method %q, want %q", tc.args, est[0].Method, tc.name)
		}
		for k, want := range tc.want {
			if got := fmt.Sprint(params.Options[k]); got != want {
				t.Errorf("%v: option %s is %s, want %s", tc.args, k, got, want)
			}
		}
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args string
		code int
		want string // in stderr
	}{
		{"help", "--help", 0, ""},
		{"missing flags", "--out " + out, 2, "missing flags"},
		{"bad method", "--models " + dir + " --out " + out + " --method gbp", 2, "--method"},
		{"bad net", "--models " + dir + " --out " + out + " --net cnn", 2, "net"},
		{"bad lambda", "--models " + dir + " --out " + out + " --lambda=-1", 2, "lambda"},
		{"lambda 0 with auglag", "--models " + dir + " --out " + out + " --lambda=0", 2, "lambda"},
		{"zero steps", "--models " + dir + " --out " + out + " --max-steps=0", 2, "max-steps"},
		{"negative time budget", "--models " + dir + " --out " + out + " --max-seconds=-1", 2, "max-seconds"},
		{"infinite time budget", "--models " + dir + " --out " + out + " --max-seconds=Inf", 2, "max-seconds"},
		{"zero window", "--models " + dir + " --out " + out + " --window=0", 2, "window"},
		{"zero dim", "--models " + dir + " --out " + out + " --dim=0", 2, "dim"},
		{"bad heads", "--models " + dir + " --out " + out + " --dim 32 --heads 3", 2, "heads"},
		{"bad ids", "--models " + dir + " --out " + out + " --ids 4-2", 2, "range ends before it starts"},
		{"no models file", "--models " + dir + " --out " + out, 2, "--models wants a folder written by sample-model (models.parquet and model_info.parquet); " + dir + " is empty"},
		{"infnet with regions", "--models " + dir + " --regions " + dir + " --method infnet --out " + out, 2, "takes no --regions"},
		{"overwrite without uai-out", "--models " + dir + " --out " + out + " --overwrite", 2, "needs --uai-out"},
		{"overwrite with amortize", "--models " + dir + " --out " + out + " --amortize --overwrite", 2, "--amortize takes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := clitest.Run(t, strings.Fields(tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// A network too wide for the model's roots is refused before allocating,
// with exit 1 and a message naming --dim; out-of-range widths are usage
// errors.
func TestDimBounds(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args string
		code int
		want string
	}{
		{"--method renn --dim 1000000", 2, "dim: 1000000, want 1..8192"},
		{"--method renn --dim 8192", 1, "lower --dim"},
	} {
		code, stderr := clitest.Run(t, append(strings.Fields(tc.args), "--models", models, "--out", out)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d with %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
