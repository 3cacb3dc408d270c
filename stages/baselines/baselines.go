// Package baselines is the run-baselines stage: the classic inference methods
// (mean field, loopy BP, damped BP, GBP) on every model of a directory.
package baselines

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the run-baselines parameters. Zero values take each method's
// documented default.
type Params struct {
	Models     string   `json:"models"`
	Regions    string   `json:"regions,omitempty"`
	Methods    []string `json:"methods"`
	Tol        float64  `json:"tol"`
	MaxIter    int      `json:"max_iter"`
	Damping    float64  `json:"damping"`     // dbp's damping
	GBPDamping float64  `json:"gbp_damping"` // gbp's damping
	Seed       int64    `json:"seed"`
}

// Methods are the method names run-baselines knows.
var Methods = []string{"mf", "bp", "dbp", "gbp"}

// Run runs every method on every model and writes marginals.parquet and
// estimates.parquet into out.
func Run(ctx context.Context, p Params, out string) error {
	for _, name := range p.Methods {
		if !contains(Methods, name) {
			return fmt.Errorf("unknown method %q (want one of %s)", name, strings.Join(Methods, ", "))
		}
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	var graphs map[int32]*region.Graph
	if contains(p.Methods, "gbp") {
		if p.Regions == "" {
			return fmt.Errorf("method gbp needs --regions (the output of build-regions)")
		}
		var rpath string
		graphs, rpath, err = stageio.LoadRegions(p.Regions, models)
		if err != nil {
			return err
		}
		inputs = append(inputs, rpath)
	}
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range models {
		for _, name := range p.Methods {
			// A fresh method per model: warm starts belong to learning, not to
			// a comparison, where they would make results depend on order.
			m, opts, err := newMethod(name, p, graphs[e.ID])
			if err != nil {
				return err
			}
			start := time.Now()
			res, err := m.Infer(ctx, e.Model)
			if err != nil {
				return fmt.Errorf("%s: model %d (%s): %s: %w", p.Models, e.ID, e.Info.Name, name, err)
			}
			secs := time.Since(start).Seconds()
			marg = append(marg, stageio.MarginalRows(e.ID, name, e.Model, res.Marginals)...)
			est = append(est, EstimateRow(e.ID, name, res, secs, opts))
			slog.Info("inferred", "model", e.ID, "method", name, "iterations", res.Iterations, "converged", res.Converged,
				"log_z", res.LogZ, "seconds", fmt.Sprintf("%.3f", secs))
		}
	}
	prov, err := stageio.Provenance("run-baselines", p, p.Seed, inputs)
	if err != nil {
		return err
	}
	return stageio.Commit(out,
		stageio.Output{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, marg, prov) }},
		stageio.Output{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, est, prov) }},
	)
}

// EstimateRow records a method's result; params are the method's options and
// its diagnostics, as JSON.
func EstimateRow(id int32, method string, res *infer.Result, secs float64, opts any) formats.EstimateRow {
	js, _ := json.Marshal(map[string]any{"options": opts, "diagnostics": finite(res.Diagnostics)})
	return formats.EstimateRow{ModelID: id, Method: method, LogZ: res.LogZ, FreeEnergy: res.FreeEnergy,
		Iterations: int32(res.Iterations), Converged: res.Converged, Seconds: secs, Params: string(js)}
}

// finite drops values JSON cannot hold (NaN, ±Inf) and says so in their place.
func finite(d map[string]float64) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		if v != v || v > 1e308 || v < -1e308 {
			out[k] = fmt.Sprint(v)
		} else {
			out[k] = v
		}
	}
	return out
}

func newMethod(name string, p Params, g *region.Graph) (infer.Method, any, error) {
	switch name {
	case "mf":
		o := meanfield.DefaultOptions()
		setCommon(&o.Tol, &o.MaxIter, p)
		o.Seed = p.Seed
		m, err := meanfield.New(o)
		return m, o, err
	case "bp", "dbp":
		o := bp.DefaultOptions()
		if name == "dbp" {
			o = bp.DampedOptions()
			if p.Damping != 0 {
				o.Damping = p.Damping
			}
		}
		setCommon(&o.Tol, &o.MaxIter, p)
		m, err := bp.New(o)
		return m, o, err
	case "gbp":
		o := gbp.DefaultOptions()
		setCommon(&o.Tol, &o.MaxIter, p)
		if p.GBPDamping != 0 {
			o.Damping = p.GBPDamping
		}
		m, err := gbp.New(g, o)
		return m, o, err
	}
	return nil, nil, fmt.Errorf("unknown method %q", name)
}

func setCommon(tol *float64, maxIter *int, p Params) {
	if p.Tol != 0 {
		*tol = p.Tol
	}
	if p.MaxIter != 0 {
		*maxIter = p.MaxIter
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
