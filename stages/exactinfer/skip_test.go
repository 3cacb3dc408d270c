package exactinfer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// With --skip-too-wide a model whose plan does not fit is skipped and
// recorded, and the others are solved; without it the run fails.
func TestSkipTooWide(t *testing.T) {
	var models []stageio.Model
	for i, L := range []int{2, 5} {
		edges, err := mrf.GridEdges(L, false)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, stageio.Model{ID: int32(i), Info: mrf.Info{Name: []string{"small", "wide"}[i], Graph: "grid", Source: "test"},
			Model: mrf.RandomIsing(L*L, edges, 1, int64(i))})
	}
	dir := filepath.Join(t.TempDir(), "models")
	infos, rows := stageio.Rows(models)
	prov := formats.Provenance{Stage: "test"}
	if err := writeBoth(dir, infos, rows, prov); err != nil {
		t.Fatal(err)
	}
	opts := exact.DefaultOptions()
	// By the plans' cost model (no timing): the 2x2 grid about 2e-5 s, the
	// 5x5 over 1e-4 s.
	opts.MaxPlannedSeconds = 1e-4
	p := Params{Models: dir, Options: opts}
	if err := Run(context.Background(), p, filepath.Join(t.TempDir(), "out"), &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "wide") {
		t.Fatalf("without --skip-too-wide: %v, want the model's refusal", err)
	}
	p.SkipTooWide = true
	out := filepath.Join(t.TempDir(), "out")
	var w strings.Builder
	if err := Run(context.Background(), p, out, &w); err != nil {
		t.Fatal(err)
	}
	est, eprov, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 1 || est[0].ModelID != 0 {
		t.Errorf("estimates %+v, want model 0's only", est)
	}
	var params struct {
		Skipped []Skipped `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(eprov.Params), &params); err != nil || len(params.Skipped) != 1 || params.Skipped[0].ModelID != 1 || params.Skipped[0].Model != "wide" {
		t.Errorf("provenance %s (%v): want model 1 (wide) skipped", eprov.Params, err)
	}
	if !strings.Contains(w.String(), "skipped model 1 (wide)") {
		t.Errorf("output %q does not name the skipped model", w.String())
	}
}

func writeBoth(dir string, infos []formats.ModelInfoRow, rows []formats.FactorRow, prov formats.Provenance) error {
	if err := mkdir(dir); err != nil {
		return err
	}
	if err := formats.WriteModelInfo(filepath.Join(dir, formats.ModelInfoFile), infos, prov); err != nil {
		return err
	}
	return formats.WriteModels(filepath.Join(dir, formats.ModelsFile), rows, prov)
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }
