package slurm

import (
	"context"
	"errors"
	"testing"

	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// fakeBin is a directory holding the fakestage, fakeslurm and pipeline
// binaries, built once: the pipeline binary is what the jobs run.
var fakeBin string

func TestMain(m *testing.M) {
	pipetest.Main(m, []string{pipetest.FakeStage, pipetest.FakeSlurm, pipetest.Pipeline}, func(bin string) int {
		fakeBin = bin
		return m.Run()
	})
}

// project is a pipetest.Project running the fake binaries.
type project struct{ *pipetest.Project }

func newProject(t *testing.T, config string) *project {
	t.Helper()
	return &project{pipetest.NewProject(t, fakeBin, config)}
}

// runner is a local runner guarded, as the pipeline command's is, against
// Slurm jobs of an earlier run.
func (p *project) runner() *runner.Runner {
	return &runner.Runner{BinDir: p.Bin, Jobs: 2, Guard: CheckJobs}
}

// run runs the pipeline and returns its report, failing the test on an
// error unless wantErr is set.
func (p *project) run(t *testing.T, r *runner.Runner, wantErr error) *runner.Report {
	t.Helper()
	rep, err := r.Run(context.Background(), p.Plan(t))
	if wantErr == nil && err != nil {
		t.Fatalf("run: %v", err)
	}
	if wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("run: got error %v, want %v", err, wantErr)
	}
	return rep
}
