package score

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
)

// table is the printed summary, shaped like the paper's tables: one row per
// metric and setting, one column per method.
type table struct {
	groupCols []string
	methods   []string
	blocks    [][]tableRow // one block of rows per metric
	notes     []string
}

type tableRow struct {
	metric string
	group  []string
	models int // models of the setting scored on this metric
	cells  []tableCell
}

type tableCell struct {
	ok        bool // false: the method has no value here
	mean, std float64
	n         int // shown when it differs from the row's models
	showN     bool
	format    string
}

// buildTable lays out the summary and the notes the reader needs.
func buildTable(groupCols []string, sum summary, scored []scoredRun) table {
	t := table{groupCols: groupCols, methods: sum.methods}
	note := checkNote(sum.methods, scored)
	var st blockStats
	t.blocks, st = tableBlocks(sum, note != "")
	cellsNote := "cells: mean ± population std over the models of each setting."
	if st.single {
		cellsNote = "cells: mean ± population std over the models of each setting; a single model's value alone."
	}
	t.notes = append(t.notes, cellsNote)
	if st.partial {
		t.notes = append(t.notes, "(n=K): the method was scored on K models of the setting, fewer than the models column.")
	}
	if n := nonBinaryNote(scored); n != "" {
		t.notes = append(t.notes, n)
	}
	if note != "" {
		t.notes = append(t.notes, note)
	}
	if st.undefined > 0 {
		t.notes = append(t.notes, fmt.Sprintf("note: %d cells show NaN: some model's score is undefined (corr of a constant vector) or an estimate holds NaN; "+
			"per-model values are in %s.", st.undefined, "scores.parquet"))
	}
	if t.dropBlank() {
		t.notes = append(t.notes, "note: γ is blank for imported (UAI) models, which have no field strength.")
	}
	return t
}

// blockStats is what the notes under a table need to know of its cells.
type blockStats struct {
	undefined int  // cells whose mean is NaN
	partial   bool // some cell has fewer models than its row
	single    bool // some cell holds a single model's value
}

// tableBlocks lays out the summary's cells as one block of rows per metric
// (the check_failed block only with checkFailed), a row per group with a
// value.
func tableBlocks(sum summary, checkFailed bool) ([][]tableRow, blockStats) {
	type key struct{ group, method, metric string }
	cells := map[key]cell{}
	for _, c := range sum.cells {
		cells[key{c.group.key(), c.method, c.metric}] = c
	}
	var st blockStats
	var blocks [][]tableRow
	for _, metric := range Metrics() {
		if metric == CheckFailed && !checkFailed {
			continue // a row of zeros: the note says when answers failed
		}
		var block []tableRow
		for _, g := range sum.groups {
			row := tableRow{metric: metric, group: g.vals}
			present := false
			for _, m := range sum.methods {
				c, ok := cells[key{g.key(), m, metric}]
				if !ok {
					row.cells = append(row.cells, tableCell{})
					continue
				}
				present = true
				row.models = max(row.models, c.N)
				if c.undefined() {
					st.undefined++
				}
				row.cells = append(row.cells, tableCell{ok: true, mean: c.Mean, std: c.Std, n: c.N, format: precision(metric)})
				st.single = st.single || c.N == 1
			}
			if !present {
				continue
			}
			for k := range row.cells {
				if row.cells[k].ok && row.cells[k].n != row.models {
					row.cells[k].showN, st.partial = true, true
				}
			}
			block = append(block, row)
		}
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
	}
	return blocks, st
}

// nonBinaryNote explains the missing l1 and corr of non-binary models, if
// any were scored.
func nonBinaryNote(scored []scoredRun) string {
	type modelKey struct {
		sha string
		id  int32
	}
	all, nonBinary := map[modelKey]bool{}, map[modelKey]bool{}
	for _, s := range scored {
		k := modelKey{s.shard.sha, s.model.ID}
		all[k] = true
		if !s.binary {
			nonBinary[k] = true
		}
	}
	if len(nonBinary) == 0 {
		return ""
	}
	return fmt.Sprintf("note: l1 and corr compare the paper's vector [p(x_i=+1) for every variable; p(x_i=+1, x_j=+1) for every pairwise factor], "+
		"which applies to binary models only; the %d non-binary models (of %d) have only logz_err, the generic metrics (var_*, factor_*), seconds, converged and iterations.",
		len(nonBinary), len(all))
}

