package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// slurmExecutor submits every instance of a run to Slurm as soon as the
// run starts, their jobs waiting for each other (see Slurm), and follows
// the jobs with squeue and sacct.
type slurmExecutor struct {
	r           *Runner
	sl          *Slurm
	plan        *Plan
	forced      map[*Instance]bool
	tr          *tracker
	log         *slog.Logger
	pipelineBin string // what the jobs run
	binDir      string // absolute

	jobs     map[*Instance]*slurmJob // every instance submitted
	open     []*slurmJob             // submitted and not ended, in plan order
	states   map[string]jobState     // what the last poll found, by job
	nextPoll time.Time
}

// slurmJob is a submitted instance.
type slurmJob struct {
	inst    *Instance
	ref     string // its job: "123" or "123_4"
	rec     jobRecord
	why     string // why it runs
	running bool   // seen running
	unknown int    // polls in a row that found no trace of the job
}

func (r *Runner) newSlurmExecutor(p *Plan, forced map[*Instance]bool, tr *tracker) (*slurmExecutor, error) {
	if err := checkCommands("sbatch", "squeue", "scancel"); err != nil {
		return nil, err
	}
	pipelineBin, err := r.pipelineBinary()
	if err != nil {
		return nil, err
	}
	binDir, err := filepath.Abs(r.BinDir)
	if err != nil {
		return nil, err
	}
	return &slurmExecutor{r: r, sl: r.Slurm, plan: p, forced: forced, tr: tr, log: r.logger(),
		pipelineBin: pipelineBin, binDir: binDir, jobs: map[*Instance]*slurmJob{}}, nil
}

// pipelineBinary is the binary the jobs run.
func (r *Runner) pipelineBinary() (string, error) {
	bin := r.Slurm.Pipeline
	if bin == "" {
		bin = filepath.Join(r.BinDir, "pipeline")
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("slurm executor: the jobs run the pipeline binary %s: %w", bin, err)
	}
	return bin, nil
}

// early is true: Slurm holds each job until the jobs it depends on have
// completed, and the job judges its instance again when it starts.
func (x *slurmExecutor) early() bool { return true }

func (x *slurmExecutor) slots() int { return math.MaxInt }

// start judges insts on the files as they are now, settles those up to date
// and submits the others, which run if still out of date when their jobs
// start. With NoWait it settles the submitted instances too, as Submitted.
func (x *slurmExecutor) start(ctx context.Context, insts []*Instance) ([]*Result, error) {
	steps, err := x.r.stepsFor(x.plan, newHasher(), insts, x.forced)
	if err != nil {
		return nil, err
	}
	var settled []*Result
	var runs []*Instance
	why := map[*Instance]string{}
	for _, s := range steps {
		if s.action == "skip" {
			settled = append(settled, &Result{Instance: s.inst, Outcome: Skipped, Reason: s.reason})
			continue
		}
		runs = append(runs, s.inst)
		why[s.inst] = s.reason
	}
	if err := x.sl.checkActive(ctx, runs); err != nil {
		return nil, err
	}
	jobs, err := x.submit(ctx, runs, why)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		x.jobs[j.inst] = j
		if x.sl.NoWait {
			settled = append(settled, &Result{Instance: j.inst, Outcome: Submitted, Reason: j.why, Job: j.ref})
		}
	}
	if !x.sl.NoWait {
		x.open = append(x.open, jobs...)
	}
	return settled, nil
}

// submit makes the sbatch calls for runs, in an order where every job's
// dependencies are submitted before it, and returns the submitted
// instances in plan order. If a call fails, it cancels the jobs already
// submitted.
func (x *slurmExecutor) submit(ctx context.Context, runs []*Instance, why map[*Instance]string) ([]*slurmJob, error) {
	subs := planSubmissions(x.plan, runs, x.forced)
	if len(subs) > 0 {
		if err := os.MkdirAll(slurmDir(x.plan.Config), 0o755); err != nil {
			return nil, fmt.Errorf("slurm executor: %w", err)
		}
	}
	ids := make([]string, len(subs))
	var jobs []*slurmJob
	for i, s := range subs {
		js, err := x.submitOne(ctx, s, ids, i, why)
		if err != nil {
			submitted := ids[:i]
			if ids[i] != "" {
				submitted = ids[:i+1]
			}
			return nil, abandon(submitted, err)
		}
		jobs = append(jobs, js...)
	}
	// Plan order: an upstream's outcome is known before its dependants'.
	order := map[*Instance]int{}
	for i, inst := range x.plan.Instances {
		order[inst] = i
	}
	slices.SortFunc(jobs, func(a, b *slurmJob) int { return order[a.inst] - order[b.inst] })
	return jobs, nil
}

