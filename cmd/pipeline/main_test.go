package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/runner"
	"github.com/renn-go/renn/stages/pipeline/slurm"
)

// fakeSource is the stand-in stage binary of the pipeline package's tests.
const fakeSource = "../../stages/pipeline/testdata/fakestage/main.go"

// module makes a Go module in a temporary directory with the fake stage as
// cmd/fakestage and the given pipeline.toml.
func module(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(fakeSource)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":                "module example.com/fake\n\ngo 1.26\n",
		"cmd/fakestage/main.go": string(src),
		"pipeline.toml":         config,
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func invoke(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), "pipeline", description, &commands{}, args, cli.IO{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

const testConfig = `
[stage.a]
run = ["fakestage", "gen"]
flags = { value = "a" }
shard = { n = [1, 2], m = ["x"] }

[stage.b]
run = ["fakestage"]
flags = { value = "b" }
inputs = { in = "a" }
`

func TestRunBuildsAndRuns(t *testing.T) {
	dir := module(t, testConfig)
	cfg := filepath.Join(dir, "pipeline.toml")

	code, out, errs := invoke(t, "run", "--config", cfg, "--jobs", "2")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "fakestage")); err != nil {
		t.Errorf("binary not built into bin/: %v", err)
	}
	for _, want := range []string{"pipeline: 4 instances: 4 ran", "results:", "a  data/a/ (2 shards)", "b  data/b/ (2 shards)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{`msg=start stage="a/n=1,m=x"`, `msg=done stage="b/n=2,m=x" elapsed=`} {
		if !strings.Contains(errs, want) {
			t.Errorf("log lacks %q:\n%s", want, errs)
		}
	}

	code, out, _ = invoke(t, "run", "--config", cfg, "--no-build")
	if code != 0 || !strings.Contains(out, "4 instances: 4 up to date") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
	code, out, _ = invoke(t, "status", "--config", cfg)
	if code != 0 || strings.Count(out, "up to date") != 4 {
		t.Errorf("status: exit %d\n%s", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "fakestage"), fakeSource)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fakestage: %v\n%s", err, out)
	}
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.toml", testConfig)
	failing := write("failing.toml", strings.Replace(testConfig, `value = "b"`, `value = "b", fail = true`, 1))
	unknown := write("unknown.toml", "[stage.a]\nrun = [\"fakestage\"]\nflgs = { x = 1 }\n")

	tests := []struct {
		name   string
		args   []string
		code   int
		output string // expected in stdout or stderr
	}{
		{"help", []string{"--help"}, 0, "Usage: pipeline"},
		{"unknown flag", []string{"run", "--bogus"}, 2, "unknown flag --bogus"},
		{"missing config", []string{"run", "--config", filepath.Join(dir, "nosuch.toml"), "--bin", bin}, 2, "nosuch.toml"},
		{"unknown key", []string{"run", "--config", unknown, "--bin", bin}, 2, "unknown.toml:3: stage.a.flgs: unknown key"},
		{"unknown stage", []string{"run", "--config", good, "--bin", bin, "--only", "nosuch"}, 2, `no such stage "nosuch"`},
		{"dry run", []string{"run", "--config", good, "--bin", bin, "--dry-run"}, 0, "4 to run"},
		{"dry run of one instance", []string{"run", "--config", good, "--bin", bin, "--dry-run", "--only", "b/n=2,m=x"}, 0, "plan: 2 instances: 2 to run"},
		{"failure", []string{"run", "--config", failing, "--bin", bin}, 1, "FAILED b/n=1,m=x: exit code 3"},
		{"status after failure", []string{"status", "--config", failing, "--bin", bin}, 0, "b/n=2,m=x  missing"},
		{"slurm dry run", []string{"run", "--config", good, "--bin", bin, "--executor", "slurm", "--dry-run", "--partition", "p"},
			0, "--array=0-1 --cpus-per-task=1 --mem=2G --time=1:00:00 --partition=p\n"},
		{"rerun after failure", []string{"run", "--config", good, "--bin", bin}, 0, "2 ran, 2 up to date"},
		{"slurm flag without slurm", []string{"run", "--config", good, "--bin", bin, "--partition", "p"}, 2, "need --executor slurm"},
		{"negative jobs", []string{"run", "--config", good, "--bin", bin, "--jobs=-3", "--dry-run"}, 2, "--jobs -3, want >= 0"},
		{"zero poll", []string{"run", "--config", good, "--bin", bin, "--poll=0s", "--dry-run"}, 2, "--poll 0s, want > 0"},
		{"verify negative jobs", []string{"verify", "--config", good, "--bin", bin, "--jobs=-1", "--dry-run"}, 2, "--jobs -1, want >= 0"},
		{"unknown executor", []string{"run", "--config", good, "--bin", bin, "--executor", "pbs"}, 2, "--executor must be one of"},
		// The job subcommand is what a Slurm job runs.
		{"job up to date", []string{"job", "--config", good, "--bin", bin, "a/n=1,m=x"}, 0, "msg=\"up to date\""},
		{"job forced", []string{"job", "--config", good, "--bin", bin, "--force", "a/n=1,m=x"}, 0, "msg=done"},
		{"job failing", []string{"job", "--config", failing, "--bin", bin, "b/n=1,m=x"}, 3, "| fake error line 25"},
		{"job of a changed config", []string{"job", "--config", good, "--bin", bin, "--expect=0123", "b/n=1,m=x"}, 1, "changed since the job was submitted"},
		{"job of an unknown instance", []string{"job", "--config", good, "--bin", bin, "b/n=3"}, 2, `no such stage "b/n=3"`},
		{"job rerun", []string{"job", "--config", good, "--bin", bin, "b/n=1,m=x"}, 0, "msg=done"},
	}
	for _, tt := range tests {
		code, out, errs := invoke(t, tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.output) {
			t.Errorf("%s: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", tt.name, code, tt.code, tt.output, out, errs)
		}
	}
}

