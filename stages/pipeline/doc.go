// Package pipeline is the plan of an experiment and the state of its
// instances: a config (package config) expanded into stage instances
// (NewPlan), whether each is up to date (Plan.Status, a Judge), and the
// stamp that marks its outputs complete (Stamp). Running the plan is the
// business of the packages below it:
//
//	config    pipeline.toml: stages, flags, inputs, shards, resources
//	build     compiling the stage binaries as the pipeline runs them
//	proc      running one instance's command as a subprocess
//	runner    running a plan: local subprocesses, in dependency order
//	slurm     running a plan on a Slurm cluster, one job per instance
//	verify    adopting cached outputs after a code change that changes no result
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
// CheckBinaries reports, at its run key, a stage whose binary is unknown.
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
// directory the stage writes into, such as --uai-out, stays current); and
// when the output files the stamp lists are still there unchanged. Files
// whose names begin with "." and subdirectories are not outputs. The stamp
// is removed before a stage runs and written, atomically, only after it
// exits 0, so a failed or interrupted run is never complete. The stamp
// also records the run's wall time and, as the system reported them when
// the process ended, its CPU time and peak resident memory
// (Stamp.MaxRSSKiB); these are not part of the fingerprint. Instances are
// judged when their upstream has finished: an upstream that reruns but
// produces byte-identical files leaves its dependants up to date.
package pipeline
