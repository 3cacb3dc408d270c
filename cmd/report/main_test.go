package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "report", main) }

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	// A valid pipeline config without the paper's stages.
	cfg := filepath.Join(dir, "pipeline.toml")
	if err := os.WriteFile(cfg, []byte("data = \"data\"\n[stage.models]\nrun = [\"sample-model\", \"ising\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A config with a budget's score stage that has not run.
	budgetCfg := filepath.Join(dir, "anymodel.toml")
	if err := os.WriteFile(budgetCfg, []byte("data = \"data\"\n[stage.models]\nrun = [\"sample-model\", \"ising\"]\n[stage.score_budget20]\nrun = [\"score\"]\ninputs = { models = \"models\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "REPORT.md")
	tests := []struct {
		name string
		args string
		code int
		want string // in stderr
	}{
		{"help", "--help", 0, ""},
		{"missing config", "--config " + filepath.Join(dir, "nope.toml") + " --out " + out, 2, "not a file"},
		{"not the paper pipeline", "--config " + cfg + " --out " + out + " --bin=", 1, `no stage "grid_score"`},
		{"scale: missing config", "--scale " + filepath.Join(dir, "nope.toml"), 2, "--scale"},
		{"scale: nothing run", "--scale " + cfg, 1, "no stage instance with estimates.parquet has completed"},
		{"amortized: missing config", "--amortized " + filepath.Join(dir, "nope.toml"), 2, "--amortized"},
		{"amortized: no amortized stages", "--amortized " + cfg, 1, "no score stage whose name begins with `amortized_`"},
		{"amortized and scale", "--amortized " + cfg + " --scale " + cfg, 2, "give one"},
		{"with-amortized: missing config", "--config " + cfg + " --out " + out + " --with-amortized " + filepath.Join(dir, "nope.toml"), 2, "--with-amortized"},
		{"with-amortized and amortized", "--amortized " + cfg + " --with-amortized " + cfg, 2, "not with --scale, --amortized or --anymodel"},
		{"anymodel: missing config", "--anymodel " + filepath.Join(dir, "nope.toml"), 2, "--anymodel"},
		{"anymodel: no budget stages", "--anymodel " + cfg, 1, "no score stage whose name begins with `score_budget20`"},
		{"anymodel: nothing run", "--anymodel " + budgetCfg, 0, ""},
		{"anymodel and amortized", "--anymodel " + cfg + " --amortized " + cfg, 2, "give one"},
		{"with-anymodel and anymodel", "--anymodel " + cfg + " --with-anymodel " + cfg, 2, "not with --scale, --amortized or --anymodel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := clitest.Run(t, strings.Fields(tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s", out)
	}
}
