package main

import (
	"path/filepath"
	"strings"
	"testing"

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
		{[]string{"--models", models, "--plan-only"}, 0, "msg=plan"},
		{[]string{"--models", models, "--out", out}, 0, "msg=plan"},
	} {
		code, stderr := clitest.Run(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}
