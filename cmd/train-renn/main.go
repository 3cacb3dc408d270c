// Command train-renn runs RENN (or Inference Net) on every model of a
// directory. Run 'train-renn --help' for the flags.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/stageio"
	"github.com/renn-go/renn/stages/trainrenn"
)

// The defaults below are renn.DefaultOptions (a test checks that they agree).
type root struct {
	Models          string   `required:"" type:"existingdir" help:"Directory with models.parquet and model_info.parquet."`
	IDs             []string `name:"ids" help:"Model ids to run, comma-separated; ranges LO-HI allowed (0-4). All models when empty."`
	Regions         string   `type:"existingdir" help:"Directory with regions.parquet (from build-regions) for renn. Without it renn builds the --scheme region graph itself; infnet always builds the bethe graph and rejects this flag."`
	Scheme          string   `default:"auto" enum:"auto,bethe,faces,faces+outer,star,cycles" help:"Region graph renn builds when --regions is not given (see build-regions --help)."`
	Method          string   `default:"renn" enum:"renn,infnet" help:"renn (region free energy of the region graph) or infnet (Inference Net: the Bethe free energy, roots = factors)."`
	Name            string   `help:"Method name written to the outputs; default the method, with -direct appended for --net direct."`
	Net             string   `default:"attention" enum:"attention,direct" help:"attention (the paper's network) or direct (free logits per root region: an ablation without a network)."`
	Dim             int      `default:"32" help:"Embedding width d of the attention network (the paper's code: 200)."`
	Heads           int      `default:"1" help:"Attention heads; must divide --dim."`
	Scale           bool     `help:"Scale attention scores by 1/sqrt(d/heads) (the paper's code did not)."`
	BlockDepth      int      `name:"block-depth" default:"1" help:"Linear layers per residual block of the heads: 1, or 2 as in the paper's code (about twice the cost per step)."`
	Lambda          float64  `default:"5" help:"Weight lambda of the consistency penalty (the paper: 3, 5, 10 on grids; 1, 3, 5 on complete graphs)."`
	Constraint      string   `default:"auglag" enum:"auglag,penalty" help:"auglag: penalty plus Lagrange multipliers, so the beliefs end consistent (a stationary point of the region free energy, like GBP's); penalty: the paper's plain penalty, whose minimiser stays O(1/lambda) inconsistent (on complete graphs it scores better: use it there, with --lambda 3)."`
	MultiplierEvery int      `name:"multiplier-every" default:"20" help:"Steps between updates of the Lagrange multipliers (auglag)."`
	LR              float64  `default:"3e-3" help:"Initial Adam learning rate; it halves when the loss oscillates and grows back while it falls steadily."`
	MaxSteps        int      `name:"max-steps" default:"5000" help:"Cap on the optimisation steps per model."`
	Window          int      `default:"50" help:"Steps per window: the convergence test and the learning-rate rule run once per window."`
	Tol             float64  `default:"1e-6" help:"Converged when the window's mean of F + lambda*penalty changed by at most tol (relative) in two windows running ..."`
	ConsTol         float64  `name:"cons-tol" default:"1e-3" help:"... and no child belief differs from a parent's marginal by more than cons-tol (auglag only). Else the run stops at --max-steps, not converged."`
	Seed            int64    `default:"1" help:"Seed of the network's initialisation."`
	Out             string   `required:"" type:"path" help:"Output directory: marginals.parquet and estimates.parquet."`
}

func (r *root) params() (trainrenn.Params, error) {
	ids, err := stageio.ParseIDs(r.IDs)
	return trainrenn.Params{Models: r.Models, IDs: ids, Regions: r.Regions, Scheme: r.Scheme, Method: r.Method, Name: r.Name,
		Net: r.Net, Dim: r.Dim, Heads: r.Heads, Scale: r.Scale, BlockDepth: r.BlockDepth, Lambda: r.Lambda,
		Constraint: r.Constraint, MultiplierEvery: r.MultiplierEvery, LR: r.LR, MaxSteps: r.MaxSteps, Window: r.Window, Tol: r.Tol, ConsTol: r.ConsTol,
		Seed: r.Seed}, err
}

// Validate makes bad option values usage errors (exit 2).
func (r *root) Validate() error {
	p, err := r.params()
	if err != nil {
		return err
	}
	_, err = p.Options()
	return err
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
	cli.Main("train-renn", "RENN and Inference Net: region-based free energies minimised by a neural network.", &root{})
}
