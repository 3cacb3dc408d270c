package score

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/stages/stageio"
)

// fakeRun is a scored run built by hand, without files.
func fakeRun(id int32, method string, size int, gamma float64, values ...value) scoredRun {
	cards := make([]int, size)
	for i := range cards {
		cards[i] = 2
	}
	m := &stageio.Model{ID: id, Info: mrf.Info{Graph: "grid", Gamma: gamma}, Model: &mrf.Model{Cards: cards}}
	return scoredRun{run: &run{shard: &shard{sha: "s"}, model: m, method: method}, binary: true,
		group: groupOf(m, GroupColumns, false), values: values}
}

func TestTableOrderAndNaN(t *testing.T) {
	var scored []scoredRun
	// Methods given in scrambled order; sizes and gammas that sort
	// differently as strings and as numbers.
	for _, method := range []string{"zeta", "renn", "alpha", "mf", "exact", "gbp"} {
		scored = append(scored,
			fakeRun(0, method, 100, 2, value{"l1", 0.5}),
			fakeRun(1, method, 25, 10, value{"l1", 0.25}),
			fakeRun(2, method, 25, 0.5, value{"l1", 0.125}))
	}
	scored = append(scored, fakeRun(3, "mf", 25, 0.5, value{"corr", math.NaN()}))
	sum := summarise(scored)
	wantMethods := []string{"exact", "mf", "gbp", "renn", "alpha", "zeta"}
	if strings.Join(sum.methods, " ") != strings.Join(wantMethods, " ") {
		t.Errorf("methods %v, want %v", sum.methods, wantMethods)
	}
	var settings []string
	for _, g := range sum.groups {
		settings = append(settings, strings.Join(g.vals, "/"))
	}
	if want := "grid/25/0.5 grid/25/10 grid/100/2"; strings.Join(settings, " ") != want {
		t.Errorf("settings %v, want %s", settings, want)
	}
	text := buildTable(GroupColumns, sum, scored).text()
	lines := strings.Split(text, "\n")
	wantHead := "metric graph size gamma models exact mf gbp renn alpha zeta"
	if got := strings.Join(strings.Fields(lines[0]), " "); got != wantHead {
		t.Errorf("header %q, want %q", got, wantHead)
	}
	// Columns line up: every cell of a row ends where its header ends.
	if utf8.RuneCountInString(lines[2]) != utf8.RuneCountInString(lines[0]) {
		t.Errorf("row and header widths differ:\n%s\n%s", lines[0], lines[2])
	}
	var corr string
	for _, l := range lines {
		if strings.HasPrefix(l, "corr") {
			corr = strings.Join(strings.Fields(l), " ")
		}
	}
	if want := "corr grid 25 0.5 1 - NaN - - - -"; corr != want {
		t.Errorf("corr row %q, want %q", corr, want)
	}
	if want := "note: 1 cells show NaN"; !strings.Contains(text, want) {
		t.Errorf("table lacks %q:\n%s", want, text)
	}
	if strings.Contains(text, "non-binary") {
		t.Errorf("binary-only table has the non-binary note:\n%s", text)
	}
}

func TestLatexEscape(t *testing.T) {
	if got, want := latexEscape(`my_method 50% & $x^2$ {a} #1 ~ \`), `my\_method 50\% \& \$x\textasciicircum{}2\$ \{a\} \#1 \textasciitilde{} \textbackslash{}`; got != want {
		t.Errorf("latexEscape = %q, want %q", got, want)
	}
}

