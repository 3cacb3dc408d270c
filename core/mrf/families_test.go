package mrf

import (
	"math"
	"strings"
	"testing"
)

func TestParseDist(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Dist
		str  string
	}{
		{"normal:1", Normal(1), "normal:1"},
		{"normal:0.1", Normal(0.1), "normal:0.1"},
		{"normal:1.0", Normal(1), "normal:1"},
		{"uniform:10", Uniform(10), "uniform:10"},
		{"uniform:0", Uniform(0), "uniform:0"},
		{"uniform:-0", Uniform(0), "uniform:0"},
		{"uniform:1e-3", Uniform(0.001), "uniform:0.001"},
		{"uniform:0..5", Dist{Kind: DistUniform, Scale: 0, Max: 5}, "uniform:0..5"},
		{"normal:0.5..2", Dist{Kind: DistNormal, Scale: 0.5, Max: 2}, "normal:0.5..2"},
	} {
		got, err := ParseDist(tt.in)
		if err != nil || got != tt.want || got.String() != tt.str || math.Signbit(got.Scale) {
			t.Errorf("ParseDist(%q) = %+v (%q), %v; want %+v (%q)", tt.in, got, got.String(), err, tt.want, tt.str)
		}
	}
	for _, bad := range []string{"", "normal", "uniform", "uniform:", "uniform:x", "cauchy:1", "normal:-1",
		"normal:NaN", "normal:nan", "uniform:Inf", "uniform:+Inf", "normal:1e400", "Normal:1", "normal:1:2", " normal:1", "normal: 1",
		"uniform:5..5", "uniform:5..1", "uniform:0..", "uniform:..5", "uniform:-1..5", "uniform:0..Inf", "uniform:0..5..6"} {
		if d, err := ParseDist(bad); err == nil {
			t.Errorf("ParseDist(%q) = %+v accepted", bad, d)
		}
	}
	if got := Uniform(10).Short() + Normal(0.5).Short() + (Dist{Kind: DistUniform, Max: 5}).Short(); got != "u10n0.5u0..5" {
		t.Errorf("Short: %q", got)
	}
}

