// Package slurm runs a plan on a Slurm cluster: runner.Runner.Run, with a
// Cluster as its Batch, submits every out-of-date instance with sbatch at
// once, each with --dependency on the jobs that produce its inputs, and
// then follows the jobs with squeue (and sacct where accounting is on).
//
// The instances of a stage that fans out go in one job array, task i being
// the stage's i-th instance in plan order; a shard that depends on the
// same-numbered shard of an upstream array waits for just that task
// (aftercorr), so one failed shard holds back only its own dependants.
// Jobs whose dependency can no longer be met are cancelled by Slurm
// (--kill-on-invalid-dep=yes) and reported as blocked.
//
// Each job runs the pipeline binary's job subcommand (RunBatchJob), which
// judges its instance again when the job starts, exactly as a local run
// would once the upstream has finished: an instance whose upstream reran
// but produced byte-identical files is up to date and the job ends at once.
// Otherwise it removes the instance's stamp, runs the stage binary and, if
// that exits 0, writes the stamp: the stamp is written by the job itself,
// on the node, so results are marked complete even if the submitting
// process has gone. A job killed by scancel, a time limit or a failed node
// leaves no stamp, and the next run reruns that instance and its
// dependants only.
//
// Everything a job reads and writes lives in the project directory (the
// config, the bin directory) and the config's data directory, which must
// therefore be on a file system every node mounts. Slurm's own output of
// each job goes to <data>/.slurm/<stage>-<job>.out; the record of the last
// submission of each instance to <out>/.logs/slurm.json, and the job's
// result to <out>/.logs/job.json. AttachJobs reads them back for pipeline
// status.
//
// A local run must not write where jobs of an earlier run (submitted with
// NoWait, or by a process that was killed) still will: CheckJobs, a
// runner.Runner's Guard, refuses such instances.
package slurm
