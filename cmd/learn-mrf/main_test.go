package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "learn-mrf", main) }

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// Files of the names the folders want, unreadable: the runs that pass
	// the usage checks fail reading them (exit 1).
	for _, name := range []string{"models.parquet", "model_info.parquet", "samples.parquet"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := "--models " + dir + " --samples " + dir + " --out " + out
	tests := []struct {
		name string
		args string
		code int
		want string // in stderr
	}{
		{"help", "--help", 0, ""},
		{"missing flags", "--out " + out, 2, "missing flags"},
		{"bad method", dirs + " --method lbp", 2, "unknown method"},
		{"bad ids", dirs + " --ids 1,x", 2, `"x" is not a model id`},
		{"negative time budget", dirs + " --method gbp --set max_seconds=-1", 2, "max_seconds"},
		{"time budget for exact", dirs + " --set max_seconds=30", 2, "max_seconds"},
		// The learned models would overwrite the true ones.
		{"out is the models directory", "--models " + dir + " --samples " + filepath.Dir(dir) + " --out " + dir, 2, "--out " + dir + " is the --models input"},
		{"out resolves to the models directory", "--models " + dir + " --samples " + filepath.Dir(dir) + " --out " + filepath.Join(dir, "..", filepath.Base(dir)) + "/.", 2, "is the --models input"},
		{"empty out", "--models " + dir + " --samples " + dir + " --out=", 2, "--out: empty path"},
		{"pcd without chains", dirs + " --method pcd --set chains=0", 2, "chains"},
		{"pcd without sweeps", dirs + " --method pcd --set sweeps=0", 2, "sweeps"},
		{"pcd bad sweeps", dirs + " --method pcd --set sweeps=many", 2, "sweeps"},
		{"pcd unknown option", dirs + " --method pcd --set lambda=1", 2, "lambda"},
		{"pcd", dirs + " --method pcd --set chains=10 --set sweeps=3", 1, "model_info.parquet"},
		{"family read without weights", dirs + " --method renn-mp --family-read every", 2, "only with --weights"},
		{"bad family read", dirs + " --method renn-mp --weights " + dir + " --family-read always", 2, `family-read: "always"`},
		{"clamped exact and per sample", dirs + " --method bp --clamped-exact --clamped-per-sample", 2, "clamped-exact and clamped-per-sample"},
		{"clamped exact", dirs + " --method bp --clamped-exact", 1, "model_info.parquet"},
		{"unreadable models file", dirs, 1, "model_info.parquet"},
		{"no models folder", "--models " + out + " --samples " + dir + " --out " + filepath.Join(dir, "o2"), 2, "--models wants a folder written by sample-model (models.parquet and model_info.parquet); " + out + " does not exist"},
		{"time budget", dirs + " --method gbp --set gbp.max_seconds=30", 1, "model_info.parquet"},
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
		t.Errorf("failed runs left %s behind (stat: %v)", out, err)
	}
}
