// Package pipetest holds what the tests of the runner, Slurm and verify
// packages share: the fake stage binaries, a project (a config file with
// its data directory and run log) and the configs they run.
package pipetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/build"
	"github.com/renn-go/renn/stages/pipeline/config"
)

// The packages of the fake binaries, relative to the module root:
// fakestage stands for a stage, fakeslurm for sbatch, squeue, sacct and
// scancel, fakeparquet for a stage writing Parquet files, and the pipeline
// binary is what Slurm jobs run.
const (
	FakeStage   = "./stages/pipeline/testdata/fakestage"
	FakeSlurm   = "./stages/pipeline/testdata/fakeslurm"
	FakeParquet = "./stages/pipeline/testdata/fakeparquet"
	Pipeline    = "./cmd/pipeline"
)

// Build builds pkgs (given relative to the module root) into dir with go
// build and flags.
func Build(dir string, flags []string, pkgs ...string) error {
	root, err := build.ModuleRoot(".")
	if err != nil {
		return err
	}
	args := append(append([]string{"build"}, flags...), "-o", dir+string(filepath.Separator))
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// Main builds pkgs into a temporary directory, calls run with it, and
// exits with run's code once the directory is removed: a TestMain.
func Main(m *testing.M, pkgs []string, run func(bin string) int) {
	dir, err := os.MkdirTemp("", "pipeline-test-bin")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	if err := Build(dir, nil, pkgs...); err != nil {
		os.Stderr.WriteString("build " + strings.Join(pkgs, " ") + ": " + err.Error() + "\n")
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := run(dir)
	os.RemoveAll(dir)
	os.Exit(code)
}

// Project is a config file with its data directory and run log in a
// temporary directory, and the binaries it runs.
type Project struct {
	Dir    string
	LogDir string // where the fake stages record that they ran
	Bin    string
}

// NewProject writes config into a new project running the binaries in bin.
func NewProject(t *testing.T, bin, config string) *Project {
	t.Helper()
	p := &Project{Dir: t.TempDir(), Bin: bin}
	p.LogDir = filepath.Join(p.Dir, "runs")
	if err := os.Mkdir(p.LogDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.Write(t, config)
	return p
}

// Write replaces the config; LOG in it stands for the run log directory.
func (p *Project) Write(t *testing.T, config string) {
	t.Helper()
	config = strings.ReplaceAll(config, "LOG", p.LogDir)
	if err := os.WriteFile(filepath.Join(p.Dir, "pipeline.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Plan loads the config and expands it.
func (p *Project) Plan(t *testing.T) *pipeline.Plan {
	t.Helper()
	plan, err := pipeline.Load(filepath.Join(p.Dir, "pipeline.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// Ran returns the instances the fake stage recorded since the last call,
// sorted, and clears the record.
func (p *Project) Ran(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(p.LogDir)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, e := range entries {
		path := filepath.Join(p.LogDir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, filepath.ToSlash(strings.TrimPrefix(string(b), "data"+string(filepath.Separator))))
		os.Remove(path)
	}
	slices.Sort(ids)
	return ids
}

// States returns the status of every instance, by ID.
func (p *Project) States(t *testing.T) map[string]pipeline.Status {
	t.Helper()
	sts, err := p.Plan(t).Status(p.Bin)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]pipeline.Status{}
	for _, st := range sts {
		m[st.Instance.ID] = st
	}
	return m
}

// Rebuild stands for a change of a binary's code: the binary's bytes
// change, what it computes does not (unless the fake is told otherwise,
// as fakeparquet is by FAKEPARQUET).
func (p *Project) Rebuild(t *testing.T, name string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(p.Bin, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// CancelOnStart returns a context cancelled as soon as a stage has
// recorded its start in the run log.
func (p *Project) CancelOnStart(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			if entries, _ := os.ReadDir(p.LogDir); len(entries) > 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ctx
}

// Path returns the path of rel, slash-separated, in the project.
func (p *Project) Path(rel string) string { return filepath.Join(p.Dir, filepath.FromSlash(rel)) }

// CopyFile copies an executable.
func CopyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// AssertIDs fails the test unless got and want hold the same IDs, in any
// order.
func AssertIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("%s: got %v, want %v", what, sorted(got), sorted(want))
	}
}

// AssertLines fails the test unless got and want are the same lines in
// the same order.
func AssertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

func sorted(ids []string) []string {
	ids = append([]string{}, ids...)
	slices.Sort(ids)
	return ids
}

// ParsePlan parses a config said to be /p/p.toml and expands it, failing
// the test on an error.
func ParsePlan(t *testing.T, src string) (*config.Config, *pipeline.Plan) {
	t.Helper()
	cfg, err := config.Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pipeline.NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, plan
}
