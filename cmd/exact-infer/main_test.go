package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
)

func TestMain(m *testing.M) { clitest.Main(m, "exact-infer", main) }

// --out is required unless --plan-only, which writes no files; a bound of
// the plan below what it allows is a usage error.
func TestUsage(t *testing.T) {
	models := filepath.Join(t.TempDir(), "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--models", models}, 2, "--out"},
		{[]string{"--models", models, "--plan-only", "--out", out}, 2, "--plan-only"},
		{[]string{"--models", models, "--max-planned-seconds", "0", "--out", out}, 2, "max_planned_seconds"},
		{[]string{"--models", models, "--set", "max_planned_seconds=0", "--out", out}, 2, "exact: max_planned_seconds"},
		{[]string{"--models", models, "--set", "tries=x", "--out", out}, 2, `exact option tries: "x" is not an integer`},
		{[]string{"--models", models, "--set", "tol=1", "--out", out}, 2, "option tol: none of the selected methods (exact) has it"},
		{[]string{"--models", models, "--plan-only"}, 0, "msg=plan"},
		{[]string{"--models", models, "--out", out}, 0, "msg=plan"},
	} {
		code, stderr := clitest.Run(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

// --set NAME=VALUE and the solver's flags, its aliases, set the same
// options: the runs record the same options and give the same results.
func TestSetAndAliases(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	var ref []formats.EstimateRow
	for _, args := range [][]string{{"--tries", "3", "--seed", "7"}, {"--set", "tries=3", "--set", "seed=7"}, {"--tries", "5", "--set", "tries=3", "--seed=7"}} {
		out := filepath.Join(dir, strings.Join(args, ""))
		if code, stderr := clitest.Run(t, append([]string{"--models", models, "--out", out}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(est[0].Params, `"tries":3,"seed":7`) {
			t.Errorf("%v: params %s", args, est[0].Params)
		}
		for i := range est {
			est[i].Seconds = 0
		}
		if ref == nil {
			ref = est
		} else if !reflect.DeepEqual(est, ref) {
			t.Errorf("%v: estimates %+v, want %+v", args, est, ref)
		}
	}
}
