package baselines

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
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
	est, marg := readOutputs(t, out)
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

// files maps every file under dir, hidden ones included, to its content.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRunUAIOutAtomic: a run whose last output (a UAI file) fails, after
// the Parquet files are written, leaves the previous run's Parquet and UAI
// files as they were and nothing new beside them; the next run replaces
// both together.
func TestRunUAIOutAtomic(t *testing.T) {
	dir := t.TempDir()
	models, out, uai := filepath.Join(dir, "models"), filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	run := func(methods ...string) error {
		return Run(context.Background(), Params{Models: models, Methods: methods, UAIOut: uai}, out, io.Discard)
	}
	if err := run("mf"); err != nil {
		t.Fatal(err)
	}
	beforeOut, beforeUAI := files(t, out), files(t, uai)
	injected := errors.New("injected failure")
	commit = func(dir string, outs ...stageio.Output) error {
		last := &outs[len(outs)-1]
		if outs[0].Name != formats.MarginalsFile || last.Dir != uai {
			t.Fatalf("outputs %v: want the Parquet files first and a UAI file last", outs)
		}
		last.Write = func(string) error { return injected }
		return stageio.Commit(dir, outs...)
	}
	err := run("bp")
	commit = stageio.Commit
	if !errors.Is(err, injected) {
		t.Fatalf("error %v, want the injected one", err)
	}
	if got := files(t, out); !maps.Equal(got, beforeOut) {
		t.Errorf("out changed by a failed run: %d files, want %d", len(got), len(beforeOut))
	}
	if got := files(t, uai); !maps.Equal(got, beforeUAI) {
		t.Errorf("uai changed by a failed run: %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(beforeUAI)))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "models" && e.Name() != "out" && e.Name() != "uai" {
			t.Errorf("a failed run left %s", e.Name())
		}
	}
	if err := run("bp"); err != nil {
		t.Fatal(err)
	}
	est, _ := readOutputs(t, out)
	z, err := formats.ReadPRFile(filepath.Join(uai, "bp", "markov_small.uai.PR"))
	if err != nil || len(est) != 1 || est[0].Method != "bp" || z != est[0].LogZ/math.Ln10 {
		t.Errorf("after the next run: PR %v, %v; estimates %+v", z, err, est)
	}
}

// TestRunUAIOutInsideOut: --uai-out may lie inside --out; a second run
// replaces both.
func TestRunUAIOutInsideOut(t *testing.T) {
	dir := t.TempDir()
	models, out := filepath.Join(dir, "models"), filepath.Join(dir, "out")
	uai := filepath.Join(out, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"mf", "bp"} {
		if err := Run(context.Background(), Params{Models: models, Methods: []string{method}, UAIOut: uai}, out, io.Discard); err != nil {
			t.Fatal(err)
		}
		est, _ := readOutputs(t, out)
		z, err := formats.ReadPRFile(filepath.Join(uai, method, "markov_small.uai.PR"))
		if err != nil || len(est) != 1 || est[0].Method != method || z != est[0].LogZ/math.Ln10 {
			t.Errorf("%s: PR %v, %v; estimates %+v", method, z, err, est)
		}
	}
}
