package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// edit rewrites cmd/fakestage/main.go of the module in dir, standing for a
// change of a stage binary's code.
func edit(t *testing.T, dir string, change func(src string) string) {
	t.Helper()
	path := filepath.Join(dir, "cmd", "fakestage", "main.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(change(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyCommand(t *testing.T) {
	dir := module(t, testConfig)
	cfg := filepath.Join(dir, "pipeline.toml")
	if code, out, errs := invoke(t, "run", "--config", cfg); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}

	// A refactor: the binary changes, its results do not. The variable is
	// new at every test run, so that the build compiles the package.
	edit(t, dir, func(src string) string {
		return src + fmt.Sprintf("\nvar refactored = os.Getenv(%q)\n", fmt.Sprint("REFACTOR", time.Now().UnixNano()))
	})
	steps := []struct {
		args []string
		code int
		want []string // in stdout or stderr
	}{
		{[]string{"verify", "--config", cfg, "--sample", "0"}, 2, []string{"--sample must be at least 1"}},
		{[]string{"verify", "--config", cfg, "--cover", "size"}, 2, []string{"no stage is sharded by size"}},
		{[]string{"verify", "--config", cfg, "--dry-run", "--cover", "n"}, 0, []string{
			"building: listing the packages the binaries need", "building: about 1 packages to compile", "building: 1 of about 1 packages compiled in", "the last example.com/fake/cmd/fakestage",
			"verify plan: 4 instances: 4 eligible in 2 stages",
			"a: 2 eligible, 2 sampled", "(cheapest, n=", "dry run: nothing ran",
		}},
		{[]string{"status", "--config", cfg}, 0, []string{"a/n=1,m=x  stale  binary changed\n"}},
		{[]string{"verify", "--config", cfg, "-j", "2"}, 0, []string{
			"verify: 2 stages with eligible instances, 2 adopted (4 instances)",
			"a  sampled a/n=", ": adopted 2 instances",
		}},
		{[]string{"status", "--config", cfg}, 0, []string{"a/n=1,m=x  up to date\n", "a/n=2,m=x  up to date\n", "b/n=1,m=x  up to date\n", "b/n=2,m=x  up to date\n"}},
		{[]string{"run", "--config", cfg}, 0, []string{"4 instances: 4 up to date"}},
	}
	for _, s := range steps {
		code, out, errs := invoke(t, s.args...)
		for _, w := range s.want {
			if code != s.code || !strings.Contains(out+errs, w) {
				t.Errorf("%s: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), code, s.code, w, out, errs)
				break
			}
		}
	}

	// A change of results, in b only (a has no input).
	edit(t, dir, func(src string) string { return strings.Replace(src, `"from %s: {\n%s}\n"`, `"from %s: [\n%s]\n"`, 1) })
	code, out, errs := invoke(t, "verify", "--config", cfg)
	for _, w := range []string{": adopted 2 instances", "changed: b/n=", "result.txt: bytes differ from offset", "stage results changed: b"} {
		if code != 1 || !strings.Contains(out+errs, w) {
			t.Errorf("verify after a change: exit %d, want 1 with %q\nstdout:\n%s\nstderr:\n%s", code, w, out, errs)
		}
	}
	code, out, _ = invoke(t, "status", "--config", cfg)
	if code != 0 || !strings.Contains(out, "a/n=2,m=x  up to date\n") || !strings.Contains(out, "b/n=1,m=x  stale       binary changed\n") {
		t.Errorf("status after verify found a change: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", ".verify")); !os.IsNotExist(err) {
		t.Errorf("data/.verify left behind (stat: %v)", err)
	}
}

func TestStatusNamesHandBuiltBinaries(t *testing.T) {
	dir := module(t, testConfig)
	cfg := filepath.Join(dir, "pipeline.toml")
	if code, out, errs := invoke(t, "run", "--config", cfg); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	// As README's hand-run example once said.
	build := exec.Command("go", "build", "-o", "bin/", "./cmd/...")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	code, out, _ := invoke(t, "status", "--config", cfg)
	want := "binary changed: bin/fakestage was not built by the pipeline (no -trimpath): rebuild with go build -trimpath -buildvcs=false -o bin/ ./cmd/..., or let pipeline run build it"
	if code != 0 || !strings.Contains(out, "a/n=1,m=x  stale  "+want+"\n") {
		t.Errorf("status after a plain go build: exit %d\n%s\nwant the reason %q", code, out, want)
	}
	// Built as README says now, the binary is the pipeline's.
	build = exec.Command("sh", "-c", "go build -trimpath -buildvcs=false -o bin/ ./cmd/...")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	code, out, _ = invoke(t, "status", "--config", cfg)
	if code != 0 || strings.Count(out, "up to date") != 4 {
		t.Errorf("status after go build -trimpath -buildvcs=false: exit %d\n%s", code, out)
	}
}
