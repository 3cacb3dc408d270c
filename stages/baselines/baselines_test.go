package baselines

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/exactinfer"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, regions := isingWithRegions(t, dir, "faces")
	truth := filepath.Join(dir, "exact")
	if err := exactinfer.Run(context.Background(), exactinfer.Params{Models: models, Options: exact.DefaultOptions()}, truth, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "baselines")
	if err := Run(context.Background(), Params{Models: models, Regions: regions, Methods: []string{"mf", "bp", "dbp", "gbp"}}, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 2*4 {
		t.Fatalf("%d estimates", len(est))
	}
	exact, _, _ := formats.ReadEstimates(filepath.Join(truth, formats.EstimatesFile))
	marg, _, _ := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
	truthMarg, _, _ := formats.ReadMarginals(filepath.Join(truth, formats.MarginalsFile))
	want := map[[2]int32][]float64{}
	for _, r := range truthMarg {
		if r.Kind == "var" {
			want[[2]int32{r.ModelID, r.Index}] = r.Probs
		}
	}
	// BP-type methods are reasonably close on this grid, GBP on plaquettes
	// the closest; mean field only promises a lower bound on ln Z.
	errs := map[string]float64{}
	for _, r := range marg {
		if r.Kind == "var" {
			errs[r.Method] = max(errs[r.Method], math.Abs(r.Probs[1]-want[[2]int32{r.ModelID, r.Index}][1]))
		}
	}
	for _, e := range est {
		if !e.Converged || !strings.Contains(e.Params, "diagnostics") {
			t.Errorf("%s on model %d: converged %v, params %s", e.Method, e.ModelID, e.Converged, e.Params)
		}
		if e.Method == "mf" {
			if e.LogZ > exact[e.ModelID].LogZ+1e-9 {
				t.Errorf("mf ln Z %.6f above exact %.6f", e.LogZ, exact[e.ModelID].LogZ)
			}
		} else if math.Abs(e.LogZ-exact[e.ModelID].LogZ) > 1 {
			t.Errorf("%s on model %d: ln Z %.3f vs exact %.3f", e.Method, e.ModelID, e.LogZ, exact[e.ModelID].LogZ)
		}
	}
	delete(errs, "mf")
	for m, e := range errs {
		if e > 0.2 || errs["gbp"] > e {
			t.Errorf("max |dP| %s %.3g (gbp %.3g)", m, e, errs["gbp"])
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 0.5, Count: 1, Seed: 3}, models); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Params{
		{Models: models, Methods: []string{"lbp"}},
		{Models: models, Methods: []string{"gbp"}},
		{Models: models, Methods: []string{"gbp"}, Regions: filepath.Join(dir, "none")},
		{Models: models, Methods: []string{"bp", "mf"}, Name: "two"},
		{Models: models, Methods: []string{"bp"}, Name: " bp2"},
	} {
		if err := Run(context.Background(), p, filepath.Join(dir, "out"), io.Discard); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

// TestName: --name writes the one method's results under the given name,
// on blocks3 regions as on any other.
func TestName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, regions := isingWithRegions(t, dir, "blocks3")
	out := filepath.Join(dir, "out")
	if err := Run(context.Background(), Params{Models: models, Regions: regions, Methods: []string{"gbp"}, Name: "gbp-blocks3"}, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	est, marg := readOutputs(t, out)
	if len(est) != 2 || len(marg) == 0 {
		t.Fatalf("%d estimates, %d marginal rows", len(est), len(marg))
	}
	for _, e := range est {
		if e.Method != "gbp-blocks3" || !strings.Contains(e.Params, `"blocks3"`) || !e.Converged {
			t.Errorf("estimate of model %d: method %q params %s converged %v", e.ModelID, e.Method, e.Params, e.Converged)
		}
	}
	for _, r := range marg {
		if r.Method != "gbp-blocks3" {
			t.Fatalf("marginal row of method %q", r.Method)
		}
	}
}

// failing is a method that fails on every model.
type failing struct{ name string }

func (f failing) Name() string { return f.name }
func (f failing) Infer(context.Context, *mrf.Model) (*infer.Result, error) {
	return nil, errors.New("forced failure")
}

// failOn returns the stage's dependencies with method failing on the
// models with the given numbers of variables.
func failOn(method string, vars ...int) deps {
	d := defaultDeps()
	d.newMethod = func(e *methods.Entry, o *methods.Options, g *region.Graph) (infer.Method, error) {
		m, err := e.New(o, g)
		if err != nil || e.Name != method {
			return m, err
		}
		return failOnSize{m, vars}, nil
	}
	return d
}

type failOnSize struct {
	infer.Method
	vars []int
}

func (f failOnSize) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	for _, n := range f.vars {
		if len(m.Cards) == n {
			return failing{f.Name()}.Infer(ctx, m)
		}
	}
	return f.Method.Infer(ctx, m)
}

// A method that fails on a model costs only that run: the others are
// written, the failure is summarised and recorded in the provenance; only
// when every run failed, or with Strict, does the stage fail.
func TestIsolation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	// Two sizes, so a method can fail on one model and not the other.
	for _, size := range []int{3, 4} {
		sub := filepath.Join(dir, fmt.Sprint("m", size))
		if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: size, Gamma: 0.5, Count: 1, Seed: int64(size)}, sub); err != nil {
			t.Fatal(err)
		}
	}
	joinModels(t, models, filepath.Join(dir, "m3"), filepath.Join(dir, "m4"))
	regions := filepath.Join(dir, "regions")
	if err := buildregions.Run(buildregions.Params{Models: models, Scheme: "faces"}, regions, io.Discard); err != nil {
		t.Fatal(err)
	}
	p := Params{Models: models, Regions: regions, Methods: []string{"mf", "bp", "gbp"}}

	t.Run("one run fails", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		var w strings.Builder
		if err := failOn("gbp", 16).run(context.Background(), p, out, &w); err != nil {
			t.Fatal(err)
		}
		est, prov, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, r := range est {
			got[fmt.Sprintf("%d %s", r.ModelID, r.Method)] = true
		}
		want := map[string]bool{"0 mf": true, "0 bp": true, "0 gbp": true, "1 mf": true, "1 bp": true}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("estimates of %v, want %v", got, want)
		}
		marg, _, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range marg {
			if r.ModelID == 1 && r.Method == "gbp" {
				t.Fatal("marginals of the failed run written")
			}
		}
		if s := w.String(); !strings.Contains(s, "1 of 6 runs failed") || !strings.Contains(s, "model 1 (") || !strings.Contains(s, "gbp: ") || !strings.Contains(s, "forced failure") {
			t.Errorf("summary %q", s)
		}
		var params struct {
			Failed []Failure `json:"failed"`
		}
		if err := json.Unmarshal([]byte(prov.Params), &params); err != nil {
			t.Fatal(err)
		}
		if len(params.Failed) != 1 || params.Failed[0].ModelID != 1 || params.Failed[0].Method != "gbp" || !strings.Contains(params.Failed[0].Error, "forced failure") {
			t.Errorf("provenance params %s", prov.Params)
		}
	})
	t.Run("strict", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		sp := p
		sp.Strict = true
		err := failOn("gbp", 16).run(context.Background(), sp, out, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "1 of 6 runs failed") || !strings.Contains(err.Error(), "forced failure") {
			t.Errorf("error %v", err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a failed stage left %s behind", out)
		}
	})
	t.Run("every run fails", func(t *testing.T) {
		d := defaultDeps()
		d.newMethod = func(e *methods.Entry, _ *methods.Options, _ *region.Graph) (infer.Method, error) {
			return failing{e.Name}, nil
		}
		out := filepath.Join(t.TempDir(), "out")
		err := d.run(context.Background(), p, out, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "every run failed (6)") {
			t.Errorf("error %v", err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a failed stage left %s behind", out)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out := filepath.Join(t.TempDir(), "out")
		err := Run(ctx, p, out, io.Discard)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want the cancellation", err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a cancelled stage left %s behind", out)
		}
	})
}

