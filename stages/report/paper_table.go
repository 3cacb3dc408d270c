package report

// The paper's tables (paper.toml) as tables of the one builder: the paper's
// rows listed, then a seconds row per setting (ours only); a column per
// paper column reading its stage's facts (part), each cell our mean ± std
// over the models of a setting above the paper's number (part "paper N").

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/stages/score"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// cell is one method on one row: our number and the paper's.
type cell struct {
	ours  stat
	paper Value
}

// result is one paper table filled with our numbers, for the discussion.
type result struct {
	t      *Table
	cells  [][]cell // by row, then column
	notRun []string // source stages without outputs yet
	models int      // the largest n of our cells
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
	} else if n := len(d.learn.NotRun); n > 0 {
		res.notRun = append(res.notRun, fmt.Sprintf("%d of %d learn-mrf instances", n, d.learn.Instances))
	}
	for _, r := range t.Rows {
		row := make([]cell, len(t.Columns))
		for j, c := range t.Columns {
			row[j] = cell{paper: r.values[j], ours: d.stat(t.partOf(c), r.setting(), c.Method, t.factOf(r))}
			if row[j].ours.ok {
				res.models = max(res.models, row[j].ours.n)
			}
		}
		res.cells = append(res.cells, row)
	}
	return res
}

// stat is our mean ± std over the models of fact of method's runs on the
// setting key in part.
func (d *paperData) stat(part, key, method, fact string) stat {
	found := slices.DeleteFunc(slices.Clone(d.s.data.Find(d.s.data.ByKey[key], "", method)), func(o *obs) bool { return o.Part != part })
	mean, ok := aggregate(found, fact, "mean")
	std, _ := aggregate(found, fact, "std")
	n, _ := aggregate(found, fact, "n")
	return stat{ok: ok && !math.IsNaN(mean), mean: mean, std: std, n: int(n)}
}

// setting is the key of the row's setting.
func (r Row) setting() string { return outputs.SettingOf(r.Graph, r.Size, r.Gamma).Key }

// partOf is the part a column's facts are read from: its score stage, or
// the learning runs.
func (t *Table) partOf(c Column) string {
	if t.Kind == KindInference {
		return t.columnSource(c)
	}
	return learnPart
}

// factOf is what a row of t measures, as a fact of our runs.
func (t *Table) factOf(r Row) string {
	switch t.Kind {
	case KindNLL:
		return "nll"
	case KindEpochSeconds:
		return "epoch_seconds"
	}
	return r.Metric
}

// paperPart is the part holding the paper's numbers of table n.
func paperPart(n int) string { return fmt.Sprintf("paper %d", n) }

// metricItems are the row metrics of the paper's tables: the label, the
// format, and which way is best.
var metricItems = []metricItem{
	{Name: "l1", Label: "ℓ1 error", Agg: "mean", Format: "num", Best: "min"},
	{Name: "corr", Label: "correlation ρ", Agg: "mean", Format: "num", Best: "max"},
	{Name: "logz_err", Label: "log Z error", Agg: "mean", Format: "num", Best: "min"},
	{Name: score.Seconds, Label: "seconds per model (ours)", Agg: "mean", Format: "sec", Best: "min"},
	{Name: "nll", Agg: "mean", Format: "num", Best: "min"},
	{Name: "epoch_seconds", Agg: "mean", Format: "sec", Best: "min"},
}

// layoutColumns are the row keys as lead columns, and as a transposed
// table's column heads.
var layoutColumns = map[string][2]string{"metric": {"metric", "{metric}"}, "graph": {"graph", "{graph}"}, "size": {"n", "{size}"}, "gamma": {"γ", "{gamma}"}}

// spec declares t as a table of the builder.
func (t *Table) spec() tableSpec {
	missing := "not run"
	ts := tableSpec{ID: fmt.Sprint(t.Number), Missing: &missing, Ties: true, Counts: true, Corner: "method"}
	var heads []string
	for k, key := range t.Layout {
		l := layoutColumns[key]
		ts.Lead = append(ts.Lead, leadColumn{Head: l[0], Cell: l[1], Blank: k == 0})
		heads = append(heads, strings.Replace(l[1], "{size}", "n = {size}", 1))
	}
	if t.Transpose {
		ts.Transpose = strings.Join(heads, ", ")
	}
	cell := "{$m.mean:$f?} ± {$m.std:$f}"
	if t.Kind == KindEpochSeconds {
		cell = "{$m.mean:$f?}" // the paper prints means
	}
	var items []leadColumn
	for _, c := range t.Columns {
		items = append(items, leadColumn{Head: c.Name, Cell: cell, Method: c.Method, Part: t.partOf(c), Ref: isReference(c.Method),
			Below: "paper {$m.text@" + c.Name + "#" + paperPart(t.Number) + "}"})
		ts.Parts = append(ts.Parts, t.partOf(c))
	}
	ts.Cols = []colGroup{{Items: items}}
	rows, seconds := rowGroup{Axes: []string{"listed"}}, rowGroup{Axes: []string{"listed"}, Need: score.Seconds}
	for _, r := range t.Rows {
		rows.Listed = append(rows.Listed, listedRow{t.factOf(r), r.setting()})
		if l := (listedRow{score.Seconds, r.setting()}); !slices.Contains(seconds.Listed, l) {
			seconds.Listed = append(seconds.Listed, l)
		}
	}
	rows.Metrics, seconds.Metrics = metricItems, metricItems
	ts.Rows = []rowGroup{rows}
	if t.Kind == KindInference {
		ts.Rows = append(ts.Rows, seconds)
	}
	return ts
}

// reference methods are not approximations and never the best of a row.
func isReference(method string) bool { return method == outputs.TrueMethod || method == "exact" }

func better(metric string, a, b float64) bool {
	if metric == "corr" {
		return a > b
	}
	return a < b
}
