package report

// The one table builder of the sections: a declared table's rows are the
// product of axes (metrics, settings, models, methods), its columns row
// labels then a column per method (or as listed), each cell a template.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// tableSpec declares a table. A cell template is text with placeholders:
// {setting}, {model}, {method}, {metric}, {family} (labels of the cell's
// row and column), {size} and {models} (variables; models the row
// covers), {m} (the row's metric), {fact.agg:format} or
// {fact.agg:format@column} (an aggregate of a fact over the runs of the
// row in the cell's column, or the one named, in a numberFormat; a cell
// outside a method's columns reads the models' own facts), {fact.text}
// (a text fact), {fact.agg:format@column#part} (of another part); fact $m
// is the row's metric. A cell is missing when one of its facts is.
//
// Title and Note are templates written before and after the table; Tight
// writes separators |---| rather than | --- |; Missing is a missing cell
// ("—" unless given); Per "setting" writes a table for each setting; Graph
// keeps the settings of that graph; Lead are the row labels. Paper (the
// paper's tables) bolds every cell equal to the best of its row where two
// or more compete (else the first best), and adds "(n=k)" to a cell over
// fewer models than the table's most; Transpose writes the columns as
// rows, each row's label (this template) a column head after the corner
// "method".
type tableSpec struct {
	ID, Title, Note, Per, Graph, Transpose string
	Tight, Paper                           bool
	Missing                                *string
	Parts                                  []string
	Lead                                   []leadColumn
	Rows                                   []rowGroup
	Cols                                   []colGroup
}

// leadColumn is a column: its header and cell templates, aligned left (the
// lead columns' default) or right (the others'); Below, a template
// written under the cell, small; Method and Part what it reads, when not
// the table's; in a method's columns, only where a run of it has fact
// Need. Blank: blank when the row above shows the same; Fit: its values
// enter the growth exponents of a Fit row; Ref: never the best of a row.
type leadColumn struct {
	Head, Cell, Align, Below, Method, Part, Need string
	Blank, Fit, Ref                              bool
}

// rowGroup is rows: the product of its Axes (metric, setting, model,
// method, or listed), outer first; the method axis Methods, in order,
// where they ran, or all but Except. Total labels a row after each outer
// value aggregating over the inner axis (each metric's TotalCell); Fit a
// row after the group's with the growth exponent of every column that
// fits over its rows' settings (metrics.GrowthExponent). Collapse writes
// an empty cell as "| |" (in the total rows if any). The group shows only
// when some run has fact When, a row only when one of its runs has fact
// Need.
type rowGroup struct {
	Axes, Methods, Except  []string
	Listed                 []listedRow
	Metrics                []metricItem
	Total, Fit, When, Need string
	Collapse               bool
}

// listedRow is a row given by its metric and its setting's key.
type listedRow struct{ Metric, Setting string }

// metricItem is a row's metric: the fact its cells aggregate, how, how
// written (or its Cell), and in a total row (TotalCell, else as the
// others); Best ("min", "max") bolds the row's best.
type metricItem struct {
	Name, Label, Agg, Format, Best, Cell string
	TotalCell                            string `toml:"total_cell"`
}

// cell is the metric's cell template, in a total row if total is set.
func (m *metricItem) cell(total string) string {
	if total != "" && m.TotalCell != "" {
		return m.TotalCell
	}
	return or(m.Cell, "{"+m.Name+"."+m.Agg+":"+m.Format+"}")
}

// colGroup is columns: with Over "method", Items for each method (those
// of Methods, Compared, or a logz Bound kind, else all; Items default to
// the row's metric); else the Items alone.
type colGroup struct {
	Over     string
	Methods  []string
	Compared bool   // the methods a cost section compares with its reference
	Bound    string // "lower", "upper", "any": methods whose ln Z is a bound
	Items    []leadColumn
}

// binding is where a cell is: its setting, model and column ("": all),
// its row's metric, its total label, and the parts and family it reads.
type binding struct {
	parts         []string
	family        string
	set           *group
	model, method string
	metric        *metricItem
	total         string
}

// piece is a literal of a cell template, or a placeholder.
type piece struct {
	lit, ref                            string // ref: m, setting, ..., or fact
	fact, agg, format, onMethod, onPart string
}

var labels = []string{"m", "setting", "model", "method", "metric", "models", "family", "size", "graph", "gamma"}

