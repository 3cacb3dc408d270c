package report

// The paper's tables (paper.toml) filled with our numbers: each cell our
// mean ± std over the models of a setting above the paper's number.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/stages/score"
)

// cell is one method on one row: our number and the paper's.
type cell struct {
	ours  stat
	paper Value
}

// result is one paper table filled with our numbers.
type result struct {
	t     *Table
	cells [][]cell // by row, then column
	// seconds are our seconds per model for each setting of an inference
	// table (the paper prints none), by setting, then column.
	seconds     []Row
	secondCells [][]stat
	notRun      []string // source stages without outputs yet
	models      int      // the largest n of our cells
}

// fill computes the result of t from the data read.
func fill(t *Table, d *paperData) *result {
	res := &result{t: t}
	if t.Kind == KindInference {
		for _, c := range t.Columns {
			if f := d.fams[t.columnSource(c)]; f != nil && !f.Present && !slices.Contains(res.notRun, f.Stage) {
				res.notRun = append(res.notRun, f.Stage)
			}
		}
	} else if n := len(d.learn.notRun); n > 0 {
		res.notRun = append(res.notRun, fmt.Sprintf("%d of %d learn-mrf instances", n, d.learn.instances))
	}
	for _, r := range t.Rows {
		row := make([]cell, len(t.Columns))
		for j, c := range t.Columns {
			row[j] = cell{paper: r.values[j], ours: ourStat(t, c, r, r.Metric, d)}
			if row[j].ours.ok {
				res.models = max(res.models, row[j].ours.n)
			}
		}
		res.cells = append(res.cells, row)
		setting := Row{Metric: score.Seconds, Graph: r.Graph, Size: r.Size, Gamma: r.Gamma}
		if t.Kind == KindInference && !slices.ContainsFunc(res.seconds, func(s Row) bool { return s.describe() == setting.describe() }) {
			res.seconds = append(res.seconds, setting)
		}
	}
	// Seconds rows only where some method ran.
	var seconds []Row
	for _, s := range res.seconds {
		row := make([]stat, len(t.Columns))
		ran := false
		for j, c := range t.Columns {
			row[j] = ourStat(t, c, s, score.Seconds, d)
			ran = ran || row[j].ok
		}
		if ran {
			seconds = append(seconds, s)
			res.secondCells = append(res.secondCells, row)
		}
	}
	res.seconds = seconds
	return res
}

func ourStat(t *Table, c Column, r Row, metric string, d *paperData) stat {
	switch t.Kind {
	case KindInference:
		return d.summary(t.columnSource(c), r, c.Method, metric)
	case KindNLL:
		return d.learned(r, c.Method, "nll")
	case KindEpochSeconds:
		return d.learned(r, c.Method, "epoch_seconds")
	}
	return stat{}
}

// metricOf is what a row of t measures.
func (t *Table) metricOf(r Row) string {
	switch t.Kind {
	case KindNLL:
		return "nll"
	case KindEpochSeconds:
		return score.Seconds
	}
	return r.Metric
}

// higherIsBetter says which way a metric improves.
func higherIsBetter(metric string) bool { return metric == "corr" }

// reference methods are not approximations and never the best of a row.
func isReference(method string) bool { return method == trueMethod || method == "exact" }

// best returns, for a row of cells, which columns hold our best value:
// every column equal to the best, none unless two compete.
func best(t *Table, metric string, row []stat) []bool {
	out := make([]bool, len(row))
	bestV, count := math.NaN(), 0
	for j, s := range row {
		if !s.ok || isReference(t.Columns[j].Method) {
			continue
		}
		count++
		if !math.IsNaN(s.mean) && (math.IsNaN(bestV) || better(metric, s.mean, bestV)) {
			bestV = s.mean
		}
	}
	for j, s := range row {
		out[j] = count > 1 && s.ok && !isReference(t.Columns[j].Method) && s.mean == bestV
	}
	return out
}

func better(metric string, a, b float64) bool {
	if higherIsBetter(metric) {
		return a > b
	}
	return a < b
}

