// Package baselines is the run-baselines stage: registered inference methods
// (by default mean field, loopy BP, damped BP, GBP) on every model of a
// directory.
package baselines

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the run-baselines parameters.
type Params struct {
	Models  string   `json:"models"`
	Regions string   `json:"regions,omitempty"`
	Methods []string `json:"methods"`
	// Set holds method options as NAME=VALUE (every selected method with
	// that option) or METHOD.NAME=VALUE; see methods.Resolve.
	Set []string `json:"set,omitempty"`
	// UAIOut, when set, is the directory of the UAI result files: each
	// method's in UAIOut/<method>/ (stageio.UAIOutputs).
	UAIOut string `json:"uai_out,omitempty"`
}

// Options resolves the methods' options: their defaults with p.Set applied,
// checked.
func (p Params) Options() (map[string]*methods.Options, error) {
	if len(p.Methods) == 0 {
		return nil, fmt.Errorf("no methods given")
	}
	return methods.Resolve(p.Methods, p.Set, false)
}

// Run runs every method on every model and writes marginals.parquet and
// estimates.parquet into out, and the UAI result files into p.UAIOut when
// set.
func Run(ctx context.Context, p Params, out string) error {
	opts, err := p.Options()
	if err != nil {
		return err
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	graphs, inputs, err := loadRegions(p, models, inputs)
	if err != nil {
		return err
	}
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range models {
		for _, name := range p.Methods {
			entry, _ := methods.Lookup(name)
			g, err := regionGraph(entry, e, graphs)
			if err != nil {
				return err
			}
			// A fresh method per model: warm starts belong to learning, not to
			// a comparison, where they would make results depend on order.
			m, err := entry.New(opts[name], g)
			if err != nil {
				return fmt.Errorf("%s: model %d (%s): %w", p.Models, e.ID, e.Info.Name, err)
			}
			start := time.Now()
			res, err := m.Infer(ctx, e.Model)
			if err != nil {
				return fmt.Errorf("%s: model %d (%s): %s: %w", p.Models, e.ID, e.Info.Name, name, err)
			}
			secs := time.Since(start).Seconds()
			marg = append(marg, stageio.MarginalRows(e.ID, name, e.Model, res.Marginals)...)
			est = append(est, stageio.EstimateRow(e.ID, name, res, secs, opts[name], scheme(g)))
			slog.Info("inferred", "model", e.ID, "method", name, "iterations", res.Iterations, "converged", res.Converged,
				"log_z", res.LogZ, "seconds", fmt.Sprintf("%.3f", secs))
		}
	}
	// The parameters as given, and every method's options as they ran.
	record := struct {
		Params
		Options map[string]*methods.Options `json:"method_options"`
	}{p, opts}
	prov, err := stageio.Provenance("run-baselines", record, 0, inputs)
	if err != nil {
		return err
	}
	uai, err := stageio.UAIOutputs(p.UAIOut, true, models, marg, est)
	if err != nil {
		return err
	}
	return stageio.Commit(out, append([]stageio.Output{
		{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, marg, prov) }},
		{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, est, prov) }},
	}, uai...)...)
}

// loadRegions reads --regions when a method runs on the caller's region
// graph.
func loadRegions(p Params, models []stageio.Model, inputs []string) (map[int32]*region.Graph, []string, error) {
	var need string
	for _, name := range p.Methods {
		if e, _ := methods.Lookup(name); e.Regions == methods.AnyRegions {
			need = name
			break
		}
	}
	if need == "" {
		return nil, inputs, nil
	}
	if p.Regions == "" {
		return nil, nil, fmt.Errorf("method %s needs --regions (the output of build-regions)", need)
	}
	graphs, rpath, err := stageio.LoadRegions(p.Regions, models)
	if err != nil {
		return nil, nil, err
	}
	return graphs, append(inputs, rpath), nil
}

// regionGraph returns the region graph entry runs on for model e.
func regionGraph(entry *methods.Entry, e stageio.Model, graphs map[int32]*region.Graph) (*region.Graph, error) {
	switch entry.Regions {
	case methods.AnyRegions:
		return graphs[e.ID], nil
	case methods.BetheRegions:
		g, err := region.Build(e.Model, e.Info.Graph, region.Bethe)
		if err != nil {
			return nil, fmt.Errorf("model %d (%s): bethe region graph: %w", e.ID, e.Info.Name, err)
		}
		return g, nil
	}
	return nil, nil
}

func scheme(g *region.Graph) string {
	if g == nil {
		return ""
	}
	return g.Scheme
}
