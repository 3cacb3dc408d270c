package verify

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/proc"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// runSamples runs every sample of vp through the scheduler and a local
// executor, up to r.Jobs at once, cheapest of each stage first. Each runs
// as an instance of its own (sampleRun), so the samples neither wait for
// nor block each other: each reads the cached outputs of its upstream.
func runSamples(ctx context.Context, r *runner.Runner, vp *Plan) error {
	pr := runner.NewProgress(r.Bar)
	defer pr.Clear()
	x := newSampleExecutor(r, vp, pr)
	all := map[*pipeline.Instance]bool{}
	for _, inst := range x.plan.Instances {
		all[inst] = true
	}
	log := r.Log()
	results, err := r.Schedule(ctx, x.plan, x, pr, all, func(res *runner.Result) {
		logSample(log, res, x.samples[res.Instance].Diff)
	})
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	// The results name the instances the samples ran as; a Sample's
	// names its instance of vp.Plan.
	for inst, res := range results {
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
	*runner.LocalExecutor
	plan    *pipeline.Plan                 // the samples as instances, in the order they run
	samples map[*pipeline.Instance]*Sample // by the instance each runs as
	bad     map[*config.Stage]bool         // stages with a sample that differed or failed
	log     *slog.Logger
	binDir  string
	tol     float64 // floats the same within it (Options.Tol)
	pr      *runner.Progress
}

func newSampleExecutor(r *runner.Runner, vp *Plan, pr *runner.Progress) *sampleExecutor {
	x := &sampleExecutor{plan: &pipeline.Plan{Config: vp.Plan.Config},
		samples: map[*pipeline.Instance]*Sample{}, bad: map[*config.Stage]bool{}, log: r.Log(), binDir: r.BinDir, tol: vp.tol, pr: pr}
	for _, sc := range vp.Stages {
		for _, s := range sc.Samples {
			inst := sampleRun(vp.Plan, s.Instance)
			x.plan.Instances = append(x.plan.Instances, inst)
			x.samples[inst] = s
		}
	}
	x.LocalExecutor = r.NewLocalExecutor(pr, func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *runner.Result {
		return x.runSample(ctx, inst, ex)
	})
	return x
}

// Start settles at once, as Skipped, the samples of a stage that has
// already changed or failed, and starts the others.
func (x *sampleExecutor) Start(ctx context.Context, insts []*pipeline.Instance) ([]*runner.Result, error) {
	var run []*pipeline.Instance
	var skipped []*runner.Result
	for _, inst := range insts {
		s := x.samples[inst]
		if x.bad[inst.Stage] {
			skipped = append(skipped, &runner.Result{Instance: inst, Outcome: runner.Skipped, Reason: "its stage already changed or failed"})
			continue
		}
		x.log.Info("verify", "stage", inst.ID, "why", s.Why, "cached", seconds(s.Recorded))
		run = append(run, inst)
	}
	_, err := x.LocalExecutor.Start(ctx, run)
	return skipped, err
}

// Wait notes the stages whose samples differed or failed.
func (x *sampleExecutor) Wait(ctx context.Context, d time.Duration) []*runner.Result {
	results := x.LocalExecutor.Wait(ctx, d)
	for _, res := range results {
		if res.Outcome != runner.Ran || x.samples[res.Instance].Diff != nil {
			x.bad[res.Instance.Stage] = true
		}
	}
	return results
}

// sampleRun is the instance a sample of inst runs as: inst with its output
// in the sample's directory, and without upstream instances, as it reads
// the cached outputs of inst's.
func sampleRun(p *pipeline.Plan, inst *pipeline.Instance) *pipeline.Instance {
	run := *inst
	run.OutDir = sampleDir(p, inst)
	run.Args = sampleArgs(p, inst, run.OutDir)
	run.Deps = nil
	return &run
}

// runSample runs inst, the instance a sample runs as, with its stage's
// current binary, compares its outputs with the cached ones and removes
// them. It is never stamped.
func (x *sampleExecutor) runSample(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *runner.Result {
	s := x.samples[inst]
	res := &runner.Result{Instance: inst, Reason: s.Why}
	defer os.RemoveAll(inst.OutDir)
	if err := os.MkdirAll(inst.OutDir, 0o755); err != nil {
		res.Outcome, res.Err = runner.Failed, fmt.Errorf("%s: %w", inst.ID, err)
		return res
	}
	started := time.Now()
	x.pr.Start(inst, started)
	err := ex.Run(ctx, runner.NewJob(x.plan, inst, pipeline.BinaryPath(x.binDir, inst.Stage)))
	res.Elapsed = time.Since(started)
	if err == nil {
		s.Diff, err = CompareOutputs(ctx, s.Instance.OutDir, inst.OutDir, CompareWith(x.binDir, x.tol))
	}
	switch {
	case ctx.Err() != nil:
		res.Outcome, res.Err = runner.Cancelled, context.Cause(ctx)
	case err != nil:
		res.Outcome, res.Err = runner.Failed, err
	default:
		res.Outcome = runner.Ran
	}
	return res
}

// logSample logs how a sample ended; diff is its first difference from
// the cached outputs.
func logSample(log *slog.Logger, res *runner.Result, diff *Difference) {
	id, el := res.Instance.ID, res.Elapsed.Round(time.Millisecond)
	switch {
	case res.Outcome == runner.Cancelled:
		log.Warn("interrupted", "stage", id, "elapsed", el)
	case res.Outcome != runner.Ran:
		log.Error("failed", "stage", id, "elapsed", el, "err", res.Err)
	case diff != nil:
		log.Warn("changed", "stage", id, "elapsed", el, "first difference", diff.String())
	default:
		log.Info("same results", "stage", id, "elapsed", el)
	}
}
