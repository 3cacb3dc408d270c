package samplemodel

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Every model of every family has Z > 0 and its observed variables are
// point masses at the observed state under exact inference.
func TestFactors(t *testing.T) {
	for _, tt := range []struct {
		family string
		size   int
		name   string
	}{{"csp", 12, "csp12-1"}, {"noisy-or", 12, "noisy-or12-1"}, {"pedigree", 16, "pedigree16-1"}, {"linkage", 10, "linkage10-1"}, {"potts", 14, "potts14-1"}} {
		dir := filepath.Join(t.TempDir(), "m")
		p := FactorParams{Family: tt.family, Size: tt.size, Count: 2, Seed: 3}
		if tt.family == "potts" {
			p.Potts = PottsParams(tt.size, nil, nil, nil)
		}
		if err := Factors(p, dir); err != nil {
			t.Fatal(err)
		}
		ms, _, err := stageio.LoadModels(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[1].Info.Name != tt.name || ms[1].Info.Graph != tt.family {
			t.Fatalf("%s: %d models, model 1 %+v", tt.family, len(ms), ms[1].Info)
		}
		for _, e := range ms {
			res, err := exact.Solve(e.Model, exact.DefaultOptions())
			if err != nil {
				t.Fatalf("%s: %v", e.Info.Name, err)
			}
			if math.IsInf(res.LogZ, 0) || math.IsNaN(res.LogZ) {
				t.Errorf("%s: ln Z %v", e.Info.Name, res.LogZ)
			}
			_, obs := formats.SplitEvidence(e.Model)
			for _, o := range obs {
				if p := res.Marginals.Vars[o.Var][o.State]; math.Abs(p-1) > 1e-12 {
					t.Errorf("%s: observed variable %d has P(state %d) = %v", e.Info.Name, o.Var, o.State, p)
				}
			}
		}
	}
	for _, p := range []FactorParams{{Family: "bn", Size: 10, Count: 1}, {Family: "csp", Size: 2, Count: 1}, {Family: "csp", Size: 10, Count: 0},
		{Family: "pedigree", Size: 50_000, Count: 3}, {Family: "csp", Size: 10, Count: 1, Potts: PottsShape{States: 3, Treewidth: 2, Edges: 12}},
		{Family: "potts", Size: 10, Count: 1, Potts: PottsShape{States: 3, Treewidth: 2, Edges: 30}},
		{Family: "potts", Size: 10, Count: 1}} {
		if err := Factors(p, t.TempDir()); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

// Models exported as UAI files and imported again as a directory are the
// same models, in order of file name, with the evidence files named in
// their source.
func TestExportImportDirectory(t *testing.T) {
	root := t.TempDir()
	ising, factors := filepath.Join(root, "ising"), filepath.Join(root, "factors")
	if err := Ising(IsingParams{Graph: "grid", Size: 3, Couplings: "uniform:5", Fields: "uniform:1", Count: 1, Seed: 2}, ising); err != nil {
		t.Fatal(err)
	}
	if err := Factors(FactorParams{Family: "noisy-or", Size: 8, Count: 2, Seed: 2}, factors); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "uai")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// A stale file of an earlier export is removed.
	if err := os.WriteFile(filepath.Join(out, "old.uai"), []byte("MARKOV 1 2 0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Export(ExportParams{Models: []string{factors, ising}}, out); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"grid3-Ju5-hu1-0.uai", "noisy-or8-0.uai", "noisy-or8-0.uai.evid", "noisy-or8-1.uai", "noisy-or8-1.uai.evid"}
	if !slices.Equal(names, want) {
		t.Fatalf("exported %v, want %v", names, want)
	}

	imported := filepath.Join(root, "imported")
	if err := UAI(UAIParams{In: out}, imported); err != nil {
		t.Fatal(err)
	}
	got, _, err := stageio.LoadModels(imported)
	if err != nil {
		t.Fatal(err)
	}
	orig := map[string]stageio.Model{}
	for _, dir := range []string{ising, factors} {
		ms, _, err := stageio.LoadModels(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ms {
			orig[e.Info.Name+".uai"] = e
		}
	}
	if len(got) != 3 {
		t.Fatalf("imported %d models, want 3", len(got))
	}
	for k, e := range got {
		if int(e.ID) != k || e.Info.Name != want[[]int{0, 1, 3}[k]] || e.Info.Graph != "uai" {
			t.Errorf("model %d: id %d, info %+v", k, e.ID, e.Info)
		}
		o := orig[e.Info.Name]
		if strings.Contains(e.Info.Name, "noisy") != strings.Contains(e.Info.Source, " evid="+filepath.Join(out, e.Info.Name)+".evid case=0") {
			t.Errorf("%s: source %q", e.Info.Name, e.Info.Source)
		}
		if !slices.Equal(e.Model.Cards, o.Model.Cards) || len(e.Model.Factors) != len(o.Model.Factors) {
			t.Fatalf("%s: %d factors, want %d", e.Info.Name, len(e.Model.Factors), len(o.Model.Factors))
		}
		for a, f := range e.Model.Factors {
			of := o.Model.Factors[a]
			if !slices.Equal(f.Vars, of.Vars) {
				t.Fatalf("%s factor %d: scope %v, want %v", e.Info.Name, a, f.Vars, of.Vars)
			}
			for i, l := range f.LogTable {
				if w := of.LogTable[i]; l != w && !(math.Abs(l-w) <= 1e-14*max(1, math.Abs(w))) {
					t.Fatalf("%s factor %d entry %d: %v, want %v", e.Info.Name, a, i, l, w)
				}
			}
		}
	}

	// Exporting again gives the same bytes.
	again := filepath.Join(root, "again")
	if err := Export(ExportParams{Models: []string{factors, ising}}, again); err != nil {
		t.Fatal(err)
	}
	for _, n := range want {
		a, _ := os.ReadFile(filepath.Join(out, n))
		b, _ := os.ReadFile(filepath.Join(again, n))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two exports", n)
		}
	}
}

func TestExportImportErrors(t *testing.T) {
	root := t.TempDir()
	models := filepath.Join(root, "m")
	if err := Factors(FactorParams{Family: "csp", Size: 6, Count: 1, Seed: 1}, models); err != nil {
		t.Fatal(err)
	}
	if err := Export(ExportParams{Models: []string{models, models}}, filepath.Join(root, "x")); err == nil || !strings.Contains(err.Error(), "also names") {
		t.Errorf("duplicate names: %v", err)
	}
	if err := Export(ExportParams{}, filepath.Join(root, "x")); err == nil || !strings.Contains(err.Error(), "--models") {
		t.Errorf("no models: %v", err)
	}
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)
	if err := UAI(UAIParams{In: empty}, filepath.Join(root, "y")); err == nil || !strings.Contains(err.Error(), "no .uai files") {
		t.Errorf("empty directory: %v", err)
	}
	files := filepath.Join(root, "files")
	if err := Export(ExportParams{Models: []string{models}}, files); err != nil {
		t.Fatal(err)
	}
	if err := UAI(UAIParams{In: files, Evid: "e.evid"}, filepath.Join(root, "y")); err == nil || !strings.Contains(err.Error(), "--evid") {
		t.Errorf("--evid with a directory: %v", err)
	}
	os.WriteFile(filepath.Join(files, "csp6-0.uai.evid"), []byte("0\n"), 0o644)
	os.WriteFile(filepath.Join(files, "csp6-0.evid"), []byte("0\n"), 0o644)
	if err := UAI(UAIParams{In: files}, filepath.Join(root, "y")); err == nil || !strings.Contains(err.Error(), "two evidence files") {
		t.Errorf("two evidence files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "y")); err == nil {
		t.Error("output written after an error")
	}
}

// Hidden markers survive an export and a directory import (the side file
// NAME.uai.hidden); a side file and --hide together, or a side file with an
// index out of range, are errors naming the file.
func TestExportImportHidden(t *testing.T) {
	root := t.TempDir()
	rbm := filepath.Join(root, "rbm")
	if err := Ising(IsingParams{Graph: "bipartite", Left: 3, Right: 2, Couplings: "normal:1", Fields: "uniform:1", Count: 1, Seed: 2, Hide: HideRight}, rbm); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "uai")
	if err := Export(ExportParams{Models: []string{rbm}}, out); err != nil {
		t.Fatal(err)
	}
	ms, _, err := stageio.LoadModels(rbm)
	if err != nil {
		t.Fatal(err)
	}
	side := filepath.Join(out, ms[0].Info.Name+".uai"+HiddenSuffix)
	if b, err := os.ReadFile(side); err != nil || string(b) != "3,4\n" {
		t.Fatalf("side file %s: %q, %v; want \"3,4\\n\"", side, b, err)
	}
	imported := filepath.Join(root, "imported")
	if err := UAI(UAIParams{In: out}, imported); err != nil {
		t.Fatal(err)
	}
	got, _, err := stageio.LoadModels(imported)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].Info.Hidden, []int{3, 4}) {
		t.Errorf("imported hidden %v, want [3 4]", got[0].Info.Hidden)
	}
	if err := UAI(UAIParams{In: out, Hide: "0"}, filepath.Join(root, "x")); err == nil || !strings.Contains(err.Error(), side) {
		t.Errorf("--hide with a side file: %v", err)
	}
	if err := os.WriteFile(side, []byte("3,9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UAI(UAIParams{In: out}, filepath.Join(root, "y")); err == nil || !strings.Contains(err.Error(), ms[0].Info.Name) {
		t.Errorf("index out of range in a side file: %v", err)
	}
	// A later export without hidden variables removes the stale side file.
	plain := filepath.Join(root, "plain")
	if err := Ising(IsingParams{Graph: "bipartite", Left: 3, Right: 2, Couplings: "normal:1", Fields: "uniform:1", Count: 1, Seed: 2}, plain); err != nil {
		t.Fatal(err)
	}
	if err := Export(ExportParams{Models: []string{plain}}, out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(side); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale side file left: %v", err)
	}
}

// The potts flags: defaults where not given, the density times the size as
// the number of edges where given.
func TestPottsParams(t *testing.T) {
	k, tw, d := 5, 3, 2.0
	for _, tt := range []struct {
		n         int
		states    *int
		treewidth *int
		density   *float64
		want      PottsShape
	}{
		{60, nil, nil, nil, PottsShape{States: 11, Treewidth: 6, Edges: 165}},
		{60, &k, &tw, &d, PottsShape{States: 5, Treewidth: 3, Edges: 120}},
		{5, nil, nil, nil, PottsShape{States: 11, Treewidth: 4, Edges: 10}},
		{60, nil, &tw, nil, PottsShape{States: 11, Treewidth: 3, Edges: 165}},
		{20, nil, &tw, nil, PottsShape{States: 11, Treewidth: 3, Edges: 54}},
	} {
		if got := PottsParams(tt.n, tt.states, tt.treewidth, tt.density); got != tt.want {
			t.Errorf("size %d: %+v, want %+v", tt.n, got, tt.want)
		}
	}
}
