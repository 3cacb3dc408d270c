package score

import (
	"math"
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
		group: groupOf(m, GroupColumns), values: values}
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
