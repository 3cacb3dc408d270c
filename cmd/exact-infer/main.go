// Command exact-infer computes exact log partition functions and marginals.
// Run 'exact-infer --help' for the flags.
package main

import (
	"errors"
	"os"

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
	Models        string `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet. Hidden variables (model_info's hidden column) are ordinary variables here: ln Z and the marginals of every variable, hidden or not."`
	exact.Options `embed:""`
	Out           string `type:"path" help:"Output directory: marginals.parquet and estimates.parquet (required unless --plan-only)."`
	UAIOut        string `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files into DIR: <name>.uai.MAR (variable marginals; observed variables as point masses) and <name>.uai.PR (log10 Z), <name> being the model's name without .uai. Written with the Parquet files, all or none."`
	PlanOnly      bool   `name:"plan-only" help:"Print every model's plan and its cost (multiply-adds, largest table, peak memory, slices, estimated seconds) and solve nothing. Without it the same figures go to stderr as a log line before each model is solved."`
}

// Validate makes option values below one, and a missing --out, usage
// errors (exit 2).
func (r *root) Validate() error {
	if err := r.Options.Check(); err != nil {
		return err
	}
	switch {
	case r.Out == "" && !r.PlanOnly:
		return errors.New("missing flag --out (required unless --plan-only)")
	case r.PlanOnly && (r.Out != "" || r.UAIOut != ""):
		return errors.New("--plan-only writes no files: drop --out and --uai-out")
	}
	return nil
}

func (r *root) Run() error {
	return exactinfer.Run(exactinfer.Params{Models: r.Models, Options: r.Options, UAIOut: r.UAIOut, PlanOnly: r.PlanOnly}, r.Out, os.Stdout)
}
