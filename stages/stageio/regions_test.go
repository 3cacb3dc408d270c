package stageio_test

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

// TestRegionsForOtherModels: regions built for other models (here a 3x3
// grid's, read with the models of K_9, nine variables too) say so and name
// the models they were built from, rather than listing factors.
func TestRegionsForOtherModels(t *testing.T) {
	dir := t.TempDir()
	grid, complete, regions := filepath.Join(dir, "grid"), filepath.Join(dir, "complete"), filepath.Join(dir, "regions")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 1}, grid); err != nil {
		t.Fatal(err)
	}
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "complete", Size: 9, Gamma: 1, Count: 3, Seed: 1}, complete); err != nil {
		t.Fatal(err)
	}
	if err := buildregions.Run(buildregions.Params{Models: grid, Scheme: "auto"}, regions, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		models string
		want   string
	}{
		{complete, filepath.Join(regions, "regions.parquet") + " was built for other models (from " + filepath.Join(grid, "models.parquet") + "), not those of --models: model 0 ("},
		{complete, "; build the regions of these models with build-regions --models on their folder"},
	} {
		models, _, err := stageio.LoadModels(tt.models)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := stageio.LoadRegions(regions, models); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadRegions: error %v, want one with %q", err, tt.want)
		}
	}
	// A third model the regions lack.
	models, _, err := stageio.LoadModels(complete)
	if err != nil {
		t.Fatal(err)
	}
	gridModels, _, err := stageio.LoadModels(grid)
	if err != nil {
		t.Fatal(err)
	}
	third := models[2]
	third.Model = gridModels[0].Model
	_, _, err = stageio.LoadRegions(regions, append(gridModels, third))
	if want := "was built for other models (from " + filepath.Join(grid, "models.parquet") + "), not those of --models: it has no regions for model 2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadRegions with a model more: error %v, want one with %q", err, want)
	}
}
