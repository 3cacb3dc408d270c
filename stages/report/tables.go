package report

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
	seconds     []setting
	secondCells [][]stat
	notRun      []string // source stages without outputs yet
	models      int      // the largest n of our cells
}

// fill computes the result of t from the data read.
func fill(t *Table, sums map[string]*summaryData, learn *learnData) *result {
	res := &result{t: t}
	var notRun []string
	switch t.Kind {
	case KindInference:
		for _, c := range t.Columns {
			if s := sums[t.columnSource(c)]; s != nil && !s.present && !slices.Contains(notRun, s.stage) {
				notRun = append(notRun, s.stage)
			}
		}
	default:
		if learn != nil && len(learn.missing) > 0 {
			notRun = append(notRun, fmt.Sprintf("%d of %d learn-mrf instances", len(learn.missing), learn.instances))
		}
	}
	res.notRun = notRun
	for _, r := range t.Rows {
		s := setting{r.Graph, r.Size, r.Gamma}
		row := make([]cell, len(t.Columns))
		for j, c := range t.Columns {
			row[j].paper = r.values[j]
			row[j].ours = ourStat(t, c, s, r.Metric, sums, learn)
			if row[j].ours.ok {
				res.models = max(res.models, row[j].ours.n)
			}
		}
		res.cells = append(res.cells, row)
		if t.Kind == KindInference && !slices.Contains(res.seconds, s) {
			res.seconds = append(res.seconds, s)
		}
	}
	// Seconds rows only where some method ran.
	var seconds []setting
	for _, s := range res.seconds {
		row := make([]stat, len(t.Columns))
		ran := false
		for j, c := range t.Columns {
			row[j] = ourStat(t, c, s, score.Seconds, sums, learn)
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

func ourStat(t *Table, c Column, s setting, metric string, sums map[string]*summaryData, learn *learnData) stat {
	switch t.Kind {
	case KindInference:
		if d := sums[t.columnSource(c)]; d != nil {
			return d.cells[cellKey{s, c.Method, metric}]
		}
	case KindNLL:
		if learn != nil {
			return learn.nll[cellKey{setting: s, method: c.Method}]
		}
	case KindEpochSeconds:
		if learn != nil {
			return learn.epochSeconds[cellKey{setting: s, method: c.Method}]
		}
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
func isReference(method string) bool { return method == TrueMethod || method == "exact" }

// best returns, for a row of cells, which columns hold our best value.
func best(t *Table, metric string, row []stat) []bool {
	out := make([]bool, len(row))
	bestV := math.NaN()
	for j, s := range row {
		if !s.ok || isReference(t.Columns[j].Method) || math.IsNaN(s.mean) {
			continue
		}
		if math.IsNaN(bestV) || (higherIsBetter(metric) && s.mean > bestV) || (!higherIsBetter(metric) && s.mean < bestV) {
			bestV = s.mean
		}
	}
	count := 0
	for j, s := range row {
		if s.ok && !isReference(t.Columns[j].Method) {
			count++
			out[j] = s.mean == bestV
		}
	}
	if count < 2 {
		return make([]bool, len(row)) // nothing to compare with
	}
	return out
}

// formatNumber writes a value as the paper does: three decimals below 1,
// four significant digits above; seconds with three significant digits.
// Values below 0.01 keep two significant digits, which three decimals
// would lose (our GBP's errors on grids are of order 1e-3).
func formatNumber(metric string, v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	if math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	switch metric {
	case score.Seconds:
		return significant(v, 3)
	}
	if v != 0 && math.Abs(v) < 0.01 {
		return significant(v, 2)
	}
	if math.Abs(v) < 1 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return significant(v, 4)
}

// significant formats v with digits significant digits, without exponent.
func significant(v float64, digits int) string {
	if v == 0 {
		return "0"
	}
	e := int(math.Floor(math.Log10(math.Abs(v))))
	dec := max(0, min(digits-1-e, 8))
	return strconv.FormatFloat(v, 'f', dec, 64)
}

func formatStat(metric string, s stat, withStd bool) string {
	if !withStd {
		return formatNumber(metric, s.mean)
	}
	return formatNumber(metric, s.mean) + " ± " + formatNumber(metric, s.std)
}

// metricNames are the row labels of the metrics.
var metricNames = map[string]string{
	"l1": "ℓ1 error", "corr": "correlation ρ", "logz_err": "log Z error", score.Seconds: "seconds per model (ours)",
}

var layoutNames = map[string]string{"metric": "metric", "graph": "graph", "size": "n", "gamma": "γ"}

func rowKey(key string, r Row) string {
	switch key {
	case "metric":
		if n, ok := metricNames[r.Metric]; ok {
			return n
		}
		return r.Metric
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
// columns, each cell our number above the paper's.
func (res *result) markdown() string {
	t := res.t
	var b strings.Builder
	withStd := t.Kind != KindEpochSeconds // seconds per epoch: the paper prints means
	if t.Kind == KindNLL {
		withStd = true
	}
	type line struct {
		keys   []string
		cells  []string
		metric string
	}
	var lines []line
	prevFirst := ""
	for i, r := range t.Rows {
		metric := t.metricOf(r)
		var keys []string
		for k, key := range t.Layout {
			v := rowKey(key, r)
			if k == 0 && len(t.Layout) > 1 {
				if v == prevFirst {
					v = ""
				} else {
					prevFirst = v
				}
			}
			keys = append(keys, v)
		}
		ours := make([]stat, len(t.Columns))
		for j := range t.Columns {
			ours[j] = res.cells[i][j].ours
		}
		bold := best(t, metric, ours)
		var cells []string
		for j := range t.Columns {
			cells = append(cells, res.renderCell(metric, res.cells[i][j], bold[j], withStd))
		}
		lines = append(lines, line{keys, cells, metric})
	}
	for i, s := range res.seconds {
		keys := make([]string, len(t.Layout))
		for k, key := range t.Layout {
			r := Row{Metric: score.Seconds, Graph: s.graph, Size: s.size, Gamma: s.gamma}
			keys[k] = rowKey(key, r)
			if k == 0 && len(t.Layout) > 1 && key == "metric" && i > 0 {
				keys[k] = ""
			}
		}
		bold := best(t, score.Seconds, res.secondCells[i])
		var cells []string
		for j := range t.Columns {
			cells = append(cells, res.renderCell(score.Seconds, cell{ours: res.secondCells[i][j]}, bold[j], true))
		}
		lines = append(lines, line{keys, cells, score.Seconds})
	}

	var head []string
	var body [][]string
	if t.Transpose {
		head = append(head, "method")
		for _, r := range t.Rows {
			var parts []string
			for _, key := range t.Layout {
				if key == "size" {
					parts = append(parts, "n = "+rowKey(key, r))
				} else {
					parts = append(parts, rowKey(key, r))
				}
			}
			head = append(head, strings.Join(parts, ", "))
		}
		for j, c := range t.Columns {
			row := []string{c.Name}
			for _, l := range lines {
				row = append(row, l.cells[j])
			}
			body = append(body, row)
		}
	} else {
		for _, key := range t.Layout {
			head = append(head, layoutNames[key])
		}
		for _, c := range t.Columns {
			head = append(head, c.Name)
		}
		for _, l := range lines {
			body = append(body, append(append([]string(nil), l.keys...), l.cells...))
		}
	}
	nKeys := len(t.Layout)
	if t.Transpose {
		nKeys = 1
	}
	writeRow := func(cells []string) {
		for k := range cells {
			cells[k] = strings.ReplaceAll(cells[k], "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	writeRow(head)
	sep := make([]string, len(head))
	for k := range sep {
		if k < nKeys {
			sep[k] = "---"
		} else {
			sep[k] = "---:"
		}
	}
	writeRow(sep)
	for _, r := range body {
		writeRow(r)
	}
	return b.String()
}

// renderCell writes our number (bold when the row's best; "not run" when
// missing) and, below it, the paper's.
func (res *result) renderCell(metric string, c cell, bold, withStd bool) string {
	var s string
	switch {
	case c.ours.ok:
		s = formatStat(metric, c.ours, withStd)
		if bold {
			mean := formatNumber(metric, c.ours.mean)
			s = "**" + mean + "**" + strings.TrimPrefix(s, mean)
		}
		if c.ours.n < res.models {
			s += fmt.Sprintf(" (n=%d)", c.ours.n)
		}
	default:
		s = "not run"
	}
	if c.paper.OK {
		s += "<br><sub>paper " + c.paper.Text + "</sub>"
	}
	return s
}

// notes are the lines printed below a table.
func (res *result) notes() []string {
	t := res.t
	var out []string
	switch t.Kind {
	case KindInference:
		out = append(out, fmt.Sprintf("Each cell: ours (mean ± population std over the%s models of a setting; **bold** is our best of the row) above the paper's number. The seconds rows are ours only: the paper's inference tables print no times.", modelsText(res.models)))
	case KindNLL:
		out = append(out, fmt.Sprintf("Each cell: our test NLL per sample after learning (mean ± population std over the%s models; True is the true model's, Exact is learning with exact inference; **bold** is our best approximate method) above the paper's.", modelsText(res.models)))
	case KindEpochSeconds:
		out = append(out, fmt.Sprintf("Each cell: our mean seconds per learning epoch (mean over the%s models of each model's mean epoch; **bold** is our fastest) above the paper's. Machines differ: compare ratios between methods, not absolute times.", modelsText(res.models)))
	}
	var from []string
	for _, c := range t.Columns {
		if c.From != "" {
			from = append(from, fmt.Sprintf("%s (paper: %s)", c.Name, c.From))
		}
	}
	if len(from) > 0 {
		out = append(out, "Added for comparison, not in this table of the paper: "+strings.Join(from, "; ")+".")
	}
	if t.Transpose {
		out = append(out, "Laid out as the paper: methods as rows.")
	}
	out = append(out, t.Notes...)
	if len(res.notRun) > 0 {
		out = append(out, "Not run yet: "+strings.Join(res.notRun, ", ")+".")
	}
	return out
}

// modelsText is " n" for "over the n models", or "" when no model ran.
func modelsText(n int) string {
	if n == 0 {
		return ""
	}
	return " " + strconv.Itoa(n)
}

// latexToMarkdown turns the LaTeX of a caption into plain text.
var latexToMarkdown = strings.NewReplacer(
	`\gamma`, "γ", `\ell_1`, "ℓ1", `\rho`, "ρ", `\lambda`, "λ", `\log{Z}`, "log Z",
	`\textit{`, "", `}`, "", `{`, "", "$", "", `~`, " ", `\ref`, "",
)

func captionText(c string) string { return latexToMarkdown.Replace(c) }
