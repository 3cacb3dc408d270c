// Command run-baselines runs registered inference methods (by default mean
// field, loopy BP, damped BP and GBP) on every model of a directory. Run
// 'run-baselines --help' for the flags and every method's options.
package main

import (
	"context"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/stages/baselines"
	"github.com/renn-go/renn/stages/cli"
)

type root struct {
	Models    string   `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet. Hidden variables (model_info's hidden column) are ordinary variables here: ln Z and the marginals of every variable, hidden or not."`
	Regions   string   `type:"path" folder:"build-regions: regions.parquet" help:"Directory with regions.parquet (from build-regions); needed by region methods (gbp, renn)."`
	Methods   []string `default:"mf,bp,dbp,gbp" help:"Methods to run, comma-separated (see the list below)."`
	Set       []string `name:"set" placeholder:"[METHOD.]NAME=VALUE" help:"Set a method option (repeatable): NAME=VALUE sets it for every selected method that has it, METHOD.NAME=VALUE for one. Every value is honoured or rejected."`
	Name      string   `placeholder:"NAME" help:"Method name written to the outputs instead of the method's own (one method only), e.g. gbp-blocks3 for GBP on a blocks3 region graph, so that score can set it beside gbp on the faces."`
	Strict    bool     `help:"Fail (exit 1, nothing written) if any method fails on any model. Without it a failed run is reported on stderr and recorded in the outputs' provenance (failed), the runs that finished are written, and only a run where every method failed on every model exits 1."`
	Out       string   `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
	UAIOut    string   `name:"uai-out" type:"path" placeholder:"DIR" help:"Also write every model's result as UAI competition files: DIR/<method>/<name>.uai.MAR (variable marginals; observed variables as point masses) and DIR/<method>/<name>.uai.PR (log10 Z; none for a method without an estimate of ln Z, gibbs), <name> being the model's name without .uai. Each file begins with a comment line saying whether the answer converged, did not (c renn status: NOT CONVERGED: how it stopped; the answer passed the shared check) or failed the shared check (c renn status: FAILED CHECK: the reason; the numbers are then what the method returned, no valid answer), then one naming the run (its --out). A file of another run (another --out) is not replaced without --overwrite (exit 2); a rerun into the same --out replaces its own files and removes those it no longer writes. Written with the Parquet files, all or none."`
	Overwrite bool     `help:"With --uai-out: replace UAI result files written by another run (another --out) or not by these tools, instead of refusing to run (exit 2)."`
}

func (r *root) params() baselines.Params {
	return baselines.Params{Models: r.Models, Regions: r.Regions, Methods: r.Methods, Set: r.Set, Strict: r.Strict, UAIOut: r.UAIOut, Overwrite: r.Overwrite, Name: r.Name}
}

// Validate makes unknown methods, bad option values and a missing --regions
// usage errors (exit 2).
func (r *root) Validate() error { return r.params().Check() }

func (r *root) Run(ctx context.Context, stdio cli.IO) error {
	return baselines.Run(ctx, r.params(), r.Out, stdio.Err)
}

func main() {
	cli.Main("run-baselines", "Inference methods from the registry, by default mean field, loopy BP, damped BP and GBP.\n\n"+
		"Methods and their options (NAME=DEFAULT):\n\n"+methods.Usage(false), &root{})
}
