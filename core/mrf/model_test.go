package mrf

import (
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	good := func() *Model {
		return &Model{Cards: []int{2, 3}, Factors: []Factor{{Vars: []int{1, 0}, LogTable: make([]float64, 6)}}}
	}
	tests := []struct {
		name   string
		mutate func(m *Model)
		want   string
	}{
		{"ok", func(m *Model) {}, ""},
		{"no vars", func(m *Model) { m.Cards = nil }, "no variables"},
		{"zero card", func(m *Model) { m.Cards[0] = 0 }, "cardinality 0"},
		{"out of range", func(m *Model) { m.Factors[0].Vars[0] = 5 }, "out of range"},
		{"repeat", func(m *Model) { m.Factors[0].Vars[0] = 0 }, "repeated"},
		{"length", func(m *Model) { m.Factors[0].LogTable = m.Factors[0].LogTable[:5] }, "needs 6"},
		{"nan", func(m *Model) { m.Factors[0].LogTable[2] = math.NaN() }, "NaN"},
		{"+inf", func(m *Model) { m.Factors[0].LogTable[2] = math.Inf(1) }, "+Inf"},
		{"card 2^31-1", func(m *Model) { m.Cards[1] = math.MaxInt32 }, "cardinality 2147483647, want 1 to 16777216"},
		{"states", func(m *Model) {
			m.Cards = append(m.Cards, 1<<24, 1<<24)
			for len(m.Cards) < 20 {
				m.Cards = append(m.Cards, 1<<24)
			}
		}, "above the bound 268435456"},
		{"table bound", func(m *Model) { m.Cards[0], m.Cards[1] = 1<<24, 1<<24 }, "table above the bound"},
		{"-inf ok", func(m *Model) { m.Factors[0].LogTable[2] = math.Inf(-1) }, ""},
	}
	for _, tt := range tests {
		m := good()
		tt.mutate(m)
		err := m.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
}

func TestFactorIndexLastVarFastest(t *testing.T) {
	cards := []int{2, 3, 4}
	f := Factor{Vars: []int{2, 0}}
	// x2 = 3, x0 = 1 -> 3*2 + 1
	if got := f.Index(cards, []int{1, 0, 3}); got != 7 {
		t.Fatalf("Index = %d, want 7", got)
	}
}

func TestGridEdges(t *testing.T) {
	for _, tt := range []struct {
		L     int
		torus bool
		want  int
	}{{1, false, 0}, {2, false, 4}, {5, false, 40}, {20, false, 760}, {3, true, 18}, {5, true, 50}} {
		es, err := GridEdges(tt.L, tt.torus)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != tt.want {
			t.Errorf("L=%d torus=%v: %d edges, want %d", tt.L, tt.torus, len(es), tt.want)
		}
		seen := map[Edge]bool{}
		for _, e := range es {
			if e.I >= e.J || seen[e] {
				t.Errorf("L=%d: bad or repeated edge %v", tt.L, e)
			}
			seen[e] = true
			ri, ci, rj, cj := e.I/tt.L, e.I%tt.L, e.J/tt.L, e.J%tt.L
			dr, dc := (rj-ri+tt.L)%tt.L, (cj-ci+tt.L)%tt.L
			if !(dr == 0 && (dc == 1 || dc == tt.L-1)) && !(dc == 0 && (dr == 1 || dr == tt.L-1)) {
				t.Errorf("L=%d: edge %v joins non-neighbours", tt.L, e)
			}
		}
	}
	if _, err := GridEdges(2, true); err == nil {
		t.Error("2x2 torus accepted")
	}
}

func TestRandomIsingDeterministic(t *testing.T) {
	es := CompleteEdges(5)
	a := RandomIsing(5, es, 1, 42)
	b := RandomIsing(5, es, 1, 42)
	c := RandomIsing(5, es, 1, 43)
	if len(a.Factors) != 5+10 {
		t.Fatalf("%d factors, want 15", len(a.Factors))
	}
	same := func(x, y *Model) bool {
		for i := range x.Factors {
			for j := range x.Factors[i].LogTable {
				if x.Factors[i].LogTable[j] != y.Factors[i].LogTable[j] {
					return false
				}
			}
		}
		return true
	}
	if !same(a, b) || same(a, c) {
		t.Fatal("RandomIsing is not a function of its seed")
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	// Ising tables: pairwise (J, -J, -J, J) and unary (-h, h).
	p := a.Factors[5].LogTable
	if p[0] != p[3] || p[1] != p[2] || p[0] != -p[1] {
		t.Errorf("pairwise table %v is not an Ising coupling", p)
	}
}

func TestDeriveSeedDistinct(t *testing.T) {
	seen := map[int64]bool{}
	for k := 0; k < 1000; k++ {
		s := DeriveSeed(7, k)
		if s < 0 || seen[s] {
			t.Fatalf("seed %d for k=%d negative or repeated", s, k)
		}
		seen[s] = true
	}
}

func TestObserve(t *testing.T) {
	m := &Model{Cards: []int{3}}
	if err := m.Observe(0, 1); err != nil {
		t.Fatal(err)
	}
	tab := m.Factors[0].LogTable
	if !math.IsInf(tab[0], -1) || tab[1] != 0 || !math.IsInf(tab[2], -1) {
		t.Fatalf("evidence table %v", tab)
	}
	if m.Observe(0, 3) == nil || m.Observe(1, 0) == nil {
		t.Fatal("out-of-range evidence accepted")
	}
}

func TestMarginalsCheck(t *testing.T) {
	m := &Model{Cards: []int{2, 3}, Factors: []Factor{{Vars: []int{1, 0}, LogTable: make([]float64, 6)}}}
	good := func() Marginals {
		return Marginals{Vars: [][]float64{make([]float64, 2), make([]float64, 3)}, Factors: [][]float64{make([]float64, 6)}}
	}
	tests := []struct {
		name   string
		mutate func(mg *Marginals)
		want   string
	}{
		{"ok", func(mg *Marginals) {}, ""},
		{"few vars", func(mg *Marginals) { mg.Vars = mg.Vars[:1] }, "1 variable marginals for 2 variables"},
		{"few factors", func(mg *Marginals) { mg.Factors = nil }, "0 factor marginals for 1 factors"},
		{"var length", func(mg *Marginals) { mg.Vars[1] = mg.Vars[1][:2] }, "variable 1: marginal has 2 entries, cardinality is 3"},
		{"factor length", func(mg *Marginals) { mg.Factors[0] = mg.Factors[0][:5] }, "factor 0: marginal has 5 entries, scope [1 0] needs 6"},
	}
	for _, tt := range tests {
		mg := good()
		tt.mutate(&mg)
		err := mg.Check(m)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
}
