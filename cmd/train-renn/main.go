// Command train-renn runs RENN (or Inference Net) on every model of a
// directory. Run 'train-renn --help' for the flags.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/stageio"
	"github.com/renn-go/renn/stages/trainrenn"
)

// The network's flags are the fields of renn.Options (embedded), with
// renn.DefaultOptions as their defaults: one definition of every option.
type root struct {
	Models  string   `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	IDs     []string `name:"ids" help:"Model ids to run, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Regions string   `type:"existingdir" help:"Directory with regions.parquet (from build-regions) for renn. Without it renn builds the --scheme region graph itself; infnet always builds the bethe graph and rejects this flag."`
	Scheme  string   `default:"auto" enum:"auto,bethe,faces,faces+outer,star,cycles" help:"Region graph renn builds when --regions is not given (see build-regions --help)."`
	Method  string   `default:"renn" enum:"renn,infnet" help:"renn (region free energy of the region graph) or infnet (Inference Net: the Bethe free energy, roots = factors)."`
	Name    string   `help:"Method name written to the outputs; default the method, with -direct appended for --net direct and -mp for --net message."`

	renn.Options `embed:""`

	Out string `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
}

func (r *root) params() (trainrenn.Params, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	o := r.Options
	o.Name = r.Name
	if o.Name == "" {
		o.Name = trainrenn.DefaultName(r.Method, o.Net)
	}
	return trainrenn.Params{Models: r.Models, IDs: ids, Regions: r.Regions, Scheme: r.Scheme, Method: r.Method, Options: o}, err
}

// Validate makes bad option values usage errors (exit 2).
func (r *root) Validate() error {
	p, err := r.params()
	if err != nil {
		return err
	}
	return p.Check()
}

func (r *root) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p, err := r.params()
	if err != nil {
		return err
	}
	return trainrenn.Run(ctx, p, r.Out)
}

func main() {
	cli.Main("train-renn", "RENN and Inference Net: region-based free energies minimised by a neural network.",
		&root{Options: renn.DefaultOptions()})
}
