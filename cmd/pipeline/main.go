// Command pipeline runs the stages of the experiment described by
// pipeline.toml, rerunning only what changed.
//
//	pipeline run [--config pipeline.toml] [--only NAME...] [--force] [--jobs N] [--dry-run]
//	             [--executor slurm [--partition P] [--account A] [--slurm-opt OPT]... [--no-wait]]
//	pipeline status [--config pipeline.toml]
//	pipeline verify [--config pipeline.toml] [--sample K] [--cover KEY]... [--only NAME]... [--jobs N] [--dry-run]
//
// verify adopts cached outputs after a code change that changes no
// result: it reruns a sample of each stage whose instances are stale only
// because their binary changed, compares the outputs with the cached ones,
// and re-stamps the whole stage when they match (see package
// stages/pipeline/verify). Exit code 1 if a stage changed its results.
//
// With --executor slurm every out-of-date stage instance becomes an sbatch
// job (a job array per fanned-out stage) depending on the jobs that make
// its inputs; each job runs the hidden subcommand "pipeline job", which
// runs the instance and stamps it on the node. See package
// stages/pipeline/slurm.
//
// run and verify hold a lock on the data directory (an flock on
// <data>/.pipeline.lock): a second run or verify of the same project fails
// at once, naming the lock file and the pid holding it. status reads
// without it. With --executor slurm --no-wait the lock ends when the jobs
// are submitted, not when they finish: a later run, local or on Slurm,
// then refuses (exit 1, naming the job) instances whose jobs squeue still
// shows queued or running; Slurm jobs take no lock of their own, and a
// verify, or a run where squeue is not on PATH, does not look for them.
//
// Exit codes: 0 success, 1 a stage or the build failed or the data
// directory is locked, 2 a usage or config error, 130 interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/build"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/proc"
	"github.com/renn-go/renn/stages/pipeline/runner"
	"github.com/renn-go/renn/stages/pipeline/slurm"
)

type configFlag struct {
	Config string `short:"c" default:"pipeline.toml" placeholder:"FILE" help:"Pipeline description (TOML). Stages run in its directory."`
}

type runCmd struct {
	configFlag
	Only    []string `sep:"none" placeholder:"NAME" help:"Run only this stage (or instance, such as exact/size=5,gamma=0.1), after its out-of-date upstream stages. Repeat for several."`
	Force   bool     `help:"Rerun the selected stages (all, or those named by --only) even when up to date."`
	Jobs    int      `short:"j" default:"0" help:"Stage instances run at once (0: number of CPUs); with --executor slurm, Slurm decides."`
	DryRun  bool     `name:"dry-run" short:"n" help:"Print the plan (what runs, why, and the command lines) and run nothing; builds nothing either."`
	Bin     string   `type:"path" placeholder:"DIR" help:"Use the prebuilt stage binaries in DIR instead of building them."`
	NoBuild bool     `name:"no-build" help:"Do not build: use the binaries already in bin/ of the module."`

	Executor  string        `enum:"local,slurm" default:"local" help:"Where stages run: local (subprocesses here) or slurm (one sbatch job per instance, a job array per fanned-out stage, with --dependency=afterok on the jobs making its inputs; the project and data directories must be on a file system every node mounts)."`
	Partition string        `placeholder:"P" help:"Slurm partition (sbatch --partition); overrides [slurm] partition of the config."`
	Account   string        `placeholder:"A" help:"Slurm account (sbatch --account); overrides [slurm] account of the config."`
	SlurmOpt  []string      `name:"slurm-opt" sep:"none" placeholder:"OPT" help:"Another sbatch option, given whole, e.g. --slurm-opt=--qos=short; repeat for several. Added after [slurm] options of the config."`
	NoWait    bool          `name:"no-wait" help:"With --executor slurm: submit the jobs and return at once; follow them with pipeline status."`
	Poll      time.Duration `default:"5s" placeholder:"DURATION" help:"With --executor slurm: how often to ask squeue about the jobs."`
}

// Validate makes a negative --jobs or a non-positive --poll a usage error
// (exit 2): 0 jobs means the number of CPUs, a negative count nothing.
func (r *runCmd) Validate() error {
	if r.Jobs < 0 {
		return fmt.Errorf("--jobs %d, want >= 0 (0: number of CPUs)", r.Jobs)
	}
	if r.Poll <= 0 {
		return fmt.Errorf("--poll %v, want > 0", r.Poll)
	}
	return nil
}

