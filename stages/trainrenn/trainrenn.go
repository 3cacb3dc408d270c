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
	"slices"
	"strings"
	"time"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the train-renn parameters.
type Params struct {
	Models  string  `json:"models"`
	IDs     []int32 `json:"ids,omitempty"` // models to run; all when empty
	Regions string  `json:"regions,omitempty"`
	// Scheme names the region graph RENN builds in-process when Regions is
	// empty.
	Scheme string `json:"scheme,omitempty"`
	Method string `json:"method"` // "renn" or "infnet"
	// Options are the network's options; Options.Name is the method name
	// written to the output files (see DefaultName).
	Options renn.Options `json:"options"`
	// UAIOut, when set, is the directory of the UAI result files
	// <method>/<name>.uai.MAR and .PR (stageio.UAIOut), <method> being
	// Options.Name.
	UAIOut string `json:"uai_out,omitempty"`
	// Overwrite lets the UAI result files replace those of another run.
	Overwrite bool `json:"overwrite,omitempty"`
	// Weights, when set, is a trained family network (train-renn
	// --amortize): every model starts from its answer (see Refine).
	Weights string `json:"weights,omitempty"`
	// Refine caps the refinement steps after the family network's forward
	// pass: 0 returns the forward pass, -1 refines up to Options.MaxSteps
	// (ignored without Weights).
	Refine int `json:"refine,omitempty"`
	// RefineBy is how a refined forward pass is refined (with Weights and
	// Refine != 0): renn.RefineGBP (GBP's updates from the forward pass's
	// messages, the gradient refinement when they do not converge) or
	// renn.RefineGradient (the message net's loop). Refine caps the sweeps
	// and the gradient steps alike; -1 means GBP's default sweep cap and
	// Options.MaxSteps.
	RefineBy string `json:"refine_by,omitempty"`
}

// Methods are the method names train-renn knows.
var Methods = []string{"renn-mp", "renn", "renn-direct", "infnet"}

// DefaultMethod is the method train-renn runs when none is given: RENN with
// the network that reads the model.
const DefaultMethod = "renn-mp"

// MethodDefaults returns the registry's default options of method, one of
// Methods.
func MethodDefaults(method string) (renn.Options, error) {
	if !slices.Contains(Methods, method) {
		return renn.Options{}, fmt.Errorf("unknown method %q (want one of %s)", method, strings.Join(Methods, ", "))
	}
	e, err := methods.Lookup(method)
	if err != nil {
		return renn.Options{}, err
	}
	return e.Options(false).Value().(renn.Options), nil
}

// ProgressEvery is the interval between progress lines while one model
// trains.
const ProgressEvery = 5 * time.Second

// DefaultName is the method name written for method with network net: the
// family (renn, or infnet for infnet) with "-mp" appended for the message
// net and "-direct" for the direct net, so networks never mix in score's
// tables.
func DefaultName(method, net string) string {
	family := "renn"
	if method == "infnet" {
		family = "infnet"
	}
	switch net {
	case "direct":
		return family + "-direct"
	case "message":
		return family + "-mp"
	}
	return family
}

// progress is the attributes of a progress line: the step against the cap
// (train-renn trains afresh per model, so the cap is MaxSteps), the window's
// mean loss and, with a time budget, the seconds against it.
func progress(id int32, o renn.Options, step int, loss, secs float64) []any {
	return []any{"model", id, "method", o.Name, "step", steps(step, o.MaxSteps), "loss", loss, "seconds", seconds(secs, o.MaxSeconds)}
}

// steps writes "k/cap".
func steps(k, limit int) string { return fmt.Sprintf("%d/%d", k, limit) }

// seconds writes the seconds taken, and "/budget" when there is a time
// budget.
func seconds(secs, budget float64) string {
	if budget > 0 {
		return fmt.Sprintf("%.1f/%g", secs, budget)
	}
	return fmt.Sprintf("%.3f", secs)
}

// entry returns the registry entry of p.Method and its options.
func (p Params) entry() (*methods.Entry, *methods.Options, error) {
	if !slices.Contains(Methods, p.Method) {
		return nil, nil, fmt.Errorf("unknown method %q (want one of %s)", p.Method, strings.Join(Methods, ", "))
	}
	e, err := methods.Lookup(p.Method)
	if err != nil {
		return nil, nil, err
	}
	o, err := e.With(p.Options)
	if err != nil {
		return nil, nil, err
	}
	return e, o, o.Check()
}

// Check validates p's options before any file is read.
func (p Params) Check() error {
	entry, _, err := p.entry()
	if err != nil {
		return err
	}
	if entry.Regions == methods.BetheRegions && p.Regions != "" {
		return fmt.Errorf("%s builds the bethe region graph itself and takes no --regions (got %s)", p.Method, p.Regions)
	}
	if err := p.uai("").Check(); err != nil {
		return err
	}
	if p.Weights != "" && p.Options.Net != "message" {
		return fmt.Errorf("--weights needs the message net (--method renn-mp), not --net %s", p.Options.Net)
	}
	if p.Refine < -1 {
		return fmt.Errorf("refine: %d, want >= 0, or -1 (up to --max-steps)", p.Refine)
	}
	if p.Refine > 0 && p.Weights == "" {
		return fmt.Errorf("refine: %d without --weights: refinement starts from a family network", p.Refine)
	}
	switch {
	case p.RefineBy != "" && p.Weights == "":
		return fmt.Errorf("refine-by: %s without --weights: refinement starts from a family network", p.RefineBy)
	case p.Weights != "" && p.Refine != 0 && p.RefineBy != renn.RefineGBP && p.RefineBy != renn.RefineGradient:
		return fmt.Errorf("refine-by: %q, want %s or %s", p.RefineBy, renn.RefineGBP, renn.RefineGradient)
	case p.Refine == 0 && p.RefineBy != "":
		return fmt.Errorf("refine-by: %s with --refine 0 (the forward pass only, nothing to refine)", p.RefineBy)
	}
	return nil
}

