// Command sample-model generates Ising models, imports UAI models, and draws
// exact samples from models. Run 'sample-model --help' for the flags.
package main

import (
	"fmt"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/samplemodel"
)

type isingCmd struct {
	Graph string  `enum:"grid,torus,complete" default:"grid" help:"Graph: grid (L x L, open boundary), torus (L x L, wrapped) or complete (K_n)."`
	Size  int     `required:"" help:"Grid side L (n = L*L nodes), or the number of nodes n of a complete graph."`
	Gamma float64 `default:"1" help:"Standard deviation of the fields: h_i ~ N(0, gamma^2). Couplings are J_ij ~ N(0, 1)."`
	Count int     `default:"1" help:"Number of models; model k uses a seed derived from --seed and k."`
	Seed  int64   `default:"1" help:"Base seed (math/rand/v2 PCG, the same models on every machine)."`
	Out   string  `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet."`
}

func (c *isingCmd) Run() error {
	return samplemodel.Ising(samplemodel.IsingParams{Graph: c.Graph, Size: c.Size, Gamma: c.Gamma, Count: c.Count, Seed: c.Seed}, c.Out)
}

type uaiCmd struct {
	In   string `required:"" type:"existingfile" help:"UAI model file (MARKOV or BAYES)."`
	Evid string `type:"existingfile" help:"Evidence file (.evid); observed variables become point masses."`
	Case int    `default:"0" help:"Which evidence case to apply when the evidence file holds several."`
	Out  string `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet."`
}

func (c *uaiCmd) Run() error {
	return samplemodel.UAI(samplemodel.UAIParams{In: c.In, Evid: c.Evid, Case: c.Case}, c.Out)
}

type dataCmd struct {
	Models   string `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	Train    int    `default:"4000" help:"Training samples per model."`
	Test     int    `default:"1000" help:"Test samples per model."`
	Seed     int64  `default:"1" help:"Base seed; model k uses a seed derived from it and k."`
	MaxTable int64  `default:"268435456" help:"Largest table (entries) exact sampling may build; >= 1."`
	Out      string `required:"" type:"path" help:"Output directory: samples.parquet."`
}

// Validate makes a table bound below one a usage error (exit 2).
func (c *dataCmd) Validate() error {
	if c.MaxTable < 1 {
		return fmt.Errorf("--max-table %d, want >= 1", c.MaxTable)
	}
	return nil
}

func (c *dataCmd) Run() error {
	return samplemodel.Data(samplemodel.DataParams{Models: c.Models, Train: c.Train, Test: c.Test, Seed: c.Seed, MaxTable: c.MaxTable}, c.Out)
}

var grammar struct {
	Ising isingCmd `cmd:"" help:"Generate Ising models (paper section 5.1)."`
	UAI   uaiCmd   `cmd:"" name:"uai" help:"Import a UAI model, with optional evidence."`
	Data  dataCmd  `cmd:"" help:"Draw exact train/test samples from every model of a directory."`
}

func main() {
	cli.Main("sample-model", "Make models and data sets for the RENN toolchain.", &grammar)
}
