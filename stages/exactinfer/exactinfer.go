// Package exactinfer is the exact-infer stage: ground-truth log partition
// functions and marginals of every model of a directory, by the registered
// method "exact".
package exactinfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the exact-infer parameters.
type Params struct {
	Models  string        `json:"models"`
	Options exact.Options `json:"options"`
	// UAIOut, when set, is the directory of the UAI result files
	// exact/<name>.uai.MAR and exact/<name>.uai.PR (stageio.UAIOut).
	UAIOut string `json:"uai_out,omitempty"`
	// Overwrite lets the UAI result files replace those of another run.
	Overwrite bool `json:"overwrite,omitempty"`
	// PlanOnly prints every model's plan and its cost and solves nothing
	// (no output files).
	PlanOnly bool `json:"plan_only,omitempty"`
	// SkipTooWide skips a model whose plan does not fit the options'
	// bounds (TooWide), recording it, instead of failing the stage: a
	// folder of models gets the exact answers that fit.
	SkipTooWide bool `json:"skip_too_wide,omitempty"`
}

// Skipped is a model exact-infer left out under SkipTooWide, and why.
type Skipped struct {
	ModelID int32  `json:"model_id"`
	Model   string `json:"model"`
	Error   string `json:"error"`
}

// TooWide reports whether err says that a model's plan does not fit the
// bounds of exact.Options (a table over max_table, a peak over
// max_memory, an estimated time over max_planned_seconds): a refusal
// before any allocation, not a failure.
func TooWide(err error) bool {
	var table *exact.TableTooLargeError
	var memory *exact.MemoryTooLargeError
	var slow *exact.TooSlowError
	return errors.As(err, &table) || errors.As(err, &memory) || errors.As(err, &slow)
}

// uai is where the UAI result files of a run into out go.
func (p Params) uai(out string) stageio.UAIOut {
	return stageio.UAIOut{Dir: p.UAIOut, Out: out, Stage: "exact-infer", Overwrite: p.Overwrite}
}

// Check validates p before any file is read.
func (p Params) Check() error {
	if err := p.Options.Check(); err != nil {
		return err
	}
	return p.uai("").Check()
}

// Run solves every model of p.Models exactly (but those too wide, with
// p.SkipTooWide: listed in the provenance as "skipped" and at the end of the
// table), writes marginals.parquet and
// estimates.parquet into out (and the UAI result files into p.UAIOut when
// set, refusing before any model is solved to replace those of another run:
// a *stageio.UAIConflictError), and prints a short table to w, then how
// many answers passed the shared check and converged. Cancelled, it keeps
// the models solved before in out/partial/ (stageio.KeepPartial).
func Run(ctx context.Context, p Params, out string, w io.Writer) error {
	sv, err := newSolving(p, out)
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
	if err := p.uai(out).Claim([]string{sv.name}, models); err != nil {
		return err
	}
	sv.inputs = inputs
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tname\tln Z\tseconds\tlargest table\t")
	if done, err := sv.solveAll(ctx, models, tw); err != nil || !done {
		tw.Flush()
		return err
	}
	return sv.write(models, tw, w)
}

// solving is exact-infer's run over a models file: its method, and the
// answers and skipped models so far.
type solving struct {
	p       Params
	out     string
	name    string
	opts    *methods.Options
	method  infer.Method
	inputs  []string
	current stageio.Model // the model being solved, for the plan's log line
	marg    []formats.MarginalRow
	est     []formats.EstimateRow
	skipped []Skipped
	// releaseAbove is the heap size in bytes beyond which a model's solve
	// hands its memory back before the next model starts.
	releaseAbove uint64
}