// Imported models have no gamma: the column is dropped when every model is
// imported, and left blank on their rows (with a note) among generated ones,
// in the summary rows as in every printed format.
func TestTableImportedNoGamma(t *testing.T) {
	imported := func(id int32, method string, size int) scoredRun {
		r := fakeRun(id, method, size, 0, value{"l1", 0.5})
		r.model.Info.Graph = "uai"
		r.group = groupOf(r.model, GroupColumns, false)
		return r
	}
	onlyUAI := []scoredRun{imported(0, "bp", 5), imported(1, "bp", 7)}
	sum := summarise(onlyUAI)
	for _, r := range summaryRows(sum) {
		if r.Group[2] != "" {
			t.Errorf("summary row %+v: gamma %q, want blank", r, r.Group[2])
		}
	}
	tab := buildTable(GroupColumns, sum, onlyUAI)
	text := tab.text()
	if head := strings.Join(strings.Fields(strings.SplitN(text, "\n", 2)[0]), " "); head != "metric graph size models bp" {
		t.Errorf("header %q: want no gamma column", head)
	}
	if md, tex := tab.markdown(), tab.latex(); strings.Contains(md, "gamma") || strings.Contains(tex, `\gamma`) || strings.Contains(text, "γ") {
		t.Errorf("gamma shown for imported models only:\n%s\n%s\n%s", text, md, tex)
	}

	mixed := append([]scoredRun{fakeRun(2, "bp", 5, 0.5, value{"l1", 0.25})}, onlyUAI...)
	text = buildTable(GroupColumns, summarise(mixed), mixed).text()
	var rows []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "l1") || strings.HasPrefix(l, "  ") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	want := []string{"l1 grid 5 0.5 1 0.2500", "uai 5 1 0.5000", "uai 7 1 0.5000"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s\n(table:\n%s)", strings.Join(rows, "\n"), strings.Join(want, "\n"), text)
	}
	if !strings.Contains(text, "note: γ is blank for imported (UAI) models") {
		t.Errorf("no note on the blank gamma:\n%s", text)
	}
	if got := panelTitle(GroupColumns, []string{"uai", "5", ""}); got != "uai, size = 5" {
		t.Errorf("panel title %q", got)
	}
}

// namedRun is a scored run of a model with a name, grouped by cols.
func namedRun(id int32, name, graph string, size int, l1 float64, cols []string) scoredRun {
	r := fakeRun(id, "bp", size, 0.5, value{"l1", l1})
	r.model.Info.Name, r.model.Info.Graph = name, graph
	r.group = groupOf(r.model, cols, false)
	return r
}

// TestImportedModelsNamed: imported (UAI) models of one size are rows of
// their own, named, with their values (no "± 0.0000"); generated models
// are pooled by setting, with the model column blank.
func TestImportedModelsNamed(t *testing.T) {
	cols := append(slices.Clone(GroupColumns), ModelColumn)
	scored := []scoredRun{namedRun(0, "g0", "grid", 4, 0.25, cols), namedRun(1, "g1", "grid", 4, 0.75, cols),
		namedRun(0, "b.uai", "uai", 36, 0.125, cols), namedRun(1, "a.uai", "uai", 36, 0.5, cols)}
	text := buildTable(cols, summarise(scored), scored).text()
	var rows []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "l1") || strings.HasPrefix(l, "  ") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	want := []string{"l1 grid 4 0.5 2 0.5000 ± 0.2500", "uai 36 a.uai 1 0.5000", "uai 36 b.uai 1 0.1250"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s\n(table:\n%s)", strings.Join(rows, "\n"), strings.Join(want, "\n"), text)
	}
}

// TestPerModelTable: --by model adds a row per model of any kind below the
// settings' means.
func TestPerModelTable(t *testing.T) {
	scored := []scoredRun{namedRun(0, "g0", "grid", 4, 0.25, GroupColumns), namedRun(1, "g1", "grid", 4, 0.75, GroupColumns)}
	tabs := []table{buildTable(GroupColumns, summarise(scored), scored), perModelTable(GroupColumns, scored)}
	text := render(tabs, table.text, "per model:\n")
	var rows []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "l1") || strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "per model") || strings.HasPrefix(l, "metric") {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	want := []string{"metric graph size gamma models bp", "l1 grid 4 0.5 2 0.5000 ± 0.2500",
		"per model:", "metric graph size gamma model models bp", "l1 grid 4 0.5 g0 1 0.2500", "grid 4 0.5 g1 1 0.7500"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s\n(table:\n%s)", strings.Join(rows, "\n"), strings.Join(want, "\n"), text)
	}
	if strings.Count(text, "cells: mean") != 1 {
		t.Errorf("notes not printed once:\n%s", text)
	}
}