// Uniform draws stay in [-F, F) and have the moments of U(-F, F); normal
// draws have those of N(0, σ²).
func TestDistMoments(t *testing.T) {
	const n = 200000
	for _, tt := range []struct {
		d        Dist
		variance float64
		kurt     float64 // E x^4 / σ^4
	}{{Uniform(10), 100.0 / 3, 9.0 / 5}, {Uniform(1), 1.0 / 3, 9.0 / 5}, {Normal(2), 4, 3}} {
		r := NewRand(3)
		var s1, s2, s4 float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < n; i++ {
			x := tt.d.Draw(r)
			s1 += x
			s2 += x * x
			s4 += x * x * x * x
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		mean, v, k := s1/n, s2/n, s4/n/(tt.variance*tt.variance)
		if math.Abs(mean) > 5*math.Sqrt(tt.variance/n) || math.Abs(v/tt.variance-1) > 0.02 || math.Abs(k/tt.kurt-1) > 0.05 {
			t.Errorf("%v: mean %g, variance %g (want %g), kurtosis %g (want %g)", tt.d, mean, v, tt.variance, k, tt.kurt)
		}
		if tt.d.Kind == DistUniform {
			F := tt.d.Scale
			if lo < -F || hi >= F || lo > -0.999*F || hi < 0.999*F {
				t.Errorf("%v: range [%g, %g]", tt.d, lo, hi)
			}
		}
	}
	if x := Uniform(0).Draw(NewRand(1)); x != 0 {
		t.Errorf("uniform:0 drew %g", x)
	}
}

// The paper's family is RandomIsingWith(Normal(gamma), Normal(1)) bit for bit,
// and the stream is consumed fields first, then couplings.
func TestRandomIsingWith(t *testing.T) {
	es := CompleteEdges(6)
	a := RandomIsing(6, es, 0.3, 9)
	b := RandomIsingWith(6, es, Normal(0.3), Normal(1), 9)
	for i := range a.Factors {
		for j := range a.Factors[i].LogTable {
			if math.Float64bits(a.Factors[i].LogTable[j]) != math.Float64bits(b.Factors[i].LogTable[j]) {
				t.Fatalf("factor %d differs: %v vs %v", i, a.Factors[i].LogTable, b.Factors[i].LogTable)
			}
		}
	}
	u := RandomIsingWith(6, es, Uniform(1), Uniform(10), 9)
	r := NewRand(9)
	for i := 0; i < 6; i++ {
		if want := 2*r.Float64() - 1; u.Factors[i].LogTable[1] != want {
			t.Fatalf("field %d = %g, want %g", i, u.Factors[i].LogTable[1], want)
		}
	}
	for e := range es {
		if want := 10 * (2*r.Float64() - 1); u.Factors[6+e].LogTable[0] != want {
			t.Fatalf("coupling %d = %g, want %g", e, u.Factors[6+e].LogTable[0], want)
		}
	}
}

func TestGraphCounts(t *testing.T) {
	for _, tt := range []struct {
		g            Graph
		vars, edges  int
		wantErrMatch string
	}{
		{Graph{Family: "grid", Size: 10}, 100, 180, ""},
		{Graph{Family: "torus", Size: 4}, 16, 32, ""},
		{Graph{Family: "complete", Size: 16}, 16, 120, ""},
		{Graph{Family: "bipartite", Left: 20, Right: 30}, 50, 600, ""},
		{Graph{Family: "regular", Size: 50, Degree: 3}, 50, 75, ""},
		{Graph{Family: "grid", Size: 2236}, 2236 * 2236, 2 * 2236 * 2235, ""}, // the largest grid
		{Graph{Family: "grid", Size: 0}, 0, 0, "too small"},
		{Graph{Family: "torus", Size: 2}, 0, 0, "too small"},
		{Graph{Family: "complete", Size: 0}, 0, 0, "size >= 1"},
		{Graph{Family: "bipartite", Left: 0, Right: 3}, 0, 0, "left >= 1"},
		{Graph{Family: "regular", Size: 5, Degree: 3}, 0, 0, "even"},
		{Graph{Family: "regular", Size: 4, Degree: 4}, 0, 0, "degree <"},
		{Graph{Family: "regular", Size: 4, Degree: 0}, 0, 0, "degree <"},
		{Graph{Family: "regular", Size: 1, Degree: 0}, 0, 0, "size >= 2"},
		{Graph{Family: "ring", Size: 4}, 0, 0, "unknown graph"},
		// Too large: refused before anything is allocated.
		{Graph{Family: "grid", Size: 2237}, 0, 0, "too large"},
		{Graph{Family: "grid", Size: math.MaxInt32}, 0, 0, "too large"},
		{Graph{Family: "complete", Size: 100000}, 0, 0, "too large"},
		{Graph{Family: "complete", Size: math.MaxInt}, 0, 0, "too large"},
		{Graph{Family: "bipartite", Left: 5000, Right: 5000}, 0, 0, "too large"},
		{Graph{Family: "bipartite", Left: math.MaxInt, Right: math.MaxInt}, 0, 0, "too large"},
		{Graph{Family: "regular", Size: 1000000, Degree: 100}, 0, 0, "too large"},
		{Graph{Family: "regular", Size: math.MaxInt - 1, Degree: 2}, 0, 0, "too large"},
	} {
		v, e, err := tt.g.Counts()
		if tt.wantErrMatch != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErrMatch) {
				t.Errorf("%+v: error %v, want it to mention %q", tt.g, err, tt.wantErrMatch)
			}
			if _, _, err := tt.g.Edges(NewRand(1)); err == nil {
				t.Errorf("%+v: Edges accepted it", tt.g)
			}
			continue
		}
		if err != nil || v != tt.vars || e != tt.edges {
			t.Errorf("%+v: %d vars, %d edges, %v; want %d, %d", tt.g, v, e, err, tt.vars, tt.edges)
		}
	}
	if _, err := GridEdges(5000, false); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("GridEdges(5000): %v", err)
	}
}

// Every graph of every family has the counted numbers of nodes and edges,
// sorted edges with I < J and no repeats, and the degrees of its family.
func TestGraphEdges(t *testing.T) {
	for _, g := range []Graph{
		{Family: "grid", Size: 4}, {Family: "torus", Size: 3}, {Family: "complete", Size: 7},
		{Family: "bipartite", Left: 1, Right: 1}, {Family: "bipartite", Left: 3, Right: 5}, {Family: "bipartite", Left: 20, Right: 20},
		{Family: "regular", Size: 2, Degree: 1}, {Family: "regular", Size: 10, Degree: 3}, {Family: "regular", Size: 50, Degree: 3},
		{Family: "regular", Size: 100, Degree: 4}, {Family: "regular", Size: 30, Degree: 10}, {Family: "regular", Size: 11, Degree: 6},
		{Family: "regular", Size: 12, Degree: 9}, {Family: "regular", Size: 9, Degree: 8}, {Family: "regular", Size: 400, Degree: 20},
		{Family: "regular", Size: 6, Degree: 2},
	} {
		n, es, err := g.Edges(NewRand(4))
		if err != nil {
			t.Fatalf("%+v: %v", g, err)
		}
		vars, edges, _ := g.Counts()
		if n != vars || len(es) != edges {
			t.Errorf("%+v: %d nodes, %d edges; counted %d, %d", g, n, len(es), vars, edges)
		}
		deg := make([]int, n)
		for k, e := range es {
			if e.I < 0 || e.I >= e.J || e.J >= n || (k > 0 && (es[k-1].I > e.I || (es[k-1].I == e.I && es[k-1].J >= e.J))) {
				t.Fatalf("%+v: edge %d = %v bad, repeated or out of order", g, k, e)
			}
			deg[e.I]++
			deg[e.J]++
		}
		for i, d := range deg {
			want := -1
			switch g.Family {
			case "complete":
				want = n - 1
			case "regular":
				want = g.Degree
			case "bipartite":
				want = g.Right
				if i >= g.Left {
					want = g.Left
				}
			}
			if want >= 0 && d != want {
				t.Errorf("%+v: node %d has degree %d, want %d", g, i, d, want)
			}
		}
		if g.Family == "bipartite" { // every left-right pair exactly once, in order
			k := 0
			for i := 0; i < g.Left; i++ {
				for j := g.Left; j < g.Left+g.Right; j++ {
					if es[k] != (Edge{i, j}) {
						t.Fatalf("%+v: edge %d = %v, want %v", g, k, es[k], Edge{i, j})
					}
					k++
				}
			}
		}
	}
}

