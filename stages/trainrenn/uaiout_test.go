package trainrenn

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/exactinfer"
	"github.com/renn-go/renn/stages/stageio"
)

// --uai-out writes <method>/<name>.uai.MAR and .PR per model, holding what
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
	base := filepath.Join(uai, o.Name, "grid3-gamma1-1.uai")
	if _, err := formats.ReadMARFile(base+".MAR", []int{2, 2, 2, 2, 2, 2, 2, 2, 2}); err != nil {
		t.Fatal(err)
	}
	z, err := formats.ReadPRFile(base + ".PR")
	if err != nil || len(est) != 1 || z != est[0].LogZ/math.Ln10 {
		t.Errorf("PR %v, %v; estimates %+v", z, err, est)
	}
	// 20 steps do not converge, nor pass the check: the files say why.
	check := stageio.CheckFailure(est[0].Params)
	if est[0].Converged || check == "" {
		t.Fatalf("20 steps: %+v, want a check failure", est[0])
	}
	for _, suf := range []string{".MAR", ".PR"} {
		head, err := formats.ReadUAIResultHeader(base + suf)
		if err != nil || len(head) == 0 || !strings.HasPrefix(head[0], "renn status: FAILED CHECK: "+check+";") {
			t.Errorf("%s header %q, %v; want the check's reason %q", suf, head, err, check)
		}
	}
}

// files maps every file under dir to its content.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
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

// Pointed at the folder of exact-infer's results, train-renn writes beside
// them, not over them; a rerun of the same train-renn run replaces its own
// files, another run's (another --out) is refused before it trains.
func TestRunUAIOutBesideExact(t *testing.T) {
	models, _ := fixture(t)
	dir := t.TempDir()
	uai := filepath.Join(dir, "uai")
	if err := exactinfer.Run(context.Background(), exactinfer.Params{Models: models, Options: exact.DefaultOptions(), UAIOut: uai}, filepath.Join(dir, "exact"), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	exactFiles := files(t, filepath.Join(uai, "exact"))
	if len(exactFiles) != 4 {
		t.Fatalf("exact wrote %v", exactFiles)
	}
	o := opts("infnet", func(o *renn.Options) { o.MaxSteps = 5 })
	p := Params{Models: models, Method: "infnet", Options: o, UAIOut: uai}
	for range 2 {
		if err := Run(context.Background(), p, filepath.Join(dir, "renn")); err != nil {
			t.Fatalf("run and rerun: %v", err)
		}
	}
	if got := files(t, filepath.Join(uai, "exact")); !maps.Equal(got, exactFiles) {
		t.Error("train-renn changed exact-infer's files")
	}
	if got := files(t, filepath.Join(uai, o.Name)); len(got) != 4 {
		t.Errorf("train-renn wrote %d files in %s/, want 4", len(got), o.Name)
	}
	err := Run(context.Background(), p, filepath.Join(dir, "other"))
	var conflict *stageio.UAIConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("another run: error %v, want a conflict", err)
	}
	// Named exact, its answers would replace exact-infer's: refused too.
	p.Options.Name = "exact"
	if err := Run(context.Background(), p, filepath.Join(dir, "renn")); !errors.As(err, &conflict) {
		t.Fatalf("--name exact: error %v, want a conflict", err)
	}
	if got := files(t, filepath.Join(uai, "exact")); !maps.Equal(got, exactFiles) {
		t.Error("a refused run changed exact-infer's files")
	}
}
