package samplemodel

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// shippedDir holds the UAI models shipped with the project.
const shippedDir = "../../data/uai"

// The shipped UAI models are byte for byte what the commands of
// data/uai/README.md write (the same calls, made here through the stage
// functions), and nothing else is there but the README.
func TestShippedUAIModels(t *testing.T) {
	tmp := t.TempDir()
	dir := func(name string) string { return filepath.Join(tmp, name) }
	for name, p := range map[string]IsingParams{
		"grid5":  {Graph: "grid", Size: 10, Couplings: "uniform:5", Fields: "uniform:1", Count: 1, Seed: 21},
		"grid10": {Graph: "grid", Size: 10, Couplings: "uniform:10", Fields: "uniform:1", Count: 1, Seed: 21},
		"torus":  {Graph: "torus", Size: 10, Couplings: "uniform:5", Fields: "uniform:1", Count: 1, Seed: 22},
		"rbm":    {Graph: "bipartite", Left: 12, Right: 12, Couplings: "normal:2", Fields: "uniform:1", Count: 1, Seed: 23},
	} {
		if err := Ising(p, dir(name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"csp", "noisy-or", "pedigree"} {
		if err := Factors(FactorParams{Family: f, Size: 60, Count: 2, Seed: 24}, dir(f)); err != nil {
			t.Fatal(err)
		}
	}
	out := dir("uai")
	var models []string
	for _, n := range []string{"grid5", "grid10", "torus", "rbm", "csp", "noisy-or", "pedigree"} {
		models = append(models, dir(n))
	}
	if err := Export(ExportParams{Models: models}, out); err != nil {
		t.Fatal(err)
	}
	names := func(d string) []string {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, e := range es {
			if e.Name() != "README.md" {
				ns = append(ns, e.Name())
			}
		}
		return ns
	}
	made, shipped := names(out), names(shippedDir)
	if !slices.Equal(made, shipped) {
		t.Fatalf("%s holds %v; the commands make %v", shippedDir, shipped, made)
	}
	for _, n := range made {
		a, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(shippedDir, n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s/%s differs from what its command makes now: remake the files (data/uai/README.md)", shippedDir, n)
		}
	}
}
