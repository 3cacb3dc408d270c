package trainrenn

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
)

// --uai-out writes <name>.uai.MAR and <name>.uai.PR per model, holding what
// estimates.parquet holds.
func TestRunUAIOut(t *testing.T) {
	models, _ := fixture(t)
	dir := t.TempDir()
	out, uai := filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	o := opts("infnet", func(o *renn.Options) { o.MaxSteps = 20 })
	if err := Run(context.Background(), Params{Models: models, Method: "infnet", Options: o, IDs: []int32{1}, UAIOut: uai}, out); err != nil {
		t.Fatal(err)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := formats.ReadMARFile(filepath.Join(uai, "grid3-gamma1-1.uai.MAR"), []int{2, 2, 2, 2, 2, 2, 2, 2, 2}); err != nil {
		t.Fatal(err)
	}
	z, err := formats.ReadPRFile(filepath.Join(uai, "grid3-gamma1-1.uai.PR"))
	if err != nil || len(est) != 1 || z != est[0].LogZ/math.Ln10 {
		t.Errorf("PR %v, %v; estimates %+v", z, err, est)
	}
}
