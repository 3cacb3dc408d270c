package runner

import (
	"context"
	"runtime"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
)

// localExecutor runs instances in this process, each through its run func
// in a goroutine of its own, up to jobs at once and each only once its
// upstream has finished. A run's instances go through runOne (judge, run
// the binary with an Executor, stamp); verify's samples through runSample.
type localExecutor struct {
	ex  proc.Executor
	tr  *tracker
	run func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *Result

	jobs    int // instances run at once
	running int // instances started and not yet reported
	done    chan *Result
}

// newLocalExecutor returns an executor carrying out each instance with
// run, through r.Executor (proc.Local{} if nil), up to r.Jobs at once
// (runtime.NumCPU() if < 1).
func (r *Runner) newLocalExecutor(tr *tracker, run func(ctx context.Context, inst *pipeline.Instance, ex proc.Executor) *Result) *localExecutor {
	jobs := r.Jobs
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	ex := r.Executor
	if ex == nil {
		ex = proc.Local{}
	}
	return &localExecutor{ex: ex, tr: tr, run: run, jobs: jobs, done: make(chan *Result)}
}

// early is false: an instance is judged on its inputs, which its upstream
// must have finished writing.
func (x *localExecutor) early() bool { return false }

func (x *localExecutor) slots() int { return x.jobs - x.running }

func (x *localExecutor) start(ctx context.Context, insts []*pipeline.Instance) ([]*Result, error) {
	for _, inst := range insts {
		x.running++
		go func() { x.done <- x.run(ctx, inst, x.ex) }()
	}
	return nil, nil
}

func (x *localExecutor) wait(ctx context.Context, d time.Duration) []*Result {
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

// cancel has nothing to stop: an instance is started only once its
// upstream has settled, so none is open when its upstream fails. (An
// interrupt stops the subprocesses through the context.)
func (x *localExecutor) cancel([]*pipeline.Instance) {}

func (x *localExecutor) job(*pipeline.Instance) string { return "" }

func (x *localExecutor) heartbeat() (string, []any) {
	if s := x.tr.runningList(); s != "" {
		return "running", []any{"stages", s}
	}
	return "", nil
}