// submitOne makes the sbatch call of subs[i], given the job IDs of the
// earlier ones, sets ids[i], and records the job of each instance in its
// .logs/slurm.json.
func (x *slurmExecutor) submitOne(ctx context.Context, s *submission, ids []string, i int, why map[*Instance]string) ([]*slurmJob, error) {
	c := x.plan.Config
	for _, inst := range s.insts {
		if err := os.MkdirAll(logDir(inst), 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w", inst.ID, err)
		}
	}
	args := x.sl.sbatchArgs(c, s, ids)
	now := time.Now().UTC() // before: the job may start before sbatch returns
	id, err := sbatch(ctx, args, script(c, s, x.pipelineBin, x.binDir))
	if err != nil {
		return nil, fmt.Errorf("submit stage %s: %w", s.stage.Name, err)
	}
	ids[i] = id
	dep := s.dependency(ids)
	var jobs []*slurmJob
	for k, inst := range s.insts {
		t := taskRef{i, -1}
		if s.tasks != nil {
			t.task = s.tasks[k]
		}
		ref := t.jobRef(ids)
		rec := jobRecord{Job: ref, Submitted: now, Output: outputPath(c, s.stage, ref), Dependency: dep}
		if err := writeJSON(filepath.Join(logDir(inst), recordName), rec); err != nil {
			return nil, fmt.Errorf("%s: record job: %w", inst.ID, err)
		}
		jobs = append(jobs, &slurmJob{inst: inst, ref: ref, rec: rec, why: why[inst]})
	}
	attrs := []any{"stage", s.stage.Name, "job", id, "instances", len(s.insts)}
	if s.tasks != nil {
		attrs = append(attrs, "array", ranges(s.tasks))
	}
	if dep != "" {
		attrs = append(attrs, "dependency", dep)
	}
	x.log.Info("submitted", attrs...)
	return jobs, nil
}

