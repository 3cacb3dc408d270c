package outputs

import (
	"slices"
	"testing"
)

// TestStoreFind checks the index: a nil setting or "" model matches any,
// method "" is a model's own facts, and a fact is found once per query.
func TestStoreFind(t *testing.T) {
	var d Store
	a := d.Setting("a", func() *Setting { return SettingOf("grid", 4, 1) })
	if again := d.Setting("a", func() *Setting { t.Fatal("made twice"); return nil }); again != a {
		t.Fatal("Setting made a second setting for a key")
	}
	b := d.Setting("b", func() *Setting { return SettingOf("complete", 9, 0.5) })
	add := func(set *Setting, model, method string) *Fact { return d.Add(NewFact("p", "st", set, model, method)) }
	ab, bp := add(a, "m1", "bp"), add(a, "m2", "bp")
	gbp, own, other := add(a, "m1", "gbp"), add(a, "m1", ""), add(b, "m3", "bp")
	for _, c := range []struct {
		set           *Setting
		model, method string
		want          []*Fact
	}{
		{a, "m1", "bp", []*Fact{ab}},
		{a, "", "bp", []*Fact{ab, bp}},
		{nil, "", "bp", []*Fact{ab, bp, other}},
		{nil, "m1", "", []*Fact{own}},
		{a, "", "gbp", []*Fact{gbp}},
		{b, "m1", "bp", nil},
	} {
		if got := d.Find(c.set, c.model, c.method); !slices.Equal(got, c.want) {
			t.Errorf("Find(%v, %q, %q) = %v, want %v", c.set, c.model, c.method, got, c.want)
		}
	}
	if got := d.ModelsOf(a); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Errorf("ModelsOf(a) = %v", got)
	}
	if got := d.ModelsOf(nil); !slices.Equal(got, []string{"m1", "m2", "m3"}) {
		t.Errorf("ModelsOf(nil) = %v", got)
	}
	d.SortMethods()
	if !slices.Equal(d.Methods, []string{"bp", "gbp"}) {
		t.Errorf("methods %v", d.Methods)
	}
}

func TestMatchPart(t *testing.T) {
	for _, c := range []struct {
		stage, pattern string
		want           bool
	}{
		{"hidden_grid5_fit", "hidden_", true},
		{"hidden_grid5_long", "hidden_*_long", true},
		{"hidden_grid5_fit", "hidden_*_long", false},
		{"grid_score", "hidden_", false},
	} {
		if got := MatchPart(c.stage, c.pattern); got != c.want {
			t.Errorf("MatchPart(%q, %q) = %v", c.stage, c.pattern, got)
		}
	}
	insts := []*Instance{{Stage: "s1", Binary: "score"}, {Stage: "l1", Binary: "learn-mrf"}, {Stage: "s1", Binary: "score"}, {Stage: "s2", Binary: "score"}}
	if got := Stages(insts, "score"); !slices.Equal(got, []string{"s1", "s2"}) {
		t.Errorf("Stages = %v", got)
	}
	in := &Instance{Inputs: map[string][]*Instance{"pred": {insts[0], insts[3]}, "models": {insts[1]}}}
	if in.InputOf("pred") != insts[0] || in.InputOf("models") != insts[1] || in.InputOf("x") != nil {
		t.Errorf("first inputs of pred, models, x: %v, %v, %v", in.InputOf("pred"), in.InputOf("models"), in.InputOf("x"))
	}
}

// TestSortSettings: "paper" puts grids first, then by size and gamma;
// "size" orders by graph, then size; anything else keeps the order read.
func TestSortSettings(t *testing.T) {
	labels := func(order string) []string {
		var d Store
		for _, g := range []*Setting{SettingOf("grid", 9, 1), SettingOf("complete", 4, 1), SettingOf("grid", 4, 2), SettingOf("grid", 4, 1)} {
			d.Setting(g.Key, func() *Setting { return g })
		}
		d.SortSettings(order)
		var out []string
		for _, g := range d.Settings {
			out = append(out, g.Label)
		}
		return out
	}
	for order, want := range map[string][]string{
		"paper": {"grid n=4 γ=1", "grid n=4 γ=2", "grid n=9 γ=1", "complete n=4 γ=1"},
		"size":  {"complete n=4 γ=1", "grid n=4 γ=2", "grid n=4 γ=1", "grid n=9 γ=1"},
		"":      {"grid n=9 γ=1", "complete n=4 γ=1", "grid n=4 γ=2", "grid n=4 γ=1"},
	} {
		if got := labels(order); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", order, got, want)
		}
	}
}
