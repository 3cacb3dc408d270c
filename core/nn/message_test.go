package nn

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// messageFixture is two roots over (x0, x1) and (x1, x2), x1 with 3 states,
// sharing the child {x1}, and a third root (x2) with no child.
func messageFixture(t *testing.T, features int) (*MessageNet, [][]float64, [][][]float64) {
	t.Helper()
	// Root 0: vars (0,1), cards (2,3): state x = 3*x0 + x1; child state x1.
	// Root 1: vars (1,2), cards (3,2): state x = 2*x1 + x2; child state x1.
	links := []Link{
		{Root: 0, Child: 0, Map: []int32{0, 1, 2, 0, 1, 2}},
		{Root: 1, Child: 0, Map: []int32{0, 0, 1, 1, 2, 2}},
	}
	net, err := NewMessageNet([]int{6, 6, 2}, []int{3}, links, MessageConfig{Features: features})
	if err != nil {
		t.Fatal(err)
	}
	rng := mrf.NewRand(7)
	E := [][]float64{make([]float64, 6), make([]float64, 6), make([]float64, 2)}
	G := make([][][]float64, features)
	for _, e := range E {
		fillNormal(rng, e)
	}
	for k := range G {
		G[k] = [][]float64{make([]float64, 6), make([]float64, 6), make([]float64, 2)}
		for _, g := range G[k] {
			fillNormal(rng, g)
		}
	}
	if err := net.SetInputs(E, G); err != nil {
		t.Fatal(err)
	}
	return net, E, G
}

func TestMessageNetGradient(t *testing.T) {
	for _, features := range []int{0, 1, 3} {
		net, _, _ := messageFixture(t, features)
		randomizeParams(mrf.NewRand(3), 0.7, net.Params()...)
		loss, targets := netLossAndGrad(t, net, 4)
		checkGradients(t, loss, targets...)
	}
}

// The first forward pass gives each root −E + Σ G: the model's own
// distribution, before any training.
func TestMessageNetFirstPass(t *testing.T) {
	net, E, G := messageFixture(t, 2)
	for r, l := range net.Forward() {
		for x, v := range l {
			want := -E[r][x] + G[0][r][x] + G[1][r][x]
			if math.Abs(v-want) > 1e-12 {
				t.Fatalf("root %d state %d: logit %v, want %v", r, x, v, want)
			}
		}
	}
	if got, want := NumParams(net.Params()), 3+3+2+1; got != want {
		t.Errorf("%d parameters, want one per link and child state, one per feature and the energy weight, %d", got, want)
	}
}

// A message is a function of the child's states: shifting a_{R→C}(c) moves
// every root state that maps to c by the same amount.
func TestMessageNetMessagesAreChildFunctions(t *testing.T) {
	net, _, _ := messageFixture(t, 1)
	before := cloneTables(net.Forward())
	net.a.Value[net.aOff[1]+2] += 0.5 // link 1 (root 1), child state 2
	after := net.Forward()
	for x := range after[1] {
		want := before[1][x]
		if x/2 == 2 {
			want += 0.5
		}
		if math.Abs(after[1][x]-want) > 1e-12 {
			t.Fatalf("root 1 state %d: %v, want %v", x, after[1][x], want)
		}
	}
	for x := range after[0] {
		if after[0][x] != before[0][x] {
			t.Fatal("a message of root 1 changed root 0")
		}
	}
}

func cloneTables(t [][]float64) [][]float64 {
	out := make([][]float64, len(t))
	for i := range t {
		out[i] = append([]float64(nil), t[i]...)
	}
	return out
}

func TestMessageNetZeroPotential(t *testing.T) {
	net, E, G := messageFixture(t, 1)
	E[2][1] = math.Inf(1)
	G[0][2][1] = math.NaN() // ignored: the state is excluded
	if err := net.SetInputs(E, G); err != nil {
		t.Fatal(err)
	}
	if l := net.Forward()[2][1]; !math.IsInf(l, -1) {
		t.Fatalf("logit of a zero-potential state is %v, want -Inf", l)
	}
}

func TestMessageNetBadInput(t *testing.T) {
	good := []Link{{Root: 0, Child: 0, Map: []int32{0, 1}}}
	for _, tc := range []struct {
		name        string
		roots, kids []int
		links       []Link
		features    int
		want        string
	}{
		{"no roots", nil, []int{2}, nil, 0, "no root"},
		{"root out of range", []int{2}, []int{2}, []Link{{Root: 1, Child: 0, Map: []int32{0, 1}}}, 0, "out of range"},
		{"child out of range", []int{2}, []int{2}, []Link{{Root: 0, Child: 3, Map: []int32{0, 1}}}, 0, "out of range"},
		{"short map", []int{2}, []int{2}, []Link{{Root: 0, Child: 0, Map: []int32{0}}}, 0, "maps 1 root states"},
		{"bad child state", []int{2}, []int{2}, []Link{{Root: 0, Child: 0, Map: []int32{0, 2}}}, 0, "child state 2"},
		{"empty root", []int{0}, []int{2}, nil, 0, "0 states"},
		{"features", []int{2}, []int{2}, good, -1, "features"},
	} {
		if _, err := NewMessageNet(tc.roots, tc.kids, tc.links, MessageConfig{Features: tc.features}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	net, _, _ := messageFixture(t, 1)
	six := func(v float64) []float64 { return []float64{0, 0, v, 0, 0, 0} }
	ok := [][]float64{six(0), six(0), {0, 0}}
	for _, tc := range []struct {
		name string
		E    [][]float64
		G    [][][]float64
		want string
	}{
		{"NaN energy", [][]float64{six(math.NaN()), six(0), {0, 0}}, [][][]float64{ok}, "energy NaN"},
		{"-Inf energy", [][]float64{six(math.Inf(-1)), six(0), {0, 0}}, [][][]float64{ok}, "energy -Inf"},
		{"all zero potential", [][]float64{six(0), six(0), {math.Inf(1), math.Inf(1)}}, [][][]float64{ok}, "zero potential in every state"},
		{"Inf feature", ok, [][][]float64{{six(math.Inf(1)), six(0), {0, 0}}}, "is +Inf"},
		{"short energy", [][]float64{{0}, six(0), {0, 0}}, [][][]float64{ok}, "energy table of 1"},
		{"missing feature", ok, nil, "features"},
	} {
		if err := net.SetInputs(tc.E, tc.G); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	fresh, err := NewMessageNet([]int{2}, []int{2}, good, MessageConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Forward before SetInputs did not panic")
		}
	}()
	fresh.Forward()
}
