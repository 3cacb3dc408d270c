package learnmrf

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/trainrenn"
)

// familyWeights trains a small family network on 3x3 grids and returns its
// directory.
func familyWeights(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	train := filepath.Join(dir, "train")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 3, Seed: 9}, train); err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(dir, "w")
	if err := trainrenn.Amortize(context.Background(), trainrenn.AmortizeParams{Models: train, Scheme: "auto", Options: smallFamilyOptions()}, w); err != nil {
		t.Fatal(err)
	}
	return w
}

// smallFamilyOptions are training options small enough for a test.
func smallFamilyOptions() renn.TrainOptions {
	to := renn.DefaultTrainOptions()
	to.Epochs, to.Sweeps, to.Hidden = 2, 2, 4
	return to
}

// lastNLL learns with p and returns each model's last test NLL, and the
// method label of the curves.
func lastNLL(t *testing.T, p Params) (map[int32]float64, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "learn")
	if err := Run(context.Background(), p, out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	rows, prov, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	if p.Weights != "" && !strings.Contains(prov.Params, `"family_read":"`+cmp.Or(p.FamilyRead, renn.FamilyReadStart)+`"`) {
		t.Errorf("provenance does not record the family read mode: %s", prov.Params)
	}
	last := map[int32]float64{}
	for _, r := range rows {
		last[r.ModelID] = r.TestNLL
	}
	return last, rows[0].Method
}

// Learning with RENN started from a family network, in either family-read
// mode, ends within 0.05 nats of GBP-based learning's test NLL on 3x3 grids,
// and its curves carry the method label renn-family.
func TestFamilyLearningMatchesGBP(t *testing.T) {
	models, samples := fixture(t)
	w := familyWeights(t)
	base := func(method, weights, read string) Params {
		return withParams(func(o *Params) {
			o.Samples, o.Models, o.Method, o.Weights, o.FamilyRead = samples, models, method, weights, read
			o.Epochs, o.Batch, o.LR, o.Tol, o.Seed = 15, 200, 0.1, -1, 3
		})
	}
	gbp, _ := lastNLL(t, base("gbp", "", ""))
	for _, read := range []string{"", renn.FamilyReadStart, renn.FamilyReadEvery} {
		fam, label := lastNLL(t, base("renn-mp", w, read))
		if label != FamilyLabel {
			t.Errorf("family-read %q: curves labelled %q, want %q", read, label, FamilyLabel)
		}
		for id, want := range gbp {
			if d := math.Abs(fam[id] - want); !(d <= 0.05) {
				t.Errorf("family-read %q: model %d test NLL %.4f, GBP-based learning's %.4f", read, id, fam[id], want)
			}
		}
	}
}

// --family-read needs --weights and one of its values; weights of a binary
// family on a model with three states fail naming the weights file.
func TestFamilyReadRejects(t *testing.T) {
	for _, tc := range []struct {
		weights, read, want string
	}{
		{"", "start", "only with --weights"},
		{"w", "always", `family-read: "always"`},
	} {
		p := withParams(func(o *Params) { o.Method, o.Weights, o.FamilyRead = "renn-mp", tc.weights, tc.read })
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("weights %q family-read %q: %v, want %q", tc.weights, tc.read, err, tc.want)
		}
	}
	w := familyWeights(t)
	dir := t.TempDir()
	uai, uaiSamples := filepath.Join(dir, "uai"), filepath.Join(dir, "uai-samples")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, uai); err != nil {
		t.Fatal(err)
	}
	if err := samplemodel.Data(samplemodel.DataParams{Models: uai, Train: 50, Test: 10, Seed: 1, MaxTable: exact.DefaultMaxTable}, uaiSamples); err != nil {
		t.Fatal(err)
	}
	p := withParams(func(o *Params) {
		o.Samples, o.Models, o.Method, o.Weights, o.Epochs = uaiSamples, uai, "renn-mp", w, 1
	})
	if err := Run(context.Background(), p, filepath.Join(dir, "out"), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), w) {
		t.Errorf("binary weights on a 3-state model: %v, want an error naming %s", err, w)
	}
}
