package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
)

// An InstanceExecutor carries out the instances of a run for the
// scheduler, which decides what is handed over when, blocks the dependants
// of a failure, keeps the results and logs them. The executors differ in
// how an instance is started, followed and cancelled: the local one
// (NewLocalExecutor) runs each as a subprocess once its upstream has
// finished; a Batch's submits all of them at once as jobs that wait for
// each other. Only the scheduler's goroutine calls an executor.
type InstanceExecutor interface {
	// Early reports whether instances are handed over before their
	// upstream has finished, the executor making them wait.
	Early() bool
	// Slots says how many more instances Start takes now.
	Slots() int
	// Start takes over insts, given in plan order. It returns the results
	// of those it settles at once without running them (up to date, only
	// submitted, or a verify sample skipped); the others are open until
	// Wait reports them. An error leaves nothing running.
	Start(ctx context.Context, insts []*pipeline.Instance) ([]*Result, error)
	// Wait returns the results of the open instances that have ended,
	// waiting at most d. Once ctx is cancelled every open instance stops,
	// and Wait reports them as they end.
	Wait(ctx context.Context, d time.Duration) []*Result
	// Cancel stops following open instances whose upstream failed, and
	// stops whatever of them still waits or runs.
	Cancel(insts []*pipeline.Instance)
	// Job names the batch job of an instance, for its result; "" if none.
	Job(inst *pipeline.Instance) string
	// Heartbeat says what is still going on, for a log line; "" if nothing.
	Heartbeat() (msg string, attrs []any)
}

// scheduler is the one loop of a run, whatever the executor: it hands the
// executor each instance whose turn has come, settles what the executor
// reports, blocks the dependants of a failure and shows the progress.
type scheduler struct {
	r    *Runner
	plan *pipeline.Plan
	ex   InstanceExecutor
	log  *slog.Logger
	tr   *Progress
	// logResult logs how an instance that was followed ended:
	// Runner.LogResult, unless the caller knows better (verify says
	// whether a sample gave the cached results).
	logResult func(res *Result)

	pending []*pipeline.Instance        // not handed over yet, in plan order
	open    map[*pipeline.Instance]bool // handed over, not settled
	results map[*pipeline.Instance]*Result
}

func newScheduler(r *Runner, p *pipeline.Plan, ex InstanceExecutor, tr *Progress, targets map[*pipeline.Instance]bool) *scheduler {
	s := &scheduler{r: r, plan: p, ex: ex, log: r.Log(), tr: tr,
		open: map[*pipeline.Instance]bool{}, results: map[*pipeline.Instance]*Result{}}
	s.logResult = func(res *Result) { r.LogResult(p, res) }
	for _, inst := range p.Instances {
		if targets[inst] {
			s.pending = append(s.pending, inst)
		}
	}
	tr.add(len(s.pending))
	return s
}

// run goes on until every instance is settled or, once ctx is cancelled,
// until no instance handed over is still open; those never handed over
// are then Cancelled. The error is the executor's failure to start.
func (s *scheduler) run(ctx context.Context) error {
	beat := s.r.beat()
	nextBeat := time.Now().Add(beat)
	for {
		if ctx.Err() == nil {
			if err := s.schedule(ctx); err != nil {
				return err
			}
		}
		if len(s.open) == 0 {
			break
		}
		s.follow(s.ex.Wait(ctx, time.Until(nextBeat)))
		if !time.Now().Before(nextBeat) {
			nextBeat = time.Now().Add(beat)
			s.heartbeat()
		}
	}
	for _, inst := range s.pending {
		s.results[inst] = &Result{Instance: inst, Outcome: Cancelled, Reason: "not started"}
	}
	return nil
}

// schedule walks the pending instances in plan order. One whose upstream
// has settled with a failure is blocked, which blocks its own dependants
// later in the same walk. The others are handed to the executor as its
// slots allow: once their upstream has settled, or at once if it takes
// them early. Instances the executor settles at once free their slots and
// may free their dependants, so the walk is repeated until it hands over
// nothing more or all it hands over stays open.
func (s *scheduler) schedule(ctx context.Context) error {
	for {
		batch := s.next()
		if len(batch) == 0 {
			return nil
		}
		now, err := s.ex.Start(ctx, batch)
		if err != nil {
			return err
		}
		for _, inst := range batch {
			s.open[inst] = true
		}
		for _, res := range now {
			// Settled before it was followed: not part of the progress.
			delete(s.open, res.Instance)
			s.results[res.Instance] = res
			s.tr.add(-1)
		}
		if len(now) == 0 {
			return nil
		}
	}
}

// next takes from the pending instances those to hand over now, and
// blocks those whose upstream failed.
func (s *scheduler) next() []*pipeline.Instance {
	free, early := s.ex.Slots(), s.ex.Early()
	var batch []*pipeline.Instance
	rest := s.pending[:0]
	for _, inst := range s.pending {
		settled, blocker := s.upstream(inst)
		switch {
		case settled && blocker != nil:
			s.block(inst, blocker)
		case (settled || early) && free > 0:
			batch = append(batch, inst)
			free--
		default:
			rest = append(rest, inst)
		}
	}
	s.pending = rest
	return batch
}

// follow settles the results the executor reported. It walks the open
// instances in plan order so that a failure blocks the dependants that
// were handed over early before their own results count; the executor
// then cancels those.
func (s *scheduler) follow(results []*Result) {
	got := make(map[*pipeline.Instance]*Result, len(results))
	for _, res := range results {
		got[res.Instance] = res
	}
	var blocked []*pipeline.Instance
	for _, inst := range s.plan.Instances {
		if !s.open[inst] {
			continue
		}
		_, blocker := s.upstream(inst)
		switch res := got[inst]; {
		case blocker != nil:
			s.block(inst, blocker)
			blocked = append(blocked, inst)
		case res != nil:
			s.settle(res)
		default:
			continue
		}
		delete(s.open, inst)
	}
	if len(blocked) > 0 {
		s.ex.Cancel(blocked)
	}
}

// upstream reports whether every upstream instance of inst has settled,
// and the first, in Deps order, that failed or was blocked.
func (s *scheduler) upstream(inst *pipeline.Instance) (settled bool, blocker *pipeline.Instance) {
	settled = true
	for _, d := range inst.Deps {
		res, ok := s.results[d]
		switch {
		case !ok:
			settled = false
		case blocker == nil && (res.Outcome == Failed || res.Outcome == Blocked):
			blocker = d
		}
	}
	return settled, blocker
}

func (s *scheduler) block(inst, blocker *pipeline.Instance) {
	res := &Result{Instance: inst, Outcome: Blocked, Job: s.ex.Job(inst),
		Reason: "upstream " + blocker.ID + " " + s.results[blocker].Outcome.String()}
	s.results[inst] = res
	s.tr.finish(inst)
	attrs := []any{"stage", inst.ID}
	if res.Job != "" {
		attrs = append(attrs, "job", res.Job)
	}
	s.log.Warn("blocked", append(attrs, "by", blocker.ID)...)
}

func (s *scheduler) settle(res *Result) {
	s.results[res.Instance] = res
	s.tr.finish(res.Instance)
	s.logResult(res)
}

// heartbeat logs what is still going on, unless a Bar shows it, and
// redraws the Bar.
func (s *scheduler) heartbeat() {
	if s.r.Bar == nil {
		if msg, attrs := s.ex.Heartbeat(); msg != "" {
			s.log.Info(msg, attrs...)
		}
	}
	s.tr.draw()
}
