package infer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

var inf = math.Inf(1)

func TestLogSumExp(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want float64
	}{
		{nil, -inf},
		{[]float64{-inf, -inf}, -inf},
		{[]float64{0}, 0},
		{[]float64{0, 0}, math.Ln2},
		{[]float64{1000, 1000}, 1000 + math.Ln2}, // would overflow naively
		{[]float64{-1000, -inf}, -1000},
		{[]float64{math.Log(0.25), math.Log(0.5), math.Log(0.25)}, 0},
		{[]float64{3, inf}, inf},
	} {
		got := infer.LogSumExp(tc.x)
		if !(got == tc.want || math.Abs(got-tc.want) < 1e-12) {
			t.Errorf("LogSumExp(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if got := infer.LogSumExp([]float64{1, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("LogSumExp with NaN = %v, want NaN", got)
	}
}

func TestNormalizeLog(t *testing.T) {
	for _, tc := range []struct {
		logp, want []float64
		lse        float64
	}{
		{[]float64{0, 0}, []float64{0.5, 0.5}, math.Ln2},
		{[]float64{math.Log(3), math.Log(1)}, []float64{0.75, 0.25}, math.Log(4)},
		{[]float64{-inf, 5}, []float64{0, 1}, 5},
		{[]float64{-inf, -inf, -inf, -inf}, []float64{0.25, 0.25, 0.25, 0.25}, -inf},
		{[]float64{800, 800 + math.Log(3)}, []float64{0.25, 0.75}, 800 + math.Log(4)},
		// ln 2 is below the rounding step of 1e17 (16): the normaliser
		// rounds to 1e17, but the probabilities must still sum to 1.
		{[]float64{1e17, 1e17}, []float64{0.5, 0.5}, 1e17},
		{[]float64{-1e17, -1e17, -inf}, []float64{0.5, 0.5, 0}, -1e17},
	} {
		got := infer.NormalizeLog(tc.logp)
		dst := make([]float64, len(tc.logp))
		lse := infer.NormalizeLogTo(dst, tc.logp)
		shifted := append([]float64(nil), tc.logp...)
		lse2 := infer.ShiftLog(shifted)
		for k := range tc.want {
			if math.Abs(got[k]-tc.want[k]) > 1e-12 || math.Abs(dst[k]-tc.want[k]) > 1e-12 ||
				math.Abs(math.Exp(shifted[k])-tc.want[k]) > 1e-12 {
				t.Errorf("normalise %v: got %v, %v, exp %v; want %v", tc.logp, got, dst, shifted, tc.want)
				break
			}
		}
		if !(lse == tc.lse || math.Abs(lse-tc.lse) < 1e-12) || lse2 != lse {
			t.Errorf("normaliser of %v = %v, %v; want %v", tc.logp, lse, lse2, tc.lse)
		}
	}
}

func TestXLogX(t *testing.T) {
	if infer.XLogX(0) != 0 || infer.XLogX(1) != 0 || math.Abs(infer.XLogX(0.5)-0.5*math.Log(0.5)) > 1e-15 {
		t.Error("XLogX wrong at 0, 1 or 0.5")
	}
}

// threeVar has an unsorted 3-ary scope, a pairwise and a unary factor.
func threeVar() *mrf.Model {
	m := &mrf.Model{Cards: []int{2, 3, 4}}
	add := func(vars ...int) {
		n := mrf.TableSize(m.Cards, vars)
		t := make([]float64, n)
		for k := range t {
			t[k] = math.Sin(float64(k*7 + len(vars)))
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars, LogTable: t})
	}
	add(2, 0, 1)
	add(1, 0)
	add(1)
	return m
}

func TestFactorGraph(t *testing.T) {
	m := threeVar()
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	wantAxes := [][]infer.Axis{
		{{Stride: 6, Card: 4}, {Stride: 3, Card: 2}, {Stride: 1, Card: 3}},
		{{Stride: 2, Card: 3}, {Stride: 1, Card: 2}},
		{{Stride: 1, Card: 3}},
	}
	if fmt.Sprint(g.Axes) != fmt.Sprint(wantAxes) {
		t.Errorf("axes %v, want %v", g.Axes, wantAxes)
	}
	wantInc := [][]infer.Incidence{
		{{Factor: 0, Pos: 1}, {Factor: 1, Pos: 1}},
		{{Factor: 0, Pos: 2}, {Factor: 1, Pos: 0}, {Factor: 2, Pos: 0}},
		{{Factor: 0, Pos: 0}},
	}
	if fmt.Sprint(g.VarFactors) != fmt.Sprint(wantInc) {
		t.Errorf("incidences %v, want %v", g.VarFactors, wantInc)
	}
	if g.MaxSize != 24 || g.MaxCard != 4 || g.Degree(1) != 3 || g.NumVars() != 3 || g.NumFactors() != 3 {
		t.Errorf("MaxSize %d MaxCard %d Degree(1) %d", g.MaxSize, g.MaxCard, g.Degree(1))
	}
	// Every axis must agree with mrf.Factor.Index on every full assignment.
	x := make([]int, 3)
	for x[0] = 0; x[0] < 2; x[0]++ {
		for x[1] = 0; x[1] < 3; x[1]++ {
			for x[2] = 0; x[2] < 4; x[2]++ {
				for a := range m.Factors {
					idx := m.Factors[a].Index(m.Cards, x)
					for p, v := range m.Factors[a].Vars {
						if g.Axes[a][p].State(idx) != x[v] {
							t.Fatalf("factor %d axis %d: state at %d is %d, want %d", a, p, idx, g.Axes[a][p].State(idx), x[v])
						}
					}
				}
			}
		}
	}
}