// Regular graphs are a function of the stream: the same seed gives the same
// graph, different seeds (almost always) different ones, and the degree n-1
// graph is K_n.
func TestRegularEdgesSeeded(t *testing.T) {
	key := func(es []Edge) string {
		var b strings.Builder
		for _, e := range es {
			b.WriteString(string(rune(e.I)) + string(rune(e.J)))
		}
		return b.String()
	}
	a, err := RegularEdges(60, 3, NewRand(7))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RegularEdges(60, 3, NewRand(7))
	c, _ := RegularEdges(60, 3, NewRand(8))
	if key(a) != key(b) || key(a) == key(c) {
		t.Error("RegularEdges is not a function of its stream")
	}
	seen := map[string]bool{}
	for s := int64(0); s < 50; s++ {
		es, err := RegularEdges(8, 3, NewRand(s))
		if err != nil {
			t.Fatal(err)
		}
		seen[key(es)] = true
	}
	if len(seen) < 40 { // there are 19355 labelled cubic graphs on 8 nodes
		t.Errorf("only %d distinct graphs in 50 draws", len(seen))
	}
	k, _ := RegularEdges(9, 8, NewRand(1))
	if key(k) != key(CompleteEdges(9)) {
		t.Errorf("8-regular graph on 9 nodes is not K9: %v", k)
	}
	if _, err := RegularEdges(7, 3, NewRand(1)); err == nil {
		t.Error("odd n*d accepted")
	}
	if _, _, err := (Graph{Family: "regular", Size: 6, Degree: 2}).Edges(nil); err == nil {
		t.Error("regular graph without a stream accepted")
	}
}

func BenchmarkRegularEdges(b *testing.B) {
	r := NewRand(1)
	for i := 0; i < b.N; i++ {
		if _, err := RegularEdges(10000, 3, r); err != nil {
			b.Fatal(err)
		}
	}
}

// A scale range draws one scale per model, from the model's stream before
// any field or coupling: with A..B every coupling of a model lies within
// that model's scale, and the scales spread over [A, B).
func TestScaleRangePerModel(t *testing.T) {
	es := CompleteEdges(30)
	rangeD := Dist{Kind: DistUniform, Scale: 1, Max: 5}
	lo, hi := math.Inf(1), math.Inf(-1)
	for seed := int64(0); seed < 200; seed++ {
		m := RandomIsingWith(30, es, Uniform(0.1), rangeD, seed)
		r := NewRand(seed)
		F := rangeD.Fixed(r)
		if F.Max != 0 || F.Scale < 1 || F.Scale >= 5 {
			t.Fatalf("seed %d: fixed scale %+v", seed, F)
		}
		lo, hi = math.Min(lo, F.Scale), math.Max(hi, F.Scale)
		// The model's couplings all lie within its own scale.
		maxJ := 0.0
		for _, f := range m.Factors {
			if len(f.Vars) == 2 {
				maxJ = math.Max(maxJ, math.Abs(f.LogTable[0]))
			}
		}
		if maxJ > F.Scale+1e-12 || maxJ < 0.95*F.Scale { // 435 couplings reach near the bound
			t.Fatalf("seed %d: largest |J| %g, want just below the model's scale %g", seed, maxJ, F.Scale)
		}
	}
	if lo > 1.2 || hi < 4.8 {
		t.Errorf("scales spread over [%g, %g], want about [1, 5)", lo, hi)
	}
	// Fixed scales draw nothing: unchanged models.
	if d := Uniform(2); d.Fixed(NewRand(1)) != d {
		t.Errorf("Fixed changed a fixed scale")
	}
}
