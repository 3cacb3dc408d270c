// Command learn-mrf learns MRF parameters from exact samples with a chosen
// inference method in the loop (paper, section 4). Run 'learn-mrf --help'
// for the flags.
package main

import (
	"context"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/learnmrf"
	"github.com/renn-go/renn/stages/stageio"
)

// The flags' defaults are learnmrf.DefaultParams (see main).
type root struct {
	Samples string   `required:"" type:"path" folder:"sample-model data: samples.parquet" help:"Directory with samples.parquet (sample-model data): the train split is learned from, the test split scored."`
	Models  string   `required:"" type:"path" folder:"sample-model: models.parquet model_info.parquet" help:"Directory with the true models (models.parquet, model_info.parquet): their structure is learned; their parameters are never read."`
	IDs     []string `name:"ids" help:"Model ids to learn, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Method  string   ` help:"Inference method supplying ln Z and its gradient (see the list below): exact, mf, bp, dbp, gbp, infnet, renn, renn-mp, renn-direct; gibbs and pcd (persistent contrastive divergence: persistent Gibbs chains, --set chains=K --set sweeps=S per update) estimate no ln Z, so their train NLL is NaN and the plateau rule never stops them."`
	Param   string   `help:"Parameterisation: ising (one field per node, one coupling per edge; binary pairwise models), table (every log-potential entry), auto (ising when possible)."`

	Epochs    int     ` help:"Maximum number of epochs (passes over the training set)."`
	Batch     int     ` help:"Samples per parameter update; each update runs the method once, warm-started."`
	LR        float64 `name:"lr" help:"Step size of the parameter updates (Adam's learning rate)."`
	Optimizer string  `help:"adam, or sgd (plain gradient ascent)."`
	Decay     float64 ` help:"Step size decay: epoch e uses lr / (1 + decay*(e-1))."`
	Tol       float64 ` help:"Plateau rule: stop when the training NLL (per sample) changed by less than this in each of the last --patience epochs; negative: never stop early."`
	Patience  int     ` help:"Epochs of the plateau rule."`
	Guard     float64 ` help:"Breakdown check of warm-started methods: when the ln Z estimate falls below what the previous beliefs give on the new parameters, or below the log-sum-exp of the distinct training samples' scores (a lower bound on ln Z), by more than guard*max(1,|ln Z|), reset the method and rerun it. Negative: off."`
	Seed      int64   ` help:"Seed of the starting model and of the sample order (model k uses a seed derived from it and k)."`

	FieldStd    float64  `name:"field-std" help:"Starting fields ~ N(0, field-std^2); 0 means the true model's gamma (1 when it has none)."`
	CouplingStd float64  `name:"coupling-std" help:"Starting couplings (and higher-order table entries) ~ N(0, coupling-std^2); > 0."`
	MaxTable    int64    ` help:"Largest table (entries) the exact inference of the test NLL may build; >= 1 (method exact has its own max_table option)."`
	Scheme      string   ` help:"Region graph of region methods (gbp, renn): auto (faces on grids, star on complete graphs, cycles otherwise), faces, faces+outer, blocks3 (3x3 windows of a grid), star, cycles, bethe. infnet always uses bethe."`
	Set         []string `name:"set" placeholder:"NAME=VALUE" help:"Set an option of the method (repeatable), over its learning defaults listed below. Every value is honoured or rejected."`

	Weights          string `type:"path" placeholder:"W" help:"A trained family network (train-renn --amortize; directory with network.parquet, or the file): RENN starts every inference call from its forward pass instead of afresh. Needs the message net (--method renn-mp, or --method renn --set net=message) and models of the network's family."`
	FamilyRead       string `name:"family-read" placeholder:"WHEN" help:"With --weights: when RENN reads the model through the family network. start (the default): only when its net starts afresh; at every later parameter update the warm net keeps its messages and multipliers and reads the new model by the family's sweeps of message passing continued from the previous update's messages. every: the family network reads the model at every update (its sweeps from uniform messages; about 1.2x the CPU time per epoch of start on 15x15 grids, the same test NLL)."`
	ClampedExact     bool   `name:"clamped-exact" help:"Models with hidden variables: compute the clamped phase exactly (factorised where no factor holds two hidden variables, as in an RBM; else the junction tree per distinct visible vector) instead of with the learning method, which then supplies the free phase alone. Method exact always does; pcd does where factorised."`
	ClampedPerSample bool   `name:"clamped-per-sample" help:"Models with hidden variables: give every distinct visible training vector its own instance of the method for the clamped phase (warm-started from its own last state, one epoch earlier) instead of one instance for all vectors (warm-started from the previous vector)."`

	Out string `required:"" type:"path" help:"Output directory: models.parquet and model_info.parquet (the learned models) and curves.parquet."`
}

func (r *root) params() (learnmrf.Params, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	return learnmrf.Params{Samples: r.Samples, Models: r.Models, IDs: ids, Method: r.Method, Param: r.Param,
		Epochs: r.Epochs, Batch: r.Batch, LR: r.LR, Optimizer: r.Optimizer, Decay: r.Decay, Tol: r.Tol,
		Patience: r.Patience, Guard: r.Guard, Seed: r.Seed, FieldStd: r.FieldStd, CouplingStd: r.CouplingStd,
		MaxTable: r.MaxTable, Scheme: r.Scheme, Set: r.Set, Weights: r.Weights, FamilyRead: r.FamilyRead, ClampedPerSample: r.ClampedPerSample, ClampedExact: r.ClampedExact}, err
}

// Validate makes a malformed --ids, an unknown method and bad option values
// usage errors (exit 2).
func (r *root) Validate() error {
	p, err := r.params()
	if err != nil {
		return err
	}
	return p.Check()
}

func (r *root) Run(ctx context.Context, stdio cli.IO) error {
	p, err := r.params()
	if err != nil {
		return err
	}
	return learnmrf.Run(ctx, p, r.Out, stdio.Out)
}

func main() {
	cli.Main("learn-mrf", "Learn MRF parameters from samples with an inference method in the loop.\n\n"+
		"Methods and their options inside learning (NAME=DEFAULT), set with --set:\n\n"+methods.Usage(true), newRoot())
}

// newRoot holds learnmrf.DefaultParams: the flags take them as defaults.
func newRoot() *root {
	d := learnmrf.DefaultParams()
	return &root{Method: d.Method, Param: d.Param, Epochs: d.Epochs, Batch: d.Batch, LR: d.LR, Optimizer: d.Optimizer,
		Decay: d.Decay, Tol: d.Tol, Patience: d.Patience, Guard: d.Guard, Seed: d.Seed, FieldStd: d.FieldStd,
		CouplingStd: d.CouplingStd, MaxTable: d.MaxTable, Scheme: d.Scheme}
}
