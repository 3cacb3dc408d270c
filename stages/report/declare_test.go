package report

import (
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// Every embedded declaration parses (no unknown key, every cell template,
// aggregate and format known) and its text templates compile.
func TestDeclarations(t *testing.T) {
	names, err := fs.Glob(sectionFiles, "sections/*.toml")
	if err != nil || len(names) < 5 {
		t.Fatalf("declarations %v, %v", names, err)
	}
	for _, name := range names {
		name = strings.TrimSuffix(strings.TrimPrefix(name, "sections/"), ".toml")
		spec, err := loadSection(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := prepare(spec, &dataset{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if paper, _ := loadSection("paper"); strings.Join(paper.Sections, ",") != "hard,uai,amortized,anymodel,hidden" {
		t.Errorf("the report's sections %v, want hard, uai, amortized, anymodel, hidden", paper.Sections)
	}
	for _, bad := range []string{
		"title = \"x\"\nreads = \"scores\"\ntitel = 1",
		"[[table]]\nid = \"t\"\nlead = [{ head = \"a\", cell = \"{x.median:num}\" }]",
		"[[table]]\nid = \"t\"\nlead = [{ head = \"a\", cell = \"{x.mean:nums}\" }]",
		"[[table]]\nid = \"t\"\nlead = [{ head = \"a\", cell = \"{x.mean:num\" }]",
		"[[table]]\nid = \"t\"\nlead = [{ head = \"a\", cell = \"{x.mean:num}}\" }]",
	} {
		if _, err := parseSection("bad", []byte(bad)); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

// budgetSection declares the table of a section that runs one method
// against others on families of models within several time budgets: a
// table per budget (a part, In), a row per family and model, and for the
// method first, then the others that ran in the budget, its Hellinger
// distance, ln Z error and seconds.
const budgetSection = `
title = "Any model, within a budget"
anchor = "any-model"
reads = "scores"
parts = ["auto_b1_", "auto_b10_"]
text = '''
{{- range list "auto_b1_" "auto_b10_"}}{{with $.In .}}#### budget {{.PartName}}

{{.Table "budget"}}{{end}}{{end}}'''

[[table]]
id = "budget"
lead = [
  { head = "family", cell = "{setting}", blank = true },
  { head = "model", cell = "{model}" },
]
cols = [
  { over = "method", methods = ["auto"], items = [
    { head = "{method} hellinger", cell = "{hellinger.mean:num_e}" },
    { head = "{method} ln Z error", cell = "{logz_err.mean:num}" },
    { head = "{method} s", cell = "{seconds.mean:sec}" },
  ] },
  { over = "method", methods = ["gbp", "bp"], items = [
    { head = "{method} hellinger", cell = "{hellinger.mean:num_e}" },
    { head = "{method} ln Z error", cell = "{logz_err.mean:num}" },
    { head = "{method} s", cell = "{seconds.mean:sec}" },
  ] },
]
rows = [{ axes = ["setting", "model"] }]
`

// TestDeclaredTable renders a fixture through the declarative builder.
func TestDeclaredTable(t *testing.T) {
	spec, err := parseSection("budget", []byte(budgetSection))
	if err != nil {
		t.Fatal(err)
	}
	s, err := prepare(spec, &dataset{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(budget, family, model string, runs map[string][3]float64) {
		m := &scored{Info: formats.ModelInfoRow{Name: model, Cards: []int32{2}}, Model: &mrf.Model{Cards: []int{2}}, Runs: map[string]*outputs.ScoredRun{}}
		for method, v := range runs {
			r := m.Run(method)
			r.Metrics["hellinger"], r.Metrics["logz_err"], r.Metrics["seconds"] = v[0], v[1], v[2]
		}
		addModel(s, budget, family, m)
	}
	for _, budget := range []string{"auto_b1_", "auto_b10_"} {
		s.data.parts = append(s.data.parts, newPart(budget))
	}
	add("auto_b1_", "csp", "csp-0", map[string][3]float64{"auto": {0.01, 0.5, 1}, "gbp": {0.002, 0.25, 0.1}})
	add("auto_b1_", "csp", "csp-1", map[string][3]float64{"auto": {0.03, 1.5, 1}})
	add("auto_b10_", "pedigree", "ped-0", map[string][3]float64{"auto": {1e-4, math.NaN(), 10}, "bp": {0.2, 3, 0.5}})
	got, err := s.markdown()
	if err != nil {
		t.Fatal(err)
	}
	want := `#### budget auto_b1_

| family | model | auto hellinger | auto ln Z error | auto s | gbp hellinger | gbp ln Z error | gbp s |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
| csp | csp-0 | 0.010 | 0.500 | 1.00 | 2.0e-03 | 0.250 | 0.100 |
|  | csp-1 | 0.030 | 1.500 | 1.00 | — | — | — |

#### budget auto_b10_

| family | model | auto hellinger | auto ln Z error | auto s | bp hellinger | bp ln Z error | bp s |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
| pedigree | ped-0 | 1.0e-04 | NaN | 10.0 | 0.200 | 3.000 | 0.500 |

`
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// The grid writes the separators of both styles, escapes pipes and
// collapses empty cells where asked.
func TestGrid(t *testing.T) {
	g := &grid{head: []string{"a", "|x|"}, right: []bool{false, true}}
	g.rows = append(g.rows, gridRow{cells: []string{"1", "2"}})
	g.rows = append(g.rows, gridRow{cells: []string{"", "3"}, collapse: true})
	want := "| a | \\|x\\| |\n| --- | ---: |\n| 1 | 2 |\n| | 3 |\n"
	if got := g.String(); got != want {
		t.Errorf("spaced:\n%s\nwant:\n%s", got, want)
	}
	g.tight = true
	if got := g.String(); !strings.Contains(got, "\n|---|---:|\n") {
		t.Errorf("tight:\n%s", got)
	}
}

// listedSection declares a table as the paper's are: rows listed by metric
// and setting, each column reading a method of a part of its own, the
// first a reference, a published number below a cell.
const listedSection = `
title = "Listed"
text = '{{.Table "t"}}'

[[table]]
id = "t"
paper = true
missing = "not run"
lead = [{ head = "metric", cell = "{metric}", blank = true }, { head = "n", cell = "{size}" }]
cols = [{ items = [
  { head = "Exact", method = "exact", part = "a", cell = "{$m.mean:fixed2?}", ref = true },
  { head = "A", method = "x", part = "a", cell = "{$m.mean:fixed2?} ± {$m.std:fixed2}", below = "paper {$m.text@A#p}" },
  { head = "B", method = "y", part = "b", cell = "{$m.mean:fixed2?} ± {$m.std:fixed2}" },
] }]
[[table.rows]]
axes = ["listed"]
listed = [{ metric = "err", setting = "s4" }, { metric = "err", setting = "s9" }]
metrics = [{ name = "err", label = "error", agg = "mean", format = "fixed2", best = "min" }]
`

// TestListedTable: ties bold (the reference aside, and only where two
// compete), a cell over fewer models than the table's most says so, a
// missing one says "not run", the published number sits below; and the
// same transposed.
func TestListedTable(t *testing.T) {
	spec, err := parseSection("listed", []byte(listedSection))
	if err != nil {
		t.Fatal(err)
	}
	s, err := prepare(spec, &dataset{})
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string]*group{}
	for _, n := range []int{4, 9} {
		key := fmt.Sprintf("s%d", n)
		sets[key] = s.data.Setting(key, func() *group { return &group{Key: key, Label: key, Size: n} })
	}
	add := func(part, set, model, method string, v float64) {
		s.data.Add(outputs.NewFact(part, "", sets[set], model, method)).Num["err"] = v
	}
	add("a", "s4", "m1", "exact", 0.25)
	add("a", "s4", "m2", "exact", 0.25)
	add("a", "s4", "m1", "x", 0.25)
	add("a", "s4", "m2", "x", 0.75)
	add("b", "s4", "m1", "y", 0.5)
	add("b", "s4", "m2", "y", 0.5)
	add("a", "s9", "m3", "x", 0.5)
	s.data.Add(outputs.NewFact("p", "", sets["s4"], "", "A")).Text["err"] = "0.25 ± 0.1"
	want := `| metric | n | Exact | A | B |
| --- | --- | ---: | ---: | ---: |
| error | 4 | 0.25 | **0.50** ± 0.25<br><sub>paper 0.25 ± 0.1</sub> | **0.50** ± 0.00 |
|  | 9 | not run | 0.50 ± 0.00 (n=1) | not run |

`
	if got := markdownOf(t, s); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	s.spec.Tables[0].Transpose = "n = {size}"
	want = `| method | n = 4 | n = 9 |
| --- | ---: | ---: |
| Exact | 0.25 | not run |
| A | **0.50** ± 0.25<br><sub>paper 0.25 ± 0.1</sub> | 0.50 ± 0.00 (n=1) |
| B | **0.50** ± 0.00 | not run |

`
	if got := markdownOf(t, s); got != want {
		t.Errorf("transposed:\n%s\nwant:\n%s", got, want)
	}
}
