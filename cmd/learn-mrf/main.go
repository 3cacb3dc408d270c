// Command learn-mrf learns MRF parameters from exact samples with a chosen
// inference method in the loop (paper, section 4). Run 'learn-mrf --help'
// for the flags.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/learnmrf"
	"github.com/renn-go/renn/stages/stageio"
)

type root struct {
	Samples string   `required:"" type:"existingdir" help:"Directory with samples.parquet (sample-model data): the train split is learned from, the test split scored."`
	Models  string   `required:"" type:"existingdir" help:"Directory with the true models (models.parquet, model_info.parquet): their structure is learned; their parameters are never read."`
	IDs     []string `name:"ids" help:"Model ids to learn, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Method  string   `enum:"exact,mf,bp,dbp,gbp,infnet,renn" default:"exact" help:"Inference method supplying ln Z and its gradient: exact, mf (mean field), bp, dbp (damped BP), gbp, infnet (Inference Net: the network on the Bethe region graph), renn."`
	Param   string   `enum:"auto,ising,table" default:"auto" help:"Parameterisation: ising (one field per node, one coupling per edge; binary pairwise models), table (every log-potential entry), auto (ising when possible)."`

	Epochs    int     `default:"100" help:"Maximum number of epochs (passes over the training set)."`
	Batch     int     `default:"500" help:"Samples per parameter update; each update runs the method once, warm-started."`
	LR        float64 `name:"lr" default:"0.1" help:"Step size of the parameter updates (Adam's learning rate)."`
	Optimizer string  `enum:"adam,sgd" default:"adam" help:"adam, or sgd (plain gradient ascent)."`
	Decay     float64 `default:"0.05" help:"Step size decay: epoch e uses lr / (1 + decay*(e-1))."`
	Tol       float64 `default:"1e-3" help:"Plateau rule: stop when the training NLL (per sample) changed by less than this in each of the last --patience epochs; negative: never stop early."`
	Patience  int     `default:"3" help:"Epochs of the plateau rule."`
	Guard     float64 `default:"0.01" help:"Breakdown check of warm-started methods: when the ln Z estimate falls below what the previous beliefs give on the new parameters, or below the log-sum-exp of the distinct training samples' scores (a lower bound on ln Z), by more than guard*max(1,|ln Z|), reset the method and rerun it. Negative: off."`
	Seed      int64   `default:"1" help:"Seed of the starting model and of the sample order (model k uses a seed derived from it and k)."`

	FieldStd    float64 `name:"field-std" default:"0" help:"Starting fields ~ N(0, field-std^2); 0 uses the true model's gamma (1 when it has none)."`
	CouplingStd float64 `name:"coupling-std" default:"1" help:"Starting couplings (and higher-order table entries) ~ N(0, coupling-std^2)."`
	MaxTable    int64   `default:"268435456" help:"Largest table (entries) exact inference may build (test NLL and method exact)."`

	InferTol   float64 `name:"infer-tol" default:"0" help:"Convergence tolerance of mf, bp, dbp, gbp; 0 uses each method's default."`
	MaxIter    int     `default:"0" help:"Iteration cap per call of mf, bp, dbp, gbp; 0 uses each method's default."`
	Damping    float64 `default:"0.5" help:"Damping of dbp."`
	GBPDamping float64 `name:"gbp-damping" default:"0" help:"Damping of gbp; 0 uses gbp's default."`
	Scheme     string  `default:"auto" help:"Region graph of gbp and renn: auto (faces on grids, star on complete graphs, cycles otherwise), faces, faces+outer, star, cycles, bethe. infnet always uses bethe."`

	RennDim        int     `name:"renn-dim" default:"0" help:"Network width of renn and infnet; 0 uses renn's default."`
	RennLambda     float64 `name:"renn-lambda" default:"0" help:"Consistency penalty weight of renn and infnet; 0 uses renn's default."`
	RennConstraint string  `name:"renn-constraint" default:"" help:"Constraint handling of renn and infnet: auglag or penalty; empty uses renn's default."`
	RennLR         float64 `name:"renn-lr" default:"0" help:"Adam learning rate of the network; 0 uses renn's default."`
	RennMaxSteps   int     `name:"renn-max-steps" default:"1000" help:"Step cap of the first (cold) network optimisation."`
	RennWarmSteps  int     `name:"renn-warm-steps" default:"20" help:"Network steps per parameter update after the first (the min-max of the paper's eq. 6)."`
	RennWindow     int     `name:"renn-window" default:"20" help:"Steps between convergence checks (and multiplier updates) of the network."`
	RennSeed       int64   `name:"renn-seed" default:"1" help:"Seed of the network's initial weights."`

	Out string `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet (the learned models) and curves.parquet."`
}

// Validate makes a malformed --ids a usage error (exit 2).
func (r *root) Validate() error {
	_, err := stageio.ParseIDs(r.IDs)
	return err
}

func (r *root) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ids, err := stageio.ParseIDs(r.IDs)
	if err != nil {
		return err
	}
	p := learnmrf.Params{Samples: r.Samples, Models: r.Models, IDs: ids, Method: r.Method, Param: r.Param,
		Epochs: r.Epochs, Batch: r.Batch, LR: r.LR, Optimizer: r.Optimizer, Decay: r.Decay, Tol: r.Tol,
		Patience: r.Patience, Guard: r.Guard, Seed: r.Seed, FieldStd: r.FieldStd, CouplingStd: r.CouplingStd, MaxTable: r.MaxTable,
		InferTol: r.InferTol, MaxIter: r.MaxIter, Damping: r.Damping, GBPDamping: r.GBPDamping, Scheme: r.Scheme,
		RENN: learnmrf.RENNParams{Dim: r.RennDim, Lambda: r.RennLambda, Constraint: r.RennConstraint, LR: r.RennLR,
			MaxSteps: r.RennMaxSteps, WarmSteps: r.RennWarmSteps, Window: r.RennWindow, Seed: r.RennSeed}}
	return learnmrf.Run(ctx, p, r.Out, os.Stdout)
}

func main() {
	cli.Main("learn-mrf", "Learn MRF parameters from samples with an inference method in the loop.", &root{})
}