// newSolving returns the run's state with the registry's exact method
// built from p's options.
func newSolving(p Params, out string) (*solving, error) {
	entry, err := methods.Lookup("exact")
	if err != nil {
		return nil, err
	}
	sv := &solving{p: p, out: out, name: entry.Name, releaseAbove: stageio.ReleaseAbove}
	o := p.Options
	o.OnPlan = func(plan *exact.Plan) { logPlan(sv.current, plan) }
	if sv.opts, err = entry.With(o); err != nil {
		return nil, err
	}
	if sv.method, err = entry.New(sv.opts, nil); err != nil {
		return nil, err
	}
	return sv, nil
}

// solveAll solves every model, a line each to tw. On an interruption it
// keeps the models finished (stageio.Finished) and reports done false.
func (sv *solving) solveAll(ctx context.Context, models []stageio.Model, tw io.Writer) (done bool, err error) {
	p := sv.p
	for k, e := range models {
		if ctx.Err() != nil {
			f := stageio.Finished{Stage: "exact-infer", Params: p, Seed: p.Options.Seed, Inputs: sv.inputs,
				Done: k, Of: len(models), Unit: "models", Marg: sv.marg, Est: sv.est}
			return false, f.Keep(ctx.Err(), sv.out)
		}
		sv.current = e
		start := time.Now()
		res, err := sv.method.Infer(ctx, e.Model)
		if err != nil && p.SkipTooWide && TooWide(err) {
			sv.skipped = append(sv.skipped, Skipped{ModelID: e.ID, Model: e.Info.Name, Error: err.Error()})
			fmt.Fprintf(tw, "%d\t%s\tskipped\t\t\t\n", e.ID, e.Info.Name)
			slog.Warn("skipped", "model", e.ID, "name", e.Info.Name, "error", err)
			continue
		}
		if err != nil {
			return false, fmt.Errorf("%s: model %d (%s): %w", p.Models, e.ID, e.Info.Name, err)
		}
		secs := time.Since(start).Seconds()
		sv.marg = append(sv.marg, stageio.MarginalRows(e.ID, sv.name, e.Model, res.Marginals)...)
		sv.est = append(sv.est, stageio.EstimateRow(e.ID, sv.name, res, secs, sv.opts, ""))
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.3f\t2^%.1f\t\n", e.ID, e.Info.Name, lnZ(res.LogZ), secs, math.Log2(res.Diagnostics["largest_table"]))
		slog.Debug("solved", "model", e.ID, "seconds", secs)
		stageio.ReleaseHeap(sv.releaseAbove)
	}
	return true, nil
}

// write commits the answers (Parquet and UAI files), then prints the
// table, the models skipped and the UAI files' summary.
func (sv *solving) write(models []stageio.Model, tw *tabwriter.Writer, w io.Writer) error {
	p, out := sv.p, sv.out
	// The parameters, and the models skipped as too wide.
	record := struct {
		Params
		Skipped []Skipped `json:"skipped,omitempty"`
	}{p, sv.skipped}
	prov, err := stageio.Provenance("exact-infer", record, p.Options.Seed, sv.inputs)
	if err != nil {
		return err
	}
	uai, answers, err := p.uai(out).Outputs([]string{sv.name}, models, sv.marg, sv.est)
	if err != nil {
		return err
	}
	if err := stageio.Commit(out, append([]stageio.Output{
		{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, sv.marg, prov) }},
		{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, sv.est, prov) }},
	}, uai...)...); err != nil {
		return err
	}
	if err := stageio.RemovePartial(out); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, sk := range sv.skipped {
		fmt.Fprintf(w, "skipped model %d (%s): %s\n", sk.ModelID, sk.Model, sk.Error)
	}
	stageio.WriteUAISummary(w, p.UAIOut, answers)
	return nil
}

// lnZ writes ln Z to six decimals, and a value that rounds to zero as 0:
// a normalised model (a Bayes net without evidence) has ln Z = 0 up to
// rounding, which %.6f prints as -0.000000.
func lnZ(v float64) string {
	s := strconv.FormatFloat(v, 'f', 6, 64)
	if s == "-0.000000" || s == "0.000000" {
		return "0"
	}
	return s
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
