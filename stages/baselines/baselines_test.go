package baselines

import (
	"bytes"
	"context"
	"github.com/renn-go/renn/core/exact"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/exactinfer"
	"github.com/renn-go/renn/stages/samplemodel"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 4, Gamma: 0.5, Count: 2, Seed: 3}, models); err != nil {
		t.Fatal(err)
	}
	regions := filepath.Join(dir, "regions")
	if err := buildregions.Run(buildregions.Params{Models: models, Scheme: "faces"}, regions, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	truth := filepath.Join(dir, "exact")
	if err := exactinfer.Run(exactinfer.Params{Models: models, Options: exact.DefaultOptions()}, truth, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "baselines")
	if err := Run(context.Background(), Params{Models: models, Regions: regions, Methods: []string{"mf", "bp", "dbp", "gbp"}}, out); err != nil {
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
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 0.5, Count: 1, Seed: 3}, models); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Params{
		{Models: models, Methods: []string{"lbp"}},
		{Models: models, Methods: []string{"gbp"}},
		{Models: models, Methods: []string{"gbp"}, Regions: filepath.Join(dir, "none")},
	} {
		if err := Run(context.Background(), p, filepath.Join(dir, "out")); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
