package slurm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// jobRecord is written into <out>/.logs/slurm.json when an instance is
// submitted: which job runs it.
type jobRecord struct {
	Job        string    `json:"job"` // "123" or "123_4"
	Submitted  time.Time `json:"submitted"`
	Output     string    `json:"output"` // Slurm's output file of the job
	Dependency string    `json:"dependency,omitempty"`
}

// jobResult is written into <out>/.logs/job.json by the job itself when it
// starts (outcome "running") and again when it ends, unless it is killed
// outright: what became of the instance.
type jobResult struct {
	Job      string    `json:"job"`
	Outcome  string    `json:"outcome"` // running, or a runner.Outcome's String: ran, up to date, failed, cancelled
	Code     int       `json:"exit_code"`
	Error    string    `json:"error,omitempty"`
	Logs     bool      `json:"logs"` // the stage binary was started: .logs/std*.log are this job's
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
}

const (
	recordName = "slurm.json"
	resultName = "job.json"
)

func logDir(inst *pipeline.Instance) string { return filepath.Join(inst.OutDir, ".logs") }

// writeJSON writes v to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// readJSON reads path into v; a missing file is (false, nil).
func readJSON(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// tailOfJob returns the last lines of what a job wrote, and the file they
// come from: the stage binary's stderr if the job got as far as running it
// (jr is the job's own result file, nil if it did not write one), else
// Slurm's output file of the job, where the pipeline binary's own errors go.
func tailOfJob(inst *pipeline.Instance, rec jobRecord, jr *jobResult, n int) ([]string, string) {
	// A job killed outright ("running") may have got as far as the binary.
	if jr != nil && (jr.Logs || jr.Outcome == "running") {
		stderr := filepath.Join(logDir(inst), "stderr.log")
		if lines := proc.TailFile(stderr, n); len(lines) > 0 {
			return lines, stderr
		}
	}
	if rec.Output != "" {
		if lines := proc.TailFile(rec.Output, n); len(lines) > 0 {
			return lines, rec.Output
		}
	}
	if jr != nil && jr.Error != "" {
		return []string{jr.Error}, filepath.Join(logDir(inst), resultName)
	}
	return nil, ""
}

// BatchJob is one instance to run inside a Slurm job.
type BatchJob struct {
	ID     string // the instance
	Expect string // what the instance ran when submitted (see the job script); "" skips the check
	Force  bool   // run even if up to date
	Job    string // the Slurm job, for the result file; "" takes it from SLURM_* variables
}

// JobID returns the job (or array task, "123_4") the process runs in,
// from the environment Slurm sets; "" outside Slurm.
func JobID() string {
	if a, t := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); a != "" && t != "" {
		return a + "_" + t
	}
	return os.Getenv("SLURM_JOB_ID")
}

// RunBatchJob is what a job submitted by the Slurm executor does on its
// node: it judges the instance as a local run would once the upstream has
// finished, and if it is out of date (or j.Force), runs it with proc.Local
// and stamps it on success (r.RunOne). It writes what became of the
// instance to <out>/.logs/job.json for the submitting process and
// pipeline status.
//
// The error is non-nil only when the instance could not be tried: an
// unknown ID, or a config that no longer describes what was submitted.
func RunBatchJob(ctx context.Context, r *runner.Runner, p *pipeline.Plan, j BatchJob) (*runner.Result, error) {
	inst := p.Lookup(j.ID)
	if inst == nil {
		return nil, fmt.Errorf("%w %q in %s", pipeline.ErrUnknownStage, j.ID, p.Config.File)
	}
	if j.Job == "" {
		j.Job = JobID()
	}
	jr := jobResult{Job: j.Job, Outcome: "running", Started: time.Now().UTC(), Code: -1}
	save := func() {
		jr.Finished = time.Now().UTC()
		if err := writeJSON(filepath.Join(logDir(inst), resultName), jr); err != nil {
			r.Log().Error("write job result", "stage", inst.ID, "err", err)
		}
	}
	// Say at once which job works here, so whoever reads the logs knows
	// whose they are even if the job is killed outright.
	save()
	if err := j.check(p, inst); err != nil {
		jr.Outcome, jr.Error = runner.Failed.String(), err.Error()
		save()
		return nil, err
	}
	node := *r // runs the stage binary here, keeping a failure's tail
	node.Executor = proc.Local{TailLines: defaultTailLines}
	res := node.RunOne(ctx, p, inst, j.Force)
	res.Job = j.Job
	jr.record(res)
	save()
	r.LogResult(p, res)
	return res, nil
}

// check refuses to run inst if the config no longer describes what was
// submitted, or if an upstream instance is not complete.
func (j BatchJob) check(p *pipeline.Plan, inst *pipeline.Instance) error {
	if j.Expect != "" && instanceKey(inst) != j.Expect {
		return fmt.Errorf("%s: %s changed since the job was submitted: the instance no longer runs what was submitted; run the pipeline again", inst.ID, p.Config.File)
	}
	for _, d := range inst.Deps {
		if _, err := pipeline.ReadStamp(d.OutDir); err != nil {
			return fmt.Errorf("%s: upstream %s is not complete (no stamp in %s)", inst.ID, d.ID, p.Config.Rel(d.OutDir))
		}
	}
	return nil
}

// record notes in jr what became of the instance.
func (jr *jobResult) record(res *runner.Result) {
	jr.Outcome = res.Outcome.String()
	jr.Logs = res.Elapsed > 0 // RunOne times only a binary it started
	switch {
	case res.Outcome == runner.Ran || res.Outcome == runner.Skipped:
		jr.Code = 0
	case res.Err != nil:
		var ee *proc.ExitError
		if errors.As(res.Err, &ee) {
			jr.Code = ee.Code
		}
		jr.Error = res.Err.Error()
	}
}
