package buildregions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

func TestRunAndLoad(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 5, Gamma: 1, Count: 2, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "regions")
	var buf bytes.Buffer
	if err := Run(Params{Models: models, Scheme: "auto"}, out, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "regions per level [16 24 9]") || !strings.Contains(buf.String(), "valid yes") {
		t.Errorf("summary %q", buf.String())
	}
	ms, _, err := stageio.LoadModels(models)
	if err != nil {
		t.Fatal(err)
	}
	graphs, _, err := stageio.LoadRegions(out, ms)
	if err != nil {
		t.Fatal(err)
	}
	g := graphs[1]
	if g.Scheme != "faces" || len(g.Regions) != 49 {
		t.Fatalf("scheme %q, %d regions", g.Scheme, len(g.Regions))
	}
	children := 0
	for _, r := range g.Regions {
		children += len(r.Children)
	}
	if children != 24*2+9*4 {
		t.Errorf("%d parent-child edges rebuilt, want 84", children)
	}
}

func TestWrongScheme(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "complete", Size: 5, Gamma: 1, Count: 1, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "regions")
	err := Run(Params{Models: models, Scheme: "faces"}, out, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "model 0") {
		t.Fatalf("faces on a complete graph: error %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output directory written on failure")
	}
}