func TestSameStructure(t *testing.T) {
	m := threeVar()
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		t.Fatal(err)
	}
	other := m.Clone()
	other.Factors[0].LogTable[3] = -7 // tables may change
	if !g.SameStructure(other) {
		t.Error("changed table: SameStructure false, want true")
	}
	m.Factors[1].Vars[0] = 2 // g keeps its own copy of the scopes
	if g.SameStructure(m) {
		t.Error("changed scope: SameStructure true, want false")
	}
	for name, change := range map[string]func(*mrf.Model){
		"card":     func(m *mrf.Model) { m.Cards[0] = 3 },
		"vars":     func(m *mrf.Model) { m.Cards = append(m.Cards, 2) },
		"factors":  func(m *mrf.Model) { m.Factors = m.Factors[:2] },
		"arity":    func(m *mrf.Model) { m.Factors[1].Vars = m.Factors[1].Vars[:1] },
		"ordering": func(m *mrf.Model) { m.Factors[1].Vars[0], m.Factors[1].Vars[1] = 0, 1 },
	} {
		c := other.Clone()
		change(c)
		if g.SameStructure(c) {
			t.Errorf("%s changed: SameStructure true, want false", name)
		}
	}
	if g.SameStructure(nil) {
		t.Error("nil model: SameStructure true")
	}
}

func TestNewFactorGraphErrors(t *testing.T) {
	for name, m := range map[string]*mrf.Model{
		"nil":       nil,
		"empty":     {},
		"short":     {Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0}}}},
		"range":     {Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{1}, LogTable: []float64{0, 0}}}},
		"nan":       {Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, math.NaN()}}}},
		"plus inf":  {Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, inf}}}},
		"zero card": {Cards: []int{0}},
	} {
		if _, err := infer.NewFactorGraph(m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestTableOps checks AddAlong, ScaleAlong, SumAlong and LogSumAlong against
// a direct computation through Axis.State, on every axis of a 3-ary table.
func TestTableOps(t *testing.T) {
	m := threeVar()
	g, _ := infer.NewFactorGraph(m)
	f := m.Factors[0]
	for p, ax := range g.Axes[0] {
		v := make([]float64, ax.Card)
		for x := range v {
			v[x] = float64(x) + 0.5
		}
		added := append([]float64(nil), f.LogTable...)
		infer.AddAlong(added, ax, v)
		scaled := append([]float64(nil), f.LogTable...)
		infer.ScaleAlong(scaled, ax, v)
		withZero := append([]float64(nil), f.LogTable...)
		withZero[0] = math.Inf(-1)
		sum := make([]float64, ax.Card)
		logSum := make([]float64, ax.Card)
		infer.SumAlong(f.LogTable, ax, sum)
		infer.LogSumAlong(withZero, ax, logSum)
		wantSum := make([]float64, ax.Card)
		wantLog := make([][]float64, ax.Card)
		for k, e := range f.LogTable {
			x := ax.State(k)
			if added[k] != e+v[x] || scaled[k] != e*v[x] {
				t.Fatalf("axis %d entry %d: added %v scaled %v", p, k, added[k], scaled[k])
			}
			wantSum[x] += e
			wantLog[x] = append(wantLog[x], withZero[k])
		}
		for x := range sum {
			if math.Abs(sum[x]-wantSum[x]) > 1e-12 {
				t.Errorf("axis %d: SumAlong[%d] = %v, want %v", p, x, sum[x], wantSum[x])
			}
			want := math.Log(func() float64 {
				s := 0.0
				for _, e := range wantLog[x] {
					s += math.Exp(e)
				}
				return s
			}())
			if math.Abs(logSum[x]-want) > 1e-12 {
				t.Errorf("axis %d: LogSumAlong[%d] = %v, want %v", p, x, logSum[x], want)
			}
		}
	}
	// A state whose entries are all -Inf marginalises to -Inf, not NaN; a
	// cardinality above the on-stack buffer works too.
	big := infer.Axis{Stride: 1, Card: 20}
	tab := make([]float64, 40)
	for k := range tab {
		tab[k] = float64(k % 3)
		if k%20 == 4 {
			tab[k] = math.Inf(-1)
		}
	}
	out := make([]float64, 20)
	infer.LogSumAlong(tab, big, out)
	for x, o := range out {
		want := math.Log(math.Exp(tab[x]) + math.Exp(tab[20+x]))
		if !(o == want || math.Abs(o-want) < 1e-12) {
			t.Errorf("card 20: out[%d] = %v, want %v", x, o, want)
		}
	}
}

func ExampleFactorGraph() {
	// p(x0, x1) ∝ ψ(x1, x0): the scope is deliberately reversed.
	m := &mrf.Model{
		Cards: []int{2, 3},
		Factors: []mrf.Factor{{
			Vars:     []int{1, 0},
			LogTable: []float64{0, math.Log(2), 0, 0, math.Log(3), math.Inf(-1)},
		}},
	}
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Marginalise the factor onto variable 0 (position 1 of the scope).
	inc := g.VarFactors[0][0]
	logm := make([]float64, m.Cards[0])
	infer.LogSumAlong(m.Factors[inc.Factor].LogTable, g.Axes[inc.Factor][inc.Pos], logm)
	fmt.Printf("p(x0) = %.3f\n", infer.NormalizeLog(logm))
	// Output: p(x0) = [0.625 0.375]
}
