package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
)

func TestMain(m *testing.M) { clitest.Main(m, "build-regions", main) }

// TestMessages: each model is described once (on stdout, not again as a
// log line on stderr), and --models given something else than a models
// folder says what it wants and what it got.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	models, regions := filepath.Join(dir, "models"), filepath.Join(dir, "regions")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	code, stderr := clitest.Run(t, "--models", models, "--out", regions)
	if code != 0 || strings.Contains(stderr, "model 0") || strings.Contains(stderr, "msg=regions") {
		t.Fatalf("exit %d, stderr repeats the models' lines:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(regions, "regions.parquet")); err != nil {
		t.Fatal(err)
	}
	const wants = "build-regions: --models wants a folder written by sample-model (models.parquet and model_info.parquet); "
	for _, tt := range []struct{ models, want string }{
		{filepath.Join(models, "models.parquet"), wants + filepath.Join(models, "models.parquet") + " is a file: give its folder, " + models + "\n"},
		{regions, wants + regions + " holds regions.parquet instead\n"},
	} {
		code, stderr := clitest.Run(t, "--models", tt.models, "--out", filepath.Join(dir, "out"))
		if code != 2 || stderr != tt.want {
			t.Errorf("--models %s: exit %d, stderr %q; want 2, %q", tt.models, code, stderr, tt.want)
		}
	}
}