func TestSecondRunFailsOnLock(t *testing.T) {
	dir := module(t, testConfig)
	cfg := filepath.Join(dir, "pipeline.toml")
	plan, err := pipeline.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := runner.LockData(plan.Config) // stands for a run in progress
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	lockFile := filepath.Join(dir, "data", runner.LockName)
	for _, cmd := range []string{"run", "verify"} {
		code, _, errs := invoke(t, cmd, "--config", cfg, "--no-build", "--bin", filepath.Join(dir, "bin"))
		if code != 1 || !strings.Contains(errs, lockFile) || !strings.Contains(errs, fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("%s while locked: exit %d, stderr %q; want 1 naming %s and pid %d", cmd, code, errs, lockFile, os.Getpid())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "a")); err == nil {
		t.Errorf("a locked run made data/a")
	}
	if code, _, errs := invoke(t, "status", "--config", cfg, "--bin", filepath.Join(dir, "bin")); code != 0 {
		t.Errorf("status while locked: exit %d, %s", code, errs)
	}
}

// TestLightDependencies: go run ./cmd/pipeline, the README's first command,
// compiles only the standard library and small modules, so that it starts
// talking within seconds on a cold build cache; Arrow, gonum and the
// mathematics are compiled by the build it runs, with progress lines.
func TestLightDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"github.com/alecthomas/kong", "github.com/BurntSushi/toml", "github.com/pelletier/go-toml/v2",
		"github.com/renn-go/renn/stages/pipeline", "github.com/renn-go/renn/stages/cli", "github.com/renn-go/renn/cmd/pipeline"}
	for _, pkg := range strings.Fields(string(out)) {
		ok := false
		for _, a := range allowed {
			ok = ok || pkg == a || strings.HasPrefix(pkg, a+"/")
		}
		if !ok {
			t.Errorf("cmd/pipeline depends on %s", pkg)
		}
	}
}

// TestNewRunner: a local run is guarded against Slurm jobs of an earlier
// run; a run on Slurm takes the [slurm] settings under the command line's,
// leaving the config's options as they were.
func TestNewRunner(t *testing.T) {
	r := &runCmd{Executor: "local", Jobs: 3}
	rn, err := r.newRunner(config.Slurm{}, "bin")
	if err != nil || rn.Guard == nil || rn.Batch != nil || rn.Jobs != 3 {
		t.Errorf("local: %+v, %v; want a guarded local runner with 3 jobs", rn, err)
	}
	r = &runCmd{Executor: "slurm", Account: "mine", SlurmOpt: []string{"--qos=high"}, Poll: time.Second}
	sc := config.Slurm{Partition: "short", Account: "theirs", Options: make([]string, 1, 4)}
	sc.Options[0] = "--qos=low"
	rn, err = r.newRunner(sc, "bin")
	if err != nil {
		t.Fatal(err)
	}
	cl, ok := rn.Batch.(*slurm.Cluster)
	if !ok || cl.Partition != "short" || cl.Account != "mine" || !slices.Equal(cl.Options, []string{"--qos=low", "--qos=high"}) || cl.Poll != time.Second {
		t.Errorf("slurm: %+v", rn.Batch)
	}
	if all := sc.Options[:2]; all[1] != "" {
		t.Errorf("the config's options were appended to: %q", all)
	}
	r = &runCmd{Executor: "local", NoWait: true}
	if _, err := r.newRunner(config.Slurm{}, "bin"); err == nil {
		t.Error("--no-wait without --executor slurm: no error")
	}
}
