package slurm

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

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

// LastLines returns Tail.
func (j *JobInfo) LastLines() []string { return j.Tail }

// Failed reports whether the job ended without completing its instance.
func (j *JobInfo) Failed() bool {
	switch j.Outcome {
	case runner.Failed.String(), runner.Cancelled.String():
		return true
	case runner.Ran.String(), runner.Skipped.String():
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
func AttachJobs(ctx context.Context, sts []pipeline.Status) error {
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
		var sl Cluster
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
		if ji.Failed() || (ji.ended() && sts[i].State != pipeline.UpToDate) {
			ji.Tail, _ = tailOfJob(sts[i].Instance, *rec, mine, 10)
		}
		sts[i].Job = ji
	}
	return nil
}
