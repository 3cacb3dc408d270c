package baselines

import (
	"context"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
)

// --uai-out writes each method's UAI result files in a directory of its own,
// holding what marginals.parquet and estimates.parquet hold.
func TestRunUAIOut(t *testing.T) {
	dir := t.TempDir()
	models, out, uai := filepath.Join(dir, "models"), filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), Params{Models: models, Methods: []string{"mf", "bp"}, UAIOut: uai}, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	marg, _, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range est {
		mar, err := formats.ReadMARFile(filepath.Join(uai, e.Method, "markov_small.uai.MAR"), []int{2, 3, 1, 2})
		if err != nil {
			t.Fatal(err)
		}
		z, err := formats.ReadPRFile(filepath.Join(uai, e.Method, "markov_small.uai.PR"))
		if err != nil {
			t.Fatal(err)
		}
		if z != e.LogZ/math.Ln10 {
			t.Errorf("%s: PR %v, ln Z %v", e.Method, z, e.LogZ)
		}
		for _, r := range marg {
			// Variable 2 has one state: its marginal is [1] either way.
			if r.Method == e.Method && r.Kind == "var" && r.Index != 2 {
				for x, p := range r.Probs {
					if mar[r.Index][x] != p {
						t.Errorf("%s variable %d: MAR %v, parquet %v", e.Method, r.Index, mar[r.Index], r.Probs)
					}
				}
			}
		}
	}
}