// Run trains a network on every model and writes marginals.parquet and
// estimates.parquet into out, and the UAI result files into p.UAIOut when
// set. The estimate's log Z is -F without the penalty; its params hold the
// options and the final penalty, loss and steps.
func Run(ctx context.Context, p Params, out string) error {
	entry, _, err := p.entry()
	if err != nil {
		return err
	}
	opts := p.Options
	if entry.Regions == methods.BetheRegions && p.Regions != "" {
		return fmt.Errorf("%s builds the bethe region graph itself and takes no --regions (got %s)", p.Method, p.Regions)
	}
	scheme := p.Scheme
	if entry.Regions == methods.BetheRegions {
		scheme = region.Bethe
	}
	if err := p.Check(); err != nil {
		return err
	}
	var weights *Weights
	if p.Weights != "" {
		if weights, err = LoadWeights(p.Weights); err != nil {
			return err
		}
		if p.Refine > 0 {
			opts.MaxSteps = p.Refine
		}
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	if weights != nil {
		inputs = append(inputs, weights.Path)
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
	if err := p.uai(out).Claim([]string{opts.Name}, models); err != nil {
		return err
	}
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	// interrupted keeps the models finished before an interruption.
	interrupted := func(done int) error {
		f := stageio.Finished{Stage: "train-renn", Params: p, Seed: p.Options.Seed, Inputs: inputs,
			Done: done, Of: len(models), Unit: "models", Marg: marg, Est: est}
		return f.Keep(ctx.Err(), out)
	}
	for k, e := range models {
		if ctx.Err() != nil {
			return interrupted(k)
		}
		g := graphs[e.ID]
		if g == nil {
			if g, err = region.Build(e.Model, e.Info.Graph, scheme); err != nil {
				return fmt.Errorf("%s: model %d (%s): region graph: %w", p.Models, e.ID, e.Info.Name, err)
			}
		}
		o := opts
		var start time.Time
		last := time.Now()
		o.Progress = func(step int, loss float64) {
			if time.Since(last) >= ProgressEvery {
				last = time.Now()
				slog.Info("training", progress(e.ID, opts, step, loss, time.Since(start).Seconds())...)
			}
		}
		var r infer.Method
		if weights != nil {
			if err := weights.Fits(e.ID, e.Info, e.Model, g); err != nil {
				return fmt.Errorf("%s: %w", p.Models, err)
			}
			by, sweeps := p.RefineBy, p.Refine
			switch {
			case p.Refine == 0:
				by = renn.RefineNone
			case p.Refine < 0:
				sweeps = gbp.DefaultOptions().MaxIter
			}
			fr, err := renn.NewFamilyInference(g, o, weights.Family, by, sweeps)
			if err != nil {
				return err
			}
			r = methods.Verified(fr)
		} else {
			mo, err := entry.With(o)
			if err != nil {
				return err
			}
			if r, err = entry.New(mo, g); err != nil {
				return err
			}
		}
		start = time.Now()
		res, err := r.Infer(ctx, e.Model)
		if err != nil && ctx.Err() != nil {
			return interrupted(k)
		}
		if err != nil {
			return fmt.Errorf("%s: model %d (%s): %w", p.Models, e.ID, e.Info.Name, infer.Named(opts.Name, err))
		}
		secs := time.Since(start).Seconds()
		marg = append(marg, stageio.MarginalRows(e.ID, opts.Name, e.Model, res.Marginals)...)
		est = append(est, stageio.EstimateRow(e.ID, opts.Name, res, secs, opts, g.Scheme))
		if weights != nil {
			est[len(est)-1].Params, err = withWeights(est[len(est)-1].Params, weights, p.Refine, p.RefineBy)
			if err != nil {
				return err
			}
		}
		slog.Info("trained", "model", e.ID, "method", opts.Name, "scheme", g.Scheme, "steps", steps(res.Iterations, opts.MaxSteps),
			"converged", res.Converged, "loss", res.Diagnostics["loss"], "penalty", res.Diagnostics["penalty"], "log_z", res.LogZ,
			"seconds", seconds(secs, opts.MaxSeconds), "time_limit", res.Diagnostics["time_limit"] == 1)
	}
	prov, err := stageio.Provenance("train-renn", p, p.Options.Seed, inputs)
	if err != nil {
		return err
	}
	uai, answers, err := p.uai(out).Outputs([]string{opts.Name}, models, marg, est)
	if err != nil {
		return err
	}
	if err := stageio.Commit(out, append([]stageio.Output{
		{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, marg, prov) }},
		{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, est, prov) }},
	}, uai...)...); err != nil {
		return err
	}
	logUAI(answers)
	return stageio.RemovePartial(out)
}

// uai is where the UAI result files of a run into out go.
func (p Params) uai(out string) stageio.UAIOut {
	return stageio.UAIOut{Dir: p.UAIOut, Out: out, Stage: "train-renn", Overwrite: p.Overwrite}
}

// logUAI logs the answers that failed the shared check or did not converge,
// with the UAI result files that say so.
func logUAI(answers []stageio.UAIAnswer) {
	for _, a := range answers {
		for _, f := range []struct {
			suffix string
			s      stageio.UAIStatus
		}{{formats.UAIResultMAR, a.MAR}, {formats.UAIResultPR, a.PR}} {
			if f.s.State == stageio.UAIConverged || a.Base == "" {
				continue
			}
			slog.Warn("UAI result file", "file", a.Base+"."+f.suffix, "model", a.ModelID, "method", a.Method, "status", f.s.String())
		}
	}
}