func parseCell(s string) ([]piece, error) {
	var out []piece
	for s != "" {
		i, j := strings.IndexByte(s, '{'), strings.IndexByte(s, '}')
		if i < 0 && j < 0 {
			return append(out, piece{lit: s}), nil
		} else if j < i || i < 0 {
			return nil, fmt.Errorf("cell %q: a { without its } or a } without its {", s)
		}
		p := piece{lit: s[:i], ref: s[i+1 : j]}
		if !slices.Contains(labels, p.ref) {
			var r string
			r, p.onPart, _ = strings.Cut(p.ref, "#")
			r, p.onMethod, _ = strings.Cut(r, "@")
			r, p.format, _ = strings.Cut(r, ":")
			p.ref, p.fact, p.agg = "fact", strings.Split(r, ".")[0], strings.TrimPrefix(r, strings.Split(r, ".")[0]+".")
			if p.agg != "text" && (!slices.Contains(outputs.Aggregates(), p.agg) || numberFormats[strings.TrimSuffix(p.format, "?")] == nil) {
				return nil, fmt.Errorf("cell %q: {%s}: want {fact.aggregate:format}, an aggregate of %s and a known format", s, r, strings.Join(outputs.Aggregates(), ", "))
			}
		}
		out, s = append(out, p), s[j+1:]
	}
	return out, nil
}

// cellValue is a rendered cell, with the number of its first fact, where
// it is written and its count (for bolding the best and counts).
type cellValue struct {
	text, below     string
	value, n        float64
	numeric, ok     bool
	bold            bool
	numFrom, numEnd int
}

// eval renders a cell template at b.
func (d *dataset) eval(tmpl string, b binding) cellValue {
	ps, _ := parseCell(tmpl) // checked when the declaration was loaded
	cv := cellValue{ok: true}
	var sb strings.Builder
	for _, p := range ps {
		sb.WriteString(p.lit)
		v := d.evalRef(p, b)
		if !v.ok {
			return cellValue{}
		}
		if v.numeric && !cv.numeric {
			cv.value, cv.numeric, cv.n = v.value, true, v.n
			cv.numFrom, cv.numEnd = sb.Len()+v.numFrom, sb.Len()+v.numEnd
		}
		sb.WriteString(v.text)
	}
	cv.text = sb.String()
	return cv
}

// evalRef renders one placeholder at b: a fact, the row's metric's cell,
// or a label of where the cell is.
func (d *dataset) evalRef(p piece, b binding) cellValue {
	switch p.ref {
	case "fact":
		return d.fact(p, b)
	case "m":
		return d.eval(b.metric.cell(b.total), b)
	}
	text := map[string]string{"method": b.method, "model": b.model, "models": fmt.Sprint(len(d.ModelsOf(b.set)))}
	if b.metric != nil {
		text["metric"] = b.metric.Label
	}
	if g := b.set; g != nil {
		text["setting"], text["family"], text["size"] = g.Label, g.Family, fmt.Sprint(g.Size)
		text["graph"], text["gamma"] = g.Graph, strconv.FormatFloat(g.Gamma, 'g', -1, 64)
	}
	if b.total != "" {
		text["setting"], text["model"] = b.total, b.total
	}
	return cellValue{text: text[p.ref], ok: true}
}

// fact aggregates a fact over the runs at b.
func (d *dataset) fact(p piece, b binding) cellValue {
	parts := b.parts
	if p.onPart != "" {
		parts = []string{p.onPart}
	}
	found := d.FindIn(parts, b.set, b.model, or(p.onMethod, b.method))
	fact := p.fact
	if b.metric != nil {
		fact = strings.Replace(fact, "$m", b.metric.Name, 1)
	}
	if p.agg == "text" {
		t, ok := outputs.FirstText(found, fact)
		return cellValue{text: t, ok: ok}
	}
	v, ok := outputs.Aggregate(found, fact, p.agg)
	if !ok {
		return cellValue{}
	}
	n, _ := outputs.Aggregate(found, fact, "n")
	s, ok := formatted(p.format, v)
	return cellValue{text: s, value: v, n: n, numeric: true, ok: ok, numEnd: len(s)}
}

// or is s, or dflt when s is empty.
func or[T string | []string](s, dflt T) T {
	if len(s) == 0 {
		return dflt
	}
	return s
}

// build renders table t at binding at (its setting, for a Per table),
// with its title and note; "" when it has no row or no column.
func (s *section) build(t *tableSpec, at binding) (string, error) {
	if at.parts == nil {
		at.parts = s.partsOf(t)
	}
	g := &grid{tight: t.Tight}
	cols := s.columns(t, at.parts)
	if len(t.Cols) > 0 && len(cols) == 0 {
		return "", nil
	}
	for _, l := range t.Lead {
		g.head, g.right = append(g.head, s.data.eval(l.Head, binding{}).text), append(g.right, l.Align == "right")
	}
	for _, c := range cols {
		g.head, g.right = append(g.head, s.data.eval(c.item.Head, binding{method: c.method}).text), append(g.right, c.item.Align != "left")
	}
	var rows [][]cellValue
	var labels []string
	for _, rg := range t.Rows {
		if rg.When != "" && !s.has(s.data.Obs, rg.When) {
			continue
		}
		var sets []*group
		first := len(rows)
		for _, b := range s.rows(t, rg, at) {
			r, vals := s.row(t, b, cols)
			r.collapse = rg.Collapse && (rg.Total == "" || b.total != "")
			g.rows, rows, labels = append(g.rows, r), append(rows, vals), append(labels, s.data.eval(t.Transpose, b).text)
			sets = append(sets, b.set)
		}
		if rg.Fit != "" {
			g.rows, rows = append(g.rows, fitRow(rg.Fit, len(t.Lead), cols, sets, rows[first:], s.spec.Cost.MinFitN)), append(rows, nil)
		}
	}
	if len(g.rows) == 0 {
		return "", nil
	}
	s.writeCells(t, g, rows)
	blankRepeats(g, t.Lead)
	if t.Transpose != "" {
		g = g.transpose("method", labels, len(t.Lead))
	}
	return s.frame(t, g, at.set, at.parts)
}