// wait polls the jobs every Slurm.Poll, the first time at once. When ctx
// is cancelled it cancels every open job.
func (x *slurmExecutor) wait(ctx context.Context, d time.Duration) []*Result {
	if ctx.Err() != nil {
		return x.interrupt()
	}
	t := time.NewTimer(min(d, time.Until(x.nextPoll)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return x.interrupt()
	case <-t.C:
	}
	if time.Now().Before(x.nextPoll) {
		return nil // woken for the heartbeat
	}
	poll := x.sl.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	x.nextPoll = time.Now().Add(poll)
	return x.poll(ctx)
}

// poll looks the open jobs up and returns the results of those that ended.
func (x *slurmExecutor) poll(ctx context.Context) []*Result {
	var arrays, want []string
	for _, j := range x.open {
		want = append(want, j.ref)
		if a := arrayOf(j.ref); !slices.Contains(arrays, a) {
			arrays = append(arrays, a)
		}
	}
	states, err := x.sl.states(ctx, arrays, want)
	if err != nil {
		if ctx.Err() == nil {
			x.log.Warn("cannot look up the Slurm jobs; trying again", "err", err)
		}
		return nil
	}
	x.states = states
	var ended []*Result
	rest := x.open[:0]
	for _, j := range x.open {
		res := x.check(j, states)
		if res == nil {
			rest = append(rest, j)
			continue
		}
		res.Job = j.ref
		ended = append(ended, res)
	}
	x.open = rest
	return ended
}

// check returns the result of j if its job has ended, or if Slurm has not
// known it for three polls in a row (gone from squeue, and sacct is off:
// the job's own result file says what happened). A job seen running for
// the first time is logged as started.
func (x *slurmExecutor) check(j *slurmJob, states map[string]jobState) *Result {
	st, known := states[j.ref]
	switch {
	case finished(st.State):
		return x.r.slurmOutcome(x.plan, j.inst, j.ref, j.rec, st)
	case !known:
		if j.unknown++; j.unknown >= 3 {
			return x.r.slurmOutcome(x.plan, j.inst, j.ref, j.rec, jobState{Code: -1})
		}
		return nil
	case st.State == "RUNNING" && !j.running:
		j.running = true
		x.tr.start(j.inst, time.Now())
		x.log.Info("start", "stage", j.inst.ID, "job", j.ref, "why", j.why)
	}
	j.unknown = 0
	return nil
}

// interrupt cancels every open job: the run was interrupted.
func (x *slurmExecutor) interrupt() []*Result {
	if len(x.open) == 0 {
		return nil
	}
	var refs []string
	var results []*Result
	for _, j := range x.open {
		refs = append(refs, j.ref)
		results = append(results, &Result{Instance: j.inst, Outcome: Cancelled, Reason: "interrupted", Job: j.ref})
	}
	x.open = nil
	x.log.Warn("cancelling Slurm jobs", "jobs", strings.Join(refs, " "))
	if err := scancel(refs); err != nil {
		x.log.Error("cancel", "err", err)
	}
	return results
}

// cancel stops following insts and cancels those of their jobs that had
// not ended at the last poll. (Slurm cancels a job whose dependency can no
// longer be met by itself, but only once it sees the upstream job fail.)
func (x *slurmExecutor) cancel(insts []*Instance) {
	var refs []string
	for _, inst := range insts {
		j := x.jobs[inst]
		if j == nil {
			continue
		}
		x.open = slices.DeleteFunc(x.open, func(o *slurmJob) bool { return o == j })
		if !finished(x.states[j.ref].State) {
			refs = append(refs, j.ref)
		}
	}
	if err := scancel(refs); err != nil {
		x.log.Warn("cancel blocked jobs", "err", err)
	}
}

func (x *slurmExecutor) job(inst *Instance) string {
	if j := x.jobs[inst]; j != nil {
		return j.ref
	}
	return ""
}

// heartbeat counts the open jobs by their state at the last poll.
func (x *slurmExecutor) heartbeat() (string, []any) {
	if len(x.open) == 0 {
		return "", nil
	}
	counts := map[string]int{}
	for _, j := range x.open {
		s := x.states[j.ref].State
		if s == "" {
			s = "UNKNOWN"
		}
		counts[strings.ToLower(s)]++
	}
	var attrs []any
	for _, s := range []string{"pending", "running", "completing", "unknown"} {
		if counts[s] > 0 {
			attrs = append(attrs, s, counts[s])
		}
	}
	return "waiting for Slurm", attrs
}

// abandon cancels the jobs already submitted when a submission fails, so a
// half-submitted plan does not run.
func abandon(ids []string, err error) error {
	if len(ids) == 0 {
		return err
	}
	if cerr := scancel(ids); cerr != nil {
		return fmt.Errorf("%w; and cancelling the jobs already submitted (%s) failed: %v", err, strings.Join(ids, " "), cerr)
	}
	return fmt.Errorf("%w (cancelled the jobs already submitted: %s)", err, strings.Join(ids, " "))
}

// checkActive refuses to submit an instance whose job from an earlier run
// is still queued or running: two jobs would write one directory.
func (sl *Slurm) checkActive(ctx context.Context, runs []*Instance) error {
	var refs, subIDs []string
	who := map[string]*Instance{}
	for _, inst := range runs {
		var rec jobRecord
		ok, err := readJSON(filepath.Join(logDir(inst), recordName), &rec)
		if err != nil || !ok || rec.Job == "" {
			continue
		}
		refs = append(refs, rec.Job)
		who[rec.Job] = inst
		if a := arrayOf(rec.Job); !slices.Contains(subIDs, a) {
			subIDs = append(subIDs, a)
		}
	}
	if len(refs) == 0 {
		return nil
	}
	states, err := sl.states(ctx, subIDs, nil)
	if err != nil {
		return fmt.Errorf("slurm executor: look up earlier jobs: %w", err)
	}
	var errs []error
	for _, ref := range refs {
		if st, ok := states[ref]; ok && !finished(st.State) {
			errs = append(errs, fmt.Errorf("%s: Slurm job %s of an earlier run is still %s: wait for it (pipeline status) or cancel it (scancel %s)",
				who[ref].ID, ref, st.State, ref))
		}
	}
	return errors.Join(errs...)
}

// slurmOutcome turns a finished job into a Result, from the result the job
// wrote if it got that far, else from Slurm's state.
func (r *Runner) slurmOutcome(p *Plan, inst *Instance, ref string, rec jobRecord, st jobState) *Result {
	res := &Result{Instance: inst}
	var jr jobResult
	ok, err := readJSON(filepath.Join(logDir(inst), resultName), &jr)
	if err != nil || jr.Job != ref {
		ok = false
	}
	if ok {
		res.Elapsed = jr.Finished.Sub(jr.Started)
		switch jr.Outcome {
		case Ran.String():
			if _, err := ReadStamp(inst.OutDir); err != nil {
				res.Outcome, res.Err = Failed, fmt.Errorf("%s: job %s ran but its stamp is gone: %w", inst.ID, ref, err)
				return res
			}
			res.Outcome = Ran
			return res
		case Skipped.String():
			res.Outcome, res.Reason = Skipped, "up to date when its job started"
			return res
		}
		if jr.Code > 0 && st.Code < 0 {
			st.Code = jr.Code
		}
	}
	if !ok && st.State == "COMPLETED" {
		// A job that exits 0 without a result file: only the stamp tells.
		if s, err := ReadStamp(inst.OutDir); err == nil && !s.Finished.Before(rec.Submitted) {
			res.Outcome = Ran
			return res
		}
	}
	state := st.State
	switch {
	case state != "":
	case ok && jr.Outcome == Failed.String():
		state = "FAILED" // what Slurm says of a job that exits non-zero
	case ok && jr.Outcome == Cancelled.String():
		state = "CANCELLED"
	default:
		state = "ended (no longer known to squeue or sacct)"
	}
	ee := &ExitError{ID: inst.ID, Code: st.Code, LogDir: logDir(inst), Job: ref, State: state}
	var mine *jobResult
	if ok {
		mine = &jr
	}
	ee.Tail, ee.TailFrom = tailOfJob(inst, rec, mine, r.Slurm.tailLines())
	res.Outcome, res.Err = Failed, ee
	return res
}

func (sl *Slurm) tailLines() int {
	if sl == nil || sl.TailLines <= 0 {
		return 20
	}
	return sl.TailLines
}

// dryRunSlurm writes the sbatch calls a run would make.
func (r *Runner) dryRunSlurm(p *Plan, steps []step, w io.Writer) error {
	var runs []*Instance
	for _, s := range steps {
		if s.action != "skip" {
			runs = append(runs, s.inst)
		}
	}
	_, forced, err := r.targets(p)
	if err != nil {
		return err
	}
	subs := planSubmissions(p, runs, forced)
	calls := "calls"
	if len(subs) == 1 {
		calls = "call"
	}
	fmt.Fprintf(w, "slurm: %d sbatch %s (job IDs shown as $1, $2, ...; each job runs its instance only if still out of date when it starts):\n", len(subs), calls)
	ids := make([]string, len(subs))
	for i := range ids {
		ids[i] = fmt.Sprintf("$%d", i+1)
	}
	for i, s := range subs {
		fmt.Fprintf(w, "%3s  sbatch %s\n", ids[i], strings.Join(r.Slurm.sbatchArgs(p.Config, s, ids), " "))
		for k, inst := range s.insts {
			if s.tasks != nil {
				fmt.Fprintf(w, "       task %d: %s\n", s.tasks[k], inst.ID)
			}
		}
	}
	return nil
}
