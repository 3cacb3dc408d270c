// Command score compares every method's marginals and log Z estimates with
// the exact ones, writes scores.parquet and summary.parquet, and prints the
// summary as a table shaped like the paper's. Run 'score --help' for the flags.
package main

import (
	"os"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/score"
)

func main() {
	cli.Main("score", "Score approximate marginals and log Z against exact inference, and summarise by setting.", &root{})
}

// The directory flags take one directory per use and never split on commas:
// shard directories are named like size=5,gamma=0.1.
type root struct {
	Models  []string `required:"" sep:"none" folder:"sample-model: models.parquet model_info.parquet" placeholder:"DIR" help:"Directory with models.parquet and model_info.parquet; repeat for every shard."`
	Truth   []string `required:"" sep:"none" folder:"exact-infer: marginals.parquet estimates.parquet" placeholder:"DIR" help:"Directory with exact-infer's marginals.parquet and estimates.parquet (method exact); repeat for every shard."`
	Pred    []string `required:"" sep:"none" folder:"a method stage (run-baselines, train-renn): marginals.parquet estimates.parquet" placeholder:"DIR" help:"Directory with a method stage's marginals.parquet and estimates.parquet; every method in it is scored; repeat as needed."`
	Out     string   `required:"" type:"path" help:"Output directory: scores.parquet, summary.parquet, and summary.md or summary.tex for those tables."`
	Group   []string `default:"graph,size,gamma" help:"Group the summary by these model properties, in order: graph, size (number of variables), gamma; 'none' pools every model."`
	By      string   `default:"setting" enum:"setting,model" help:"Rows of the printed table: setting (a row per setting of --group; imported UAI models each get a row of their own, named) or model (also a table with a row per model, named, below the settings' means; per-model values of every metric are in scores.parquet either way)."`
	Table   string   `default:"text" enum:"text,md,latex" help:"Printed table: text (aligned, stdout), md (Markdown, also out/summary.md) or latex (booktabs, also out/summary.tex)."`
	Partial bool     `help:"Score predictions that cover only some (model, method) runs of the --models directories: warn about the missing ones (and the failures run-baselines recorded for them) and list them in the summary's provenance and notes. Without it a missing run is an error."`
	Plots   bool     `help:"Also write PNG plots into the output directory: l1_vs_size.png, logz_err_vs_size.png and seconds_vs_size.png (log y), the mean over models against the number of variables, a panel per graph and gamma, a line per method. Needs size among --group."`
}

// Validate makes bad group names and table formats usage errors (exit 2);
// cli checks the folders (their folder tags).
func (r *root) Validate() error {
	if len(r.Models) == 0 || len(r.Truth) == 0 || len(r.Pred) == 0 {
		return nil // kong reports the missing flags
	}
	return r.params().Check()
}

func (r *root) params() score.Params {
	group := r.Group
	if len(group) == 1 && (group[0] == "none" || group[0] == "") {
		group = nil
	}
	by := r.By
	if by == "setting" {
		by = "" // the default, as the provenance of earlier runs records it
	}
	return score.Params{Models: r.Models, Truth: r.Truth, Pred: r.Pred, Group: group, By: by, Table: r.Table, Plots: r.Plots, Partial: r.Partial}
}

func (r *root) Run() error {
	return score.Run(r.params(), r.Out, os.Stdout)
}
