// Package verify adopts cached outputs after a code change instead of
// rerunning them all: a change to a binary's code makes every instance of
// its stages stale, even a refactor that changes no number. NewPlan judges
// the instances and picks the samples; Run reruns them and adopts.
//
// Eligible are the instances stale only because the binary changed:
// flags, input files and outputs are as their stamps recorded (missing
// instances and other reasons are left to pipeline run), and they write
// nowhere but their output directory (an instance with a --*-out flag
// such as --uai-out is left to pipeline run: a sample would write there
// too, and only --out is compared). Of each stage with eligible
// instances, a sample is rerun with the new binary and the same
// arguments, its output in <data>/.verify/<instance>: the Options.Sample
// instances whose cached runs were the shortest, and for each
// Options.Cover shard key the shortest of every value of the key, as one
// binary serves several code paths.
//
// CompareOutputs compares each sample's outputs with the cached ones: the
// same files, byte for byte, but for Parquet files, which the
// compare-outputs binary (built with the stage binaries; see
// stages/compare) finds equal value for value (floats to the bit) but for
// timing and a JSON record of options a refactor may reshape, and
// whatever their key/value metadata (provenance). If every sample of a
// stage matches, every eligible instance of it is re-stamped for the new
// binary, keeping the stamp's run times and recording the
// pipeline.Adoption; otherwise the stage stays stale and the first
// Difference says where the numbers changed. Each stage is judged on the
// cached outputs of its upstream, whatever becomes of that.
package verify
