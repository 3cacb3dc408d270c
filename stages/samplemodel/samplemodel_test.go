package samplemodel

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

func TestIsing(t *testing.T) {
	for _, tt := range []struct {
		graph         string
		size          int
		vars, factors int
	}{{"grid", 4, 16, 16 + 24}, {"torus", 3, 9, 9 + 18}, {"complete", 9, 9, 9 + 36}} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := Ising(IsingParams{Graph: tt.graph, Size: tt.size, Gamma: 0.1, Count: 3, Seed: 5}, dir); err != nil {
			t.Fatal(err)
		}
		ms, _, err := stageio.LoadModels(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 3 {
			t.Fatalf("%s: %d models", tt.graph, len(ms))
		}
		for _, e := range ms {
			if e.Model.NumVars() != tt.vars || len(e.Model.Factors) != tt.factors || e.Info.Graph != tt.graph || e.Info.Gamma != 0.1 {
				t.Errorf("%s: model %d has %d vars, %d factors, info %+v", tt.graph, e.ID, e.Model.NumVars(), len(e.Model.Factors), e.Info)
			}
		}
		// The same seed gives the same files.
		dir2 := filepath.Join(t.TempDir(), "m")
		if err := Ising(IsingParams{Graph: tt.graph, Size: tt.size, Gamma: 0.1, Count: 3, Seed: 5}, dir2); err != nil {
			t.Fatal(err)
		}
		a, _ := formats.FileSHA256(filepath.Join(dir, formats.ModelsFile))
		b, _ := formats.FileSHA256(filepath.Join(dir2, formats.ModelsFile))
		if a != b {
			t.Errorf("%s: same seed, different models", tt.graph)
		}
	}
	for _, p := range []IsingParams{{Graph: "ring", Size: 3, Count: 1}, {Graph: "grid", Size: 0, Count: 1}, {Graph: "grid", Size: 3, Count: 0},
		{Graph: "grid", Size: 3, Count: 1, Gamma: math.NaN()}} {
		if err := Ising(p, t.TempDir()); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestUAIWithEvidence(t *testing.T) {
	dir := t.TempDir()
	uai := filepath.Join(dir, "m.uai")
	evid := filepath.Join(dir, "m.uai.evid")
	os.WriteFile(uai, []byte("MARKOV\n3\n2 3 2\n2\n2 1 0\n2 2 1\n6\n1 2 3 4 5 6\n6\n1 1 2 2 3 3\n"), 0o644)
	os.WriteFile(evid, []byte("1 1 2\n"), 0o644)
	out := filepath.Join(dir, "out")
	if err := UAI(UAIParams{In: uai, Evid: evid}, out); err != nil {
		t.Fatal(err)
	}
	ms, _, err := stageio.LoadModels(out)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0].Model
	if len(m.Factors) != 3 || ms[0].Info.Graph != "uai" {
		t.Fatalf("model %+v info %+v", m, ms[0].Info)
	}
	res, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Marginals.Vars[1]; p[2] != 1 {
		t.Errorf("observed variable 1 has marginal %v, want a point mass on state 2", p)
	}
	// Bad evidence: the error names the file, and nothing is written.
	os.WriteFile(evid, []byte("1 1 7\n"), 0o644)
	out2 := filepath.Join(dir, "out2")
	if err := UAI(UAIParams{In: uai, Evid: evid}, out2); err == nil || !strings.Contains(err.Error(), "m.uai.evid") {
		t.Errorf("bad evidence: error %v", err)
	}
	if _, err := os.Stat(out2); err == nil {
		if ents, _ := os.ReadDir(out2); len(ents) > 0 {
			t.Errorf("partial output %v", ents)
		}
	}
}

// 100k exact samples: every variable's and pairwise factor's empirical
// frequency lies within sampling error of the exact marginal.
func TestDataFrequencies(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := Ising(IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 11}, models); err != nil {
		t.Fatal(err)
	}
	const n = 100000
	out := filepath.Join(dir, "data")
	if err := Data(DataParams{Models: models, Train: n - 1000, Test: 1000, Seed: 3, MaxTable: exact.DefaultMaxTable}, out); err != nil {
		t.Fatal(err)
	}
	rows, _, err := formats.ReadSamples(filepath.Join(out, formats.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n || rows[0].Split != "train" || rows[n-1].Split != "test" {
		t.Fatalf("%d rows, splits %q %q", len(rows), rows[0].Split, rows[n-1].Split)
	}
	ms, _, _ := stageio.LoadModels(models)
	m := ms[0].Model
	res, err := exact.Solve(m, exact.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	counts := make([][]float64, len(m.Factors))
	for a, f := range m.Factors {
		counts[a] = make([]float64, len(f.LogTable))
	}
	x := make([]int, m.NumVars())
	for _, r := range rows {
		for i, s := range r.X {
			x[i] = int(s)
		}
		if d := math.Abs(r.LogP - (m.LogScore(x) - res.LogZ)); d > 1e-9 {
			t.Fatalf("log_p off by %g", d)
		}
		for a := range m.Factors {
			counts[a][m.Factors[a].Index(m.Cards, x)]++
		}
	}
	for a := range m.Factors {
		for s, c := range counts[a] {
			p := res.Marginals.Factors[a][s]
			se := math.Sqrt(p * (1 - p) / n)
			if d := math.Abs(c/n - p); d > 5*se+1e-4 {
				t.Errorf("factor %d state %d: frequency %.4f, exact %.4f (%.1f standard errors)", a, s, c/n, p, d/se)
			}
		}
	}
}
