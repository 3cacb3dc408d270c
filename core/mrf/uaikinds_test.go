package mrf

import (
	"reflect"
	"testing"
)

// Every stand-in builds, validates, is seeded, and has the size and
// cardinalities its kind promises.
func TestUAIKinds(t *testing.T) {
	want := map[string]struct{ vars, card, arity int }{
		"potts": {60, 11, 2}, "potts-dense": {60, 11, 2}, "grid20": {400, 2, 2}, "csp": {67, 4, 3},
		"mln": {440, 2, 3}, "promedas": {461, 2, 3}, "pedigree": {384, 3, 4}, "segmentation": {228, 2, 2},
	}
	kinds := UAIKinds()
	if len(kinds) != len(want) {
		t.Fatalf("%d kinds, want %d", len(kinds), len(want))
	}
	for _, k := range kinds {
		m, err := k.Build(k.Seed)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		again, _ := k.Build(k.Seed)
		if !reflect.DeepEqual(m, again) {
			t.Errorf("%s: same seed, different models", k.Name)
		}
		w := want[k.Name]
		arity := 0
		for _, f := range m.Factors {
			arity = max(arity, len(f.Vars))
		}
		if len(m.Cards) != w.vars || m.Cards[0] != w.card || arity != w.arity {
			t.Errorf("%s: %d variables of %d states, arity %d; want %+v", k.Name, len(m.Cards), m.Cards[0], arity, w)
		}
		if got, err := UAIKindByName(k.Name); err != nil || got.Name != k.Name {
			t.Errorf("UAIKindByName(%s): %v", k.Name, err)
		}
	}
	if _, err := UAIKindByName("nope"); err == nil {
		t.Error("UAIKindByName accepted an unknown kind")
	}
}
