package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Runner runs the instances of a plan that are out of date, in dependency
// order, several at once.
type Runner struct {
	BinDir   string   // where the stage binaries are
	Executor Executor // nil: Local{}
	Jobs     int      // instances run at once; < 1: runtime.NumCPU()
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

// Outcome is what happened to an instance in a run.
type Outcome int

const (
	Ran       Outcome = iota // ran, exited 0 and was stamped complete
	Skipped                  // up to date
	Failed                   // ran and failed, or could not be run
	Blocked                  // not run because an upstream instance failed
	Cancelled                // interrupted, or not started because of the interruption
	Submitted                // handed to Slurm, not waited for (Slurm.NoWait)
)

func (o Outcome) String() string {
	switch o {
	case Ran:
		return "ran"
	case Skipped:
		return "up to date"
	case Failed:
		return "failed"
	case Blocked:
		return "blocked"
	case Cancelled:
		return "cancelled"
	case Submitted:
		return "submitted"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Result is the outcome of one instance.
type Result struct {
	Instance *Instance
	Outcome  Outcome
	Reason   string // why it ran, or what blocked it
	Elapsed  time.Duration
	Err      error  // for Failed: an *ExitError if the binary exited non-zero
	Job      string // the Slurm job that ran it, e.g. "123_4"; "" if run locally
}

// Report lists the outcome of every instance a run considered, in plan order.
type Report struct {
	Plan    *Plan
	Results []*Result
}

// ErrFailed is returned (wrapped) by Run when any instance failed.
var ErrFailed = errors.New("stages failed")

// IDs returns the IDs of the instances with outcome o, in plan order.
func (rep *Report) IDs(o Outcome) []string {
	var ids []string
	for _, r := range rep.Results {
		if r.Outcome == o {
			ids = append(ids, r.Instance.ID)
		}
	}
	return ids
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Logger
}

// targets returns the instances the run considers and those forced to run.
func (r *Runner) targets(p *Plan) (targets, forced map[*Instance]bool, err error) {
	named, err := p.Select(r.Only)
	if err != nil {
		return nil, nil, err
	}
	forced = map[*Instance]bool{}
	if r.Force {
		forced = named
	}
	return p.withAncestors(named), forced, nil
}

// CheckBinaries reports, as a *ConfigError at the run key, every stage of
// the plan whose binary is neither in binDir nor (if modRoot is not empty)
// buildable from modRoot/cmd/<binary>.
func (p *Plan) CheckBinaries(binDir, modRoot string) error {
	var errs []error
	for _, s := range p.Config.Stages {
		if _, err := os.Stat(BinaryPath(binDir, s)); err == nil {
			continue
		}
		if modRoot != "" {
			if fi, err := os.Stat(filepath.Join(modRoot, "cmd", s.Run[0])); err == nil && fi.IsDir() {
				continue
			}
		}
		msg := fmt.Sprintf("unknown binary %q: not in %s", s.Run[0], p.Config.rel(binDir))
		if modRoot != "" {
			msg += fmt.Sprintf(" and no cmd/%s in %s", s.Run[0], modRoot)
		}
		errs = append(errs, &ConfigError{File: p.Config.File, Line: s.RunLine, Key: "stage." + s.Name + ".run", Msg: msg})
	}
	return errors.Join(errs...)
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
func (r *Runner) Run(ctx context.Context, p *Plan) (*Report, error) {
	if r.Slurm != nil {
		return r.runSlurm(ctx, p)
	}
	targets, forced, err := r.targets(p)
	if err != nil {
		return nil, err
	}
	if err := p.CheckBinaries(r.BinDir, ""); err != nil {
		return nil, err
	}
	jobs := r.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	ex := r.Executor
	if ex == nil {
		ex = Local{}
	}
	log := r.logger()
	h := newHasher()

	rep := &Report{Plan: p}
	results := make(map[*Instance]*Result)
	var pending []*Instance
	for _, inst := range p.Instances {
		if targets[inst] {
			pending = append(pending, inst)
		}
	}
	tr := &tracker{total: len(pending), running: map[*Instance]time.Time{}, bar: r.Bar}
	defer tr.clear()

	done := make(chan *Result)
	running := 0
	beat := r.Heartbeat
	if beat <= 0 {
		beat = 10 * time.Second
	}
	if r.Bar != nil {
		beat = time.Second // redraw elapsed times
	}
	ticker := time.NewTicker(beat)
	defer ticker.Stop()

	for {
		if ctx.Err() == nil {
			// Walk pending in plan order: an instance blocked here
			// blocks its dependants later in the same walk.
			rest := pending[:0]
			for _, inst := range pending {
				ready, blocker := true, (*Instance)(nil)
				for _, d := range inst.Deps {
					res, ok := results[d]
					switch {
					case !ok:
						ready = false
					case res.Outcome == Failed || res.Outcome == Blocked:
						blocker = d
					}
				}
				switch {
				case blocker != nil && ready:
					res := &Result{Instance: inst, Outcome: Blocked, Reason: "upstream " + blocker.ID + " " + results[blocker].Outcome.String()}
					results[inst] = res
					tr.finish(inst)
					log.Warn("blocked", "stage", inst.ID, "by", blocker.ID)
				case ready && running < jobs:
					running++
					go func() { done <- r.runOne(ctx, p, h, inst, forced[inst], ex, tr) }()
				default:
					rest = append(rest, inst)
				}
			}
			pending = rest
		}
		if running == 0 {
			break
		}
		select {
		case res := <-done:
			running--
			results[res.Instance] = res
			tr.finish(res.Instance)
			r.logResult(log, p, res)
		case <-ticker.C:
			if r.Bar == nil {
				if s := tr.runningList(); s != "" {
					log.Info("running", "stages", s)
				}
			}
			tr.draw()
		}
	}
	for _, inst := range pending {
		results[inst] = &Result{Instance: inst, Outcome: Cancelled, Reason: "not started"}
	}
	for _, inst := range p.Instances {
		if res, ok := results[inst]; ok {
			rep.Results = append(rep.Results, res)
		}
	}
	if ctx.Err() != nil {
		return rep, fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	if n := len(rep.IDs(Failed)); n > 0 {
		return rep, fmt.Errorf("%d of %d %w", n, len(rep.Results), ErrFailed)
	}
	return rep, nil
}

func (r *Runner) logResult(log *slog.Logger, p *Plan, res *Result) {
	id := res.Instance.ID
	el := res.Elapsed.Round(time.Millisecond)
	switch res.Outcome {
	case Ran:
		log.Info("done", "stage", id, "elapsed", el)
	case Skipped:
		log.Info("up to date", "stage", id)
	case Cancelled:
		log.Warn("interrupted", "stage", id, "elapsed", el)
	case Failed:
		var ee *ExitError
		if errors.As(res.Err, &ee) {
			log.Error("failed", "stage", id, "exit", ee.Code, "elapsed", el, "logs", p.Config.rel(ee.LogDir))
		} else {
			log.Error("failed", "stage", id, "err", res.Err)
		}
	}
}

// runOne judges an instance whose upstream has finished and runs it if it
// is out of date.
func (r *Runner) runOne(ctx context.Context, p *Plan, h *hasher, inst *Instance, force bool, ex Executor, tr *tracker) *Result {
	res := &Result{Instance: inst}
	st, fp, err := h.assess(p, inst, r.BinDir)
	if err == nil && fp == nil {
		err = fmt.Errorf("%s: binary %s not found", inst.ID, BinaryPath(r.BinDir, inst.Stage))
	}
	if err != nil {
		res.Outcome, res.Err = Failed, err
		return res
	}
	switch {
	case st.State != UpToDate:
		res.Reason = st.State.String() + ": " + st.Reason
	case force:
		res.Reason = "forced"
	default:
		res.Outcome, res.Reason = Skipped, "up to date"
		return res
	}
	if ctx.Err() != nil {
		res.Outcome = Cancelled
		return res
	}

	if err := removeStamp(inst.OutDir); err != nil {
		res.Outcome, res.Err = Failed, fmt.Errorf("%s: %w", inst.ID, err)
		return res
	}
	if err := os.MkdirAll(inst.OutDir, 0o755); err != nil {
		res.Outcome, res.Err = Failed, fmt.Errorf("%s: %w", inst.ID, err)
		return res
	}
	job := &Job{
		ID:     inst.ID,
		Path:   fp.binary,
		Args:   inst.Args,
		Dir:    p.Config.Dir,
		LogDir: filepath.Join(inst.OutDir, ".logs"),
	}
	for _, d := range inst.Deps {
		job.Deps = append(job.Deps, d.ID)
	}
	r.logger().Info("start", "stage", inst.ID, "why", res.Reason)
	started := time.Now()
	tr.start(inst, started)
	err = ex.Run(ctx, job)
	finished := time.Now()
	res.Elapsed = finished.Sub(started)
	if err != nil {
		res.Outcome, res.Err = Failed, err
		if ctx.Err() != nil {
			res.Outcome = Cancelled
		}
		return res
	}
	h.forget(inst.OutDir)
	outs, err := h.dir(inst.OutDir)
	if err == nil {
		err = writeStamp(inst.OutDir, &Stamp{
			Version:      stampVersion,
			ID:           inst.ID,
			Fingerprint:  fp.sum,
			Binary:       p.Config.rel(fp.binary),
			BinarySHA256: fp.binarySum,
			Args:         inst.Args,
			Inputs:       fp.inputs,
			Outputs:      outs,
			Started:      started.UTC(),
			Finished:     finished.UTC(),
			Seconds:      res.Elapsed.Seconds(),
		})
	}
	if err != nil {
		res.Outcome, res.Err = Failed, fmt.Errorf("%s: %w", inst.ID, err)
		return res
	}
	res.Outcome = Ran
	return res
}

// step is what a run would do with one instance, judged on the files as
// they are now.
type step struct {
	inst   *Instance
	action string // "run", "maybe" (only if an upstream rerun changes its inputs) or "skip"
	reason string
}

// decide judges every selected instance in plan order. An instance whose
// own files are current but whose upstream reruns is "maybe".
func (r *Runner) decide(p *Plan) ([]step, error) {
	targets, forced, err := r.targets(p)
	if err != nil {
		return nil, err
	}
	h := newHasher()
	var steps []step
	reruns := map[*Instance]bool{}
	for _, inst := range p.Instances {
		if !targets[inst] {
			continue
		}
		st, _, err := h.assess(p, inst, r.BinDir)
		if err != nil {
			return nil, err
		}
		s := step{inst: inst}
		switch {
		case forced[inst]:
			s.action, s.reason = "run", "forced"
		case st.State != UpToDate:
			s.action, s.reason = "run", st.State.String()+": "+st.Reason
		default:
			s.action, s.reason = "skip", "up to date"
			for _, d := range inst.Deps {
				if reruns[d] {
					s.action = "maybe"
					s.reason = "upstream " + d.ID + " reruns; runs only if that changes its inputs"
					break
				}
			}
		}
		reruns[inst] = s.action != "skip"
		steps = append(steps, s)
	}
	return steps, nil
}

// DryRun writes what Run would do, without running or changing anything:
// for each selected instance in order, whether it runs and why, and its
// command line. An instance whose own files are current but whose upstream
// reruns is shown as "maybe": it reruns only if that changes its inputs.
// With Slurm set it also writes the sbatch submissions.
func (r *Runner) DryRun(p *Plan, w io.Writer) error {
	steps, err := r.decide(p)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, s := range steps {
		counts[s.action]++
	}
	fmt.Fprintf(w, "plan: %d instances: %d to run, %d maybe, %d up to date (dry run: nothing runs)\n",
		len(steps), counts["run"], counts["maybe"], counts["skip"])
	for i, s := range steps {
		fmt.Fprintf(w, "%3d. %-5s %s  (%s)\n", i+1, s.action, s.inst.ID, s.reason)
		if s.action != "skip" {
			argv := append([]string{p.Config.rel(BinaryPath(r.BinDir, s.inst.Stage))}, s.inst.Args...)
			fmt.Fprintf(w, "       %s\n", strings.Join(argv, " "))
		}
	}
	if r.Slurm != nil {
		return r.dryRunSlurm(p, steps, w)
	}
	return nil
}

// WriteSummary prints counts, each failure with the tail of its stderr,
// and where the results are.
func (rep *Report) WriteSummary(w io.Writer) {
	counts := map[Outcome]int{}
	for _, res := range rep.Results {
		counts[res.Outcome]++
	}
	var parts []string
	for _, o := range []Outcome{Ran, Skipped, Submitted, Failed, Blocked, Cancelled} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	fmt.Fprintf(w, "pipeline: %d instances: %s\n", len(rep.Results), strings.Join(parts, ", "))
	c := rep.Plan.Config
	for _, res := range rep.Results {
		switch res.Outcome {
		case Failed:
			var ee *ExitError
			switch {
			case errors.As(res.Err, &ee) && ee.Job != "":
				fmt.Fprintf(w, "FAILED %s: Slurm job %s %s", res.Instance.ID, ee.Job, ee.State)
				if ee.Code > 0 {
					fmt.Fprintf(w, ", exit code %d", ee.Code)
				}
				fmt.Fprintf(w, "; logs in %s", c.rel(ee.LogDir))
				if len(ee.Tail) > 0 {
					fmt.Fprintf(w, "; last lines of %s:", ee.TailFrom)
				}
				fmt.Fprintln(w)
				for _, l := range ee.Tail {
					fmt.Fprintf(w, "    | %s\n", l)
				}
			case errors.As(res.Err, &ee):
				fmt.Fprintf(w, "FAILED %s: exit code %d; logs in %s; last lines of stderr:\n", res.Instance.ID, ee.Code, c.rel(ee.LogDir))
				for _, l := range ee.Tail {
					fmt.Fprintf(w, "    | %s\n", l)
				}
			default:
				fmt.Fprintf(w, "FAILED %s: %v\n", res.Instance.ID, res.Err)
			}
		case Blocked:
			fmt.Fprintf(w, "blocked %s: %s\n", res.Instance.ID, res.Reason)
		}
	}
	// Where the results are, a line per stage.
	type place struct {
		n        int
		complete bool
	}
	places := map[*Stage]*place{}
	var order []*Stage
	for _, res := range rep.Results {
		s := res.Instance.Stage
		pl := places[s]
		if pl == nil {
			pl = &place{complete: true}
			places[s] = pl
			order = append(order, s)
		}
		pl.n++
		pl.complete = pl.complete && (res.Outcome == Ran || res.Outcome == Skipped)
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "results:")
	width := 0
	for _, s := range order {
		width = max(width, len(s.Name))
	}
	for _, s := range order {
		pl := places[s]
		line := fmt.Sprintf("  %-*s  %s%c", width, s.Name, c.rel(filepath.Join(c.DataDir, s.Name)), filepath.Separator)
		if len(s.Shard) > 0 || pl.n > 1 {
			line += fmt.Sprintf(" (%d shards)", pl.n)
		}
		if !pl.complete {
			line += " INCOMPLETE"
		}
		fmt.Fprintln(w, line)
	}
}

// tracker holds what the progress display shows.
type tracker struct {
	mu       sync.Mutex
	bar      *Bar
	total    int
	finished int
	running  map[*Instance]time.Time
}

func (t *tracker) start(inst *Instance, at time.Time) {
	t.mu.Lock()
	t.running[inst] = at
	t.mu.Unlock()
	t.draw()
}

func (t *tracker) finish(inst *Instance) {
	t.mu.Lock()
	delete(t.running, inst)
	t.finished++
	t.mu.Unlock()
	t.draw()
}

// runningList names the running instances with their elapsed times, oldest first.
func (t *tracker) runningList() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	type item struct {
		id string
		at time.Time
	}
	var items []item
	for inst, at := range t.running {
		items = append(items, item{inst.ID, at})
	}
	slices.SortFunc(items, func(a, b item) int { return a.at.Compare(b.at) })
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = fmt.Sprintf("%s (%s)", it.id, time.Since(it.at).Round(time.Second))
	}
	return strings.Join(parts, ", ")
}

func (t *tracker) draw() {
	if t.bar == nil {
		return
	}
	t.mu.Lock()
	done, total := t.finished, t.total
	t.mu.Unlock()
	const width = 20
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	line := fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, total)
	if s := t.runningList(); s != "" {
		line += "  running: " + s
	}
	t.bar.Set(line)
}

func (t *tracker) clear() {
	if t.bar != nil {
		t.bar.Set("")
	}
}
