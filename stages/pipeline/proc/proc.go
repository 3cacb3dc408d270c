// Package proc runs the command of one stage instance as a subprocess of
// this process: in a process group of its own, so that cancelling stops it
// and whatever it started; killed by the kernel, on Linux, when the
// process that started it dies; its stdout and stderr in a log directory;
// and, when it fails, an *ExitError with the last lines of its stderr.
// Runs, local or on a Slurm node, go through an Executor; Local is the
// one that starts subprocesses.
package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Job is one instance ready to run.
type Job struct {
	ID     string   // instance ID
	Path   string   // the binary
	Args   []string // arguments after the binary
	Dir    string   // working directory: relative paths in Args resolve here
	LogDir string   // stdout.log and stderr.log go here
	Deps   []string // IDs of the jobs it needs; already finished when Run is called

	// Usage is set by Executor.Run once the process has ended (whether it
	// succeeded or not): what it used, where the executor can tell.
	Usage Usage
}

// Usage is the resources a job's process used.
type Usage struct {
	CPUSeconds float64 // user + system time
	MaxRSSKiB  int64   // peak resident set size in KiB; 0 if unknown
}

// Executor runs the command of one instance of a local run, and of a Slurm
// job on its node. The runner decides what runs and when, and calls Run
// for a job only once its Deps have finished, so an executor need not track
// dependencies. Run blocks until the job has finished and returns nil only
// if it exited 0; when ctx is cancelled it must stop the job. (A batch
// scheduler instead gets the whole graph at once; the runner follows either
// with the same loop.)
type Executor interface {
	Run(ctx context.Context, job *Job) error
}

// ExitError reports a job that ran and exited non-zero, or a Slurm job
// that ended in a state other than COMPLETED.
type ExitError struct {
	ID     string
	Code   int      // exit code; -1 if killed by a signal or unknown (0 for a Slurm job cancelled before it ran)
	Signal int      // the signal that killed a local job's process; 0 if none
	Tail   []string // last lines of its stderr
	LogDir string

	Job      string // the Slurm job, e.g. "123_4"; "" for a local run
	State    string // the Slurm job's final state: FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY...
	TailFrom string // the file Tail comes from, for a Slurm job
}

func (e *ExitError) Error() string {
	if e.Job != "" {
		msg := fmt.Sprintf("%s: Slurm job %s %s", e.ID, e.Job, e.State)
		if e.Code > 0 {
			msg += fmt.Sprintf(", exit code %d", e.Code)
		}
		return msg + fmt.Sprintf(" (logs in %s)", e.LogDir)
	}
	return fmt.Sprintf("%s: %s (logs in %s)", e.ID, e.Ended(), e.LogDir)
}

// Ended says how a local job's process ended: "exit code 3", or "killed by
// signal 9 (killed)".
func (e *ExitError) Ended() string {
	if e.Signal > 0 {
		return fmt.Sprintf("killed by signal %d (%s)", e.Signal, signalName(e.Signal))
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// Local runs jobs as subprocesses of this process.
type Local struct {
	// TailLines is how many lines of stderr an ExitError keeps; 0 means 20.
	TailLines int
	// KillDelay is how long a cancelled job has after SIGTERM before it is
	// killed; 0 means 5 seconds.
	KillDelay time.Duration
}

// Run starts job in its own process group, so cancelling stops the job and
// anything it started, and writes its output to LogDir. On Linux the job
// is killed when the calling process dies without stopping it.
func (l Local) Run(ctx context.Context, job *Job) error {
	if err := os.MkdirAll(job.LogDir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", job.ID, err)
	}
	stdout, err := os.Create(filepath.Join(job.LogDir, "stdout.log"))
	if err != nil {
		return fmt.Errorf("%s: %w", job.ID, err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(job.LogDir, "stderr.log"))
	if err != nil {
		return fmt.Errorf("%s: %w", job.ID, err)
	}
	defer stderr.Close()
	n := l.TailLines
	if n <= 0 {
		n = 20
	}
	tail := &tailWriter{max: n}

	cmd := exec.CommandContext(ctx, job.Path, job.Args...)
	cmd.Dir = job.Dir
	cmd.Stdout = stdout
	cmd.Stderr = &teeWriter{file: stderr, tail: tail}
	setProcessGroup(cmd)
	cmd.WaitDelay = l.KillDelay
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = 5 * time.Second
	}
	err = cmd.Run()
	if cmd.ProcessState != nil {
		job.Usage = usageOf(cmd.ProcessState)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", job.ID, context.Cause(ctx))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &ExitError{ID: job.ID, Code: ee.ExitCode(), Signal: signalOf(ee.ProcessState),
			Tail: tail.lines(), LogDir: job.LogDir}
	}
	return fmt.Errorf("%s: %w", job.ID, err)
}
