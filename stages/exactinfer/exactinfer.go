// Package exactinfer is the exact-infer stage: ground-truth log partition
// functions and marginals of every model of a directory, by the registered
// method "exact".
package exactinfer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"text/tabwriter"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the exact-infer parameters.
type Params struct {
	Models  string        `json:"models"`
	Options exact.Options `json:"options"`
	// UAIOut, when set, is the directory of the UAI result files
	// <name>.uai.MAR and <name>.uai.PR (stageio.UAIOutputs).
	UAIOut string `json:"uai_out,omitempty"`
	// PlanOnly prints every model's plan and its cost and solves nothing
	// (no output files).
	PlanOnly bool `json:"plan_only,omitempty"`
}

// Run solves every model of p.Models exactly, writes marginals.parquet and
// estimates.parquet into out (and the UAI result files into p.UAIOut when
// set), and prints a short table to w.
func Run(p Params, out string, w io.Writer) error {
	entry, err := methods.Lookup("exact")
	if err != nil {
		return err
	}
	var current stageio.Model // the model being solved, for the plan's log line
	o := p.Options
	o.OnPlan = func(plan *exact.Plan) { logPlan(current, plan) }
	opts, err := entry.With(o)
	if err != nil {
		return err
	}
	method, err := entry.New(opts, nil)
	if err != nil {
		return err
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	if p.PlanOnly {
		return planOnly(models, p.Options, w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tname\tln Z\tseconds\tlargest table\t")
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range models {
		current = e
		start := time.Now()
		res, err := method.Infer(context.Background(), e.Model)
		if err != nil {
			return fmt.Errorf("%s: model %d (%s): %w", p.Models, e.ID, e.Info.Name, err)
		}
		secs := time.Since(start).Seconds()
		marg = append(marg, stageio.MarginalRows(e.ID, entry.Name, e.Model, res.Marginals)...)
		est = append(est, stageio.EstimateRow(e.ID, entry.Name, res, secs, opts, ""))
		fmt.Fprintf(tw, "%d\t%s\t%.6f\t%.3f\t2^%.1f\t\n", e.ID, e.Info.Name, res.LogZ, secs, math.Log2(res.Diagnostics["largest_table"]))
		slog.Debug("solved", "model", e.ID, "seconds", secs)
	}
	prov, err := stageio.Provenance("exact-infer", p, p.Options.Seed, inputs)
	if err != nil {
		return err
	}
	uai, err := stageio.UAIOutputs(p.UAIOut, false, models, marg, est)
	if err != nil {
		return err
	}
	if err := stageio.Commit(out, append([]stageio.Output{
		{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, marg, prov) }},
		{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, est, prov) }},
	}, uai...)...); err != nil {
		return err
	}
	return tw.Flush()
}

// logPlan writes a model's plan and its cost as a log line (stderr).
func logPlan(e stageio.Model, plan *exact.Plan) {
	slog.Info("plan", "model", e.ID, "name", e.Info.Name, "flops", fmt.Sprintf("2^%.1f", math.Log2(max(plan.Flops, 1))),
		"largest_table", fmt.Sprintf("2^%.1f", math.Log2(float64(plan.LargestTable))), "peak_memory_bytes", plan.PeakMemory,
		"slices", plan.Slices, "estimated_seconds", fmt.Sprintf("%.3g", plan.Seconds), "order", plan.Heuristic)
}

// planOnly prints every model's plan and its cost as a table; a model that
// would be refused shows its plan and the reason.
func planOnly(models []stageio.Model, opt exact.Options, w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tname\tflops\tlargest table\tpeak memory\tslices\test. seconds\torder\t")
	var refused []string
	for _, e := range models {
		plan, err := exact.Estimate(e.Model, opt)
		if plan == nil {
			return fmt.Errorf("model %d (%s): %w", e.ID, e.Info.Name, err)
		}
		logPlan(e, plan)
		fmt.Fprintf(tw, "%d\t%s\t2^%.1f\t2^%.1f\t%.1f MiB\t%d\t%.3g\t%s\t\n", e.ID, e.Info.Name, math.Log2(max(plan.Flops, 1)),
			math.Log2(float64(plan.LargestTable)), float64(plan.PeakMemory)/(1<<20), plan.Slices, plan.Seconds, plan.Heuristic)
		if err != nil {
			refused = append(refused, fmt.Sprintf("model %d (%s) would be refused: %v", e.ID, e.Info.Name, err))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range refused {
		fmt.Fprintln(w, r)
	}
	return nil
}
