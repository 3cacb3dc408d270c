// Package pipeline runs the stages of an experiment as described by
// pipeline.toml, rerunning only what changed.
//
// # Config
//
// The config names stage instances; each runs one binary with flags:
//
//	data = "data"                     # root of the outputs, relative to the config file
//
//	[stage.models]
//	run = ["sample-model", "ising"]   # binary, then subcommand words
//	flags = { graph = "grid", count = 10, seed = 1 }
//	[stage.models.shard]              # optional: fan out over the product of these lists
//	size = [5, 10]
//	gamma = [0.1, 1.0]
//
//	[stage.exact]
//	run = ["exact-infer"]
//	inputs = { models = "models" }    # --models=<output dir of stage models>
//
// What each instance asks a batch scheduler for, and the scheduler's
// settings (only the Slurm executor reads them; they are not part of the
// fingerprint):
//
//	[resources]                       # defaults: 1 cpu, "2G", "1:00:00"
//	cpus = 1
//	memory = "2G"                     # Slurm --mem syntax, or whole megabytes
//	time = "1:00:00"                  # Slurm --time syntax, or whole minutes
//	[stage.exact.resources]           # per stage, over the defaults
//	memory = "8G"
//	[slurm]
//	partition = "short"               # also account, and options = ["--qos=low"]
//
// Flag values are strings, integers, floats, booleans (true gives --flag,
// false gives --flag=false) or lists (comma-joined). Every argument is
// written --name=value, so negative numbers cannot be mistaken for flags.
// An input maps a flag to another stage; a list of stages repeats the flag.
// untracked = ["log"] lists flags whose values are not fingerprinted even
// when they name files (directories the stage writes into, say).
// Unknown keys, dangling inputs, cycles, a flag set twice (in flags and in
// shard, say) and unknown binaries are errors naming the key and its line.
//
// # Instances and output directories
//
// A stage writes to <data>/<stage>. A stage with shard lists runs once per
// combination of values, into <data>/<stage>/<key=value,...>, and gets the
// values as flags. A stage with a single-valued input from a sharded stage
// runs once per upstream shard, into a directory of the same name (with
// several such inputs, shards are matched on the keys they share); one that
// takes the input as a list instead gets every matching shard at once, so
// a scoring stage can gather them all. The instance ID is the output
// directory relative to the data root, e.g. "exact/size=5,gamma=0.1".
// Commands run in the config file's directory, with paths relative to it.
//
// # Up to date
//
// A stage instance is up to date when its output directory holds a stamp
// (StampName) whose fingerprint matches: the sha256 of the binary, the
// arguments (without --out), the sha256 of every file in each input
// directory, and the content of every file or directory a flag value names
// (relative to the config's directory; a list value element by element;
// a directory's files recursively, with their names, but for names
// beginning with "."), so editing a model file named in flags makes the
// stage stale (the stamp records them as they are after the run, so a
// directory the stage writes into, such as --uai-out, stays current); and when the output files the stamp lists are still there
// unchanged. Files whose names begin with "." and subdirectories are not
// outputs. The stamp is removed before a stage runs and written, atomically,
// only after it exits 0, so a failed or interrupted run is never complete.
// The stamp also records the run's wall time and, as the system reported
// them when the process ended, its CPU time and peak resident memory
// (Stamp.MaxRSSKiB); these are not part of the fingerprint.
// Instances are judged when their upstream has finished: an upstream that
// reruns but produces byte-identical files leaves its dependants up to date.
//
// # Running
//
// Runner.Run runs out-of-date instances in dependency order, up to Jobs at
// once, each through an Executor (Local: a subprocess in its own process
// group, its stdout and stderr in <out>/.logs). A failure blocks the
// instances that depend on it; the others go on. Cancelling the context
// stops the running subprocesses; on Linux the kernel kills them too when
// the runner dies without stopping them (SIGKILL). A local run refuses
// instances whose Slurm jobs from an earlier run are still queued or
// running (where squeue is on PATH). Runner.DryRun prints the plan and
// Plan.Status says, for every instance, up to date, stale (why) or missing.
//
// # Verifying
//
// A change to a binary's code makes every instance of its stages stale,
// even a refactor that changes no number. Runner.PlanVerify and
// Runner.Verify adopt the cached outputs after such a change instead of
// rerunning them all. Eligible are the instances stale only because the
// binary changed: flags, input files and outputs are as their stamps
// recorded (missing instances and other reasons are left to Run), and
// they write nowhere but their output directory (an instance with a
// --*-out flag such as --uai-out is left to Run: a sample would write
// there too, and only --out is compared). Of each
// stage with eligible instances, a sample is rerun with the new binary and
// the same arguments, its output in <data>/.verify/<instance>: the
// Verify.Sample instances whose cached runs were the shortest, and for
// each Verify.Cover shard key the shortest of every value of the key, as
// one binary serves several code paths. CompareOutputs compares each
// sample's outputs with the cached ones: the same files, byte for byte,
// but for Parquet files, which the compare-outputs binary (built with the
// stage binaries; see stages/compare) finds equal value for value (floats
// to the bit) but for timing and a JSON record of options a refactor may
// reshape, and whatever their key/value metadata (provenance). If every sample of a stage matches, every eligible instance of it
// is re-stamped for the new binary, keeping the stamp's run times and
// recording the Adoption; otherwise the stage stays stale and the first
// Difference says where the numbers changed. Each stage is judged on the
// cached outputs of its upstream, whatever becomes of that.
//
// # Slurm
//
// With Runner.Slurm set, Run submits every out-of-date instance to Slurm at
// once instead: one sbatch job per instance, a job array per stage that
// fans out, each with --dependency on the jobs that make its inputs. The
// jobs run the pipeline binary's hidden job subcommand (RunBatchJob), which
// applies the up-to-date rule on the node when the job starts and writes
// the stamp there when the stage exits 0; a job killed by scancel or a
// time limit leaves none. Run follows the jobs with squeue (sacct when
// accounting is on) and reports as for a local run; AttachJobs adds each
// instance's last job to Plan.Status. See Slurm for the details.
package pipeline

// How the package is built (for its maintainers; not part of the package
// documentation).
//
// A run, local or on Slurm, is one loop (the scheduler, schedule.go): it
// hands each instance whose turn has come to an executor, blocks the
// dependants of a failure, keeps the results and logs them, and builds
// the one Report. The two executors differ only in how an instance is
// started, followed and cancelled: the local one (local.go) judges, runs
// and stamps an instance in a goroutine once its upstream has finished;
// the Slurm one (slurm_run.go, slurm_follow.go) submits all of them at
// once and polls their jobs. Verify's samples go through the same loop
// and local executor (verify_samples.go), each as an instance of its own
// with no upstream and its output in .verify, compared instead of
// stamped. The rest: the config (config*.go, keylines.go for the line of
// every key, resources.go), the plan (plan.go, slurm_plan.go for the
// sbatch calls), the binaries (build.go, binaries.go), up-to-date
// judgement (status.go, fingerprint.go, hash.go, stamp.go), one instance
// (instance.go, exec.go, tail.go), verify's plan, comparison and adoption
// (verify.go, compare.go, verify_run.go), and the node side of a Slurm
// job (slurm_job.go, slurm_status.go, slurm_cmd.go).