type statusCmd struct {
	configFlag
	Bin string `type:"path" placeholder:"DIR" help:"Judge against the binaries in DIR (default: bin/ of the module)."`
}

// jobCmd is what a Slurm job runs: one instance, stamped on success.
type jobCmd struct {
	configFlag
	Bin    string `required:"" type:"path" placeholder:"DIR" help:"Where the stage binaries are."`
	Expect string `placeholder:"KEY" help:"Fail unless the instance still runs what it ran when submitted."`
	Force  bool   `help:"Run even if up to date."`
	ID     string `arg:"" name:"instance" help:"Instance ID, such as exact/size=5,gamma=0.1."`
}

type commands struct {
	Run    runCmd    `cmd:"" help:"Build the stage binaries and run every stage that is out of date."`
	Status statusCmd `cmd:"" help:"List every stage instance as up to date, stale (and why) or missing, with its last Slurm job if it was submitted to Slurm."`
	Verify verifyCmd `cmd:"" help:"After a code change, rerun a sample of each stage that is stale only because its binary changed, and adopt the stage's cached outputs if the sample's results are unchanged."`
	Job    jobCmd    `cmd:"" hidden:"" help:"Run one instance inside a Slurm job (used by --executor slurm)."`
}

// InterruptGrace makes cli wait for an interrupted run to stop its stages
// and print its summary, however long that takes; a second Ctrl-C kills.
func (*commands) InterruptGrace() time.Duration { return 0 }

const description = "Run the stages of pipeline.toml, rerunning only what changed. Outputs go under the data directory, one per stage (and per shard), each with a .pipeline-stamp.json once complete."

func main() {
	cli.Main("pipeline", description, &commands{})
}

// usageError marks errors that deserve exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// interrupted is the error of a run or verify that a signal stopped.
type interrupted struct{ err error }

func (e interrupted) Error() string { return e.err.Error() }
func (e interrupted) Unwrap() error { return e.err }
func (interrupted) Interruption() string {
	return "stages that did not finish are left unstamped and rerun next time"
}

// exitError gives err its exit code for cli: 2 for a usage or config error.
func exitError(err error) error {
	var ce *config.Error
	var ue usageError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return interrupted{err}
	case errors.As(err, &ce), errors.As(err, &ue), errors.Is(err, pipeline.ErrUnknownStage):
		return cli.Usage(err)
	}
	return err
}

func load(path string) (*pipeline.Plan, string, error) {
	plan, err := pipeline.Load(path)
	if err != nil {
		var ce *config.Error
		if !errors.As(err, &ce) {
			err = usageError{err} // the file cannot be read
		}
		return nil, "", err
	}
	root, err := build.ModuleRoot(plan.Config.Dir)
	if err != nil {
		root = ""
	}
	return plan, root, nil
}

func defaultBin(flag, root string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if root == "" {
		return "", usageError{errors.New("no go.mod above the config file: say where the stage binaries are with --bin DIR")}
	}
	return filepath.Join(root, "bin"), nil
}

// loadWithBin loads the config and says where its stage binaries are: in
// the --bin flag if set, else in bin/ of the module root.
func loadWithBin(path, bin string) (plan *pipeline.Plan, root, binDir string, err error) {
	plan, root, err = load(path)
	if err != nil {
		return nil, "", "", err
	}
	binDir, err = defaultBin(bin, root)
	if err != nil {
		return nil, "", "", err
	}
	return plan, root, binDir, nil
}

// setLogger logs rn's progress to stderr, through a Bar if bar is set
// and stderr is a terminal, and returns where the log goes.
func setLogger(rn *runner.Runner, stderr io.Writer, bar bool) io.Writer {
	logOut := stderr
	if f, ok := stderr.(*os.File); ok && bar && runner.IsTerminal(f) {
		rn.Bar = runner.NewBar(f, 0)
		logOut = rn.Bar
	}
	rn.Logger = slog.New(slog.NewTextHandler(logOut, nil))
	return logOut
}

// buildBinaries builds the stage binaries of plan from the module at root
// into binDir, after checking that each is a command of the module.
func buildBinaries(ctx context.Context, rn *runner.Runner, plan *pipeline.Plan, root, binDir string, logOut io.Writer) error {
	if err := plan.CheckBinaries(binDir, root); err != nil {
		return err
	}
	rn.Logger.Info("building binaries", "into", binDir)
	return build.Build(ctx, root, binDir, logOut)
}

