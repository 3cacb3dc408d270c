// Package baselines is the run-baselines stage: registered inference methods
// (by default mean field, loopy BP, damped BP, GBP) on every model of a
// directory.
//
// Every (model, method) run is isolated: a run that fails (its method
// returns an error) is logged and reported, and the runs that finished are
// written all the same, with the failures listed in the provenance
// ("failed"). The stage fails only if every run failed, or with
// Params.Strict if any did; then nothing is written. A cancelled context
// stops everything; the runs finished before are kept in out/partial/
// (stageio.KeepPartial).
package baselines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/renn-go/renn/core/infer"
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
	// Strict makes any failed run fail the stage; by default only a stage
	// where every run failed does.
	Strict bool `json:"strict,omitempty"`
	// UAIOut, when set, is the directory of the UAI result files: each
	// method's in UAIOut/<method>/ (stageio.UAIOut).
	UAIOut string `json:"uai_out,omitempty"`
	// Overwrite lets the UAI result files replace those of another run.
	Overwrite bool `json:"overwrite,omitempty"`
	// Name, when set, is the method name written to the outputs in place
	// of the one method's registry name (e.g. gbp-blocks3 for GBP on
	// another region graph, scored beside plain gbp). Only with one method.
	Name string `json:"name,omitempty"`
}

// Failure is a (model, method) run whose method returned an error.
type Failure struct {
	ModelID int32  `json:"model_id"`
	Model   string `json:"model"` // the model's name
	Method  string `json:"method"`
	Error   string `json:"error"`
}

func (f Failure) String() string {
	return fmt.Sprintf("model %d (%s) %v", f.ModelID, f.Model, infer.Named(f.Method, errors.New(f.Error)))
}

// Options resolves the methods' options: their defaults with p.Set applied,
// checked.
func (p Params) Options() (map[string]*methods.Options, error) {
	if len(p.Methods) == 0 {
		return nil, fmt.Errorf("no methods given")
	}
	return methods.Resolve(p.Methods, p.Set, false)
}

// Check validates p before any file is read: its methods and options, and
// the --regions that region methods need.
func (p Params) Check() error {
	_, err := p.check()
	return err
}

// check validates p and returns the methods' options, checked once.
func (p Params) check() (map[string]*methods.Options, error) {
	opts, err := p.Options()
	if err != nil {
		return nil, err
	}
	return opts, p.checkRest()
}

// checkRest validates the parameters besides the methods' options.
func (p Params) checkRest() error {
	if need := regionMethod(p.Methods); need != "" && p.Regions == "" {
		return fmt.Errorf("method %s needs --regions (the output of build-regions)", need)
	}
	if p.Name != "" && len(p.Methods) != 1 {
		return fmt.Errorf("--name %s names one method's outputs, but %d methods are given (%s)", p.Name, len(p.Methods), strings.Join(p.Methods, ","))
	}
	if p.Name != "" && strings.TrimSpace(p.Name) != p.Name {
		return fmt.Errorf("--name %q has leading or trailing white space", p.Name)
	}
	return p.uai("").Check()
}

// uai is where the UAI result files of a run into out go.
func (p Params) uai(out string) stageio.UAIOut {
	return stageio.UAIOut{Dir: p.UAIOut, Out: out, Stage: "run-baselines", Overwrite: p.Overwrite}
}

// labels are the method names written to the outputs.
func (p Params) labels() []string {
	var out []string
	for _, name := range p.Methods {
		out = append(out, p.label(name))
	}
	return out
}

// label is the method name written to the outputs for method name.
func (p Params) label(name string) string {
	if p.Name != "" {
		return p.Name
	}
	return name
}

// regionMethod returns the first of names that runs on the caller's region
// graph, or "".
func regionMethod(names []string) string {
	for _, name := range names {
		if e, err := methods.Lookup(name); err == nil && e.Regions == methods.AnyRegions {
			return name
		}
	}
	return ""
}

// Run runs every method on every model and writes marginals.parquet,
// estimates.parquet and stderrs.parquet (the standard errors of the Monte
// Carlo methods' variable marginals, and of pt's ln Z; no rows without such
// a method) into out, with every run that finished, and their UAI
// result files into p.UAIOut when set. Failed runs are logged as they
// happen and summarised on w, then the answers that failed the shared check
// or did not converge, and how their UAI files say so
// (stageio.WriteUAISummary). Run returns an error, and writes nothing, if
// every run failed, if p.Strict and any did, if the UAI files would replace
// those of another run (a *stageio.UAIConflictError, checked before any
// method runs) or if ctx was cancelled.
func Run(ctx context.Context, p Params, out string, w io.Writer) error {
	return defaultDeps().run(ctx, p, out, w)
}

