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

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/score"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// tableDoc is a paper table as the report shows it: filled with our
// numbers (the largest n of our cells), its stages and those not run yet,
// and its columns from other tables.
type tableDoc struct {
	T                         *Table
	Caption, Anchor, Markdown string
	Stages, NotRun, Added     []string
	Models                    int
}

// fill writes the table doc of t from the data read.
func (s *section) fill(t *Table, md string) *tableDoc {
	doc := &tableDoc{T: t, Caption: latexToMarkdown.Replace(t.Caption), Anchor: fmt.Sprintf("table-%d", t.Number), Stages: t.Sources, Markdown: md}
	if len(t.Sources) == 0 {
		doc.Stages = nil
		for _, c := range t.Columns {
			if f := s.family(t.partOf(c)); f != nil && !f.Present && !slices.Contains(doc.NotRun, f.Stage) {
				doc.NotRun = append(doc.NotRun, f.Stage)
			}
			if s := t.partOf(c); !slices.Contains(doc.Stages, s) {
				doc.Stages = append(doc.Stages, s)
			}
		}
	} else if learn := s.part(learnPart); len(learn.NotRun) > 0 {
		doc.NotRun = append(doc.NotRun, fmt.Sprintf("%d of %d learn-mrf instances", len(learn.NotRun), learn.Instances))
	}
	for i, r := range t.Rows {
		for j, v := range s.paperValues(t, r, false) {
			if !math.IsNaN(v.Mean) {
				doc.Models = max(doc.Models, v.N)
			}
			if c := t.Columns[j]; i == 0 && c.From != "" {
				doc.Added = append(doc.Added, fmt.Sprintf("%s (paper: %s)", c.Name, c.From))
			}
		}
	}
	return doc
}

// paperValues are the mean (NaN: none), std (NaN: the paper gives none)
// and models of each column of t on row r: ours, over the runs in the
// column's part, or the paper's (its part).
func (s *section) paperValues(t *Table, r Row, paper bool) []metrics.Summary {
	out := make([]metrics.Summary, len(t.Columns))
	for j, c := range t.Columns {
		part, method := t.partOf(c), c.Method
		if paper {
			part, method = paperPart(t.Number), c.Name
		}
		found := s.data.FindIn([]string{part}, s.data.ByKey[r.setting()], "", method)
		mean, ok := outputs.Aggregate(found, r.Metric, "mean")
		std, _ := outputs.Aggregate(found, r.Metric, "std")
		n, _ := outputs.Aggregate(found, r.Metric, "n")
		out[j] = metrics.Summary{Mean: mean, Std: std, N: int(n)}
		if !ok {
			out[j].Mean = math.NaN()
		}
	}
	return out
}

// setting is the key of the row's setting.
func (r Row) setting() string { return outputs.SettingOf(r.Graph, r.Size, r.Gamma).Key }

// partOf is the part a column's facts are read from: its score stage
// (else the table's), or the learning runs.
func (t *Table) partOf(c Column) string {
	if len(t.Sources) > 0 {
		return learnPart
	}
	return or(c.Source, t.Source)
}

// paperPart is the part holding the paper's numbers of table n.
func paperPart(n int) string { return fmt.Sprintf("paper %d", n) }

// layoutColumns are the row keys as lead columns, and as a transposed
// table's column heads.
var layoutColumns = map[string][2]string{"metric": {"metric", "{metric}"}, "graph": {"graph", "{graph}"}, "size": {"n", "{size}"}, "gamma": {"γ", "{gamma}"}}

// spec declares t as a table of the builder, its rows' metrics those
// declared (metrics: label, cell, best), then a seconds row per setting
// where a run has seconds (the score stages').
func (t *Table) spec(metrics []metricItem) tableSpec {
	missing := "not run"
	ts := tableSpec{ID: fmt.Sprint(t.Number), Missing: &missing, Paper: true}
	var heads []string
	for k, key := range t.Layout {
		l := layoutColumns[key]
		ts.Lead = append(ts.Lead, leadColumn{Head: l[0], Cell: l[1], Blank: k == 0})
		heads = append(heads, strings.Replace(l[1], "{size}", "n = {size}", 1))
	}
	if t.Transpose {
		ts.Transpose = strings.Join(heads, ", ")
	}
	var items []leadColumn
	for _, c := range t.Columns {
		items = append(items, leadColumn{Head: c.Name, Cell: "{m}", Method: c.Method, Part: t.partOf(c), Ref: c.Ref,
			Below: "paper {$m.text@" + c.Name + "#" + paperPart(t.Number) + "}"})
		ts.Parts = append(ts.Parts, t.partOf(c))
	}
	ts.Cols = []colGroup{{Items: items}}
	rows, seconds := rowGroup{Axes: []string{"listed"}}, rowGroup{Axes: []string{"listed"}, Need: score.Seconds}
	for _, r := range t.Rows {
		rows.Listed = append(rows.Listed, listedRow{r.Metric, r.setting()})
		if l := (listedRow{score.Seconds, r.setting()}); !slices.Contains(seconds.Listed, l) {
			seconds.Listed = append(seconds.Listed, l)
		}
	}
	rows.Metrics, seconds.Metrics = metrics, metrics
	ts.Rows = []rowGroup{rows, seconds}
	return ts
}

// better reports whether a is better than b in metric: higher where its
// declared best is "max", else lower.
func (s *section) better(metric string, a, b float64) bool {
	if slices.ContainsFunc(s.spec.Metrics, func(m metricItem) bool { return m.Name == metric && m.Best == "max" }) {
		return a > b
	}
	return a < b
}
