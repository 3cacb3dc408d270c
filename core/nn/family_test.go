package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// familyCase binds a small family net to random inputs: three roots of 4,
// 2 and 8 states, one of them with an excluded state.
func familyCase(t *testing.T, hidden int) (*FamilyNet, *FamilyInstance) {
	t.Helper()
	f, err := NewFamilyNet(FamilyConfig{StateFeatures: 3, RootFeatures: 2, Hidden: hidden, LinearInit: []float64{1, 1, 0}, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var state, root [][]float64
	for _, s := range []int{4, 2, 8} {
		st := make([]float64, 3*s)
		fillNormal(rng, st)
		state = append(state, st)
		rt := make([]float64, 2)
		fillNormal(rng, rt)
		root = append(root, rt)
	}
	for _, p := range f.Params() {
		fillNormal(rng, p.Value) // away from the zero output weights of the start
	}
	inst, err := f.Bind(state, root, [][]int{nil, nil, {5}})
	if err != nil {
		t.Fatal(err)
	}
	return f, inst
}

func TestFamilyGradients(t *testing.T) {
	f, inst := familyCase(t, 5)
	rng := rand.New(rand.NewPCG(3, 4))
	c := [][]float64{make([]float64, 4), make([]float64, 2), make([]float64, 8)}
	for _, ci := range c {
		fillNormal(rng, ci)
	}
	loss := func() float64 {
		s := 0.0
		for r, l := range inst.Forward() {
			for x, v := range l {
				if !math.IsInf(v, -1) {
					s += c[r][x] * v
				}
			}
		}
		return s
	}
	loss()
	inst.ZeroGrad()
	inst.Backward(c)
	var targets []target
	for _, p := range f.Params() {
		targets = append(targets, target{p.Name, p.Value, append([]float64(nil), p.Grad...)})
	}
	checkGradients(t, loss, targets...)
}

func TestFamilyStartIsLinear(t *testing.T) {
	f, err := NewFamilyNet(FamilyConfig{StateFeatures: 2, RootFeatures: 1, Hidden: 4, LinearInit: []float64{-1, 2}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := f.Bind([][]float64{{1, 2, 3, 4}}, [][]float64{{7}}, [][]int{{0}})
	if err != nil {
		t.Fatal(err)
	}
	got := inst.Forward()[0]
	if !math.IsInf(got[0], -1) || got[1] != -3+8 {
		t.Errorf("logits %v, want [-Inf 5]", got)
	}
}

func TestFamilyBadInputs(t *testing.T) {
	good := FamilyConfig{StateFeatures: 2, RootFeatures: 1, Hidden: 4, LinearInit: []float64{1, 1}}
	for name, c := range map[string]FamilyConfig{
		"no state features": {StateFeatures: 0, Hidden: 4},
		"no hidden":         {StateFeatures: 2, RootFeatures: 1, LinearInit: []float64{1, 1}},
		"init length":       {StateFeatures: 2, RootFeatures: 1, Hidden: 4, LinearInit: []float64{1}},
	} {
		if _, err := NewFamilyNet(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	f, err := NewFamilyNet(good)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][3][][]float64{
		"ragged":       {{{1, 2, 3}}, {{1}}},
		"root feature": {{{1, 2}}, {{1, 2}}},
		"nan":          {{{1, math.NaN()}}, {{1}}},
		"no roots":     {nil, nil},
	} {
		if _, err := f.Bind(in[0], in[1], nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
