package feasible

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

var ninf = math.Inf(-1)

// x0 != x1, x1 != x2 on three states, x0 observed at 2: propagation rules
// out state 2 of x1, the search finds a configuration of non-zero
// probability; observing x2 at 2 too leaves x1 two states, x0 = x2 = 2 and
// x1 in {0, 1}; an impossible chain empties a domain.
func TestPropagateAndSearch(t *testing.T) {
	neq := []float64{ninf, 0, 0, 0, ninf, 0, 0, 0, ninf}
	m := &mrf.Model{Cards: []int{3, 3, 3}, Factors: []mrf.Factor{{Vars: []int{0, 1}, LogTable: neq}, {Vars: []int{1, 2}, LogTable: neq}}}
	if HasZeros(&mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 1}}}}) || !HasZeros(m) {
		t.Fatal("HasZeros")
	}
	if err := m.Observe(0, 2); err != nil {
		t.Fatal(err)
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	d := Full(m.Cards)
	if !Propagate(g, m, d) {
		t.Fatal("feasible model called infeasible")
	}
	if d[0][0] || d[0][1] || d[1][2] || !d[1][0] || !d[2][2] {
		t.Errorf("domains %v", d)
	}
	x := Search(g, m, d, func(i, s int) float64 { return float64(s) })
	if x == nil || math.IsInf(m.LogScore(x), -1) {
		t.Fatalf("search gave %v", x)
	}
	// Impossible: x0 = 2 and x0 != x0's only other choice.
	bad := m.Clone()
	bad.Factors = append(bad.Factors, mrf.Factor{Vars: []int{0}, LogTable: []float64{0, 0, ninf}})
	gb, _ := infer.NewFactorGraph(bad)
	if Propagate(gb, bad, Full(bad.Cards)) {
		t.Error("infeasible model called feasible")
	}
}

// SearchUntil gives up when stop says so, and says it did; without a stop
// it is Search.
func TestSearchUntil(t *testing.T) {
	// Five variables of four states, all different: no configuration, which
	// propagation alone does not see.
	neq := make([]float64, 16)
	for s := range 4 {
		neq[5*s] = ninf
	}
	m := &mrf.Model{Cards: []int{4, 4, 4, 4, 4}}
	for i := range 5 {
		for j := range i {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{j, i}, LogTable: neq})
		}
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	d := Full(m.Cards)
	if !Propagate(g, m, d) {
		t.Fatal("propagation saw the contradiction")
	}
	pref := func(i, x int) float64 { return 0 }
	asked := 0
	x, stopped := SearchUntil(g, m, d, pref, func() bool { asked++; return asked > 3 })
	if x != nil || !stopped || asked != 4 {
		t.Errorf("stopped %v after %d questions, found %v", stopped, asked, x)
	}
	if x, stopped := SearchUntil(g, m, d, pref, nil); x != nil || stopped {
		t.Errorf("without a stop: stopped %v, found %v", stopped, x)
	}
}
