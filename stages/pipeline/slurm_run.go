package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
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
	Outcome  string    `json:"outcome"` // running, or an Outcome's String: ran, up to date, failed, cancelled
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

func logDir(inst *Instance) string { return filepath.Join(inst.OutDir, ".logs") }

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

// runSlurm is Run with the Slurm executor.
func (r *Runner) runSlurm(ctx context.Context, p *Plan) (*Report, error) {
	sl := r.Slurm
	log := r.logger()
	if err := p.CheckBinaries(r.BinDir, ""); err != nil {
		return nil, err
	}
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
	steps, err := r.decide(p)
	if err != nil {
		return nil, err
	}
	_, forced, _ := r.targets(p)

	rep := &Report{Plan: p}
	results := map[*Instance]*Result{}
	var runs []*Instance
	for _, s := range steps {
		if s.action == "skip" {
			results[s.inst] = &Result{Instance: s.inst, Outcome: Skipped, Reason: s.reason}
			continue
		}
		runs = append(runs, s.inst)
	}
	if err := sl.checkActive(ctx, runs); err != nil {
		return nil, err
	}
	subs := planSubmissions(p, runs, forced)
	if len(subs) > 0 {
		if err := os.MkdirAll(slurmDir(p.Config), 0o755); err != nil {
			return nil, fmt.Errorf("slurm executor: %w", err)
		}
	}

	// Submit in order, so every dependency has its job ID.
	ids := make([]string, len(subs))
	type open struct {
		inst    *Instance
		ref     string
		rec     jobRecord
		running bool
		unknown int // polls in a row that found no trace of the job
	}
	var opens []*open
	reason := map[*Instance]string{}
	for _, s := range steps {
		reason[s.inst] = s.reason
	}
	for i, s := range subs {
		for _, inst := range s.insts {
			if err := os.MkdirAll(logDir(inst), 0o755); err != nil {
				return nil, r.abandon(ids[:i], fmt.Errorf("%s: %w", inst.ID, err))
			}
		}
		args := sl.sbatchArgs(p.Config, s, ids)
		now := time.Now().UTC() // before: the job may start before sbatch returns
		id, err := sbatch(ctx, args, script(p.Config, s, pipelineBin, binDir))
		if err != nil {
			return nil, r.abandon(ids[:i], fmt.Errorf("submit stage %s: %w", s.stage.Name, err))
		}
		ids[i] = id
		for k, inst := range s.insts {
			t := taskRef{i, -1}
			if s.tasks != nil {
				t.task = s.tasks[k]
			}
			ref := t.jobRef(ids)
			rec := jobRecord{Job: ref, Submitted: now, Output: outputPath(p.Config, s.stage, ref), Dependency: s.dependency(ids)}
			if err := writeJSON(filepath.Join(logDir(inst), recordName), rec); err != nil {
				return nil, r.abandon(ids[:i+1], fmt.Errorf("%s: record job: %w", inst.ID, err))
			}
			opens = append(opens, &open{inst: inst, ref: ref, rec: rec})
		}
		attrs := []any{"stage", s.stage.Name, "job", id, "instances", len(s.insts)}
		if s.tasks != nil {
			attrs = append(attrs, "array", ranges(s.tasks))
		}
		if dep := s.dependency(ids); dep != "" {
			attrs = append(attrs, "dependency", dep)
		}
		log.Info("submitted", attrs...)
	}
	// Keep plan order: an upstream's outcome is known before its dependants'.
	order := map[*Instance]int{}
	for i, inst := range p.Instances {
		order[inst] = i
	}
	byOrder := func(a, b *open) int { return order[a.inst] - order[b.inst] }
	slices.SortFunc(opens, byOrder)

	finish := func() (*Report, error) {
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
	if sl.NoWait {
		for _, o := range opens {
			results[o.inst] = &Result{Instance: o.inst, Outcome: Submitted, Reason: reason[o.inst], Job: o.ref}
		}
		return finish()
	}

	tr := &tracker{total: len(opens), running: map[*Instance]time.Time{}, bar: r.Bar}
	defer tr.clear()
	poll := sl.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	beat := r.Heartbeat
	if beat <= 0 {
		beat = 10 * time.Second
	}
	lastBeat := time.Now()
	var want []string
	for _, o := range opens {
		want = append(want, o.ref)
	}
	timer := time.NewTimer(0) // the first look at once
	defer timer.Stop()
	for len(opens) > 0 {
		select {
		case <-ctx.Done():
			var cancel []string
			for _, o := range opens {
				cancel = append(cancel, o.ref)
				results[o.inst] = &Result{Instance: o.inst, Outcome: Cancelled, Reason: "interrupted", Job: o.ref}
			}
			log.Warn("cancelling Slurm jobs", "jobs", strings.Join(cancel, " "))
			if err := scancel(cancel); err != nil {
				log.Error("cancel", "err", err)
			}
			return finish()
		case <-timer.C:
		}
		timer.Reset(poll)
		var subIDs []string
		for _, o := range opens {
			if a := arrayOf(o.ref); !slices.Contains(subIDs, a) {
				subIDs = append(subIDs, a)
			}
		}
		states, err := sl.states(ctx, subIDs, want)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("cannot look up the Slurm jobs; trying again", "err", err)
			}
			continue
		}
		var cancel []string
		rest := opens[:0]
		for _, o := range opens {
			var res *Result
			for _, d := range o.inst.Deps {
				if dr := results[d]; dr != nil && (dr.Outcome == Failed || dr.Outcome == Blocked || dr.Outcome == Cancelled) {
					res = &Result{Instance: o.inst, Outcome: Blocked, Reason: "upstream " + d.ID + " " + dr.Outcome.String(), Job: o.ref}
					if st := states[o.ref]; !finished(st.State) {
						cancel = append(cancel, o.ref)
					}
					break
				}
			}
			st, known := states[o.ref]
			switch {
			case res != nil:
			case finished(st.State):
				res = r.slurmOutcome(p, o.inst, o.ref, o.rec, st)
			case !known:
				// Gone from squeue, and sacct is off: the job's own
				// result file says what happened.
				if o.unknown++; o.unknown >= 3 {
					res = r.slurmOutcome(p, o.inst, o.ref, o.rec, jobState{Code: -1})
				}
			case st.State == "RUNNING" && !o.running:
				o.running = true
				tr.start(o.inst, time.Now())
				log.Info("start", "stage", o.inst.ID, "job", o.ref, "why", reason[o.inst])
			}
			if known {
				o.unknown = 0
			}
			if res == nil {
				rest = append(rest, o)
				continue
			}
			res.Job = o.ref
			results[o.inst] = res
			tr.finish(o.inst)
			r.logResult(log, p, res)
			if res.Outcome == Blocked {
				log.Warn("blocked", "stage", o.inst.ID, "job", o.ref, "by", strings.TrimPrefix(res.Reason, "upstream "))
			}
		}
		opens = rest
		if len(cancel) > 0 {
			if err := scancel(cancel); err != nil {
				log.Warn("cancel blocked jobs", "err", err)
			}
		}
		if r.Bar == nil && time.Since(lastBeat) >= beat && len(opens) > 0 {
			lastBeat = time.Now()
			counts := map[string]int{}
			for _, o := range opens {
				s := states[o.ref].State
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
			log.Info("waiting for Slurm", attrs...)
		}
		tr.draw()
	}
	return finish()
}

