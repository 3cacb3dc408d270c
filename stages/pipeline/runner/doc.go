// Package runner runs the out-of-date instances of a plan: Runner.Run
// runs them in dependency order, up to Jobs at once, each through a
// proc.Executor (proc.Local: a subprocess in its own process group, its
// stdout and stderr in <out>/.logs), and stamps each that exits 0. A
// failure blocks the instances that depend on it; the others go on.
// Cancelling the context stops the running subprocesses; on Linux the
// kernel kills them too when the runner dies without stopping them
// (SIGKILL). Runner.DryRun prints what a run would do, and why. LockData
// keeps a second run or verify out of a data directory.
//
// A run, local or on a batch scheduler, is one loop (Schedule): it hands
// each instance whose turn has come to an InstanceExecutor, blocks the
// dependants of a failure, keeps the results and logs them, and builds
// the one Report. The executors differ only in how an instance is
// started, followed and cancelled: the local one (NewLocalExecutor)
// judges, runs and stamps an instance in a goroutine once its upstream has
// finished; a Batch's (package slurm) submits all of them at once and
// follows their jobs. Verify's samples go through the same loop and local
// executor (package verify).
package runner
