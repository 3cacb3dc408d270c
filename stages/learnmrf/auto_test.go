package learnmrf

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/renn-go/renn/formats"
)

// auto learns: on 3x3 grids exact inference fits its budget, so it learns
// as exact learning does, epoch for epoch.
func TestAutoLearns(t *testing.T) {
	models, samples := fixture(t)
	curves := map[string][]formats.CurveRow{}
	for _, method := range []string{"auto", "exact"} {
		out := filepath.Join(t.TempDir(), "learn")
		p := withParams(func(o *Params) {
			o.Samples, o.Models, o.Method = samples, models, method
			o.Epochs, o.Batch, o.LR, o.Tol, o.Seed = 3, 300, 0.1, -1, 3
		})
		if err := Run(context.Background(), p, out, &bytes.Buffer{}); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		rows, _, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
		if err != nil {
			t.Fatal(err)
		}
		curves[method] = rows
	}
	a, e := curves["auto"], curves["exact"]
	if len(a) != len(e) || len(a) == 0 {
		t.Fatalf("%d curve rows with auto, %d with exact", len(a), len(e))
	}
	for i := range a {
		if math.Abs(a[i].TestNLL-e[i].TestNLL) > 1e-9 || math.Abs(a[i].TrainNLL-e[i].TrainNLL) > 1e-9 {
			t.Errorf("epoch %d of model %d: auto NLL %v/%v, exact %v/%v", a[i].Iteration, a[i].ModelID, a[i].TrainNLL, a[i].TestNLL, e[i].TrainNLL, e[i].TestNLL)
		}
	}
}
