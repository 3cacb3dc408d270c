package runner

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
)

// Runner runs the instances of a plan that are out of date, in dependency
// order, several at once.
type Runner struct {
	BinDir   string        // where the stage binaries are
	Executor proc.Executor // nil: proc.Local{}
	Jobs     int           // instances run at once; < 1: runtime.NumCPU()
	// Only restricts the run to these stages or instance IDs and whatever
	// they need: their upstream instances run first if out of date.
	Only []string
	// Force reruns the selected instances (those named by Only, or all)
	// even when up to date; their upstream instances still run only if
	// out of date.
	Force bool
	// Logger gets a line per instance start and finish; nil: none.
	Logger *slog.Logger
	// Bar, if set, shows a live progress line (use it when stderr is a
	// terminal, and log through it so the two do not tangle).
	Bar *Bar
	// Heartbeat is how often, without a Bar, the instances still running
	// are logged; 0 means 10 seconds.
	Heartbeat time.Duration
	// Batch, if set, takes the place of Executor (and Jobs): every
	// out-of-date instance goes to a batch scheduler, all at once with
	// their dependencies (see package slurm).
	Batch Batch
	// Guard, if set, is asked before a local run (Batch unset) whether it
	// may write the instances it considers, targets; an error refuses the
	// run. The pipeline command passes slurm.CheckJobs, which refuses
	// instances that Slurm jobs of an earlier run may still write.
	Guard func(ctx context.Context, p *pipeline.Plan, targets map[*pipeline.Instance]bool) error
}

// A Batch hands the instances of a run to a batch scheduler instead of
// running them here (package slurm's Cluster).
type Batch interface {
	// Executor returns what carries out one run of p by r: forced are
	// the instances to run even when up to date, pr the run's progress.
	Executor(r *Runner, p *pipeline.Plan, forced map[*pipeline.Instance]bool, pr *Progress) (InstanceExecutor, error)
	// WriteDryRun writes, for DryRun, what the batch scheduler would be
	// asked: runs are the instances a run would hand over (out of date,
	// forced, or maybe), in plan order.
	WriteDryRun(w io.Writer, p *pipeline.Plan, runs []*pipeline.Instance, forced map[*pipeline.Instance]bool) error
}

// Run runs every selected instance that is out of date. An instance is
// judged only when all its upstream instances have finished, so a rerun
// upstream whose outputs come out byte-identical leaves it up to date. A
// failure blocks the instances that depend on the failed one and lets the
// others go on. Cancelling ctx stops the running instances; none of them
// is stamped.
//
// The error is nil if nothing failed, wraps ErrFailed if some instance
// failed, and wraps context.Canceled if ctx was cancelled; the report is
// returned in both of those cases.
func (r *Runner) Run(ctx context.Context, p *pipeline.Plan) (*Report, error) {
	targets, forced, err := r.targets(p)
	if err != nil {
		return nil, err
	}
	if err := p.CheckBinaries(r.BinDir, ""); err != nil {
		return nil, err
	}
	if r.Batch == nil && r.Guard != nil {
		if err := r.Guard(ctx, p, targets); err != nil {
			return nil, err
		}
	}
	pr := NewProgress(r.Bar)
	defer pr.Clear()
	ex, err := r.executor(p, forced, pr)
	if err != nil {
		return nil, err
	}
	results, err := r.Schedule(ctx, p, ex, pr, targets, nil)
	if err != nil {
		return nil, err
	}
	return newReport(ctx, p, results)
}

// executor returns what carries out a run: r.Batch's executor if set,
// else subprocesses through r.Executor.
func (r *Runner) executor(p *pipeline.Plan, forced map[*pipeline.Instance]bool, pr *Progress) (InstanceExecutor, error) {
	if r.Batch != nil {
		return r.Batch.Executor(r, p, forced, pr)
	}
	h := pipeline.NewJudge()
	return r.NewLocalExecutor(pr, func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *Result {
		return r.runOne(ctx, p, h, inst, forced[inst], ex, pr)
	}), nil
}

// Schedule carries out the targets of p with ex and returns the result of
// each: an instance is handed to ex once its upstream has settled (or at
// once, if ex takes instances early), the dependants of a failure are
// blocked, and pr shows the progress. logResult logs how each instance
// ex carried out ended (nil: LogResult). Once ctx is cancelled, the
// instances not yet handed over are Cancelled. The error is ex's failure
// to start.
func (r *Runner) Schedule(ctx context.Context, p *pipeline.Plan, ex InstanceExecutor, pr *Progress,
	targets map[*pipeline.Instance]bool, logResult func(res *Result)) (map[*pipeline.Instance]*Result, error) {
	s := newScheduler(r, p, ex, pr, targets)
	if logResult != nil {
		s.logResult = logResult
	}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	return s.results, nil
}

// RunOne judges inst, whose upstream has finished, and runs it through
// r.Executor if it is out of date (or force), stamping it when its binary
// exits 0: what a batch job does on its node.
func (r *Runner) RunOne(ctx context.Context, p *pipeline.Plan, inst *pipeline.Instance, force bool) *Result {
	return r.runOne(ctx, p, pipeline.NewJudge(), inst, force, r.subprocesses(), NewProgress(nil))
}

// subprocesses is r.Executor, or proc.Local{} if it is nil.
func (r *Runner) subprocesses() proc.Executor {
	if r.Executor == nil {
		return proc.Local{}
	}
	return r.Executor
}

// targets returns the instances the run considers and those forced to run.
func (r *Runner) targets(p *pipeline.Plan) (targets, forced map[*pipeline.Instance]bool, err error) {
	named, err := p.Select(r.Only)
	if err != nil {
		return nil, nil, err
	}
	forced = map[*pipeline.Instance]bool{}
	if r.Force {
		forced = named
	}
	return p.WithAncestors(named), forced, nil
}

// beat is how often the scheduler logs what is still going on (or,
// with a Bar, redraws it).
func (r *Runner) beat() time.Duration {
	switch {
	case r.Bar != nil:
		return time.Second // redraw elapsed times
	case r.Heartbeat > 0:
		return r.Heartbeat
	}
	return 10 * time.Second
}

// Log returns r.Logger, or a logger that discards everything if it is nil.
func (r *Runner) Log() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

// LogResult logs how an instance of p ended.
func (r *Runner) LogResult(p *pipeline.Plan, res *Result) {
	log := r.Log()
	id := res.Instance.ID
	el := res.Elapsed.Round(time.Millisecond)
	switch res.Outcome {
	case Ran:
		if res.Usage.MaxRSSKiB > 0 {
			cpu := time.Duration(res.Usage.CPUSeconds * float64(time.Second)).Round(time.Millisecond)
			log.Info("done", "stage", id, "elapsed", el, "cpu", cpu, "max_rss_mib", (res.Usage.MaxRSSKiB+512)/1024)
		} else {
			log.Info("done", "stage", id, "elapsed", el)
		}
	case Skipped:
		log.Info("up to date", "stage", id)
	case Cancelled:
		log.Warn("interrupted", "stage", id, "elapsed", el)
	case Failed:
		var ee *proc.ExitError
		if errors.As(res.Err, &ee) {
			if ee.Signal > 0 {
				log.Error("failed", "stage", id, "killed_by", ee.Ended(), "elapsed", el, "logs", p.Config.Rel(ee.LogDir))
			} else {
				log.Error("failed", "stage", id, "exit", ee.Code, "elapsed", el, "logs", p.Config.Rel(ee.LogDir))
			}
		} else {
			log.Error("failed", "stage", id, "err", res.Err)
		}
	}
}
