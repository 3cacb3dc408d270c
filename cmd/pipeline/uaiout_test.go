package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/pipeline/build"
)

// uaiConfig has two stages writing UAI result files into one --uai-out,
// each its method's directory.
const uaiConfig = `data = "data"

[stage.models]
run = ["sample-model", "ising"]
flags = { graph = "grid", size = 3, gamma = 1.0, count = 2, seed = 1 }

[stage.exact]
run = ["exact-infer"]
flags = { uai-out = "uai" }
inputs = { models = "models" }

[stage.renn]
run = ["train-renn"]
flags = { method = "renn-mp", max-steps = 20, uai-out = "uai" }
inputs = { models = "models" }
`

// The pipeline reruns stages into their own --out: a rerun is the same run,
// so it replaces its own UAI result files. Two stages sharing one --uai-out
// make each other stale once (each stage's fingerprint holds the whole
// directory); the rerun succeeds and the next run finds everything up to
// date, with both stages' files in place.
func TestUAIOutReruns(t *testing.T) {
	root, err := build.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	compile := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/sample-model", "./cmd/exact-infer", "./cmd/train-renn")
	compile.Dir = root
	if out, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "pipeline.toml")
	if err := os.WriteFile(cfg, []byte(uaiConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	// One job at a time: exact stamps before renn writes, so renn's files
	// make exact stale, and the second run reruns it.
	for i, want := range []string{"3 instances: 3 ran", "3 instances: 1 ran, 2 up to date", "3 instances: 3 up to date"} {
		code, out, errs := invoke(t, "run", "--config", cfg, "--bin", bin, "--jobs", "1")
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("run %d: exit %d, want %q\nstdout:\n%s\nstderr:\n%s", i+1, code, want, out, errs)
		}
	}
	for _, f := range []string{"exact/grid3-gamma1-0.uai.MAR", "exact/grid3-gamma1-1.uai.PR", "renn-mp/grid3-gamma1-0.uai.MAR", "renn-mp/grid3-gamma1-1.uai.PR"} {
		b, err := os.ReadFile(filepath.Join(dir, "uai", filepath.FromSlash(f)))
		if err != nil || !strings.Contains(string(b), "c renn run: stage=") {
			t.Errorf("%s: %v, %.80q", f, err, b)
		}
	}
}
