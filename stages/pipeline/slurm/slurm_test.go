package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
	"github.com/renn-go/renn/stages/pipeline/proc"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// fakeCluster puts fakeslurm on PATH as sbatch, squeue, sacct and scancel.
type fakeCluster struct{ dir string }

type fakeTask struct {
	Ref, Array, State, Reason string
	Wait                      int
}

type fakeState struct {
	Tasks     []fakeTask
	Submitted []struct {
		ID     string
		Args   []string
		Script string
	}
	Cancelled []string
}

func newFakeCluster(t *testing.T) *fakeCluster {
	t.Helper()
	c := &fakeCluster{dir: t.TempDir()}
	bin := filepath.Join(c.dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sbatch", "squeue", "sacct", "scancel"} {
		if err := os.Symlink(filepath.Join(fakeBin, "fakeslurm"), filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKESLURM_DIR", c.dir)
	for _, v := range []string{"FAKESLURM_HOLD", "FAKESLURM_FORGET", "FAKESLURM_NOSACCT", "FAKESLURM_SBATCH_FAIL",
		"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID"} {
		t.Setenv(v, "")
	}
	return c
}

func (c *fakeCluster) state(t *testing.T) fakeState {
	t.Helper()
	var st fakeState
	b, err := os.ReadFile(filepath.Join(c.dir, "state.json"))
	if errors.Is(err, os.ErrNotExist) {
		return st
	}
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// calls summarizes the sbatch calls: job name, array and dependency.
func (c *fakeCluster) calls(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range c.state(t).Submitted {
		line := ""
		for _, a := range s.Args {
			for _, f := range []string{"--job-name=", "--array=", "--dependency="} {
				if v, ok := strings.CutPrefix(a, f); ok {
					line += " " + strings.TrimPrefix(f, "--") + v
				}
			}
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

func slurmRunner(p *project) *runner.Runner {
	return &runner.Runner{BinDir: p.Bin, Batch: &Cluster{Poll: 5 * time.Millisecond}}
}

// cluster is the Cluster of a slurmRunner.
func cluster(r *runner.Runner) *Cluster { return r.Batch.(*Cluster) }

func TestSlurmRunsChainThenNothing(t *testing.T) {
	c := newFakeCluster(t)
	p := newProject(t, pipetest.Chain)
	rep := p.run(t, slurmRunner(p), nil)
	pipetest.AssertIDs(t, "ran", p.Ran(t), pipetest.ChainIDs())
	pipetest.AssertIDs(t, "report ran", rep.IDs(runner.Ran), pipetest.ChainIDs())
	pipetest.AssertLines(t, "sbatch calls", c.calls(t), []string{
		"job-name=a",
		"job-name=b dependency=afterok:1",
		"job-name=c dependency=afterok:2",
		"job-name=d dependency=afterok:1",
		"job-name=e",
	})
	ids := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
	for _, id := range pipetest.ChainIDs() {
		st, err := pipeline.ReadStamp(p.Path("data/" + id))
		if err != nil || st.ID != id {
			t.Errorf("%s: no stamp of its own: %v", id, err)
		}
		var jr jobResult
		if ok, err := readJSON(p.Path("data/"+id+"/.logs/job.json"), &jr); !ok || err != nil || jr.Outcome != "ran" || jr.Job != ids[id] {
			t.Errorf("%s: job result %+v (%v), want ran by job %s", id, jr, err, ids[id])
		}
	}
	for _, res := range rep.Results {
		if res.Job != ids[res.Instance.ID] {
			t.Errorf("%s: result job %q, want %q", res.Instance.ID, res.Job, ids[res.Instance.ID])
		}
	}

	rep = p.run(t, slurmRunner(p), nil)
	pipetest.AssertIDs(t, "second run: up to date", rep.IDs(runner.Skipped), pipetest.ChainIDs())
	if got := len(c.calls(t)); got != 5 {
		t.Errorf("second run submitted %d jobs, want none", got-5)
	}

	// A changed flag: the stage and its dependants are submitted again.
	p.Write(t, strings.Replace(pipetest.Chain, `value = "b"`, `value = "B"`, 1))
	rep = p.run(t, slurmRunner(p), nil)
	pipetest.AssertIDs(t, "changed flag: ran", p.Ran(t), []string{"b", "c"})
	pipetest.AssertIDs(t, "changed flag: report ran", rep.IDs(runner.Ran), []string{"b", "c"})
	pipetest.AssertLines(t, "changed flag: sbatch calls", c.calls(t)[5:], []string{"job-name=b", "job-name=c dependency=afterok:6"})
}

func TestSlurmJobsJudgeThemselvesWhenTheyStart(t *testing.T) {
	c := newFakeCluster(t)
	p := newProject(t, pipetest.Chain)
	p.run(t, slurmRunner(p), nil)
	p.Ran(t)
	// a reruns and writes identical output: b, c, d must be submitted
	// (they might need to run), but their jobs find them up to date.
	if err := os.Remove(p.Path("data/a/" + pipeline.StampName)); err != nil {
		t.Fatal(err)
	}
	rep := p.run(t, slurmRunner(p), nil)
	pipetest.AssertIDs(t, "ran", p.Ran(t), []string{"a"})
	pipetest.AssertIDs(t, "report ran", rep.IDs(runner.Ran), []string{"a"})
	pipetest.AssertIDs(t, "report up to date", rep.IDs(runner.Skipped), []string{"b", "c", "d", "e"})
	pipetest.AssertLines(t, "sbatch calls", c.calls(t)[5:], []string{
		"job-name=a",
		"job-name=b dependency=afterok:6",
		"job-name=c dependency=afterok:7",
		"job-name=d dependency=afterok:6",
	})
	var jr jobResult
	if ok, err := readJSON(p.Path("data/c/.logs/job.json"), &jr); !ok || err != nil || jr.Outcome != "up to date" || jr.Job != "8" {
		t.Errorf("c: job result %+v (%v), want up to date by job 8", jr, err)
	}

	// Forced, every job runs; the dry run shows the sbatch calls.
	r := slurmRunner(p)
	r.Force = true
	var dry bytes.Buffer
	if err := r.DryRun(p.Plan(t), &dry); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"slurm: 5 sbatch calls", "$1  sbatch --parsable --job-name=a --chdir=", "--dependency=afterok:$1 --cpus-per-task=1"} {
		if !strings.Contains(dry.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry.String())
		}
	}
	if got := len(c.calls(t)); got != 9 {
		t.Errorf("the dry run submitted %d jobs", got-9)
	}
	rep = p.run(t, r, nil)
	pipetest.AssertIDs(t, "forced", p.Ran(t), pipetest.ChainIDs())
	pipetest.AssertIDs(t, "forced: report", rep.IDs(runner.Ran), pipetest.ChainIDs())
}

func TestSlurmShardsAreArrays(t *testing.T) {
	c := newFakeCluster(t)
	p := newProject(t, pipetest.Sharded)
	rep := p.run(t, slurmRunner(p), nil)
	if n := len(rep.IDs(runner.Ran)); n != 13 {
		t.Fatalf("ran %d instances, want 13: %v", n, rep.IDs(runner.Failed))
	}
	pipetest.AssertLines(t, "sbatch calls", c.calls(t), []string{
		"job-name=models array=0-3",
		"job-name=exact array=0-3 dependency=aftercorr:1",
		"job-name=pair array=0-3 dependency=aftercorr:1:2",
		"job-name=score dependency=afterok:2",
	})
	for _, res := range rep.Results {
		if res.Instance.ID == "exact/size=5,gamma=0.1" && res.Job != "2_2" {
			t.Errorf("exact/size=5,gamma=0.1 ran as job %s, want task 2 of array 2", res.Job)
		}
	}
	script := c.state(t).Submitted[1].Script
	for _, want := range []string{"2) set -- --expect=", "'exact/size=5,gamma=0.1' ;;", "job '--config=" + p.Dir} {
		if !strings.Contains(script, want) {
			t.Errorf("exact's script lacks %q:\n%s", want, script)
		}
	}

	// One shard lost its outputs: only it and what depends on it rerun,
	// each as a one-task array waiting on the one upstream task.
	if err := os.Remove(p.Path("data/models/size=5,gamma=0.1/result.txt")); err != nil {
		t.Fatal(err)
	}
	n := len(c.state(t).Submitted)
	rep = p.run(t, slurmRunner(p), nil)
	pipetest.AssertIDs(t, "ran", rep.IDs(runner.Ran), []string{"models/size=5,gamma=0.1"})
	// exact, pair: submitted, but the rerun shard came out identical.
	pipetest.AssertLines(t, "resubmitted", c.calls(t)[n:], []string{
		"job-name=models array=2",
		"job-name=exact array=2 dependency=afterok:5",
		"job-name=pair array=2 dependency=afterok:5:6",
		"job-name=score dependency=afterok:6",
	})
}

const failing = `
[stage.a]
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
shard = { fail = [false, true] }

[stage.b]
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = "a" }

[stage.c]
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
`

func TestSlurmFailureBlocksOnlyItsDependants(t *testing.T) {
	for _, mode := range []string{"squeue", "sacct", "result files"} {
		t.Run(mode, func(t *testing.T) {
			c := newFakeCluster(t)
			switch mode {
			case "sacct": // finished jobs gone from squeue
				t.Setenv("FAKESLURM_FORGET", "1")
			case "result files": // and no accounting either
				t.Setenv("FAKESLURM_FORGET", "1")
				t.Setenv("FAKESLURM_NOSACCT", "1")
			}
			p := newProject(t, failing)
			rep := p.run(t, slurmRunner(p), runner.ErrFailed)
			pipetest.AssertIDs(t, "ran", rep.IDs(runner.Ran), []string{"a/fail=false", "b/fail=false", "c"})
			pipetest.AssertIDs(t, "failed", rep.IDs(runner.Failed), []string{"a/fail=true"})
			pipetest.AssertIDs(t, "blocked", rep.IDs(runner.Blocked), []string{"b/fail=true"})
			if _, err := pipeline.ReadStamp(p.Path("data/a/fail=true")); err == nil {
				t.Error("the failed instance has a stamp")
			}
			var ee *proc.ExitError
			for _, res := range rep.Results {
				if res.Instance.ID == "a/fail=true" && !errors.As(res.Err, &ee) {
					t.Fatalf("a/fail=true: error %v, want a *proc.ExitError", res.Err)
				}
			}
			if ee.Job != "1_1" || ee.State != "FAILED" || ee.Code != 3 || len(ee.Tail) != 20 || ee.Tail[19] != "fake error line 25" {
				t.Errorf("exit error: job %s state %s code %d tail %q", ee.Job, ee.State, ee.Code, ee.Tail)
			}
			var sum bytes.Buffer
			rep.WriteSummary(&sum)
			for _, want := range []string{"FAILED a/fail=true: Slurm job 1_1 FAILED, exit code 3", "    | fake error line 25", "blocked b/fail=true: upstream a/fail=true failed"} {
				if !strings.Contains(sum.String(), want) {
					t.Errorf("summary lacks %q:\n%s", want, sum.String())
				}
			}

			out := status(t, p)
			wantStatus := []string{"[slurm 1_1: FAILED (failed, exit code 3)]", "    | fake error line 25", "[slurm 1_0: COMPLETED (ran)]"}
			if mode == "result files" {
				wantStatus = []string{"[slurm 1_1: ended (failed, exit code 3)]", "    | fake error line 25", "[slurm 1_0: ended (ran)]"}
			}
			for _, want := range wantStatus {
				if !strings.Contains(out, want) {
					t.Errorf("status lacks %q:\n%s", want, out)
				}
			}

			// The next run submits only the failed shard and its dependant.
			n := len(c.state(t).Submitted)
			p.Ran(t)
			p.run(t, slurmRunner(p), runner.ErrFailed)
			pipetest.AssertLines(t, "rerun", c.calls(t)[n:], []string{"job-name=a array=1", "job-name=b array=1 dependency=afterok:4"})
		})
	}
}

// status is what pipeline status prints of p: every instance with its
// last Slurm job.
func status(t *testing.T, p *project) string {
	t.Helper()
	sts, err := p.Plan(t).Status(p.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := AttachJobs(context.Background(), sts); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := pipeline.WriteStatus(&out, sts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestSlurmNoWaitStatusAndActiveJobs(t *testing.T) {
	c := newFakeCluster(t)
	t.Setenv("FAKESLURM_HOLD", "1")
	p := newProject(t, pipetest.Chain)
	r := slurmRunner(p)
	cluster(r).NoWait = true
	rep := p.run(t, r, nil)
	pipetest.AssertIDs(t, "submitted", rep.IDs(runner.Submitted), pipetest.ChainIDs())
	var sum bytes.Buffer
	rep.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "5 instances: 5 submitted") {
		t.Errorf("summary:\n%s", sum.String())
	}
	sts, err := p.Plan(t).Status(p.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := AttachJobs(context.Background(), sts); err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if ji, _ := st.Job.(*JobInfo); ji == nil || ji.State != "PENDING" || st.State != pipeline.Missing {
			t.Errorf("%s: %s, job %+v; want missing, PENDING", st.Instance.ID, st.State, st.Job)
		}
	}

	// A second run must not submit jobs writing where queued ones will.
	n := len(c.state(t).Submitted)
	_, err = slurmRunner(p).Run(context.Background(), p.Plan(t))
	if err == nil || !strings.Contains(err.Error(), "a: Slurm job 1 of an earlier run is still PENDING") {
		t.Errorf("second run: error %v, want one naming the queued job", err)
	}
	if got := len(c.state(t).Submitted); got != n {
		t.Errorf("second run submitted %d jobs", got-n)
	}
	// Nor may a local run, which the data directory's lock, released when
	// the jobs were submitted, no longer keeps out.
	_, err = p.runner().Run(context.Background(), p.Plan(t))
	if err == nil || !strings.Contains(err.Error(), "a: Slurm job 1 of an earlier run is still PENDING") {
		t.Errorf("local run: error %v, want one naming the queued job", err)
	}
	if got := p.Ran(t); len(got) != 0 {
		t.Errorf("local run ran %v beside the queued jobs", got)
	}
}

func TestSlurmInterruptCancelsJobs(t *testing.T) {
	c := newFakeCluster(t)
	t.Setenv("FAKESLURM_HOLD", "1")
	p := newProject(t, pipetest.Chain)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The record of e's job is written once every job is submitted.
		for {
			if _, err := os.Stat(p.Path("data/e/.logs/slurm.json")); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	rep, err := slurmRunner(p).Run(ctx, p.Plan(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	pipetest.AssertIDs(t, "cancelled", rep.IDs(runner.Cancelled), pipetest.ChainIDs())
	got := c.state(t).Cancelled
	slices.Sort(got)
	if want := []string{"1", "2", "3", "4", "5"}; !slices.Equal(got, want) {
		t.Errorf("scancel got %v, want %v", got, want)
	}
}

func TestSlurmSubmitFailureCancelsSubmitted(t *testing.T) {
	c := newFakeCluster(t)
	t.Setenv("FAKESLURM_HOLD", "1")
	t.Setenv("FAKESLURM_SBATCH_FAIL", "2")
	p := newProject(t, pipetest.Chain)
	_, err := slurmRunner(p).Run(context.Background(), p.Plan(t))
	if err == nil || !strings.Contains(err.Error(), "Invalid account") || !strings.Contains(err.Error(), "cancelled the jobs already submitted: 1") {
		t.Errorf("error %v, want sbatch's message and the cancelled job", err)
	}
	if got := c.state(t).Cancelled; !slices.Equal(got, []string{"1"}) {
		t.Errorf("scancel got %v, want [1]", got)
	}
}

func TestSlurmNeedsItsCommandsAndPipeline(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	t.Setenv("PATH", t.TempDir())
	_, err := slurmRunner(p).Run(context.Background(), p.Plan(t))
	if err == nil || !strings.Contains(err.Error(), "sbatch") {
		t.Errorf("without sbatch: error %v", err)
	}
	newFakeCluster(t)
	r := slurmRunner(p)
	cluster(r).Pipeline = filepath.Join(t.TempDir(), "pipeline")
	_, err = r.Run(context.Background(), p.Plan(t))
	if err == nil || !strings.Contains(err.Error(), "the jobs run the pipeline binary") {
		t.Errorf("without the pipeline binary: error %v", err)
	}
}

func TestRunBatchJob(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	t.Setenv("SLURM_ARRAY_JOB_ID", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("SLURM_JOB_ID", "41")
	plan := p.Plan(t)
	r := &runner.Runner{BinDir: p.Bin}
	ctx := context.Background()
	result := func(id string) jobResult { return jobResultOf(t, p, id) }

	_, err := RunBatchJob(ctx, r, plan, BatchJob{ID: "b"})
	if err == nil || !strings.Contains(err.Error(), "upstream a is not complete") {
		t.Errorf("b before a: error %v", err)
	}
	res, err := RunBatchJob(ctx, r, plan, BatchJob{ID: "a", Expect: instanceKey(plan.Lookup("a"))})
	if err != nil || res.Outcome != runner.Ran {
		t.Fatalf("a: %v, %v", res, err)
	}
	if jr := result("a"); jr.Job != "41" || jr.Outcome != "ran" || jr.Code != 0 {
		t.Errorf("a: job result %+v", jr)
	}
	if _, err := pipeline.ReadStamp(p.Path("data/a")); err != nil {
		t.Errorf("a: no stamp: %v", err)
	}
	res, err = RunBatchJob(ctx, r, plan, BatchJob{ID: "a", Job: "42"})
	if err != nil || res.Outcome != runner.Skipped {
		t.Errorf("a again: %v, %v; want up to date", res, err)
	}
	if jr := result("a"); jr.Job != "42" || jr.Outcome != "up to date" {
		t.Errorf("a again: job result %+v", jr)
	}
	res, err = RunBatchJob(ctx, r, plan, BatchJob{ID: "a", Job: "43", Force: true})
	if err != nil || res.Outcome != runner.Ran {
		t.Errorf("a forced: %v, %v; want ran", res, err)
	}

	_, err = RunBatchJob(ctx, r, plan, BatchJob{ID: "b", Expect: instanceKey(plan.Lookup("c"))})
	if err == nil || !strings.Contains(err.Error(), "changed since the job was submitted") {
		t.Errorf("b with another key: error %v", err)
	}
	if jr := result("b"); jr.Outcome != "failed" || !strings.Contains(jr.Error, "changed since") {
		t.Errorf("b with another key: job result %+v", jr)
	}
	if _, err := RunBatchJob(ctx, r, plan, BatchJob{ID: "nosuch"}); !errors.Is(err, pipeline.ErrUnknownStage) {
		t.Errorf("unknown instance: error %v", err)
	}
}

// jobResultOf reads the job result of instance id of p.
func jobResultOf(t *testing.T, p *project, id string) jobResult {
	t.Helper()
	var jr jobResult
	if ok, err := readJSON(p.Path("data/"+id+"/.logs/job.json"), &jr); !ok || err != nil {
		t.Fatalf("%s: no job result (%v)", id, err)
	}
	return jr
}

func TestRunBatchJobFailing(t *testing.T) {
	p := newProject(t, strings.Replace(pipetest.Chain, `value = "e"`, `value = "e", fail = true`, 1))
	t.Setenv("SLURM_ARRAY_JOB_ID", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("SLURM_JOB_ID", "41")
	r := &runner.Runner{BinDir: p.Bin}
	res, err := RunBatchJob(context.Background(), r, p.Plan(t), BatchJob{ID: "e"})
	var ee *proc.ExitError
	if err != nil || res.Outcome != runner.Failed || !errors.As(res.Err, &ee) || ee.Code != 3 {
		t.Fatalf("e failing: %v, %v", res, err)
	}
	if jr := jobResultOf(t, p, "e"); jr.Outcome != "failed" || jr.Code != 3 {
		t.Errorf("e failing: job result %+v", jr)
	}
	if _, err := pipeline.ReadStamp(p.Path("data/e")); err == nil {
		t.Error("e failed but has a stamp")
	}
}

// submitting is a plan with arrays, single jobs and stages that gather.
const submitting = `
[stage.m]
run = ["x"]
shard = { n = [1, 2] }
[stage.e]                 # one per m shard
run = ["x"]
inputs = { m = "m" }
[stage.k]                 # two per m shard
run = ["x"]
inputs = { m = "m" }
shard = { k = ["a", "b"] }
[stage.s]                 # gathers e
run = ["x"]
inputs = { e = ["e"] }
[stage.t]
run = ["x"]
inputs = { s = "s" }
[stage.alone]
run = ["x"]
[stage.alone.resources]
cpus = 4
`

// submissionCases are instances to run (nil: all) of submitting, and the
// sbatch calls, dependencies included, that run them.
var submissionCases = []struct {
	name string
	runs []string
	want []string
}{
	{"everything", nil, []string{
		"m [0-1]",
		"e [0-1] aftercorr:$1",
		"k [0-1] afterok:$1_0",
		"k [2-3] afterok:$1_1",
		"s afterok:$2",
		"t afterok:$5",
		"alone",
	}},
	{"one shard", []string{"m/n=2", "e/n=2", "k/n=2,k=a", "k/n=2,k=b", "s"}, []string{
		"m [1]",
		"e [1] afterok:$1",
		"k [2-3] afterok:$1",
		"s afterok:$2",
	}},
	{"upstream up to date", []string{"e/n=1", "k/n=1,k=b", "t"}, []string{
		"e [0]",
		"k [1]",
		"t",
	}},
	{"part of a gathered stage", []string{"e/n=1", "s"}, []string{
		"e [0]",
		"s afterok:$1",
	}},
	{"mixed: some shards wait, some not", []string{"m/n=1", "e/n=1", "e/n=2"}, []string{
		"m [0]",
		"e [0] afterok:$1",
		"e [1]",
	}},
}

func TestPlanSubmissions(t *testing.T) {
	_, plan := pipetest.ParsePlan(t, submitting)
	for _, tt := range submissionCases {
		t.Run(tt.name, func(t *testing.T) {
			var runs []*pipeline.Instance
			for _, inst := range plan.Instances {
				if tt.runs == nil || slices.Contains(tt.runs, inst.ID) {
					runs = append(runs, inst)
				}
			}
			pipetest.AssertLines(t, "submissions", submissionLines(planSubmissions(plan, runs, nil)), tt.want)
		})
	}
}

// submissionLines writes each sbatch call as "stage [tasks] dependency",
// the job IDs of the calls being $1, $2, ...
func submissionLines(subs []*submission) []string {
	ids := make([]string, len(subs))
	for i := range ids {
		ids[i] = "$" + string(rune('1'+i))
	}
	var lines []string
	for _, s := range subs {
		line := s.stage.Name
		if s.tasks != nil {
			line += " [" + ranges(s.tasks) + "]"
		}
		if d := s.dependency(ids); d != "" {
			line += " " + d
		}
		lines = append(lines, line)
	}
	return lines
}

func TestSbatchArgs(t *testing.T) {
	cfg, plan := pipetest.ParsePlan(t, submitting)
	sl := &Cluster{Partition: "short", Account: "proj", Options: []string{"--qos=low"}}
	subs := planSubmissions(plan, []*pipeline.Instance{plan.Lookup("alone")}, map[*pipeline.Instance]bool{plan.Lookup("alone"): true})
	args := sl.sbatchArgs(cfg, subs[0], []string{"9"})
	want := []string{"--parsable", "--job-name=alone", "--chdir=/p", "--output=" + filepath.Join("/p/data/.slurm", "alone-%j.out"),
		"--kill-on-invalid-dep=yes", "--cpus-per-task=4", "--mem=2G", "--time=1:00:00", "--partition=short", "--account=proj", "--qos=low"}
	pipetest.AssertLines(t, "sbatch args", args, want)
	if s := script(cfg, subs[0], "/bin/pipeline", "/p/bin"); !strings.Contains(s, "set -- --force --expect=") || strings.Contains(s, "case") {
		t.Errorf("script of a forced single job:\n%s", s)
	}
}

// TestScriptPicksTaskInstance runs a job script with echo standing in for
// the pipeline binary.
func TestScriptPicksTaskInstance(t *testing.T) {
	cfg, plan := pipetest.ParsePlan(t, "[stage.m]\nrun = [\"x\"]\nshard = { v = [\"it's\", \"b\", \"c\"] }\n")
	subs := planSubmissions(plan, []*pipeline.Instance{plan.Instances[0], plan.Instances[2]}, nil)
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Fatal(err)
	}
	s := script(cfg, subs[0], echo, "/p/bin dir")
	run := func(task string) (string, error) {
		cmd := exec.Command("/bin/sh", "-s")
		cmd.Stdin = strings.NewReader(s)
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+task)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("0")
	want := "job --config=/p/p.toml --bin=/p/bin dir --expect=" + instanceKey(plan.Instances[0]) + " m/v=it's\n"
	if err != nil || out != want {
		t.Errorf("task 0: %q, %v\nwant %q", out, err, want)
	}
	out, err = run("2")
	if err != nil || !strings.HasSuffix(out, " m/v=c\n") {
		t.Errorf("task 2: %q, %v", out, err)
	}
	out, err = run("1")
	if err == nil || !strings.Contains(out, "no instance for array task 1") {
		t.Errorf("task 1 (not submitted): %q, %v", out, err)
	}
}

func TestSbatchResources(t *testing.T) {
	r := config.Resources{CPUs: 2, Memory: "500M", Time: "2-00:00:00"}
	if got := sbatchResources(r); !slices.Equal(got, []string{"--cpus-per-task=2", "--mem=500M", "--time=2-00:00:00"}) {
		t.Errorf("sbatch args %q", got)
	}
}

func TestRanges(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{[]int{0}, "0"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 1, 2, 3, 5, 7, 8}, "0-3,5,7-8"},
		{[]int{4, 6}, "4,6"},
	}
	for _, tt := range tests {
		if got := ranges(tt.in); got != tt.want {
			t.Errorf("ranges(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseSqueueAndSacct(t *testing.T) {
	states := map[string]jobState{}
	parseSqueue("12_0|COMPLETED|None|0|\n12_1|FAILED|NonZeroExitCode|768|\n12_[2-3]|PENDING|Dependency|0|\n13|RUNNING|None|0|\n14|CANCELLED|None|15|\n\n", states)
	want := map[string]jobState{
		"12_0": {State: "COMPLETED", Reason: "None", Code: 0},
		"12_1": {State: "FAILED", Reason: "NonZeroExitCode", Code: 3},
		"13":   {State: "RUNNING", Reason: "None", Code: -1},
		"14":   {State: "CANCELLED", Reason: "None", Code: 0, Signal: 15},
	}
	if len(states) != len(want) {
		t.Errorf("squeue: %v", states)
	}
	for k, w := range want {
		if states[k] != w {
			t.Errorf("squeue %s: %+v, want %+v", k, states[k], w)
		}
	}
	parseSacct("13|COMPLETED|0:0\n15_2|CANCELLED by 0|0:15\n16|TIMEOUT|0:1\n16.batch|CANCELLED|0:15\n", states)
	if s := states["13"]; s.State != "RUNNING" {
		t.Errorf("sacct overrode squeue: %+v", s)
	}
	if s := states["15_2"]; s.State != "CANCELLED" || s.Code != 0 || s.Signal != 15 {
		t.Errorf("sacct 15_2: %+v", s)
	}
	if s := states["16"]; s.State != "TIMEOUT" {
		t.Errorf("sacct 16: %+v", s)
	}
	if _, ok := states["16.batch"]; ok {
		t.Error("sacct: a job step was read as a job")
	}
}

func TestJobInfoString(t *testing.T) {
	tests := []struct {
		ji     JobInfo
		want   string
		failed bool
	}{
		{JobInfo{Job: "7_1", State: "PENDING", Reason: "Dependency", Code: -1}, "slurm 7_1: PENDING (Dependency)", false},
		{JobInfo{Job: "7_1", State: "RUNNING", Reason: "None", Outcome: "running", Code: -1}, "slurm 7_1: RUNNING", false},
		{JobInfo{Job: "7", State: "COMPLETED", Reason: "None", Outcome: "ran"}, "slurm 7: COMPLETED (ran)", false},
		{JobInfo{Job: "7", State: "FAILED", Reason: "NonZeroExitCode", Outcome: "failed", Code: 3}, "slurm 7: FAILED (failed, exit code 3)", true},
		{JobInfo{Job: "8", State: "CANCELLED", Reason: "DependencyNeverSatisfied"}, "slurm 8: CANCELLED (DependencyNeverSatisfied)", true},
		{JobInfo{Job: "9", State: "TIMEOUT", Outcome: "cancelled", Code: 130}, "slurm 9: TIMEOUT (cancelled, exit code 130)", true},
		{JobInfo{Job: "9", Outcome: "up to date", Code: 0}, "slurm 9: ended (up to date)", false},
		{JobInfo{Job: "9", Outcome: "running", Code: -1}, "slurm 9: no longer known to squeue or sacct (killed before it could record its end)", false},
		{JobInfo{Job: "9", State: "OUT_OF_MEMORY", Outcome: "running", Code: 0}, "slurm 9: OUT_OF_MEMORY (killed before it could record its end)", true},
	}
	for _, tt := range tests {
		if got := tt.ji.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.ji, got, tt.want)
		}
		if got := tt.ji.Failed(); got != tt.failed {
			t.Errorf("%+v: Failed() = %v, want %v", tt.ji, got, tt.failed)
		}
	}
}
