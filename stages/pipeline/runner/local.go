package runner

import (
	"context"
	"runtime"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
)

// LocalExecutor runs instances in this process, each through its run func
// in a goroutine of its own, up to jobs at once and each only once its
// upstream has finished. A run's instances go through runOne (judge, run
// the binary with a proc.Executor, stamp); verify's samples through its
// own func.
type LocalExecutor struct {
	ex  proc.Executor
	tr  *Progress
	run func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *Result

	jobs    int // instances run at once
	running int // instances started and not yet reported
	done    chan *Result
}

// NewLocalExecutor returns an executor carrying out each instance with
// run, through r.Executor (proc.Local{} if nil), up to r.Jobs at once
// (runtime.NumCPU() if < 1). pr shows the instances running.
func (r *Runner) NewLocalExecutor(pr *Progress, run func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *Result) *LocalExecutor {
	jobs := r.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	return &LocalExecutor{ex: r.subprocesses(), tr: pr, run: run, jobs: jobs, done: make(chan *Result)}
}

// Early is false: an instance is judged on its inputs, which its upstream
// must have finished writing.
func (x *LocalExecutor) Early() bool { return false }

func (x *LocalExecutor) Slots() int { return x.jobs - x.running }

func (x *LocalExecutor) Start(ctx context.Context, insts []*pipeline.Instance) ([]*Result, error) {
	for _, inst := range insts {
		x.running++
		go func() { x.done <- x.run(ctx, inst, x.ex) }()
	}
	return nil, nil
}

func (x *LocalExecutor) Wait(ctx context.Context, d time.Duration) []*Result {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case res := <-x.done:
		x.running--
		return []*Result{res}
	case <-t.C:
		return nil
	}
}

// Cancel has nothing to stop: an instance is started only once its
// upstream has settled, so none is open when its upstream fails. (An
// interrupt stops the subprocesses through the context.)
func (x *LocalExecutor) Cancel([]*pipeline.Instance) {}

func (x *LocalExecutor) Job(*pipeline.Instance) string { return "" }

func (x *LocalExecutor) Heartbeat() (string, []any) {
	if s := x.tr.runningList(); s != "" {
		return "running", []any{"stages", s}
	}
	return "", nil
}
