package outputs

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/renn-go/renn/core/metrics"
)

// TestSummariseLearning checks a learning table's row facts: a method's
// gaps to the reference taken seed by seed (a seed the reference lacks
// left out), a method without a paired seed its own mean and no gap, the
// true model's row, and the store's methods and settings of a part.
func TestSummariseLearning(t *testing.T) {
	var d Store
	g := d.Setting("a", func() *Setting { return SettingOf("grid", 4, 1) })
	other := d.Setting("b", func() *Setting { return SettingOf("grid", 9, 1) })
	run := func(part, method, seed string, nll ...float64) {
		o := d.Add(NewFact(part, "st", g, "m1", method))
		o.Run = &metrics.LearningRun{Model: "m1", Seed: seed, NLL: nll, Seconds: make([]float64, len(nll))}
		o.Num["nll"], o.Num["epoch_seconds"] = nll[len(nll)-1], 2
	}
	run("learn", "exact", "1", 3, 2)
	run("learn", "exact", "2", 3, 1)
	run("learn", "bp", "1", 4, 2.5)
	run("learn", "bp", "2", 4, 1.5, 1.25)
	run("learn", "bp", "3", 9) // no reference run of seed 3
	run("learn", "gbp", "7", 5, 4)
	d.Add(NewFact("learn", "", g, "m1", TrueMethod)).Num["nll"] = 0.5
	d.Add(NewFact("other", "", other, "m2", "mf")).Num["nll"] = 1
	if got := d.MethodsIn([]string{"learn"}); !reflect.DeepEqual(got, []string{"exact", "bp", "gbp", TrueMethod}) {
		t.Errorf("methods of learn: %v", got)
	}
	if got := d.SettingsIn([]string{"other"}); len(got) != 1 || got[0] != other {
		t.Errorf("settings of other: %v", got)
	}
	if got := len(d.Runs("learn", g, "bp")); got != 3 {
		t.Errorf("bp runs: %d, want 3", got)
	}
	d.SummariseLearning("learn", "exact", 2, func(gaps []float64) string { return fmt.Sprint(gaps) })
	row := func(method string) *Fact { // added after the method's runs
		found := d.FindIn([]string{"learn"}, g, "", method)
		return found[len(found)-1]
	}
	bp := row("bp")
	if bp.Num["nll_last"] != 0.5*(2.5+1.25) || bp.Num["seeds"] != 2 || bp.Num["epochs"] != 3 || bp.Text["gap_last"] != "[0.5 0.25]" {
		t.Errorf("bp: %v %v", bp.Num, bp.Text)
	}
	if gbp := row("gbp"); gbp.Num["nll_last"] != 4 || gbp.Text["gap_last"] != "—" || gbp.Num["s_epoch"] != 2 {
		t.Errorf("gbp: %v %v", gbp.Num, gbp.Text)
	}
	if tm := row(TrueModel); tm.Num["nll_last"] != 0.5 {
		t.Errorf("true model: %v", tm.Num)
	}
}