// deps are what Run takes from outside the stage: how outputs are committed
// and how a method is built. Tests pass ones that fail.
type deps struct {
	commit    func(dir string, outs ...stageio.Output) error
	newMethod func(entry *methods.Entry, opts *methods.Options, g *region.Graph) (infer.Method, error)
	// releaseAbove is the heap size in bytes beyond which a run hands its
	// memory back before the next one starts (stageio.ReleaseHeap).
	releaseAbove uint64
}

// defaultDeps commits with stageio.Commit and builds methods from the registry.
func defaultDeps() deps {
	return deps{commit: stageio.Commit, newMethod: (*methods.Entry).New, releaseAbove: stageio.ReleaseAbove}
}

// run is Run with the dependencies d.
func (d deps) run(ctx context.Context, p Params, out string, w io.Writer) error {
	opts, err := p.check()
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
	if err := p.uai(out).Claim(p.labels(), models); err != nil {
		return err
	}
	var r runRows
	// interrupted keeps the runs finished before an interruption.
	interrupted := func() error {
		f := stageio.Finished{Stage: "run-baselines", Params: p, Inputs: inputs, Done: len(r.est), Of: len(models) * len(p.Methods),
			Unit: "runs", Marg: r.marg, Est: r.est, More: func(prov formats.Provenance) []stageio.Output {
				return []stageio.Output{{Name: formats.StderrsFile, Write: func(path string) error { return formats.WriteStderrs(path, r.seRows, prov) }}}
			}}
		return f.Keep(ctx.Err(), out)
	}
	for _, e := range models {
		for _, name := range p.Methods {
			if ctx.Err() != nil {
				return interrupted()
			}
			label := p.label(name)
			start := time.Now()
			res, g, se, err := d.runOne(ctx, name, opts[name], e, graphs)
			stageio.ReleaseHeap(d.releaseAbove)
			if err != nil {
				if ctx.Err() != nil { // cancelled: stop everything, keep what finished
					return interrupted()
				}
				slog.Error("failed", "model", e.ID, "name", e.Info.Name, "method", label, "error", err)
				r.failed = append(r.failed, Failure{ModelID: e.ID, Model: e.Info.Name, Method: label, Error: err.Error()})
				continue
			}
			r.add(e, label, res, g, se, opts[name], time.Since(start).Seconds())
		}
	}
	if err := summarise(w, p, r.failed, len(models)*len(p.Methods)); err != nil {
		return err
	}
	return d.write(p, out, w, opts, inputs, models, &r)
}

// runRows are the output rows of the runs finished so far, and the runs
// that failed.
type runRows struct {
	marg   []formats.MarginalRow
	est    []formats.EstimateRow
	seRows []formats.StderrRow
	failed []Failure
}

// add records the answer res of method label on model e, run on region
// graph g in secs seconds with options opts.
func (r *runRows) add(e stageio.Model, label string, res *infer.Result, g *region.Graph, se stderrs, opts *methods.Options, secs float64) {
	r.marg = append(r.marg, stageio.MarginalRows(e.ID, label, e.Model, res.Marginals)...)
	r.est = append(r.est, stageio.EstimateRow(e.ID, label, res, secs, opts, scheme(g)))
	for i, v := range se.vars {
		r.seRows = append(r.seRows, formats.StderrRow{ModelID: e.ID, Method: label, Kind: formats.StderrVar, Index: int32(i), Stderr: v})
	}
	if se.logZ != nil {
		r.seRows = append(r.seRows, formats.StderrRow{ModelID: e.ID, Method: label, Kind: formats.StderrLogZ, Stderr: []float64{*se.logZ}})
	}
	slog.Info("inferred", "model", e.ID, "method", label, "iterations", res.Iterations, "status", res.Status,
		"log_z", res.LogZ, "seconds", fmt.Sprintf("%.3f", secs))
}