func (r *runCmd) Run(ctx context.Context, stdio cli.IO) error {
	return exitError(r.run(ctx, stdio.Out, stdio.Err))
}

// newRunner is the runner of the run: on Slurm with --executor slurm, with
// the [slurm] settings sc under the command line's; else local, refusing
// instances that Slurm jobs of an earlier run may still write.
func (r *runCmd) newRunner(sc config.Slurm, binDir string) (*runner.Runner, error) {
	rn := &runner.Runner{BinDir: binDir, Jobs: r.Jobs, Only: r.Only, Force: r.Force}
	if r.Executor != "slurm" {
		if r.Partition != "" || r.Account != "" || len(r.SlurmOpt) > 0 || r.NoWait {
			return nil, usageError{errors.New("--partition, --account, --slurm-opt and --no-wait need --executor slurm")}
		}
		rn.Guard = slurm.CheckJobs
		return rn, nil
	}
	cl := &slurm.Cluster{
		Partition: sc.Partition,
		Account:   sc.Account,
		Options:   append(slices.Clone(sc.Options), r.SlurmOpt...),
		NoWait:    r.NoWait,
		Poll:      r.Poll,
	}
	if r.Partition != "" {
		cl.Partition = r.Partition
	}
	if r.Account != "" {
		cl.Account = r.Account
	}
	rn.Batch = cl
	return rn, nil
}

func (r *runCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	plan, root, binDir, err := loadWithBin(r.Config, r.Bin)
	if err != nil {
		return err
	}
	buildable := r.Bin == "" && !r.NoBuild
	rn, err := r.newRunner(plan.Config.Slurm, binDir)
	if err != nil {
		return err
	}
	if r.DryRun {
		modRoot := ""
		if buildable {
			modRoot = root
		}
		if err := plan.CheckBinaries(binDir, modRoot); err != nil {
			return err
		}
		return rn.DryRun(plan, stdout)
	}
	lock, err := runner.LockData(plan.Config)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	logOut := setLogger(rn, stderr, true)
	if buildable {
		if err := buildBinaries(ctx, rn, plan, root, binDir, logOut); err != nil {
			return err
		}
	}
	rep, err := rn.Run(ctx, plan)
	if rep != nil {
		rep.WriteSummary(stdout)
		if len(rep.IDs(runner.Submitted)) > 0 {
			fmt.Fprintf(stdout, "jobs submitted; follow them with: pipeline status --config %s\n", r.Config)
		}
	}
	return err
}

func (s *statusCmd) Run(ctx context.Context, stdio cli.IO) error {
	return exitError(s.run(ctx, stdio.Out))
}

func (s *statusCmd) run(ctx context.Context, stdout io.Writer) error {
	plan, _, binDir, err := loadWithBin(s.Config, s.Bin)
	if err != nil {
		return err
	}
	sts, err := plan.Status(binDir)
	if err != nil {
		return err
	}
	if err := slurm.AttachJobs(ctx, sts); err != nil {
		return err
	}
	return pipeline.WriteStatus(stdout, sts)
}

// Run runs the instance and ends with the exit code of the job: the
// stage's own exit code if it failed, 130 if the job was cancelled (scancel
// sends SIGTERM), 1 for any other failure.
func (j *jobCmd) Run(ctx context.Context, stdio cli.IO) error {
	plan, _, err := load(j.Config)
	if err != nil {
		return exitError(err)
	}
	rn := &runner.Runner{BinDir: j.Bin, Logger: slog.New(slog.NewTextHandler(stdio.Err, nil))}
	res, err := slurm.RunBatchJob(ctx, rn, plan, slurm.BatchJob{ID: j.ID, Expect: j.Expect, Force: j.Force})
	if err != nil {
		return exitError(err)
	}
	switch res.Outcome {
	case runner.Ran, runner.Skipped:
		return nil
	case runner.Cancelled:
		return &cli.ExitError{Code: cli.Interrupted, Err: errors.New("job cancelled; the instance is left unstamped")}
	}
	var ee *proc.ExitError
	if errors.As(res.Err, &ee) {
		for _, l := range ee.Tail {
			fmt.Fprintln(stdio.Err, "  |", l)
		}
		if ee.Code > 0 {
			return &cli.ExitError{Code: ee.Code}
		}
	}
	return res.Err
}
