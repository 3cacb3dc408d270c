// Package trainrenn is the train-renn stage: RENN, or Inference Net, on every
// model of a directory.
//
// RENN runs on the region graph of each model: the one in --regions (the
// output of build-regions) when given, else one built in-process with the
// scheme Params.Scheme. Inference Net is the same machinery on the bethe
// region graph, which the stage always builds in-process, so it takes no
// --regions. A fresh network is trained per model: warm starts belong to
// learning, not to a comparison, where they would make results depend on the
// order of the models.
package trainrenn

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/baselines"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the train-renn parameters. Zero numeric fields and empty
// strings take renn.DefaultOptions.
type Params struct {
	Models  string  `json:"models"`
	IDs     []int32 `json:"ids,omitempty"` // models to run; all when empty
	Regions string  `json:"regions,omitempty"`
	// Scheme names the region graph RENN builds in-process when Regions is
	// empty ("auto" by default).
	Scheme string `json:"scheme,omitempty"`
	Method string `json:"method"` // "renn" or "infnet"
	// Name is the method name written to the output files; empty means
	// Method, with "-direct" appended for the direct net, so an ablation
	// never mixes with the real method in score's tables.
	Name       string  `json:"name,omitempty"`
	Net        string  `json:"net"`
	Dim        int     `json:"dim"`
	Heads      int     `json:"heads"`
	Scale      bool    `json:"scale"`
	BlockDepth int     `json:"block_depth"`
	Lambda     float64 `json:"lambda"`
	Constraint string  `json:"constraint"`
	// MultiplierEvery is the number of steps between multiplier updates.
	MultiplierEvery int     `json:"multiplier_every"`
	LR              float64 `json:"lr"`
	MaxSteps        int     `json:"max_steps"`
	Window          int     `json:"window"`
	Tol             float64 `json:"tol"`
	ConsTol         float64 `json:"cons_tol"`
	Seed            int64   `json:"seed"`
}

// Methods are the method names train-renn knows.
var Methods = []string{"renn", "infnet"}

// ProgressEvery is the interval between progress lines while one model
// trains.
const ProgressEvery = 5 * time.Second

// Options returns the renn options of p, checked.
func (p Params) Options() (renn.Options, error) {
	if p.Method != "renn" && p.Method != "infnet" {
		return renn.Options{}, fmt.Errorf("unknown method %q (want renn or infnet)", p.Method)
	}
	o := renn.Options{Name: p.Name, Net: p.Net, Dim: p.Dim, Heads: p.Heads, Scale: p.Scale, BlockDepth: p.BlockDepth,
		Lambda: p.Lambda, Constraint: p.Constraint, MultiplierEvery: p.MultiplierEvery, LR: p.LR, MaxSteps: p.MaxSteps, Window: p.Window, Tol: p.Tol,
		ConsTol: p.ConsTol, Seed: p.Seed}
	if o.Name == "" {
		o.Name = p.Method
		if p.Net == "direct" {
			o.Name += "-direct"
		}
	}
	return o, o.Check()
}

// Run trains a network on every model and writes marginals.parquet and
// estimates.parquet into out. The estimate's log Z is -F without the penalty;
// its params hold the options and the final penalty, loss and steps.
func Run(ctx context.Context, p Params, out string) error {
	opts, err := p.Options()
	if err != nil {
		return err
	}
	if p.Method == "infnet" && p.Regions != "" {
		return fmt.Errorf("infnet builds the bethe region graph itself and takes no --regions (got %s)", p.Regions)
	}
	scheme := p.Scheme
	if p.Method == "infnet" {
		scheme = region.Bethe
	} else if scheme == "" {
		scheme = region.Auto
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	var graphs map[int32]*region.Graph
	if p.Regions != "" {
		var rpath string
		graphs, rpath, err = stageio.LoadRegions(p.Regions, models)
		if err != nil {
			return err
		}
		inputs = append(inputs, rpath)
	}
	if models, err = stageio.SelectModels(models, p.IDs, p.Models); err != nil {
		return err
	}
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range models {
		g := graphs[e.ID]
		if g == nil {
			if g, err = region.Build(e.Model, e.Info.Graph, scheme); err != nil {
				return fmt.Errorf("%s: model %d (%s): region graph: %w", p.Models, e.ID, e.Info.Name, err)
			}
		}
		o := opts
		last := time.Now()
		o.Progress = func(step int, loss float64) {
			if time.Since(last) >= ProgressEvery {
				last = time.Now()
				slog.Info("training", "model", e.ID, "method", opts.Name, "step", step, "loss", loss)
			}
		}
		r, err := renn.New(g, o)
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := r.Infer(ctx, e.Model)
		if err != nil {
			return fmt.Errorf("%s: model %d (%s): %s: %w", p.Models, e.ID, e.Info.Name, opts.Name, err)
		}
		secs := time.Since(start).Seconds()
		marg = append(marg, stageio.MarginalRows(e.ID, opts.Name, e.Model, res.Marginals)...)
		est = append(est, baselines.EstimateRow(e.ID, opts.Name, res, secs, r.Options()))
		slog.Info("trained", "model", e.ID, "method", opts.Name, "scheme", g.Scheme, "steps", res.Iterations,
			"converged", res.Converged, "loss", res.Diagnostics["loss"], "penalty", res.Diagnostics["penalty"], "log_z", res.LogZ,
			"seconds", fmt.Sprintf("%.3f", secs))
	}
	prov, err := stageio.Provenance("train-renn", p, p.Seed, inputs)
	if err != nil {
		return err
	}
	return stageio.Commit(out,
		stageio.Output{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, marg, prov) }},
		stageio.Output{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, est, prov) }},
	)
}