// perModelTable is the table of --by model: a row per model, the model
// column naming every model, no notes (the settings' table has them).
func perModelTable(groupCols []string, scored []scoredRun) table {
	cols := append(slices.DeleteFunc(slices.Clone(groupCols), func(c string) bool { return c == ModelColumn }), ModelColumn)
	per := slices.Clone(scored)
	for i := range per {
		per[i].group = groupOf(per[i].model, cols, true)
	}
	t := buildTable(cols, summarise(per), per)
	t.notes = nil
	return t
}

// render renders the tables one after the other, each after the first
// under heading.
func render(tabs []table, format func(table) string, heading string) string {
	var b strings.Builder
	for k, t := range tabs {
		if k > 0 {
			b.WriteString("\n" + heading)
		}
		b.WriteString(format(t))
	}
	return b.String()
}

// dropBlank removes the group columns that are blank on every row: gamma
// when every model is imported. It reports whether gamma is kept with a
// blank (imported models among generated ones).
func (t *table) dropBlank() (someBlank bool) {
	used, blank := make([]bool, len(t.groupCols)), make([]bool, len(t.groupCols))
	for _, block := range t.blocks {
		for _, r := range block {
			for k, v := range r.group {
				used[k] = used[k] || v != ""
				blank[k] = blank[k] || v == ""
			}
		}
	}
	var cols []string
	for k, c := range t.groupCols {
		if used[k] {
			cols = append(cols, c)
			someBlank = someBlank || blank[k] && c == "gamma"
		}
	}
	if len(cols) == len(t.groupCols) || len(t.blocks) == 0 {
		return someBlank
	}
	t.groupCols = cols
	for _, block := range t.blocks {
		for i := range block {
			var g []string
			for k, v := range block[i].group {
				if used[k] {
					g = append(g, v)
				}
			}
			block[i].group = g
		}
	}
	return someBlank
}

// precision is the printf verb of a metric's values, close to the paper's.
func precision(metric string) string {
	switch metric {
	case metrics.L1, metrics.VarMeanAbs, metrics.VarMaxAbs, metrics.FactorMeanAbs, metrics.FactorMaxAbs, metrics.Hellinger:
		return "%.4f"
	case metrics.Corr, metrics.LogZErr, metrics.PRErr:
		return "%.3f"
	case Seconds:
		return "%.3g"
	case Converged, CheckFailed:
		return "%.2f"
	case Iterations:
		return "%.1f"
	}
	return "%.4g"
}

// render renders a cell as "mean<pm>std", "-" with no value, NaN if undefined.
func (c tableCell) render(pm, none string) string {
	if !c.ok {
		return none
	}
	var s string
	switch {
	case math.IsNaN(c.mean):
		s = "NaN"
	case c.n == 1: // one model: its value, with no spread to show
		s = fmt.Sprintf(c.format, c.mean)
	default:
		s = fmt.Sprintf(c.format, c.mean) + pm + fmt.Sprintf(c.format, c.std)
	}
	if c.showN {
		s += fmt.Sprintf(" (n=%d)", c.n)
	}
	return s
}

// grid returns the header and rows of the table as strings, with the metric
// named on the first row of its block only.
func (t table) grid(header func(col string) string, metricName func(string) string, methodName func(string) string,
	pm, none string, esc func(string) string) ([]string, [][][]string) {
	head := []string{header("metric")}
	for _, g := range t.groupCols {
		head = append(head, header(g))
	}
	head = append(head, header("models"))
	for _, m := range t.methods {
		head = append(head, methodName(m))
	}
	var blocks [][][]string
	for _, block := range t.blocks {
		var rows [][]string
		for k, r := range block {
			name := ""
			if k == 0 {
				name = metricName(r.metric)
			}
			row := []string{name}
			for _, v := range r.group {
				row = append(row, esc(v))
			}
			row = append(row, fmt.Sprint(r.models))
			for _, c := range r.cells {
				row = append(row, c.render(pm, none))
			}
			rows = append(rows, row)
		}
		blocks = append(blocks, rows)
	}
	return head, blocks
}

func same(s string) string { return s }

