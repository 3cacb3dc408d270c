package exactinfer

import (
	"bytes"
	"github.com/renn-go/renn/core/exact"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

func TestRunMatchesBruteForce(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "exact")
	var buf bytes.Buffer
	if err := Run(Params{Models: models, Options: exact.DefaultOptions()}, out, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "ln Z") {
		t.Errorf("no table printed: %q", buf.String())
	}
	ms, _, err := stageio.LoadModels(models)
	if err != nil {
		t.Fatal(err)
	}
	marg, prov, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
	if err != nil {
		t.Fatal(err)
	}
	if prov.Stage != "exact-infer" || len(prov.Inputs) != 2 {
		t.Errorf("provenance %+v", prov)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 2 || len(marg) != 2*(9+9+12) {
		t.Fatalf("%d estimates, %d marginals", len(est), len(marg))
	}
	for _, e := range ms {
		bf, err := infertest.BruteForce(e.Model)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(est[e.ID].LogZ - bf.LogZ); d > 1e-9 {
			t.Errorf("model %d: ln Z off by %g", e.ID, d)
		}
		for _, r := range marg {
			if r.ModelID != e.ID {
				continue
			}
			want := bf.Marginals.Vars
			if r.Kind == "factor" {
				want = bf.Marginals.Factors
			}
			for x, p := range r.Probs {
				if math.Abs(p-want[r.Index][x]) > 1e-9 {
					t.Fatalf("model %d %s %d: %v, want %v", e.ID, r.Kind, r.Index, r.Probs, want[r.Index])
				}
			}
		}
	}
}

// Bad inputs: a clear error naming the file and the problem, and no output.
func TestBadInputs(t *testing.T) {
	good := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "models")
		if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 1}, dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	rewrite := func(t *testing.T, dir string, edit func(rows []formats.FactorRow, infos []formats.ModelInfoRow)) {
		rows, prov, err := formats.ReadModels(filepath.Join(dir, formats.ModelsFile))
		if err != nil {
			t.Fatal(err)
		}
		infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
		if err != nil {
			t.Fatal(err)
		}
		edit(rows, infos)
		if err := formats.WriteModels(filepath.Join(dir, formats.ModelsFile), rows, prov); err != nil {
			t.Fatal(err)
		}
		if err := formats.WriteModelInfo(filepath.Join(dir, formats.ModelInfoFile), infos, prov); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		prepare  func(t *testing.T) string
		maxTable int64
		want     []string
	}{
		{"missing dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, 0, []string{"model_info.parquet"}},
		{"not parquet", func(t *testing.T) string {
			dir := good(t)
			os.WriteFile(filepath.Join(dir, formats.ModelsFile), []byte("hello"), 0o644)
			return dir
		}, 0, []string{"models.parquet"}},
		{"NaN", func(t *testing.T) string {
			dir := good(t)
			rewrite(t, dir, func(rows []formats.FactorRow, _ []formats.ModelInfoRow) { rows[3].LogTable[1] = math.NaN() })
			return dir
		}, 0, []string{"models.parquet", "factor 3", "NaN"}},
		{"cardinality mismatch", func(t *testing.T) string {
			dir := good(t)
			rewrite(t, dir, func(_ []formats.FactorRow, infos []formats.ModelInfoRow) { infos[0].Cards[4] = 3 })
			return dir
		}, 0, []string{"models.parquet", "needs"}},
		{"variable out of range", func(t *testing.T) string {
			dir := good(t)
			rewrite(t, dir, func(rows []formats.FactorRow, _ []formats.ModelInfoRow) { rows[12].Vars[1] = 40 })
			return dir
		}, 0, []string{"models.parquet", "out of range"}},
		{"too wide", good, 4, []string{"max", "table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.prepare(t)
			out := filepath.Join(t.TempDir(), "exact")
			opts := exact.DefaultOptions()
			if tt.maxTable > 0 {
				opts.MaxTable = tt.maxTable
			}
			err := Run(Params{Models: dir, Options: opts}, out, &bytes.Buffer{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Errorf("partial output left: %v", ents)
			}
		})
	}
}