// abandon cancels the jobs already submitted when a submission fails, so a
// half-submitted plan does not run.
func (r *Runner) abandon(ids []string, err error) error {
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

// tailOfJob returns the last lines of what a job wrote, and the file they
// come from: the stage binary's stderr if the job got as far as running it
// (jr is the job's own result file, nil if it did not write one), else
// Slurm's output file of the job, where the pipeline binary's own errors go.
func tailOfJob(inst *Instance, rec jobRecord, jr *jobResult, n int) ([]string, string) {
	// A job killed outright ("running") may have got as far as the binary.
	if jr != nil && (jr.Logs || jr.Outcome == "running") {
		stderr := filepath.Join(logDir(inst), "stderr.log")
		if lines := tailFile(stderr, n); len(lines) > 0 {
			return lines, stderr
		}
	}
	if rec.Output != "" {
		if lines := tailFile(rec.Output, n); len(lines) > 0 {
			return lines, rec.Output
		}
	}
	if jr != nil && jr.Error != "" {
		return []string{jr.Error}, filepath.Join(logDir(inst), resultName)
	}
	return nil, ""
}

// tailFile returns the last n lines of a file; nil if it cannot be read.
func tailFile(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 256<<10 {
		f.Seek(-256<<10, io.SeekEnd) // the tail of a big log is at its end
	}
	t := &tailWriter{max: n}
	sc := bufio.NewReader(f)
	io.Copy(t, sc)
	return t.lines()
}

// BatchJob is one instance to run inside a Slurm job.
type BatchJob struct {
	ID     string // the instance
	Expect string // what the instance ran when submitted (see the job script); "" skips the check
	Force  bool   // run even if up to date
	Job    string // the Slurm job, for the result file; "" takes it from SLURM_* variables
}

// SlurmJobID returns the job (or array task, "123_4") the process runs in,
// from the environment Slurm sets; "" outside Slurm.
func SlurmJobID() string {
	if a, t := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); a != "" && t != "" {
		return a + "_" + t
	}
	return os.Getenv("SLURM_JOB_ID")
}