// writeCells writes the cells of rows after the lead cells of g's rows:
// missing, bold or with their count, and what is below them.
func (s *section) writeCells(t *tableSpec, g *grid, rows [][]cellValue) {
	most := 0.0
	for _, vals := range rows {
		for _, v := range vals {
			if v.ok && v.numeric {
				most = max(most, v.n)
			}
		}
	}
	for i, vals := range rows {
		for _, v := range vals {
			text := v.text
			switch {
			case !v.ok && t.Missing != nil:
				text = *t.Missing
			case !v.ok:
				text = "—"
			case v.bold:
				text = text[:v.numFrom] + "**" + text[v.numFrom:v.numEnd] + "**" + text[v.numEnd:]
			}
			if t.Paper && v.ok && v.numeric && v.n < most {
				text += fmt.Sprintf(" (n=%d)", int(v.n))
			}
			if v.below != "" {
				text += "<br><sub>" + v.below + "</sub>"
			}
			g.rows[i].cells = append(g.rows[i].cells, text)
		}
	}
}

// column is one column of a table's column groups.
type column struct {
	method string
	item   leadColumn
}

func (s *section) columns(t *tableSpec, parts []string) []column {
	var out []column
	for _, cg := range t.Cols {
		items, ms := cg.Items, []string{""}
		if len(items) == 0 {
			items = []leadColumn{{Head: "{method}", Cell: "{m}"}}
		}
		if cg.Over == "method" && cg.Compared {
			ms = s.methodsOf(s.spec.Cost.Compare, cg.Bound, parts)
		} else if cg.Over == "method" {
			ms = s.methodsOf(cg.Methods, cg.Bound, parts)
		}
		for _, m := range ms {
			for _, it := range items {
				if m == "" || it.Need == "" || s.has(s.data.Find(nil, "", m), it.Need) {
					out = append(out, column{method: or(m, it.Method), item: it})
				}
			}
		}
	}
	return out
}

// methodsOf are the methods run in the stages of parts that are in list
// (in its order), or whose ln Z is a bound of kind ("lower", "upper",
// "any": lower ones first), or all.
func (s *section) methodsOf(list []string, kind string, parts []string) []string {
	ran := s.data.MethodsIn(parts)
	if len(list) > 0 {
		return slices.DeleteFunc(slices.Clone(list), func(m string) bool { return !slices.Contains(ran, m) })
	}
	if kind == "" {
		return ran
	}
	lower, upper := methods.LogZLowerBound, methods.LogZUpperBound
	var out []string
	for _, b := range map[string][]methods.LogZKind{"lower": {lower}, "upper": {upper}, "any": {lower, upper}}[kind] {
		out = append(out, slices.DeleteFunc(slices.Clone(ran), func(m string) bool { e, err := methods.Lookup(m); return err != nil || e.LogZ != b })...)
	}
	return out
}

// partsOf are the parts a table reads: its own, else the section's first.
func (s *section) partsOf(t *tableSpec) []string {
	if len(t.Parts) == 0 && len(s.data.parts) > 0 {
		return []string{s.data.parts[0].Prefix}
	}
	return t.Parts
}

// settingsOf are the settings with runs of a table's parts, of its graph.
func (s *section) settingsOf(t *tableSpec) []*group {
	return slices.DeleteFunc(s.data.SettingsIn(s.partsOf(t)), func(g *group) bool { return t.Graph != "" && g.Graph != t.Graph })
}

