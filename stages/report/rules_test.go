package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/stageio/outputs"
)

// ruleSection is a section of two settings (A, B) on one model each:
// fact x of methods a, b, c and whether they converged, and the learning
// runs' test NLL of exact, bp, gbp and renn in part "learn".
func ruleSection(t *testing.T) *section {
	t.Helper()
	s, err := prepare(&sectionSpec{Title: "rules", Learning: learningSpec{Reference: "exact", Tol: 1e-3}}, &dataset{})
	if err != nil {
		t.Fatal(err)
	}
	d := s.data
	for i, key := range []string{"A", "B"} {
		g := d.Setting(key, func() *group { return &group{Key: key, Label: key} })
		for method, v := range map[string][2]float64{"a": {1, 3}, "b": {2, 1}, "c": {0.5, 2}} {
			o := d.Add(outputs.NewFact("", "", g, "m"+key, method))
			o.Num["x"], o.Num["converged"] = v[i], float64(i) // converged on B only
		}
		for method, nll := range map[string][2]float64{"exact": {1, 1}, "bp": {1.5, 1.2}, "gbp": {1.1, 1.3}, "renn": {1.05, 1.4}} {
			d.Add(outputs.NewFact("learn", "", g, "m"+key, method)).Num["nll"] = nll[i]
		}
	}
	return s
}

