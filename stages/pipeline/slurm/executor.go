package slurm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// executor submits every instance of a run to Slurm as soon as the
// run starts, their jobs waiting for each other (see Cluster), and follows
// the jobs with squeue and sacct.
type executor struct {
	r           *runner.Runner
	sl          *Cluster
	plan        *pipeline.Plan
	forced      map[*pipeline.Instance]bool
	tr          *runner.Progress
	log         *slog.Logger
	pipelineBin string // what the jobs run
	binDir      string // absolute

	jobs     map[*pipeline.Instance]*submittedJob // every instance submitted
	open     []*submittedJob                      // submitted and not ended, in plan order
	states   map[string]jobState                  // what the last poll found, by job
	nextPoll time.Time
}

// submittedJob is a submitted instance.
type submittedJob struct {
	inst    *pipeline.Instance
	ref     string // its job: "123" or "123_4"
	rec     jobRecord
	why     string // why it runs
	running bool   // seen running
	unknown int    // polls in a row that found no trace of the job
}

// Executor returns the executor of one run of p by r: it submits every
// instance of the run at once and follows their jobs. It needs sbatch,
// squeue and scancel on PATH, and the pipeline binary the jobs run.
func (sl *Cluster) Executor(r *runner.Runner, p *pipeline.Plan, forced map[*pipeline.Instance]bool, pr *runner.Progress) (runner.InstanceExecutor, error) {
	if err := checkCommands("sbatch", "squeue", "scancel"); err != nil {
		return nil, err
	}
	pipelineBin, err := sl.pipelineBinary(r.BinDir)
	if err != nil {
		return nil, err
	}
	binDir, err := filepath.Abs(r.BinDir)
	if err != nil {
		return nil, err
	}
	return &executor{r: r, sl: sl, plan: p, forced: forced, tr: pr, log: r.Log(),
		pipelineBin: pipelineBin, binDir: binDir, jobs: map[*pipeline.Instance]*submittedJob{}}, nil
}

// pipelineBinary is the binary the jobs run.
func (sl *Cluster) pipelineBinary(binDir string) (string, error) {
	bin := sl.Pipeline
	if bin == "" {
		bin = filepath.Join(binDir, "pipeline")
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

// Early is true: Slurm holds each job until the jobs it depends on have
// completed, and the job judges its instance again when it starts.
func (x *executor) Early() bool { return true }

func (x *executor) Slots() int { return math.MaxInt }

// Start judges insts on the files as they are now, settles those up to date
// and submits the others, which run if still out of date when their jobs
// start. With NoWait it settles the submitted instances too, as Submitted.
func (x *executor) Start(ctx context.Context, insts []*pipeline.Instance) ([]*runner.Result, error) {
	steps, err := x.r.Steps(x.plan, insts, x.forced)
	if err != nil {
		return nil, err
	}
	var settled []*runner.Result
	var runs []*pipeline.Instance
	why := map[*pipeline.Instance]string{}
	for _, s := range steps {
		if s.Action == "skip" {
			settled = append(settled, &runner.Result{Instance: s.Instance, Outcome: runner.Skipped, Reason: s.Reason})
			continue
		}
		runs = append(runs, s.Instance)
		why[s.Instance] = s.Reason
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
			settled = append(settled, &runner.Result{Instance: j.inst, Outcome: runner.Submitted, Reason: j.why, Job: j.ref})
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
func (x *executor) submit(ctx context.Context, runs []*pipeline.Instance, why map[*pipeline.Instance]string) ([]*submittedJob, error) {
	subs := planSubmissions(x.plan, runs, x.forced)
	if len(subs) > 0 {
		if err := os.MkdirAll(slurmDir(x.plan.Config), 0o755); err != nil {
			return nil, fmt.Errorf("slurm executor: %w", err)
		}
	}
	ids := make([]string, len(subs))
	var jobs []*submittedJob
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
	order := map[*pipeline.Instance]int{}
	for i, inst := range x.plan.Instances {
		order[inst] = i
	}
	slices.SortFunc(jobs, func(a, b *submittedJob) int { return order[a.inst] - order[b.inst] })
	return jobs, nil
}

// submitOne makes the sbatch call of subs[i], given the job IDs of the
// earlier ones, sets ids[i], and records the job of each instance in its
// .logs/slurm.json.
func (x *executor) submitOne(ctx context.Context, s *submission, ids []string, i int, why map[*pipeline.Instance]string) ([]*submittedJob, error) {
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
	var jobs []*submittedJob
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
		jobs = append(jobs, &submittedJob{inst: inst, ref: ref, rec: rec, why: why[inst]})
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
func (sl *Cluster) checkActive(ctx context.Context, runs []*pipeline.Instance) error {
	var refs, subIDs []string
	who := map[string]*pipeline.Instance{}
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

// CheckJobs refuses a local run of targets whose Slurm jobs from an
// earlier run may still be queued or running (run --executor slurm
// --no-wait, or a submitting process that was killed): the data
// directory's lock ended with the process that submitted them. Only the
// instances whose last job has not recorded its end (in .logs/job.json)
// are looked up, with squeue; where squeue is not on PATH there is no
// cluster to ask and the check is skipped. It is a runner.Runner's Guard.
func CheckJobs(ctx context.Context, p *pipeline.Plan, targets map[*pipeline.Instance]bool) error {
	var open []*pipeline.Instance
	for _, inst := range p.Instances {
		if !targets[inst] {
			continue
		}
		var rec jobRecord
		if ok, err := readJSON(filepath.Join(logDir(inst), recordName), &rec); err != nil || !ok || rec.Job == "" {
			continue
		}
		var jr jobResult
		ok, err := readJSON(filepath.Join(logDir(inst), resultName), &jr)
		if err == nil && ok && jr.Job == rec.Job && jr.Outcome != "running" {
			continue // it ended
		}
		open = append(open, inst)
	}
	if len(open) == 0 {
		return nil
	}
	if _, err := exec.LookPath("squeue"); err != nil {
		return nil
	}
	return (&Cluster{}).checkActive(ctx, open)
}