// rows expands a row group into the bindings of its rows.
func (s *section) rows(t *tableSpec, rg rowGroup, at binding) []binding {
	bs := []binding{at}
	for k, axis := range rg.Axes {
		var next []binding
		for _, b := range bs {
			next = append(next, s.axis(t, rg, axis, b)...)
			if rg.Total != "" && k == len(rg.Axes)-1 {
				b.total = rg.Total
				next = append(next, b)
			}
		}
		bs = next
	}
	return slices.DeleteFunc(bs, func(b binding) bool {
		return rg.Need != "" && !slices.ContainsFunc(s.data.Obs, func(o *obs) bool {
			_, ok := o.Num[rg.Need]
			return ok && (b.set == nil || o.Set == b.set) && (b.parts == nil || slices.Contains(b.parts, o.Part)) && (b.model == "" || o.Model == b.model) && (b.method == "" || o.Method == b.method)
		})
	})
}

// axis lists the bindings of one axis's values at b.
func (s *section) axis(t *tableSpec, rg rowGroup, axis string, b binding) []binding {
	var out []binding
	switch axis {
	case "metric":
		for i := range rg.Metrics {
			b.metric = &rg.Metrics[i]
			out = append(out, b)
		}
	case "setting":
		for _, g := range s.settingsOf(&tableSpec{Parts: b.parts, Graph: t.Graph}) {
			if b.set = g; b.family == "" || g.Family == b.family {
				out = append(out, b)
			}
		}
	case "listed":
		for _, l := range rg.Listed {
			i := slices.IndexFunc(rg.Metrics, func(m metricItem) bool { return m.Name == l.Metric })
			b.metric, b.set = &rg.Metrics[i], s.data.ByKey[l.Setting]
			out = append(out, b)
		}
	case "model":
		for _, m := range s.data.ModelsOf(b.set) {
			b.model = m
			out = append(out, b)
		}
	case "method":
		for _, m := range s.methodsOf(rg.Methods, "", b.parts) {
			if len(s.data.Find(b.set, b.model, m)) > 0 && !slices.Contains(rg.Except, m) {
				b.method = m
				out = append(out, b)
			}
		}
	}
	return out
}

// row evaluates the cells of one row, marking the best of its metric.
func (s *section) row(t *tableSpec, b binding, cols []column) (gridRow, []cellValue) {
	var r gridRow
	for _, l := range t.Lead {
		r.cells = append(r.cells, s.data.eval(l.Cell, b).text)
	}
	vals := make([]cellValue, len(cols))
	for j, c := range cols {
		cb := b
		cb.method = or(c.method, b.method)
		if c.item.Part != "" {
			cb.parts = []string{c.item.Part}
		}
		vals[j] = s.data.eval(c.item.Cell, cb)
		vals[j].below = s.data.eval(c.item.Below, cb).text
	}
	if b.metric != nil && b.metric.Best != "" {
		markBest(vals, cols, b.metric.Best == "max", t.Paper)
	}
	return r, vals
}

// markBest bolds the first cell holding the best number (NaN never is),
// references aside; with ties, every cell holding it where two or more
// compete.
func markBest(vals []cellValue, cols []column, higher, ties bool) {
	best, count := -1, 0
	for j, v := range vals {
		if !v.ok || !v.numeric || cols[j].item.Ref {
			continue
		}
		count++
		if !math.IsNaN(v.value) && (best < 0 || higher && v.value > vals[best].value || !higher && v.value < vals[best].value) {
			best = j
		}
	}
	for j, v := range vals {
		vals[j].bold = !ties && j == best || ties && count > 1 && best >= 0 && v.ok && v.numeric && !cols[j].item.Ref && v.value == vals[best].value
	}
}

// fitRow is the growth exponent of every column that fits, over the rows
// (of sets) of at least minN variables where it has a value, labelled
// with the first and last of them.
func fitRow(label string, lead int, cols []column, sets []*group, rows [][]cellValue, minN int) gridRow {
	if fit := fitted(sets, minN); len(fit) > 0 {
		label = fmt.Sprintf("%s (%s to %s)", label, fit[0], fit[len(fit)-1])
	}
	r := gridRow{cells: append([]string{label}, make([]string, lead-1+len(cols))...), collapse: true}
	for j, c := range cols {
		var n, y []float64
		for i, vals := range rows {
			if vals[j].ok && vals[j].numeric {
				n, y = append(n, float64(sets[i].Size)), append(y, vals[j].value)
			}
		}
		if c.item.Fit {
			r.cells[lead+j] = numberFormats["dash2"](metrics.GrowthExponent(n, y, float64(minN)))
		}
	}
	return r
}

// blankRepeats blanks a lead cell that repeats the one above it, in the
// lead columns that ask for it.
func blankRepeats(g *grid, lead []leadColumn) {
	for k, l := range lead {
		prev := ""
		for _, r := range g.rows {
			if v := r.cells[k]; l.Blank && v == prev {
				r.cells[k] = ""
			} else {
				prev = v
			}
		}
	}
}

// fitted are the labels of the settings of at least minN variables.
func fitted(sets []*group, minN int) []string {
	var out []string
	for _, g := range sets {
		if g.Size >= minN {
			out = append(out, g.Label)
		}
	}
	return out
}
