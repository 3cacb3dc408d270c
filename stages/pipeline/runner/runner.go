package runner

import (
	"context"
	"errors"
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
	// Slurm, if set, takes the place of Executor (and Jobs): every
	// out-of-date instance becomes a Slurm job, all submitted at once with
	// their dependencies; see Slurm.
	Slurm *Slurm
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
	if r.Slurm == nil {
		if err := checkSlurmJobs(ctx, p, targets); err != nil {
			return nil, err
		}
	}
	tr := newTracker(r.Bar)
	defer tr.clear()
	ex, err := r.executor(p, forced, tr)
	if err != nil {
		return nil, err
	}
	s := newScheduler(r, p, ex, tr, targets)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	return newReport(ctx, p, s.results)
}

// executor returns what carries out a run: Slurm jobs if r.Slurm is set,
// else subprocesses through r.Executor.
func (r *Runner) executor(p *pipeline.Plan, forced map[*pipeline.Instance]bool, tr *tracker) (instanceExecutor, error) {
	if r.Slurm != nil {
		return r.newSlurmExecutor(p, forced, tr)
	}
	h := pipeline.NewJudge()
	return r.newLocalExecutor(tr, func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *Result {
		return r.runOne(ctx, p, h, inst, forced[inst], ex, tr)
	}), nil
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

func (r *Runner) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

// logResult logs how an instance ended.
func (r *Runner) logResult(log *slog.Logger, p *pipeline.Plan, res *Result) {
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