// joinModels writes the models of dirs, numbered 0, 1, ... in order, into
// one models directory.
func joinModels(t *testing.T, out string, dirs ...string) {
	t.Helper()
	var all []stageio.Model
	for _, d := range dirs {
		ms, _, err := stageio.LoadModels(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			m.ID = int32(len(all))
			all = append(all, m)
		}
	}
	infos, rows := stageio.Rows(all)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	prov := formats.Provenance{Stage: "test"}
	if err := formats.WriteModelInfo(filepath.Join(out, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModels(filepath.Join(out, formats.ModelsFile), rows, prov); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptBeforeAnyRun: cancelled before its first run, the stage
// writes nothing and says so.
func TestInterruptBeforeAnyRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out")
	err := Run(ctx, Params{Models: models, Methods: []string{"mf", "bp"}}, out, io.Discard)
	var ie *stageio.Interrupted
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || ie.Interruption() != "no runs finished (of 4), no outputs written" {
		t.Fatalf("error %v, want an interruption keeping nothing", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s written", out)
	}
}

// TestReleaseBetweenRuns: every run whose heap passes releaseAbove is
// followed by a forced collection that hands the memory back, so one large
// solve's garbage (auto's exact step) does not add to the next run's.
func TestReleaseBetweenRuns(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 0.5, Count: 2, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	p := Params{Models: models, Methods: []string{"mf", "bp", "exact"}}
	d := defaultDeps()
	d.releaseAbove = 1
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := d.run(context.Background(), p, filepath.Join(dir, "out"), io.Discard); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.NumForcedGC - before.NumForcedGC; got < 6 {
		t.Errorf("%d forced collections after 6 runs above the bound, want at least 6", got)
	}
}
