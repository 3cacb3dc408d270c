package report

import (
	"math"
	"strings"
	"testing"
)

func paperTables(t *testing.T) map[int]*Table {
	t.Helper()
	spec, err := loadSection("paper")
	if err != nil {
		t.Fatal(err)
	}
	p := spec.paper
	out := map[int]*Table{}
	for i := range p.Tables {
		out[p.Tables[i].Number] = &p.Tables[i]
	}
	return out
}

// paperCell finds the paper's text of one cell.
func paperCell(t *testing.T, tab *Table, metric, graph string, size int, gamma float64, column string) string {
	t.Helper()
	j := -1
	for k, c := range tab.Columns {
		if c.Name == column {
			j = k
		}
	}
	if j < 0 {
		t.Fatalf("table %d: no column %q", tab.Number, column)
	}
	for _, r := range tab.Rows {
		if r.Metric == metric && r.Graph == graph && r.Size == size && r.Gamma == gamma {
			return r.values[j].Text
		}
	}
	t.Fatalf("table %d: no row %s %s n=%d gamma=%g", tab.Number, metric, graph, size, gamma)
	return ""
}

// TestPaperSpotValues checks cells hand-read from renn-paper.tex, one or two
// per table, so a transcription slip shows.
func TestPaperSpotValues(t *testing.T) {
	tabs := paperTables(t)
	for _, c := range []struct {
		table         int
		metric, graph string
		size          int
		gamma         float64
		column, want  string
	}{
		{1, "logz_err", "grid", 400, 0.1, "RENN", "7.598 ± 1.146"},
		{2, "corr", "complete", 16, 4, "Inference Net", "0.693 ± 0.060"},
		{3, "nll", "grid", 100, 1, "Inference Net", "20.29"}, // printed "20. 29"
		{3, "nll", "complete", 16, 1, "Damped BP", "18.95"},
		{4, "epoch_seconds", "grid", 225, 1, "Damped BP", "525.1"},
		{5, "l1", "grid", 25, 0.1, "RENN", "0.049 ± 0.078"},
		{6, "logz_err", "grid", 225, 1, "Mean Field", "17.923 ± 3.474"},
		{6, "corr", "grid", 400, 1, "GBP", "0.759 ± 0.018"},
		{7, "logz_err", "grid", 25, 0.1, "GBP", "3.564 ± 2.823"},
		{7, "logz_err", "grid", 25, 1, "RENN", "0.364 ± 0.201"},
		{8, "logz_err", "complete", 9, 2, "Inference Net", "81.23 ± 12.939"},
		{9, "logz_err", "complete", 16, 0.1, "GBP", "166.3 ± 11.98"},
		{10, "logz_err", "grid", 100, 1, "RENN", "12.29 ± 1.748"},
		{11, "logz_err", "complete", 16, 1, "Inference Net", "215.7 ± 12.75"},
		{12, "epoch_seconds", "grid", 100, 1, "Damped BP", "156.8"},
		{12, "epoch_seconds", "complete", 9, 1, "Inference Net", "0.289"},
	} {
		if got := paperCell(t, tabs[c.table], c.metric, c.graph, c.size, c.gamma, c.column); got != c.want {
			t.Errorf("table %d %s %s n=%d gamma=%g %s: %q, want %q", c.table, c.metric, c.graph, c.size, c.gamma, c.column, got, c.want)
		}
	}
}

