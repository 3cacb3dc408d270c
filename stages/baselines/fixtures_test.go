package baselines

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/samplemodel"
)

// isingWithRegions writes two 4x4 Ising grids (gamma 0.5, seed 3) to
// dir/models and their region graphs of the given scheme to dir/regions,
// and returns the two directories.
func isingWithRegions(t *testing.T, dir, scheme string) (models, regions string) {
	t.Helper()
	models = filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 4, Gamma: 0.5, Count: 2, Seed: 3}, models); err != nil {
		t.Fatal(err)
	}
	regions = filepath.Join(dir, "regions")
	if err := buildregions.Run(buildregions.Params{Models: models, Scheme: scheme}, regions, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	return models, regions
}

// readOutputs reads the estimates and marginals Run wrote to out.
func readOutputs(t *testing.T, out string) ([]formats.EstimateRow, []formats.MarginalRow) {
	t.Helper()
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	marg, _, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
	if err != nil {
		t.Fatal(err)
	}
	return est, marg
}
