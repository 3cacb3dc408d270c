package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/renn-go/renn/stages/pipeline/proc"
)

// runOne judges an instance whose upstream has finished and runs it if it
// is out of date (or force), stamping it when its binary exits 0. A local
// run and a Slurm job on its node both run instances this way.
func (r *Runner) runOne(ctx context.Context, p *Plan, h *hasher, inst *Instance, force bool, ex proc.Executor, tr *tracker) *Result {
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
	r.logger().Info("start", "stage", inst.ID, "why", res.Reason)
	started := time.Now()
	tr.start(inst, started)
	job := newJob(p, inst, fp.binary)
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
	if err := stampRun(p, h, inst, fp, started, finished, job.Usage); err != nil {
		res.Outcome, res.Err = Failed, err
		return res
	}
	res.Outcome = Ran
	return res
}

// judge decides whether inst runs. It returns the result so far and, if
// the instance runs, its fingerprint; without one the result is final:
// Skipped (up to date), or Failed if the instance could not be judged.
func (r *Runner) judge(p *Plan, h *hasher, inst *Instance, force bool) (*Result, *fingerprint) {
	res := &Result{Instance: inst}
	st, fp, err := h.assess(p, inst, r.BinDir)
	if err == nil && fp == nil {
		err = fmt.Errorf("%s: binary %s not found", inst.ID, BinaryPath(r.BinDir, inst.Stage))
	}
	switch {
	case err != nil:
		res.Outcome, res.Err = Failed, err
		return res, nil
	case st.State != UpToDate:
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
func clearOutput(inst *Instance) error {
	if err := removeStamp(inst.OutDir); err != nil {
		return fmt.Errorf("%s: %w", inst.ID, err)
	}
	if err := os.MkdirAll(inst.OutDir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", inst.ID, err)
	}
	return nil
}

// newJob is the command line of inst, run with binary.
func newJob(p *Plan, inst *Instance, binary string) *proc.Job {
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

// stampRun marks the output directory of inst complete after its binary,
// judged by fp, ran from started to finished, using u, and exited 0.
func stampRun(p *Plan, h *hasher, inst *Instance, fp *fingerprint, started, finished time.Time, u proc.Usage) error {
	h.forget(inst.OutDir)
	outs, err := h.dir(inst.OutDir)
	if err == nil {
		fp, err = afterRun(p, inst, fp)
	}
	if err == nil {
		err = writeStamp(inst.OutDir, &Stamp{
			Version:      stampVersion,
			ID:           inst.ID,
			Fingerprint:  fp.sum,
			Binary:       p.Config.Rel(fp.binary),
			BinarySHA256: fp.binarySum,
			Args:         inst.Args,
			Inputs:       fp.inputs,
			Paths:        fp.paths,
			Outputs:      outs,
			Started:      started.UTC(),
			Finished:     finished.UTC(),
			Seconds:      finished.Sub(started).Seconds(),
			CPUSeconds:   u.CPUSeconds,
			MaxRSSKiB:    u.MaxRSSKiB,
		})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", inst.ID, err)
	}
	return nil
}

// afterRun returns fp with the files and directories named by flags as
// they are now that the stage has run: a directory the stage writes into
// (--uai-out) is then recorded with what it wrote, so the instance is up
// to date afterwards; files it only reads are as they were.
func afterRun(p *Plan, inst *Instance, fp *fingerprint) (*fingerprint, error) {
	paths, err := newHasher().flagPaths(p.Config, inst) // a fresh hasher: the stage may have rewritten them
	if err != nil {
		return nil, err
	}
	after := *fp
	after.paths = paths
	after.sum = after.digest()
	return &after, nil
}