// metricNames are the row labels of the metrics.
var metricNames = map[string]string{
	"l1": "ℓ1 error", "corr": "correlation ρ", "logz_err": "log Z error", score.Seconds: "seconds per model (ours)",
}

var layoutNames = map[string]string{"metric": "metric", "graph": "graph", "size": "n", "gamma": "γ"}

func rowKey(key string, r Row) string {
	switch key {
	case "metric":
		return or(metricNames[r.Metric], r.Metric)
	case "graph":
		return r.Graph
	case "size":
		return strconv.Itoa(r.Size)
	case "gamma":
		return strconv.FormatFloat(r.Gamma, 'g', -1, 64)
	}
	return ""
}

// markdown renders the result as a Markdown table: the paper's rows and
// columns (or, transposed, columns as rows), each cell our number above
// the paper's.
func (res *result) markdown() string {
	t := res.t
	lines := res.lines()
	g := &grid{}
	if t.Transpose {
		g.head = []string{"method"}
		for _, r := range t.Rows {
			var parts []string
			for _, key := range t.Layout {
				if v := rowKey(key, r); key == "size" {
					parts = append(parts, "n = "+v)
				} else {
					parts = append(parts, v)
				}
			}
			g.head = append(g.head, strings.Join(parts, ", "))
		}
		for j, c := range t.Columns {
			row := []string{c.Name}
			for _, l := range lines {
				row = append(row, l[len(t.Layout)+j])
			}
			g.add(row...)
		}
	} else {
		for _, key := range t.Layout {
			g.head = append(g.head, layoutNames[key])
		}
		for _, c := range t.Columns {
			g.head = append(g.head, c.Name)
		}
		for _, l := range lines {
			g.add(l...)
		}
	}
	keys := len(t.Layout)
	if t.Transpose {
		keys = 1
	}
	for k := range g.head {
		g.right = append(g.right, k >= keys)
	}
	return g.String()
}

// lines are the table's rows, in the paper's layout: the row keys (the
// first blank where it repeats), then a cell per column; the seconds rows
// last.
func (res *result) lines() [][]string {
	t := res.t
	withStd := t.Kind != KindEpochSeconds // seconds per epoch: the paper prints means
	var lines [][]string
	prevFirst := ""
	for i, r := range t.Rows {
		metric := t.metricOf(r)
		line := res.keys(r, func(v string) bool { blank := v == prevFirst; prevFirst = v; return blank })
		ours := make([]stat, len(t.Columns))
		for j := range t.Columns {
			ours[j] = res.cells[i][j].ours
		}
		bold := best(t, metric, ours)
		for j := range t.Columns {
			line = append(line, res.renderCell(metric, res.cells[i][j], bold[j], withStd))
		}
		lines = append(lines, line)
	}
	for i, s := range res.seconds {
		line := res.keys(s, func(string) bool { return t.Layout[0] == "metric" && i > 0 })
		bold := best(t, score.Seconds, res.secondCells[i])
		for j := range t.Columns {
			line = append(line, res.renderCell(score.Seconds, cell{ours: res.secondCells[i][j]}, bold[j], true))
		}
		lines = append(lines, line)
	}
	return lines
}

// keys are the row keys of r; blank says whether the first is blanked.
func (res *result) keys(r Row, blank func(string) bool) []string {
	var out []string
	for k, key := range res.t.Layout {
		v := rowKey(key, r)
		if k == 0 && len(res.t.Layout) > 1 && blank(v) {
			v = ""
		}
		out = append(out, v)
	}
	return out
}

// renderCell writes our number (bold when the row's best; "not run" when
// missing) and, below it, the paper's.
func (res *result) renderCell(metric string, c cell, bold, withStd bool) string {
	s := "not run"
	if c.ours.ok {
		mean := formatNumber(metric, c.ours.mean)
		if s = mean; bold {
			s = "**" + mean + "**"
		}
		if withStd {
			s += " ± " + formatNumber(metric, c.ours.std)
		}
		if c.ours.n < res.models {
			s += fmt.Sprintf(" (n=%d)", c.ours.n)
		}
	}
	if c.paper.OK {
		s += "<br><sub>paper " + c.paper.Text + "</sub>"
	}
	return s
}