// RunBatchJob is what a job submitted by the Slurm executor does on its
// node: it judges the instance as a local run would once the upstream has
// finished, and if it is out of date (or j.Force), runs it with Local and
// stamps it on success. It writes what became of the instance to
// <out>/.logs/job.json for the submitting process and pipeline status.
//
// The error is non-nil only when the instance could not be tried: an
// unknown ID, or a config that no longer describes what was submitted.
func (r *Runner) RunBatchJob(ctx context.Context, p *Plan, j BatchJob) (*Result, error) {
	inst := p.Lookup(j.ID)
	if inst == nil {
		return nil, fmt.Errorf("%w %q in %s", ErrUnknownStage, j.ID, p.Config.File)
	}
	if j.Job == "" {
		j.Job = SlurmJobID()
	}
	jr := jobResult{Job: j.Job, Outcome: "running", Started: time.Now().UTC(), Code: -1}
	save := func() {
		jr.Finished = time.Now().UTC()
		if err := writeJSON(filepath.Join(logDir(inst), resultName), jr); err != nil {
			r.logger().Error("write job result", "stage", inst.ID, "err", err)
		}
	}
	// Say at once which job works here, so whoever reads the logs knows
	// whose they are even if the job is killed outright.
	save()
	if j.Expect != "" && instanceKey(inst) != j.Expect {
		err := fmt.Errorf("%s: %s changed since the job was submitted: the instance no longer runs what was submitted; run the pipeline again", inst.ID, p.Config.File)
		jr.Outcome, jr.Error = Failed.String(), err.Error()
		save()
		return nil, err
	}
	for _, d := range inst.Deps {
		if _, err := ReadStamp(d.OutDir); err != nil {
			err = fmt.Errorf("%s: upstream %s is not complete (no stamp in %s)", inst.ID, d.ID, p.Config.rel(d.OutDir))
			jr.Outcome, jr.Error = Failed.String(), err.Error()
			save()
			return nil, err
		}
	}
	r.Executor = Local{TailLines: r.Slurm.tailLines()}
	res := r.runOne(ctx, p, newHasher(), inst, j.Force, r.Executor, &tracker{running: map[*Instance]time.Time{}})
	res.Job = j.Job
	jr.Outcome = res.Outcome.String()
	jr.Logs = res.Elapsed > 0 // runOne times only a binary it started
	switch {
	case res.Outcome == Ran || res.Outcome == Skipped:
		jr.Code = 0
	case res.Err != nil:
		var ee *ExitError
		if errors.As(res.Err, &ee) {
			jr.Code = ee.Code
		}
		jr.Error = res.Err.Error()
	}
	save()
	r.logResult(r.logger(), p, res)
	return res, nil
}

