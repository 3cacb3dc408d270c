package score

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// TestBounds: mf (a lower bound) and trw (an upper bound) get bound_held on
// every model, within the rounding tolerance, and trw gets sandwich_width
// where mf ran too; bp (an estimate) gets neither.
func TestBounds(t *testing.T) {
	root := t.TempDir()
	models, truth, pred := filepath.Join(root, "models"), filepath.Join(root, "exact"), filepath.Join(root, "pred")
	ms := gridModels(t, 0.1, 4)
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms)
	tol := func(id int32) float64 { return BoundTol(truthLogZ(id)) }
	writePred(t, pred, models, ms, func(e stageio.Model) []method {
		bp := method{name: "bp", logZ: 0.1, converged: true}
		switch e.ID {
		case 0: // both hold: width 3
			return []method{bp, {name: "mf", logZ: -1}, {name: "trw", logZ: 2}}
		case 1: // both off by half the tolerance: held; width -tol
			return []method{bp, {name: "mf", logZ: tol(1) / 2}, {name: "trw", logZ: -tol(1) / 2}}
		case 2: // both off by twice the tolerance: failed
			return []method{bp, {name: "mf", logZ: 2 * tol(2)}, {name: "trw", logZ: -2 * tol(2)}}
		}
		return []method{bp, {name: "trw", logZ: 1}} // no mf: no width
	})
	out := filepath.Join(root, "score")
	var stdout bytes.Buffer
	p := Params{Models: []string{models}, Truth: []string{truth}, Pred: []string{pred}, Table: "text", Partial: true}
	if err := Run(p, out, &stdout); err != nil {
		t.Fatal(err)
	}
	scores, _, err := formats.ReadScores(filepath.Join(out, formats.ScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[runID]map[string]float64{}
	for _, r := range scores {
		k := runID{r.ModelID, r.Method}
		if got[k] == nil {
			got[k] = map[string]float64{}
		}
		got[k][r.Metric] = r.Value
	}
	want := map[runID]map[string]float64{
		{0, "mf"}: {BoundHeld: 1}, {0, "trw"}: {BoundHeld: 1, SandwichWidth: 3},
		{1, "mf"}: {BoundHeld: 1}, {1, "trw"}: {BoundHeld: 1, SandwichWidth: -tol(1)},
		{2, "mf"}: {BoundHeld: 0}, {2, "trw"}: {BoundHeld: 0, SandwichWidth: -4 * tol(2)},
		{3, "trw"}: {BoundHeld: 1},
	}
	for k, w := range want {
		for metric, v := range w {
			if g, ok := got[k][metric]; !ok || math.Abs(g-v) > 1e-15 {
				t.Errorf("model %d %s: %s = %v (present %v), want %v", k.id, k.method, metric, g, ok, v)
			}
		}
	}
	for k, g := range got {
		_, held := g[BoundHeld]
		_, width := g[SandwichWidth]
		if k.method == "bp" && (held || width) || k.method == "mf" && width || k.id == 3 && width {
			t.Errorf("model %d %s: unexpected bound scores %v", k.id, k.method, g)
		}
		if _, ok := g["logz_err"]; !ok {
			t.Errorf("model %d %s: lost its logz_err", k.id, k.method)
		}
	}
	_, sum, _, err := formats.ReadSummary(filepath.Join(out, formats.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	means := map[string]float64{}
	for _, r := range sum {
		means[r.Method+" "+r.Metric] = r.Mean
	}
	if m := means["trw bound_held"]; m != 0.75 {
		t.Errorf("trw bound_held mean %v, want 0.75", m)
	}
	if m := means["mf bound_held"]; math.Abs(m-2.0/3) > 1e-15 {
		t.Errorf("mf bound_held mean %v, want 2/3", m)
	}
	for _, s := range []string{BoundHeld, SandwichWidth} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("printed table lacks %s:\n%s", s, stdout.String())
		}
	}
}
