// Command exact-infer computes exact log partition functions and marginals.
// Run 'exact-infer --help' for the flags.
package main

import (
	"context"
	"errors"

	"github.com/alecthomas/kong"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/exactinfer"
)

func main() {
	cli.Main("exact-infer", "Exact inference (variable elimination / junction tree in log space).\n\n"+
		"The solver's options (NAME=DEFAULT), set with --set NAME=VALUE or their flags:\n\n"+methods.Usage(false, "exact"),
		&root{Options: exact.DefaultOptions()})
}

// The solver's options are set as in the other binaries, with --set
// NAME=VALUE over the registry's defaults of method exact; the fields of
// exact.Options (embedded, exact.DefaultOptions shown as their defaults)
// declare their aliases: --max-table 1000 is --set max_table=1000.
type root struct {
	Models        string   `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet. Hidden variables (model_info's hidden column) are ordinary variables here: ln Z and the marginals of every variable, hidden or not."`
	Set           []string `name:"set" placeholder:"NAME=VALUE" help:"Set an option of the solver (repeatable), as in run-baselines (method exact); the flags below are aliases: --NAME VALUE is --set NAME=VALUE (with - for _), applied before --set. Every value is honoured or rejected."`
	exact.Options `embed:"" group:"Solver options: aliases of --set NAME=VALUE"`
	opts          exact.Options // the options as set: the defaults, then the aliases and --set
	Out           string        `type:"path" help:"Output directory: marginals.parquet and estimates.parquet (required unless --plan-only)."`
	UAIOut        string        `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files: DIR/exact/<name>.uai.MAR (variable marginals; observed variables as point masses) and DIR/exact/<name>.uai.PR (log10 Z), <name> being the model's name without .uai. Each file begins with a comment line saying whether the answer converged, did not (c renn status: NOT CONVERGED: how it stopped; the answer passed the shared check) or failed the shared check (c renn status: FAILED CHECK: the reason; the numbers are then what the method returned, no valid answer), then one naming the run (its --out). A file of another run (another --out) is not replaced without --overwrite (exit 2); a rerun into the same --out replaces its own files and removes those it no longer writes. Written with the Parquet files, all or none."`
	Overwrite     bool          `help:"With --uai-out: replace UAI result files written by another run (another --out) or not by these tools, instead of refusing to run (exit 2)."`
	PlanOnly      bool          `name:"plan-only" help:"Print every model's plan and its cost (multiply-adds, largest table, peak memory, slices, estimated seconds) and solve nothing. Without it the same figures go to stderr as a log line before each model is solved."`
	SkipTooWide   bool          `name:"skip-too-wide" help:"Skip a model whose plan does not fit --max-table, --max-memory or --max-planned-seconds, instead of failing: it gets no exact answer, and is listed at the end and in the outputs' provenance (skipped). Without it such a model fails the run."`
}

func (r *root) params() exactinfer.Params {
	return exactinfer.Params{Models: r.Models, Options: r.opts, UAIOut: r.UAIOut, Overwrite: r.Overwrite, PlanOnly: r.PlanOnly, SkipTooWide: r.SkipTooWide}
}

// Validate makes bad option values, a missing --out, and --overwrite
// without --uai-out usage errors (exit 2). The options are the solver's
// defaults with the aliases given, then --set, applied, and checked once,
// with the other parameters.
func (r *root) Validate(kctx *kong.Context) error {
	switch {
	case r.Out == "" && !r.PlanOnly:
		return errors.New("missing flag --out (required unless --plan-only)")
	case r.PlanOnly && (r.Out != "" || r.UAIOut != ""):
		return errors.New("--plan-only writes no files: drop --out and --uai-out")
	}
	o, _, err := methods.Settle("exact", append(cli.Aliases(kctx, &r.Options), r.Set...), false)
	if err != nil {
		return err
	}
	r.opts = o.Value().(exact.Options)
	return r.params().Check()
}

func (r *root) Run(ctx context.Context, stdio cli.IO) error {
	return exactinfer.Run(ctx, r.params(), r.Out, stdio.Out)
}
