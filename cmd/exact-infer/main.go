// Command exact-infer computes exact log partition functions and marginals.
// Run 'exact-infer --help' for the flags.
package main

import (
	"context"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/exactinfer"
)

func main() {
	cli.Main("exact-infer", "Exact inference (variable elimination / junction tree in log space).",
		&root{Options: exact.DefaultOptions()})
}

// The solver's flags are the fields of exact.Options (embedded), with
// exact.DefaultOptions as their defaults.
type root struct {
	Models        string `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet. Hidden variables (model_info's hidden column) are ordinary variables here: ln Z and the marginals of every variable, hidden or not."`
	exact.Options `embed:""`
	Out           string `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
	UAIOut        string `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files into DIR: <name>.uai.MAR (variable marginals; observed variables as point masses) and <name>.uai.PR (log10 Z), <name> being the model's name without .uai. Written with the Parquet files, all or none."`
}

// Validate makes option values below one usage errors (exit 2).
func (r *root) Validate() error { return r.Options.Check() }

func (r *root) Run(ctx context.Context, stdio cli.IO) error {
	return exactinfer.Run(ctx, exactinfer.Params{Models: r.Models, Options: r.Options, UAIOut: r.UAIOut}, r.Out, stdio.Out)
}