func (sl *Slurm) tailLines() int {
	if sl == nil || sl.TailLines <= 0 {
		return 20
	}
	return sl.TailLines
}

// JobInfo is what pipeline status shows of the last Slurm job of an
// instance.
type JobInfo struct {
	Job     string   // "123" or "123_4"
	State   string   // Slurm's state: PENDING, RUNNING, COMPLETED, FAILED...; "" if Slurm no longer knows the job
	Reason  string   // why a pending job waits
	Outcome string   // what the job recorded when it ended (ran, up to date, failed, cancelled); "" if it did not
	Code    int      // exit code of a failed job; -1 unknown
	Tail    []string // last lines of stderr of a job that failed
	Output  string   // Slurm's output file of the job
}

// Failed reports whether the job ended without completing its instance.
func (j *JobInfo) Failed() bool {
	switch j.Outcome {
	case Failed.String(), Cancelled.String():
		return true
	case Ran.String(), Skipped.String():
		return false
	}
	return finished(j.State) && j.State != "COMPLETED"
}

// ended reports whether the job is over (or Slurm forgot it).
func (j *JobInfo) ended() bool { return j.State == "" || finished(j.State) }

func (j *JobInfo) String() string {
	s := "slurm " + j.Job + ": "
	switch {
	case j.State != "":
		s += j.State
	case j.Outcome != "" && j.Outcome != "running":
		s += "ended"
	default:
		s += "no longer known to squeue or sacct"
	}
	var notes []string
	if j.Reason != "" && j.Reason != "None" && j.Reason != "NonZeroExitCode" {
		notes = append(notes, j.Reason) // e.g. Dependency, Resources, DependencyNeverSatisfied
	}
	switch {
	case j.Outcome == "running" && j.ended():
		notes = append(notes, "killed before it could record its end")
	case j.Outcome != "" && j.Outcome != "running":
		notes = append(notes, j.Outcome)
	}
	if j.Failed() && j.Code > 0 {
		notes = append(notes, fmt.Sprintf("exit code %d", j.Code))
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// AttachJobs fills in the Job of every status whose instance was submitted
// to Slurm (it has a .logs/slurm.json), asking squeue and sacct for the
// job's state. Without Slurm commands the states are left empty.
func AttachJobs(ctx context.Context, sts []Status) error {
	var subIDs, want []string
	recs := make([]*jobRecord, len(sts))
	for i, st := range sts {
		var rec jobRecord
		ok, err := readJSON(filepath.Join(logDir(st.Instance), recordName), &rec)
		if err != nil {
			return err
		}
		if !ok || rec.Job == "" {
			continue
		}
		recs[i] = &rec
		want = append(want, rec.Job)
		if a := arrayOf(rec.Job); !slices.Contains(subIDs, a) {
			subIDs = append(subIDs, a)
		}
	}
	if len(want) == 0 {
		return nil
	}
	var states map[string]jobState
	if checkCommands("squeue") == nil {
		var sl Slurm
		var err error
		if states, err = sl.states(ctx, subIDs, want); err != nil {
			return err
		}
	}
	for i, rec := range recs {
		if rec == nil {
			continue
		}
		st, ok := states[rec.Job]
		if !ok {
			st.Code = -1
		}
		ji := &JobInfo{Job: rec.Job, State: st.State, Reason: st.Reason, Code: st.Code, Output: rec.Output}
		var jr jobResult
		var mine *jobResult
		if ok, _ := readJSON(filepath.Join(logDir(sts[i].Instance), resultName), &jr); ok && jr.Job == rec.Job {
			mine = &jr
			ji.Outcome = jr.Outcome
			if ji.Code < 0 {
				ji.Code = jr.Code
			}
		}
		if ji.Failed() || (ji.ended() && sts[i].State != UpToDate) {
			ji.Tail, _ = tailOfJob(sts[i].Instance, *rec, mine, 10)
		}
		sts[i].Job = ji
	}
	return nil
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
