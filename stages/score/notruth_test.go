package score

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// A model without an exact answer (exact-infer --skip-too-wide) fails the
// scoring, or with --partial leaves its runs out, listed and noted; a
// folder where no model has one scores nothing and says so.
func TestNoExactAnswer(t *testing.T) {
	root := t.TempDir()
	models, truth, pred := filepath.Join(root, "models"), filepath.Join(root, "exact"), filepath.Join(root, "pred")
	ms := gridModels(t, 0.1, 2)
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms[:1])
	writePred(t, pred, models, ms, func(stageio.Model) []method {
		return []method{{name: "bp", delta: 0.01, pair: 0.01, logZ: 0.5, seconds: 0.1, converged: true, iterations: 3}}
	})
	p := Params{Models: []string{models}, Truth: []string{truth}, Pred: []string{pred}, Table: "text"}
	if err := Run(p, filepath.Join(root, "strict"), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no exact marginals") {
		t.Fatalf("without --partial: %v", err)
	}
	p.Partial = true
	out := filepath.Join(root, "score")
	var w bytes.Buffer
	if err := Run(p, out, &w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "1 (model, method) runs are of models without an exact answer") {
		t.Errorf("table lacks the note:\n%s", w.String())
	}
	scores, prov, err := formats.ReadScores(filepath.Join(out, formats.ScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scores {
		if s.ModelID != 0 {
			t.Errorf("model %d scored without an exact answer", s.ModelID)
		}
	}
	var params struct {
		NoExact []string `json:"no_exact"`
	}
	if err := json.Unmarshal([]byte(prov.Params), &params); err != nil || len(params.NoExact) != 1 || !strings.Contains(params.NoExact[0], "model 1") {
		t.Errorf("provenance %s (%v): want model 1 under no_exact", prov.Params, err)
	}
	empty := filepath.Join(root, "exact-none")
	writeTruth(t, empty, models, nil)
	p.Truth = []string{empty}
	w.Reset()
	if err := Run(p, filepath.Join(root, "score-none"), &w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "2 (model, method) runs are of models without an exact answer") {
		t.Errorf("table lacks the note:\n%s", w.String())
	}
}
