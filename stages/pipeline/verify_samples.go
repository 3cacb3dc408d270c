package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// runSamples runs every sample of vp through the scheduler and a local
// executor, up to r.Jobs at once, cheapest of each stage first. Each runs
// as an instance of its own (sampleRun), so the samples neither wait for
// nor block each other: each reads the cached outputs of its upstream.
func (r *Runner) runSamples(ctx context.Context, vp *VerifyPlan) error {
	tr := newTracker(r.Bar)
	defer tr.clear()
	x := r.newSampleExecutor(vp, tr)
	all := map[*Instance]bool{}
	for _, inst := range x.plan.Instances {
		all[inst] = true
	}
	s := newScheduler(r, x.plan, x, tr, all)
	s.logResult = func(res *Result) { logSample(s.log, res, x.samples[res.Instance].Diff) }
	if err := s.run(ctx); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	// The results name the instances the samples ran as; a Sample's
	// names its instance of vp.Plan.
	for inst, res := range s.results {
		smp := x.samples[inst]
		res.Instance = smp.Instance
		smp.Result = res
	}
	return nil
}

// sampleExecutor runs the samples of a verification with a local
// executor. It skips those of a stage whose results already changed or
// failed: that stage is left stale whatever the others give.
type sampleExecutor struct {
	*localExecutor
	plan    *Plan                 // the samples as instances, in the order they run
	samples map[*Instance]*Sample // by the instance each runs as
	bad     map[*Stage]bool       // stages with a sample that differed or failed
	log     *slog.Logger
}

func (r *Runner) newSampleExecutor(vp *VerifyPlan, tr *tracker) *sampleExecutor {
	x := &sampleExecutor{plan: &Plan{Config: vp.Plan.Config},
		samples: map[*Instance]*Sample{}, bad: map[*Stage]bool{}, log: r.logger()}
	for _, sc := range vp.Stages {
		for _, s := range sc.Samples {
			inst := sampleRun(vp.Plan, s.Instance)
			x.plan.Instances = append(x.plan.Instances, inst)
			x.samples[inst] = s
		}
	}
	x.localExecutor = r.newLocalExecutor(tr, func(ctx context.Context, inst *Instance, ex Executor) *Result {
		return r.runSample(ctx, x.plan, inst, x.samples[inst], ex, tr)
	})
	return x
}

// start settles at once, as Skipped, the samples of a stage that has
// already changed or failed, and starts the others.
func (x *sampleExecutor) start(ctx context.Context, insts []*Instance) ([]*Result, error) {
	var run []*Instance
	var skipped []*Result
	for _, inst := range insts {
		s := x.samples[inst]
		if x.bad[inst.Stage] {
			skipped = append(skipped, &Result{Instance: inst, Outcome: Skipped, Reason: "its stage already changed or failed"})
			continue
		}
		x.log.Info("verify", "stage", inst.ID, "why", s.Why, "cached", seconds(s.Recorded))
		run = append(run, inst)
	}
	_, err := x.localExecutor.start(ctx, run)
	return skipped, err
}

// wait notes the stages whose samples differed or failed.
func (x *sampleExecutor) wait(ctx context.Context, d time.Duration) []*Result {
	results := x.localExecutor.wait(ctx, d)
	for _, res := range results {
		if res.Outcome != Ran || x.samples[res.Instance].Diff != nil {
			x.bad[res.Instance.Stage] = true
		}
	}
	return results
}

// sampleRun is the instance a sample of inst runs as: inst with its output
// in the sample's directory, and without upstream instances, as it reads
// the cached outputs of inst's.
func sampleRun(p *Plan, inst *Instance) *Instance {
	run := *inst
	run.OutDir = sampleDir(p, inst)
	run.Args = sampleArgs(p, inst, run.OutDir)
	run.Deps = nil
	return &run
}

// runSample runs inst, the instance sample s runs as, with its stage's
// current binary, compares its outputs with the cached ones and removes
// them. It is never stamped.
func (r *Runner) runSample(ctx context.Context, p *Plan, inst *Instance, s *Sample, ex Executor, tr *tracker) *Result {
	res := &Result{Instance: inst, Reason: s.Why}
	defer os.RemoveAll(inst.OutDir)
	if err := os.MkdirAll(inst.OutDir, 0o755); err != nil {
		res.Outcome, res.Err = Failed, fmt.Errorf("%s: %w", inst.ID, err)
		return res
	}
	started := time.Now()
	tr.start(inst, started)
	err := ex.Run(ctx, newJob(p, inst, BinaryPath(r.BinDir, inst.Stage)))
	res.Elapsed = time.Since(started)
	if err == nil {
		s.Diff, err = CompareOutputs(ctx, s.Instance.OutDir, inst.OutDir, CompareWith(r.BinDir))
	}
	switch {
	case ctx.Err() != nil:
		res.Outcome, res.Err = Cancelled, context.Cause(ctx)
	case err != nil:
		res.Outcome, res.Err = Failed, err
	default:
		res.Outcome = Ran
	}
	return res
}

// logSample logs how a sample ended; diff is its first difference from
// the cached outputs.
func logSample(log *slog.Logger, res *Result, diff *Difference) {
	id, el := res.Instance.ID, res.Elapsed.Round(time.Millisecond)
	switch {
	case res.Outcome == Cancelled:
		log.Warn("interrupted", "stage", id, "elapsed", el)
	case res.Outcome != Ran:
		log.Error("failed", "stage", id, "elapsed", el, "err", res.Err)
	case diff != nil:
		log.Warn("changed", "stage", id, "elapsed", el, "first difference", diff.String())
	default:
		log.Info("same results", "stage", id, "elapsed", el)
	}
}
