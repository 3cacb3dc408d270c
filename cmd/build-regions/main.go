// Command build-regions builds the region graph of every model of a directory.
// Run 'build-regions --help' for the flags.
package main

import (
	"errors"
	"os"

	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/cli"
)

type root struct {
	Models          string `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with models.parquet and model_info.parquet."`
	Scheme          string `default:"auto" enum:"auto,bethe,faces,faces+outer,blocks3,star,cycles" help:"Root regions: auto (grid or a detected L x L lattice: faces; complete: star; otherwise bounded cycles), bethe (one root per factor: the Bethe free energy), faces (2x2 plaquettes of a grid or torus, also detected in imported models), faces+outer (plus the infinite face), blocks3 (the overlapping 3x3 windows of a grid or torus: Kikuchi's larger clusters, 512 joint states per root on binary variables), star (triangles through node 0 of a complete graph), cycles (a cycle basis of short cycles within the bounds, paper Algorithm 1)."`
	MaxRegionVars   *int   `placeholder:"N" help:"Largest number of variables of a root region (0: no limit). Not given: 6 for cycles and auto, which admit only cycles within it; no limit for faces, faces+outer and star, which are refused over it when given. Bethe is never refused."`
	MaxRegionStates *int64 `placeholder:"N" help:"Largest number of joint states (product of cardinalities) of a root region (0: no limit). Not given: 4096 for cycles and auto, no limit for the other schemes; applied like --max-region-vars."`
	Out             string `required:"" type:"path" help:"Output directory: regions.parquet."`
}

// Validate rejects negative bounds as usage errors.
func (r *root) Validate() error {
	if r.MaxRegionVars != nil && *r.MaxRegionVars < 0 {
		return errors.New("--max-region-vars must be >= 0 (0: no limit)")
	}
	if r.MaxRegionStates != nil && *r.MaxRegionStates < 0 {
		return errors.New("--max-region-states must be >= 0 (0: no limit)")
	}
	return nil
}

func (r *root) Run() error {
	return buildregions.Run(buildregions.Params{Models: r.Models, Scheme: r.Scheme,
		MaxRegionVars: r.MaxRegionVars, MaxRegionStates: r.MaxRegionStates}, r.Out, os.Stdout)
}

func main() {
	cli.Main("build-regions", "Build region graphs (cluster variation method with counting numbers).", &root{})
}
