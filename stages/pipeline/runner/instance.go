package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
)

// runOne judges an instance whose upstream has finished and runs it if it
// is out of date (or force), stamping it when its binary exits 0. A local
// run and a Slurm job on its node both run instances this way.
func (r *Runner) runOne(ctx context.Context, p *pipeline.Plan, h *pipeline.Judge, inst *pipeline.Instance, force bool, ex proc.Executor, tr *Progress) *Result {
	res, fp := r.judge(p, h, inst, force)
	switch {
	case fp == nil:
		return res
	case ctx.Err() != nil:
		res.Outcome = Cancelled
		return res
	}
	if err := clearOutput(inst); err != nil {
		res.Outcome, res.Err = Failed, err
		return res
	}
	r.Log().Info("start", "stage", inst.ID, "why", res.Reason)
	started := time.Now()
	tr.Start(inst, started)
	job := NewJob(p, inst, fp.Binary)
	err := ex.Run(ctx, job)
	finished := time.Now()
	res.Elapsed, res.Usage = finished.Sub(started), job.Usage
	if err != nil {
		res.Outcome, res.Err = Failed, err
		if ctx.Err() != nil {
			res.Outcome = Cancelled
		}
		return res
	}
	run := pipeline.Stamp{Started: started.UTC(), Finished: finished.UTC(), Seconds: finished.Sub(started).Seconds(),
		CPUSeconds: job.Usage.CPUSeconds, MaxRSSKiB: job.Usage.MaxRSSKiB}
	if err := h.Complete(p, inst, fp, run); err != nil {
		res.Outcome, res.Err = Failed, err
		return res
	}
	res.Outcome = Ran
	return res
}

// judge decides whether inst runs. It returns the result so far and, if
// the instance runs, its fingerprint; without one the result is final:
// Skipped (up to date), or Failed if the instance could not be judged.
func (r *Runner) judge(p *pipeline.Plan, h *pipeline.Judge, inst *pipeline.Instance, force bool) (*Result, *pipeline.Fingerprint) {
	res := &Result{Instance: inst}
	st, fp, err := h.Assess(p, inst, r.BinDir)
	if err == nil && fp == nil {
		err = fmt.Errorf("%s: binary %s not found", inst.ID, pipeline.BinaryPath(r.BinDir, inst.Stage))
	}
	switch {
	case err != nil:
		res.Outcome, res.Err = Failed, err
		return res, nil
	case st.State != pipeline.UpToDate:
		res.Reason = st.State.String() + ": " + st.Reason
	case force:
		res.Reason = "forced"
	default:
		res.Outcome, res.Reason = Skipped, "up to date"
		return res, nil
	}
	return res, fp
}

// clearOutput unmarks the output directory of inst before it reruns, and
// makes it if need be.
func clearOutput(inst *pipeline.Instance) error {
	if err := pipeline.RemoveStamp(inst.OutDir); err != nil {
		return fmt.Errorf("%s: %w", inst.ID, err)
	}
	if err := os.MkdirAll(inst.OutDir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", inst.ID, err)
	}
	return nil
}

// NewJob is the command line of inst of p, run with binary: what a
// proc.Executor runs.
func NewJob(p *pipeline.Plan, inst *pipeline.Instance, binary string) *proc.Job {
	job := &proc.Job{
		ID:     inst.ID,
		Path:   binary,
		Args:   inst.Args,
		Dir:    p.Config.Dir,
		LogDir: filepath.Join(inst.OutDir, ".logs"),
	}
	for _, d := range inst.Deps {
		job.Deps = append(job.Deps, d.ID)
	}
	return job
}
