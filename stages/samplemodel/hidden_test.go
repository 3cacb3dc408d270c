package samplemodel

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

func TestHiddenVars(t *testing.T) {
	grid := func(L int) *mrf.Graph { return &mrf.Graph{Family: mrf.GraphGrid, Size: L} }
	bip := &mrf.Graph{Family: mrf.GraphBipartite, Left: 3, Right: 2}
	for _, tt := range []struct {
		spec  string
		graph *mrf.Graph
		n     int
		want  []int
		err   string
	}{
		{"", grid(3), 9, nil, ""},
		{"right", bip, 5, []int{3, 4}, ""},
		{"left", bip, 5, []int{0, 1, 2}, ""},
		{"interior", grid(5), 25, []int{6, 7, 8, 11, 12, 13, 16, 17, 18}, ""},
		{"quarter", grid(4), 16, []int{5, 7, 13, 15}, ""},
		{"quarter", grid(5), 25, []int{6, 8, 16, 18}, ""},
		{"checkerboard", grid(2), 4, []int{1, 2}, ""},
		{"4, 0,2", nil, 5, []int{0, 2, 4}, ""},
		{"right", grid(3), 9, nil, "bipartite"},
		{"interior", &mrf.Graph{Family: mrf.GraphTorus, Size: 4}, 16, nil, "no boundary"},
		{"interior", grid(2), 4, nil, "hides no node"},
		{"quarter", bip, 5, nil, "grid or torus"},
		{"5", nil, 5, nil, "out of range"},
		{"-1", nil, 5, nil, "out of range"},
		{"1,1", nil, 5, nil, "twice"},
		{"0,1,2,3,4", nil, 5, nil, "every one"},
		{"odd", nil, 5, nil, "neither a pattern"},
	} {
		got, err := hiddenVars(tt.spec, tt.graph, tt.n)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one containing %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q: %v, %v; want %v", tt.spec, got, err, tt.want)
		}
	}
	// A quarter of an even grid's nodes, none adjacent.
	q, err := hiddenVars(HideQuarter, grid(10), 100)
	if err != nil || len(q) != 25 {
		t.Fatalf("quarter of 10x10: %d nodes, %v", len(q), err)
	}
}

// TestDataHidden checks that a model with hidden variables records them in
// model_info and that its data set holds the visible values with their
// exact marginal log-probability, which sums to one over the visible states.
func TestDataHidden(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := Ising(IsingParams{Graph: "bipartite", Left: 3, Right: 2, Gamma: 1, Count: 1, Seed: 2, Hide: "right"}, models); err != nil {
		t.Fatal(err)
	}
	ms, _, err := stageio.LoadModels(models)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ms[0].Info.Hidden, []int{3, 4}) || !strings.HasSuffix(ms[0].Info.Source, " hide=right") {
		t.Fatalf("info %+v", ms[0].Info)
	}
	out := filepath.Join(dir, "data")
	if err := Data(DataParams{Models: models, Train: 300, Test: 100, Seed: 3, MaxTable: exact.DefaultMaxTable}, out); err != nil {
		t.Fatal(err)
	}
	rows, _, err := formats.ReadSamples(filepath.Join(out, formats.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[3]int32]float64{}
	for _, r := range rows {
		if len(r.X) != 3 {
			t.Fatalf("sample of %d values, want the 3 visible", len(r.X))
		}
		seen[[3]int32(r.X)] = r.LogP
	}
	if len(seen) != 8 {
		t.Skipf("only %d of 8 visible states drawn", len(seen))
	}
	total := 0.0
	for _, lp := range seen {
		total += math.Exp(lp)
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("p(x_v) over the 8 visible states sums to %v", total)
	}
}

// TestUAIHideRejects checks that a hidden list out of range, or hiding every
// variable, of an imported model is an error naming the file.
func TestUAIHideRejects(t *testing.T) {
	dir := t.TempDir()
	uai := filepath.Join(dir, "m.uai")
	os.WriteFile(uai, []byte("MARKOV\n3\n2 3 2\n2\n2 1 0\n2 2 1\n6\n1 2 3 4 5 6\n6\n1 1 2 2 3 3\n"), 0o644)
	for _, tt := range []struct{ hide, err string }{{"3", "out of range"}, {"0,1,2", "every one"}} {
		err := UAI(UAIParams{In: uai, Hide: tt.hide}, filepath.Join(dir, "out"))
		if err == nil || !strings.Contains(err.Error(), "m.uai") || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("--hide %s: error %v", tt.hide, err)
		}
	}
	if err := UAI(UAIParams{In: uai, Hide: "1"}, filepath.Join(dir, "ok")); err != nil {
		t.Fatal(err)
	}
	ms, _, err := stageio.LoadModels(filepath.Join(dir, "ok"))
	if err != nil || !slices.Equal(ms[0].Info.Hidden, []int{1}) {
		t.Fatalf("%v %v", ms, err)
	}
}
