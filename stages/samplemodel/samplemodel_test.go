package samplemodel

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
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
	if got, want := ms[0].Info.Source, "MARKOV "+uai+" evid="+evid+" case=0"; got != want {
		t.Errorf("source %q, want %q", got, want)
	}
	// Without evidence the source is the preamble and the file.
	plain := filepath.Join(dir, "plain")
	if err := UAI(UAIParams{In: uai}, plain); err != nil {
		t.Fatal(err)
	}
	if ps, _, err := stageio.LoadModels(plain); err != nil || ps[0].Info.Source != "MARKOV "+uai {
		t.Errorf("source without evidence: %+v, %v", ps, err)
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

// The benchmark families: sizes, the names, sources and gamma column that say
// the family, values inside a uniform's range, one random graph per model,
// and the same files from the same seed.
func TestIsingFamilies(t *testing.T) {
	for _, tt := range []struct {
		p             IsingParams
		vars, factors int
		name0, source string
		gamma         float64
	}{
		{IsingParams{Graph: "grid", Size: 10, Couplings: "uniform:10", Fields: "uniform:1", Count: 3, Seed: 1}, 100, 100 + 180,
			"grid10-Ju10-hu1-0", "sample-model ising couplings=uniform:10 fields=uniform:1", 0},
		{IsingParams{Graph: "torus", Size: 4, Couplings: "uniform:5", Gamma: 0.5, Count: 2, Seed: 2}, 16, 16 + 32,
			"torus4-Ju5-hn0.5-0", "sample-model ising couplings=uniform:5 fields=normal:0.5", 0.5},
		{IsingParams{Graph: "complete", Size: 6, Couplings: "normal:2", Fields: "uniform:0.5", Count: 2, Seed: 2}, 6, 6 + 15,
			"complete6-Jn2-hu0.5-0", "sample-model ising couplings=normal:2 fields=uniform:0.5", 0},
		{IsingParams{Graph: "bipartite", Left: 20, Right: 20, Gamma: 1, Count: 2, Seed: 3}, 40, 40 + 400,
			"bipartite20x20-Jn1-hn1-0", "sample-model ising couplings=normal:1 fields=normal:1", 1},
		{IsingParams{Graph: "regular", Size: 30, Degree: 3, Couplings: "uniform:2.0", Fields: "normal:0.1", Count: 3, Seed: 4}, 30, 30 + 45,
			"regular30d3-Ju2-hn0.1-0", "sample-model ising couplings=uniform:2 fields=normal:0.1", 0.1},
	} {
		dir := filepath.Join(t.TempDir(), "m")
		if err := Ising(tt.p, dir); err != nil {
			t.Fatalf("%+v: %v", tt.p, err)
		}
		ms, _, err := stageio.LoadModels(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != tt.p.Count {
			t.Fatalf("%s: %d models", tt.name0, len(ms))
		}
		scopes := map[string]bool{}
		for k, e := range ms {
			in := e.Info
			if e.Model.NumVars() != tt.vars || len(e.Model.Factors) != tt.factors || in.Graph != tt.p.Graph || in.Gamma != tt.gamma ||
				in.Source != tt.source || in.Name != strings.TrimSuffix(tt.name0, "0")+strconv.Itoa(k) {
				t.Errorf("%s: model %d has %d vars, %d factors, info %+v", tt.name0, k, e.Model.NumVars(), len(e.Model.Factors), in)
			}
			if err := e.Model.Validate(); err != nil {
				t.Error(err)
			}
			var b strings.Builder
			for a, f := range e.Model.Factors {
				if a >= tt.vars {
					fmt.Fprint(&b, f.Vars, " ")
				}
			}
			scopes[b.String()] = true
			// Couplings and fields stay inside a uniform's range.
			for _, d := range []struct {
				spec     string
				from, to int
			}{{tt.p.Couplings, tt.vars, tt.factors}, {tt.p.Fields, 0, tt.vars}} {
				dist, err := mrf.ParseDist(d.spec)
				if err != nil || dist.Kind != mrf.DistUniform {
					continue
				}
				for _, f := range e.Model.Factors[d.from:d.to] {
					if x := f.LogTable[len(f.LogTable)-1]; math.Abs(x) > dist.Scale {
						t.Errorf("%s: value %g outside %v", tt.name0, x, dist)
					}
				}
			}
		}
		if n := len(scopes); (tt.p.Graph == "regular") != (n == tt.p.Count) || (tt.p.Graph != "regular" && n != 1) {
			t.Errorf("%s: %d distinct graphs among %d models", tt.name0, n, tt.p.Count)
		}
		dir2 := filepath.Join(t.TempDir(), "m")
		if err := Ising(tt.p, dir2); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{formats.ModelsFile, formats.ModelInfoFile} {
			a, _ := formats.FileSHA256(filepath.Join(dir, f))
			b, _ := formats.FileSHA256(filepath.Join(dir2, f))
			if a != b {
				t.Errorf("%s: same seed, different %s", tt.name0, f)
			}
		}
	}
}

// Every parameter that cannot be honoured is refused, naming the flag,
// before anything is allocated or written.
func TestIsingRejects(t *testing.T) {
	for _, tt := range []struct {
		p    IsingParams
		want string
	}{
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Couplings: "uniform"}, "--couplings"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Couplings: "uniform:x"}, "--couplings"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Couplings: "cauchy:1"}, "--couplings"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Fields: "normal:-1"}, "--fields"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Fields: "normal:NaN"}, "--fields"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Fields: "uniform:Inf"}, "--fields"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Fields: "uniform:1", Gamma: 1}, "--gamma"},
		{IsingParams{Graph: "grid", Size: 3, Count: 1, Gamma: math.Inf(1)}, "--gamma"},
		{IsingParams{Graph: "bipartite", Size: 3, Left: 2, Right: 2, Count: 1}, "--size"},
		{IsingParams{Graph: "bipartite", Left: 2, Count: 1}, "right >= 1"},
		{IsingParams{Graph: "grid", Size: 3, Left: 2, Count: 1}, "--left"},
		{IsingParams{Graph: "grid", Size: 3, Degree: 2, Count: 1}, "--degree"},
		{IsingParams{Graph: "regular", Size: 5, Degree: 3, Count: 1}, "even"},
		{IsingParams{Graph: "regular", Size: 5, Degree: 5, Count: 1}, "degree < 5"},
		{IsingParams{Graph: "complete", Size: 100000, Count: 1}, "too large"},
		{IsingParams{Graph: "grid", Size: 1000, Count: 20}, "too large"},
		{IsingParams{Graph: "ring", Size: 3, Count: 1}, "unknown graph"},
		{IsingParams{Graph: "grid", Size: 3, Count: 0}, "--count"},
	} {
		out := filepath.Join(t.TempDir(), "m")
		err := Ising(tt.p, out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want it to mention %q", tt.p, err, tt.want)
		}
		if err2 := tt.p.Check(); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%+v: Check says %v, Ising %v", tt.p, err2, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%+v: output written", tt.p)
		}
	}
}
