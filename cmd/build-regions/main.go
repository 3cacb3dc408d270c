// Command build-regions builds the region graph of every model of a directory.
// Run 'build-regions --help' for the flags.
package main

import (
	"os"

	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/cli"
)

type root struct {
	Models string `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	Scheme string `default:"auto" enum:"auto,bethe,faces,faces+outer,star,cycles" help:"Root regions: auto (grid: faces, complete: star, otherwise cycles), bethe (one root per factor: the Bethe free energy), faces (2x2 plaquettes of a grid), faces+outer (plus the infinite face), star (triangles through node 0 of a complete graph), cycles (a tree-robust cycle basis of any graph, paper Algorithm 1)."`
	Out    string `required:"" type:"path" help:"Output directory: regions.parquet."`
}

func (r *root) Run() error {
	return buildregions.Run(buildregions.Params{Models: r.Models, Scheme: r.Scheme}, r.Out, os.Stdout)
}

func main() {
	cli.Main("build-regions", "Build region graphs (cluster variation method with counting numbers).", &root{})
}
