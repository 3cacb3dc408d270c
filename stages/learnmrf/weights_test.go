package learnmrf

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/trainrenn"
)

// learn-mrf --weights learns with RENN started from a family network, and
// refuses the attention net, weights of another graph kind and a missing
// weights file.
func TestRunWithWeights(t *testing.T) {
	models, samples := fixture(t)
	dir := t.TempDir()
	w := familyWeights(t)
	base := func(method string, set ...string) Params {
		return withParams(func(o *Params) {
			o.Samples, o.Models, o.Method, o.Weights = samples, models, method, w
			o.Epochs, o.Batch, o.LR, o.Tol, o.Seed, o.Set = 3, 200, 0.1, -1, 3, set
		})
	}
	out := filepath.Join(dir, "learn")
	var log bytes.Buffer
	if err := Run(context.Background(), base("renn-mp"), out, &log); err != nil {
		t.Fatal(err)
	}
	curves, prov, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
	if err != nil || len(curves) != 6 || len(prov.Inputs) != 4 || !strings.Contains(prov.Params, `"weights"`) {
		t.Errorf("%d curve rows, provenance %+v, %v", len(curves), prov, err)
	}
	if err := base("renn").Check(); err == nil || !strings.Contains(err.Error(), "message net") {
		t.Errorf("attention net with --weights: %v", err)
	}
	if err := base("renn", "net=message").Check(); err != nil {
		t.Errorf("--method renn --set net=message: %v", err)
	}
	p := base("renn-mp")
	p.Weights = filepath.Join(dir, "none")
	if err := Run(context.Background(), p, out, &log); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing weights: %v", err)
	}
	complete := filepath.Join(dir, "complete")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "complete", Size: 4, Gamma: 1, Count: 3, Seed: 9}, complete); err != nil {
		t.Fatal(err)
	}
	cw := filepath.Join(dir, "cw")
	if err := trainrenn.Amortize(context.Background(), trainrenn.AmortizeParams{Models: complete, Scheme: "auto", Options: smallFamilyOptions()}, cw); err != nil {
		t.Fatal(err)
	}
	p = base("renn-mp")
	p.Weights = cw
	if err := Run(context.Background(), p, out, &log); err == nil || !strings.Contains(err.Error(), "trained on complete graphs") {
		t.Errorf("weights of complete graphs on grids: %v", err)
	}
}
