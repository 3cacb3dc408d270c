// Package config reads pipeline.toml, the description of an experiment:
// which stages run which binary with which flags, what each takes from
// the others, and what it asks a batch scheduler for. Every mistake is
// reported as an *Error naming the file, line and key.
//
// The config names stages; each runs one binary with flags:
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
// Unknown keys, dangling inputs, cycles and a flag set twice (in flags and
// in shard, say) are errors naming the key and its line.
//
// How the stages expand into instances, one per shard, is package
// pipeline's NewPlan.
package config
