package slurm

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// wait polls the jobs every Slurm.Poll, the first time at once. When ctx
// is cancelled it cancels every open job.
func (x *executor) Wait(ctx context.Context, d time.Duration) []*runner.Result {
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
func (x *executor) poll(ctx context.Context) []*runner.Result {
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
	var ended []*runner.Result
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
func (x *executor) check(j *submittedJob, states map[string]jobState) *runner.Result {
	st, known := states[j.ref]
	switch {
	case finished(st.State):
		return x.outcome(j.inst, j.ref, j.rec, st)
	case !known:
		if j.unknown++; j.unknown >= 3 {
			return x.outcome(j.inst, j.ref, j.rec, jobState{Code: -1})
		}
		return nil
	case st.State == "RUNNING" && !j.running:
		j.running = true
		x.tr.Start(j.inst, time.Now())
		x.log.Info("start", "stage", j.inst.ID, "job", j.ref, "why", j.why)
	}
	j.unknown = 0
	return nil
}

// interrupt cancels every open job: the run was interrupted.
func (x *executor) interrupt() []*runner.Result {
	if len(x.open) == 0 {
		return nil
	}
	var refs []string
	var results []*runner.Result
	for _, j := range x.open {
		refs = append(refs, j.ref)
		results = append(results, &runner.Result{Instance: j.inst, Outcome: runner.Cancelled, Reason: "interrupted", Job: j.ref})
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
func (x *executor) Cancel(insts []*pipeline.Instance) {
	var refs []string
	for _, inst := range insts {
		j := x.jobs[inst]
		if j == nil {
			continue
		}
		x.open = slices.DeleteFunc(x.open, func(o *submittedJob) bool { return o == j })
		if !finished(x.states[j.ref].State) {
			refs = append(refs, j.ref)
		}
	}
	if err := scancel(refs); err != nil {
		x.log.Warn("cancel blocked jobs", "err", err)
	}
}

func (x *executor) Job(inst *pipeline.Instance) string {
	if j := x.jobs[inst]; j != nil {
		return j.ref
	}
	return ""
}

// heartbeat counts the open jobs by their state at the last poll.
func (x *executor) Heartbeat() (string, []any) {
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

// outcome turns a finished job into a Result, from the result the job
// wrote if it got that far, else from Slurm's state.
func (x *executor) outcome(inst *pipeline.Instance, ref string, rec jobRecord, st jobState) *runner.Result {
	res := &runner.Result{Instance: inst}
	var jr jobResult
	ok, err := readJSON(filepath.Join(logDir(inst), resultName), &jr)
	if err != nil || jr.Job != ref {
		ok = false
	}
	if ok {
		res.Elapsed = jr.Finished.Sub(jr.Started)
		switch jr.Outcome {
		case runner.Ran.String():
			if _, err := pipeline.ReadStamp(inst.OutDir); err != nil {
				res.Outcome, res.Err = runner.Failed, fmt.Errorf("%s: job %s ran but its stamp is gone: %w", inst.ID, ref, err)
				return res
			}
			res.Outcome = runner.Ran
			return res
		case runner.Skipped.String():
			res.Outcome, res.Reason = runner.Skipped, "up to date when its job started"
			return res
		}
		if jr.Code > 0 && st.Code < 0 {
			st.Code = jr.Code
		}
	}
	if !ok && st.State == "COMPLETED" {
		// A job that exits 0 without a result file: only the stamp tells.
		if s, err := pipeline.ReadStamp(inst.OutDir); err == nil && !s.Finished.Before(rec.Submitted) {
			res.Outcome = runner.Ran
			return res
		}
	}
	state := st.State
	switch {
	case state != "":
	case ok && jr.Outcome == runner.Failed.String():
		state = "FAILED" // what Slurm says of a job that exits non-zero
	case ok && jr.Outcome == runner.Cancelled.String():
		state = "CANCELLED"
	default:
		state = "ended (no longer known to squeue or sacct)"
	}
	ee := &proc.ExitError{ID: inst.ID, Code: st.Code, LogDir: logDir(inst), Job: ref, State: state}
	var mine *jobResult
	if ok {
		mine = &jr
	}
	ee.Tail, ee.TailFrom = tailOfJob(inst, rec, mine, x.sl.tailLines())
	res.Outcome, res.Err = runner.Failed, ee
	return res
}