// TestPaperRepeats checks the cells the paper prints twice, transcribed
// twice here: Tables 1 and 2 are parts of Tables 5 and 9, Table 4 of Table
// 12, and the comparison columns of Tables 7, 10 and 11 repeat Tables 5, 6,
// 8 and 9.
func TestPaperRepeats(t *testing.T) {
	tabs := paperTables(t)
	same := func(a *Table, ca string, b *Table, cb string) {
		t.Helper()
		for _, r := range a.Rows {
			got := paperCell(t, a, r.Metric, r.Graph, r.Size, r.Gamma, ca)
			want := paperCell(t, b, r.Metric, r.Graph, r.Size, r.Gamma, cb)
			if got != want {
				t.Errorf("table %d %s, %s: %q, but table %d %s: %q", a.Number, r.setting(), ca, got, b.Number, cb, want)
			}
		}
	}
	for _, c := range []string{"Mean Field", "Loopy BP", "Damped BP", "GBP", "Inference Net", "RENN"} {
		same(tabs[1], c, tabs[5], c)
		same(tabs[2], c, tabs[9], c)
	}
	for _, c := range []string{"Loopy BP", "Damped BP", "GBP", "Inference Net", "RENN"} {
		same(tabs[4], c, tabs[12], c)
	}
	// The paper's one inconsistency: mean field on K16 per epoch.
	if a, b := paperCell(t, tabs[4], "epoch_seconds", "complete", 16, 1, "Mean Field"), paperCell(t, tabs[12], "epoch_seconds", "complete", 16, 1, "Mean Field"); a != "2.499" || b != "2.449" {
		t.Errorf("mean field K16 seconds: tables 4 and 12 give %q and %q, want 2.499 and 2.449 as printed", a, b)
	}
	for _, gamma := range []float64{0.1, 1} {
		from := tabs[5]
		if gamma == 1 {
			from = tabs[6]
		}
		for _, m := range []string{"l1", "corr", "logz_err"} {
			for _, c := range [][2]string{{"GBP, no infinite face", "GBP"}, {"RENN, no infinite face", "RENN"}} {
				if got, want := paperCell(t, tabs[7], m, "grid", 25, gamma, c[0]), paperCell(t, from, m, "grid", 25, gamma, c[1]); got != want {
					t.Errorf("table 7 gamma %g %s %s: %q, table %d: %q", gamma, m, c[0], got, from.Number, want)
				}
			}
		}
	}
	lambda := func(tab *Table, from func(size int) *Table) {
		for _, r := range tab.Rows {
			for _, c := range [][2]string{{"Inference Net, lambda > 0", "Inference Net"}, {"RENN, lambda > 0", "RENN"}} {
				got := paperCell(t, tab, r.Metric, r.Graph, r.Size, r.Gamma, c[0])
				want := paperCell(t, from(r.Size), r.Metric, r.Graph, r.Size, r.Gamma, c[1])
				if got != want {
					t.Errorf("table %d %s %s: %q, want %q", tab.Number, r.setting(), c[0], got, want)
				}
			}
		}
	}
	lambda(tabs[10], func(int) *Table { return tabs[6] })
	lambda(tabs[11], func(size int) *Table {
		if size == 9 {
			return tabs[8]
		}
		return tabs[9]
	})
}

func TestPaperShape(t *testing.T) {
	tabs := paperTables(t)
	for n := 1; n <= 12; n++ {
		if tabs[n] == nil {
			t.Errorf("no table %d", n)
		}
	}
	// Rows per table as in the paper: metric x setting.
	for n, rows := range map[int]int{1: 6, 2: 6, 3: 5, 4: 2, 5: 12, 6: 12, 7: 6, 8: 15, 9: 15, 10: 6, 11: 6, 12: 5} {
		if got := len(tabs[n].Rows); got != rows {
			t.Errorf("table %d: %d rows, want %d", n, got, rows)
		}
	}
}

func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		mean float64
		std  float64
		text string
		bad  bool
	}{
		{in: "0.271 ± 0.051", ok: true, mean: 0.271, std: 0.051, text: "0.271 ± 0.051"},
		{in: " 13.09±2.156 ", ok: true, mean: 13.09, std: 2.156, text: "13.09 ± 2.156"},
		{in: "9.000", ok: true, mean: 9, std: math.NaN(), text: "9.000"},
		{in: ""},
		{in: "20. 29", bad: true},
		{in: "x ± 1", bad: true},
		{in: "1 ± -2", bad: true},
		{in: "NaN", bad: true},
	} {
		v, err := ParseValue(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%q: no error", c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if v.OK != c.ok || v.Mean != c.mean || v.Std != c.std && !(math.IsNaN(v.Std) && math.IsNaN(c.std)) || v.Text != c.text {
			t.Errorf("%q: %+v", c.in, v)
		}
	}
}

func TestParsePaperErrors(t *testing.T) {
	const good = `
[[table]]
number = 1
label = "l"
caption = "c"
source = "s"
layout = ["metric", "size"]
columns = [{ name = "A", method = "a" }, { name = "B", method = "b" }]
rows = [{ metric = "l1", graph = "grid", size = 25, gamma = 1, paper = ["0.1 ± 0.2", "0.3 ± 0.1"] }]
`
	metrics := []string{"l1", "nll"}
	if _, err := ParsePaper([]byte(good), metrics); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown key", `label = "l"`, "label = \"l\"\nlabl = 1", "unknown key"},
		{"metric", `metric = "l1"`, `metric = "l2"`, "metric"},
		{"count", `"0.3 ± 0.1"]`, `"0.3 ± 0.1", "1"]`, "3 paper values for 2 columns"},
		{"value", `paper = ["0.1 ± 0.2"`, `paper = ["a"`, "not a number"},
		{"layout", `layout = ["metric", "size"]`, `layout = ["metric", "n"]`, "layout key"},
		{"source", `source = "s"`, ``, "a source stage"},
	} {
		src := strings.Replace(good, c.from, c.to, 1)
		_, err := ParsePaper([]byte(src), metrics)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := ParsePaper([]byte(good+good), metrics); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate number: error %v", err)
	}
}
