// Command run-baselines runs mean field, loopy BP, damped BP and GBP on every
// model of a directory. Run 'run-baselines --help' for the flags.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/renn-go/renn/stages/baselines"
	"github.com/renn-go/renn/stages/cli"
)

type root struct {
	Models     string   `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	Regions    string   `type:"existingdir" help:"Directory with regions.parquet (from build-regions); needed by gbp."`
	Methods    []string `default:"mf,bp,dbp,gbp" help:"Methods to run: mf (naive mean field), bp (loopy BP), dbp (damped BP), gbp (parent-to-child GBP on the region graph)."`
	Tol        float64  `default:"1e-9" help:"Convergence tolerance on the largest change of a belief (mf, bp, dbp, gbp)."`
	MaxIter    int      `default:"0" help:"Iteration cap in sweeps; 0 uses each method's default (mf, bp, dbp: 1000; gbp: 2000)."`
	Damping    float64  `default:"0.5" help:"Damping of dbp's messages in the log domain."`
	GBPDamping float64  `name:"gbp-damping" default:"0" help:"Damping of gbp's root messages in the log domain (0: undamped, gbp's measured default; see core/gbp)."`
	Seed       int64    `default:"1" help:"Seed of mean field's random update order."`
	Out        string   `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
}

func (r *root) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return baselines.Run(ctx, baselines.Params{Models: r.Models, Regions: r.Regions, Methods: r.Methods, Tol: r.Tol,
		MaxIter: r.MaxIter, Damping: r.Damping, GBPDamping: r.GBPDamping, Seed: r.Seed}, r.Out)
}

func main() {
	cli.Main("run-baselines", "Classic inference methods: mean field, loopy BP, damped BP, GBP.", &root{})
}