// text renders the table with aligned columns, a blank line between
// metrics, and the notes below.
func (t table) text() string {
	head, blocks := t.grid(same, same, same, " ± ", "-", same)
	left := 1 + len(t.groupCols) // metric and group columns are left-aligned
	width := make([]int, len(head))
	measure := func(row []string) {
		for k, s := range row {
			width[k] = max(width[k], utf8.RuneCountInString(s))
		}
	}
	measure(head)
	for _, rows := range blocks {
		for _, r := range rows {
			measure(r)
		}
	}
	var b strings.Builder
	line := func(row []string) {
		var cells []string
		for k, s := range row {
			pad := strings.Repeat(" ", width[k]-utf8.RuneCountInString(s))
			if k < left {
				cells = append(cells, s+pad)
			} else {
				cells = append(cells, pad+s)
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " "))
		b.WriteByte('\n')
	}
	line(head)
	total := 2 * (len(width) - 1)
	for _, w := range width {
		total += w
	}
	b.WriteString(strings.Repeat("-", total) + "\n")
	for k, rows := range blocks {
		if k > 0 {
			b.WriteByte('\n')
		}
		for _, r := range rows {
			line(r)
		}
	}
	b.WriteByte('\n')
	for _, n := range t.notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// markdown renders the table as a GitHub-flavoured Markdown table with the
// notes below it.
func (t table) markdown() string {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	head, blocks := t.grid(esc, esc, esc, " ± ", "–", esc)
	var b strings.Builder
	row := func(cells []string) { b.WriteString("| " + strings.Join(cells, " | ") + " |\n") }
	row(head)
	sep := make([]string, len(head))
	for k := range sep {
		if k <= len(t.groupCols) {
			sep[k] = "---"
		} else {
			sep[k] = "---:"
		}
	}
	row(sep)
	for _, rows := range blocks {
		for _, r := range rows {
			row(r)
		}
	}
	b.WriteByte('\n')
	for _, n := range t.notes {
		b.WriteString(n + "\n")
	}
	return b.String()
}

// Paper names of the methods, metrics and group columns in LaTeX.
var (
	latexMetrics = map[string]string{metrics.L1: `$\ell_1$ error`, metrics.Corr: `Correlation $\rho$`, metrics.LogZErr: `$\log Z$ error`,
		metrics.VarMeanAbs: `mean $|\Delta p(x_i)|$`, metrics.VarMaxAbs: `max $|\Delta p(x_i)|$`,
		metrics.FactorMeanAbs: `mean $|\Delta p(x_a)|$`, metrics.FactorMaxAbs: `max $|\Delta p(x_a)|$`,
		metrics.Hellinger: "Hellinger", metrics.PRErr: `$\log_{10} Z$ error`,
		Seconds: "Seconds", Converged: "Converged", CheckFailed: "Check failed", Iterations: "Iterations"}
	latexColumns = map[string]string{"metric": "Metric", "graph": "Graph", "size": "$n$", "gamma": `$\gamma$`, "model": "Model", "models": "Models"}
)

func lookup(names map[string]string) func(string) string {
	return func(s string) string {
		if n, ok := names[s]; ok {
			return n
		}
		return latexEscape(s)
	}
}

var latexEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`)

func latexEscape(s string) string { return latexEscaper.Replace(s) }

// latex renders the table as a booktabs tabular (needs \usepackage{booktabs})
// with the notes in a paragraph below it.
func (t table) latex() string {
	head, blocks := t.grid(lookup(latexColumns), lookup(latexMetrics), methods.Title, ` $\pm$ `, "--", latexEscape)
	var b strings.Builder
	b.WriteString("% written by the score stage; needs \\usepackage{booktabs}\n")
	b.WriteString(`\begin{tabular}{` + strings.Repeat("l", 1+len(t.groupCols)) + "r" + strings.Repeat("c", len(t.methods)) + "}\n")
	b.WriteString("\\toprule\n")
	b.WriteString(strings.Join(head, " & ") + ` \\` + "\n")
	for _, rows := range blocks {
		b.WriteString("\\midrule\n")
		for _, r := range rows {
			b.WriteString(strings.Join(r, " & ") + ` \\` + "\n")
		}
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	if len(t.notes) > 0 {
		b.WriteString("\\par\\smallskip{\\footnotesize\n")
		for _, n := range t.notes {
			b.WriteString(latexNote(n) + "\\par\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// latexNote escapes a note and sets its ± as math.
func latexNote(n string) string {
	return strings.ReplaceAll(latexEscape(n), "±", `$\pm$`)
}

// checkNote counts, per method, the answers that failed the shared check,
// or returns "" if none did.
func checkNote(methods []string, scored []scoredRun) string {
	failed, runs := map[string]int{}, map[string]int{}
	total := 0
	for _, s := range scored {
		runs[s.method]++
		for _, v := range s.values {
			if v.metric == CheckFailed && v.value != 0 {
				failed[s.method]++
				total++
			}
		}
	}
	if total == 0 {
		return ""
	}
	var parts []string
	for _, m := range methods {
		if failed[m] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", m, failed[m], runs[m]))
		}
	}
	return fmt.Sprintf("note: %d answers failed the shared check and count as not converged (%s); "+
		"the reasons are in estimates.parquet (params \"check\").", total, strings.Join(parts, ", "))
}
