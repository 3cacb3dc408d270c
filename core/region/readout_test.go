package region

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func TestReadOutExact(t *testing.T) {
	rng := mrf.NewRand(51)
	// Mixed cardinalities and a scope in decreasing order, so a read-out in
	// the wrong variable order shows.
	mixed := factorModel(rng, []int{2, 3, 2, 4, 2}, nil,
		[]mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}, {I: 2, J: 3}, {I: 0, J: 3}, {I: 3, J: 4}}, [][]int{{4, 2, 1}})
	mixed.Factors = append(mixed.Factors, mrf.Factor{Vars: []int{3, 1}, LogTable: randomTable(rng, mixed.Cards, []int{3, 1})})
	grid := gridModel(t, 3, false, 9)
	k6 := completeModel(6, 9)
	cases := []struct {
		name   string
		m      *mrf.Model
		graph  string
		scheme string
	}{
		{"mixed bethe", mixed, "uai", Bethe},
		{"mixed cycles", mixed, "uai", Cycles},
		{"3x3 faces", grid, "grid", Faces},
		{"3x3 faces+outer", grid, "grid", FacesOuter},
		{"K6 star", k6, "complete", Star},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bd := bind(t, build(t, tc.m, tc.graph, tc.scheme), tc.m)
			joint, _ := bruteJoint(t, tc.m)
			b, err := bd.BeliefsFromJoint(joint)
			if err != nil {
				t.Fatal(err)
			}
			for v, got := range bd.VarMarginals(b) {
				assertClose(t, "variable", v, got, marginalOf(tc.m, joint, []int{v}))
			}
			for a, got := range bd.FactorMarginals(b) {
				assertClose(t, "factor", a, got, marginalOf(tc.m, joint, tc.m.Factors[a].Vars))
			}
		})
	}
}

func assertClose(t *testing.T, what string, i int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s %d: %d entries, want %d", what, i, len(got), len(want))
	}
	for x := range got {
		if math.Abs(got[x]-want[x]) > 1e-12 {
			t.Fatalf("%s %d: marginal %v, want %v", what, i, got, want)
		}
	}
}

func TestReadOutMean(t *testing.T) {
	// Two roots {0,1}, {1,2} and the child {1}: variable 1's marginal is the
	// mean over the three regions, normalised; all-zero beliefs give uniform.
	m := factorModel(mrf.NewRand(1), constCards(3, 2), nil, []mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}}, nil)
	g := build(t, m, "uai", Bethe)
	if len(g.Regions) != 3 {
		t.Fatalf("%d regions, want 3", len(g.Regions))
	}
	b := [][]float64{
		{0.1, 0.2, 0.3, 0.4}, // {0,1}: p(x1) = (0.4, 0.6)
		{0.5, 0.5, 0, 0},     // {1,2}: p(x1) = (1, 0)
		{0, 0},               // {1}
	}
	bd := bind(t, g, m)
	got := bd.VarMarginals(b)
	assertClose(t, "variable", 1, got[1], []float64{1.4 / 2, 0.6 / 2})
	assertClose(t, "variable", 0, got[0], []float64{0.3, 0.7})
	b[0] = []float64{0, 0, 0, 0}
	assertClose(t, "variable", 0, bd.VarMarginals(b)[0], []float64{0.5, 0.5})
}

func TestBeliefsFromJointErrors(t *testing.T) {
	m := gridModel(t, 3, false, 1)
	bd := bind(t, build(t, m, "grid", Faces), m)
	if _, err := bd.BeliefsFromJoint(make([]float64, 10)); err == nil || !strings.Contains(err.Error(), "joint table has 10 entries") {
		t.Errorf("wrong length: got %v", err)
	}
	big := gridModel(t, 5, false, 1)
	if _, err := bind(t, build(t, big, "grid", Faces), big).BeliefsFromJoint(nil); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("25 variables: got %v", err)
	}
}