func TestRulesAtMost(t *testing.T) {
	s := ruleSection(t)
	for _, tc := range []struct {
		name string
		r    ruleSpec
		want tally
	}{
		{"limit", ruleSpec{Value: "x.mean@a", Limit: 2},
			tally{Holds: 1, N: 2, Noun: "settings", Fails: []string{"B (3.000)"}}},
		{"factor of the least reference", ruleSpec{Value: "x.mean@a", Refs: []string{"x.mean@b", "x.mean@c"}, Factor: 2, Unit: " s"},
			tally{Holds: 1, N: 2, Noun: "settings", Fails: []string{"B (3.000 s against 1.000 s)"}}},
		{"references that count", ruleSpec{Value: "x.mean@a", Refs: []string{"x.mean@b", "x.mean@c"}, RefIf: "converged.mean", Factor: 1},
			tally{N: 1, Noun: "settings", Fails: []string{"B (3.000 against 1.000)"}}},
		{"needs", ruleSpec{Value: "x.mean@a", Needs: []string{"x.mean@none"}, Limit: 9},
			tally{Noun: "settings"}},
		{"slack", ruleSpec{Value: "x.mean@a", Limit: 2, Slack: 1},
			tally{Holds: 2, N: 2, Noun: "settings"}},
		{"at least", ruleSpec{Value: "x.mean@a", Limit: 2, AtLeast: true},
			tally{Holds: 1, N: 2, Noun: "settings", Fails: []string{"A (1.000)"}}},
		{"when", ruleSpec{Value: "x.mean@a", Limit: 2, When: "converged.mean@a"},
			tally{N: 1, Noun: "settings", Fails: []string{"B (3.000)"}}},
		{"over models", ruleSpec{Over: "model", Value: "x.mean@c", Limit: 1},
			tally{Holds: 1, N: 2, Noun: "models", Fails: []string{"mB (2.000)"}}},
		{"each method, of a part", ruleSpec{Methods: []string{"renn", "none"}, Value: "nll.mean#learn", Refs: []string{"nll.mean@bp#learn", "nll.mean@gbp#learn"}, Factor: 1, Slack: 1e-3},
			tally{Holds: 1, N: 2, Noun: "settings", Fails: []string{"renn on B (1.400 against 1.200)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.ID = "r"
			s.spec.Claims = []ruleSpec{tc.r}
			got, err := s.rule("r")
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v (%v), want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := s.rule("nope"); err == nil {
		t.Error("an unknown claim was evaluated")
	}
	if _, err := parseSection("x", []byte("title = \"x\"\n[[claim]]\nid = \"x\"\nrule = \"most\"\n")); err == nil || !strings.Contains(err.Error(), "unknown rule") {
		t.Error("an unknown rule was accepted")
	}
}

// TestRulesPaper checks the rules over the paper's tables on a table of
// three methods (a reference, a, b) and three rows, ours and the paper's.
func TestRulesPaper(t *testing.T) {
	v := func(mean, std float64) Value { return Value{OK: true, Mean: mean, Std: std} }
	tb := &Table{Number: 1, Source: "src", Columns: []Column{{Name: "Exact", Method: "exact", Ref: true}, {Name: "A", Method: "a"}, {Name: "B", Method: "b"}}, Rows: []Row{
		{Metric: "l1", Graph: "grid", Size: 9, values: []Value{v(0, 0), v(0.3, 0.1), v(0.25, 0.1)}},
		{Metric: "l1", Graph: "grid", Size: 16, values: []Value{v(0, 0), v(0.3, 0.1), v(0.45, 0.1)}},
		{Metric: "corr", Graph: "complete", Size: 9, values: []Value{v(1, 0), v(0.9, 0.1), v(0.5, 0.1)}},
	}}
	s, err := prepare(&sectionSpec{Title: "paper", Metrics: []metricItem{{Name: "corr", Best: "max"}}, paper: &Paper{Tables: []Table{*tb}}}, &dataset{})
	if err != nil {
		t.Fatal(err)
	}
	s.addPaper() // the paper's numbers, as facts the rules read
	// Ours: two models per setting, each method's (mean, std) as given
	// (a has no corr).
	ours := [][][2]float64{{{0, 0}, {0.1, 0.15}, {0.2, 0.15}}, {{0, 0}, {0.3, 0.1}, {0.2, 0.01}}, {{1, 0}, {}, {0.8, 0.1}}}
	for i, r := range tb.Rows {
		g := s.data.Setting(r.setting(), func() *group { return outputs.SettingOf(r.Graph, r.Size, r.Gamma) })
		for j, c := range tb.Columns {
			if i == 2 && c.Method == "a" {
				continue
			}
			for k, sign := range []float64{-1, 1} {
				s.data.Add(outputs.NewFact("src", "", g, fmt.Sprint(k), c.Method)).Num[r.Metric] = ours[i][j][0] + sign*ours[i][j][1]
			}
		}
	}
	s.filled = map[int]*tableDoc{1: {T: tb, Models: 20}}
	for _, tc := range []struct {
		r    ruleSpec
		want string
	}{
		{ruleSpec{Rule: "best", Metric: "l1", Method: "a"}, "1 of 2 settings (paper: 1 of 2)"},
		{ruleSpec{Rule: "best", Metric: "corr", Method: "b"}, "*(not run yet)* (paper: 0 of 1)"},
		{ruleSpec{Rule: "winners", Metric: "l1", Method: "a"}, "a 1, b 1"},
		{ruleSpec{Rule: "beats", Method: "a", Other: "b"}, "1 of 2 settings (paper: 2 of 3)"},
		{ruleSpec{Rule: "beats", Method: "a", Other: "b", Graph: "grid", Size: 16}, "0 of 1 settings (paper: 1 of 1)"},
		{ruleSpec{Rule: "agree", Metric: "l1", Method: "a", Other: "b"}, "1 of 2 settings (paper: 1 of 2)"},
		{ruleSpec{Rule: "combine", Op: "diff", Format: "%.2f", Metric: "l1", Method: "a", Other: "b", Size: 16}, "0.10 (paper: -0.15)"},
		{ruleSpec{Rule: "combine", Op: "ratio", Format: "%.1f times", Metric: "l1", Method: "b", Other: "a"}, "1.3 times (paper: 1.2 times)"},
		{ruleSpec{Rule: "combine", Op: "pair", First: true, Format: "%s then %s", Metric: "l1", Method: "a", Other: "b"}, "0.200 then 0.100 (paper: 0.250 then 0.300)"},
		{ruleSpec{Rule: "combine", Metric: "corr", Method: "b"}, "0.800 (paper: 0.500)"},
		{ruleSpec{Rule: "models", Tables: []int{1}}, "20 random models per setting"},
		{ruleSpec{Rule: "models", Tables: []int{2}}, "random models"},
	} {
		if tc.r.Tables == nil {
			tc.r.Tables = []int{1}
		}
		tc.r.ID = "r"
		s.spec.Claims = []ruleSpec{tc.r}
		if got, err := s.rule("r"); err != nil || got != tc.want {
			t.Errorf("%+v: got %q (%v), want %q", tc.r, got, err, tc.want)
		}
	}
}
