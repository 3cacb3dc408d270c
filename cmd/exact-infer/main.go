// Command exact-infer computes exact log partition functions and marginals.
// Run 'exact-infer --help' for the flags.
package main

import (
	"os"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/exactinfer"
)

func main() {
	cli.Main("exact-infer", "Exact inference (variable elimination / junction tree in log space).", &root{})
}

type root struct {
	Models   string `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	MaxTable int64  `default:"268435456" help:"Largest table (entries) exact inference may build; larger models stop with an error."`
	Seed     int64  `default:"1" help:"Seed of the randomised elimination-order search."`
	Out      string `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
}

func (r *root) Run() error {
	return exactinfer.Run(exactinfer.Params{Models: r.Models, MaxTable: r.MaxTable, Seed: r.Seed}, r.Out, os.Stdout)
}