// write commits the rows of r into out with their provenance, and the UAI
// result files when p.UAIOut is set, then summarises the answers on w.
func (d deps) write(p Params, out string, w io.Writer, opts map[string]*methods.Options, inputs []string, models []stageio.Model, r *runRows) error {
	// The parameters as given, every method's options as they ran, and the
	// runs that failed.
	record := struct {
		Params
		Options map[string]*methods.Options `json:"method_options"`
		Failed  []Failure                   `json:"failed,omitempty"`
	}{p, opts, r.failed}
	prov, err := stageio.Provenance("run-baselines", record, 0, inputs)
	if err != nil {
		return err
	}
	uai, answers, err := p.uai(out).Outputs(p.labels(), models, r.marg, r.est)
	if err != nil {
		return err
	}
	if err := d.commit(out, append([]stageio.Output{
		{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, r.marg, prov) }},
		{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, r.est, prov) }},
		// Always written, empty without a Monte Carlo method, so that no
		// earlier run's file is carried over beside the new marginals.
		{Name: formats.StderrsFile, Write: func(path string) error { return formats.WriteStderrs(path, r.seRows, prov) }},
	}, uai...)...); err != nil {
		return err
	}
	stageio.WriteUAISummary(w, p.UAIOut, answers)
	return stageio.RemovePartial(out)
}

// runOne runs method name on model e, a fresh method per model: warm starts
// belong to learning, not to a comparison, where they would make results
// depend on order. It returns the result, the region graph it ran on, and
// the Monte Carlo standard errors if the method gives them.
func (d deps) runOne(ctx context.Context, name string, opts *methods.Options, e stageio.Model, graphs map[int32]*region.Graph) (*infer.Result, *region.Graph, stderrs, error) {
	entry, err := methods.Lookup(name)
	if err != nil {
		return nil, nil, stderrs{}, err
	}
	g, err := regionGraph(entry, e, graphs)
	if err != nil {
		return nil, nil, stderrs{}, err
	}
	m, err := d.newMethod(entry, opts, g)
	if err != nil {
		return nil, nil, stderrs{}, err
	}
	res, err := m.Infer(ctx, e.Model)
	if err != nil {
		return nil, nil, stderrs{}, err
	}
	return res, g, standardErrors(m), nil
}

// stderrs are the standard errors of a method's last answer: of its
// variable marginals (infer.StandardErrors; nil if it gives none) and of
// its ln Z (infer.LogZStandardError; nil if it gives none or makes no claim
// on ln Z).
type stderrs struct {
	vars [][]float64
	logZ *float64
}

// standardErrors returns the standard errors of m's last answer, looking
// inside the registry's wrapper.
func standardErrors(m infer.Method) stderrs {
	var se stderrs
	if v, ok := unwrapAs[infer.StandardErrors](m); ok {
		se.vars = v.StandardErrors()
	}
	if v, ok := unwrapAs[infer.LogZStandardError](m); ok {
		if c, ok := unwrapAs[infer.LogZClaim](m); !ok || c.ClaimsLogZ() {
			lz := v.LogZStandardError()
			se.logZ = &lz
		}
	}
	return se
}

// unwrapAs returns m, or the first method it wraps (the registry's
// wrapper), that implements T.
func unwrapAs[T any](m infer.Method) (T, bool) {
	for {
		if v, ok := m.(T); ok {
			return v, true
		}
		u, ok := m.(interface{ Unwrap() infer.Method })
		if !ok {
			var zero T
			return zero, false
		}
		m = u.Unwrap()
	}
}

// summarise writes the failed runs to w and returns the stage's error: every
// run failed, or strict and some did.
func summarise(w io.Writer, p Params, failed []Failure, runs int) error {
	if len(failed) == 0 {
		return nil
	}
	fmt.Fprintf(w, "%d of %d runs failed:\n", len(failed), runs)
	for _, f := range failed {
		fmt.Fprintf(w, "  %s\n", f)
	}
	switch {
	case len(failed) == runs:
		return fmt.Errorf("%s: every run failed (%d), the first: %s", p.Models, runs, failed[0])
	case p.Strict:
		return fmt.Errorf("%s: %d of %d runs failed (--strict: nothing written), the first: %s", p.Models, len(failed), runs, failed[0])
	}
	fmt.Fprintf(w, "the other %d runs are written (--strict would fail the stage)\n", runs-len(failed))
	return nil
}

// loadRegions reads --regions when a method runs on the caller's region
// graph.
func loadRegions(p Params, models []stageio.Model, inputs []string) (map[int32]*region.Graph, []string, error) {
	need := regionMethod(p.Methods)
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
