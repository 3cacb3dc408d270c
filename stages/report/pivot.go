package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
)

// tableSpec declares a table of a section: its rows (groups of axes:
// metrics, settings, models, methods), its columns (row labels, then
// groups of columns, one per method or as listed) and what each cell
// shows, as a cell template.
//
// A cell template is text with placeholders: {setting}, {model},
// {method} and {metric} (the labels of the cell's row and column),
// {models} (how many models the row covers), {m} (the row's metric), and
// {fact.agg:format} or {fact.agg:format@column}: the aggregate agg
// (mean, max, min, sum, count, std, n, rms) of a fact over the models of
// the row, in the cell's column (or the one named), written in a format
// (numberFormats). A cell without a column reads the facts of the models
// themselves (their exact ln Z, their shape, comparisons between runs).
// {fact.text} is a text fact. A cell is missing when one of its facts is.
type tableSpec struct {
	ID      string
	Title   string  // a template written before the table
	Note    string  // a template written after it
	Tight   bool    // separators |---| rather than | --- |
	Missing *string // a missing cell; "—" unless given
	Per     string  // "setting": a table for each setting
	Graph   string  // only settings of this graph
	Parts   []string
	Lead    []leadColumn
	Rows    []rowGroup
	Cols    []colGroup
	// Ties bolds every best value of a row (else the first), and none
	// unless two cells compete.
	Ties bool
}

// leadColumn is a column: its header and cell templates. Align is "left"
// (the default of the lead columns, which label the rows) or "right" (the
// default of the others).
type leadColumn struct {
	Head, Cell string
	Align      string
	Blank      bool   // blank when the row above shows the same
	Need       string // in a method's columns: only where a run of the method has this fact
	Fit        bool   // its values enter the growth exponents of a Fit row
}

// rowGroup is rows of a table: the product of its axes, outer first.
type rowGroup struct {
	Axes    []string // metric, setting, model, method
	Metrics []metricItem
	Methods []string // the method axis: these, in this order, where they ran
	Except  []string // the method axis: all but these
	// Total, when set, is the label of a row after each outer value that
	// aggregates over the inner axis (each metric's Total aggregate).
	Total string
	// Collapse writes an empty cell as "| |" in the group's total rows,
	// or, without Total, in all its rows.
	Collapse bool
	// Fit, when set, labels a row after the group's rows with the growth
	// exponent of every column that fits over its rows' settings.
	Fit  string
	When string // the group shows only when some run has this fact
	Need string // a row shows only when one of its runs has this fact
}

// metricItem is a row's metric: the fact its cells aggregate, how, and
// how they are written; Best ("min", "max") bolds the row's best.
type metricItem struct {
	Name, Label, Agg, Format, Best string
	// In a total row: the aggregate, format or cell template instead.
	Total       string
	TotalFormat string `toml:"total_format"`
	TotalCell   string `toml:"total_cell"`
}

// colGroup is columns: one per method (Over "method": those of Methods or
// of a logz Bound kind, else every method), each column of Items, or the
// Items alone.
type colGroup struct {
	Over     string
	Methods  []string
	Compared bool   // the methods a cost section compares with its reference
	Bound    string // "lower", "upper", "any": methods whose ln Z is a bound
	Items    []leadColumn
}

// binding is where a cell is: its setting, model and column (empty: all),
// its row's metric, and whether it is a total row.
type binding struct {
	parts  []string // only the runs of these parts (nil: all)
	family string   // only the settings of this family
	set    *group
	model  string
	method string
	metric *metricItem
	total  string
}

// piece is a literal of a cell template, or a placeholder.
type piece struct {
	lit                         string
	ref                         string // m, setting, ..., or a fact
	fact, agg, format, onMethod string
}

func parseCell(s string) ([]piece, error) {
	var out []piece
	for s != "" {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return append(out, piece{lit: s}), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("cell %q: unclosed {", s)
		}
		if i > 0 {
			out = append(out, piece{lit: s[:i]})
		}
		p, err := parseRef(s[i+1 : i+j])
		if err != nil {
			return nil, fmt.Errorf("cell %q: %w", s, err)
		}
		out = append(out, p)
		s = s[i+j+1:]
	}
	return out, nil
}

func parseRef(r string) (piece, error) {
	switch r {
	case "m", "setting", "model", "method", "metric", "models", "family", "size":
		return piece{ref: r}, nil
	}
	p := piece{ref: "fact"}
	r, p.onMethod, _ = strings.Cut(r, "@")
	r, p.format, _ = strings.Cut(r, ":")
	p.fact, p.agg, _ = strings.Cut(r, ".")
	switch {
	case p.agg == "text":
		return p, nil
	case !slices.Contains(aggregates, p.agg):
		return p, fmt.Errorf("{%s}: want {fact.aggregate:format} with an aggregate of %s", r, strings.Join(aggregates, ", "))
	case numberFormats[strings.TrimSuffix(p.format, "?")] == nil:
		return p, fmt.Errorf("{%s}: unknown format %q", r, p.format)
	}
	return p, nil
}

// cellValue is a rendered cell: its text, and the number of its first
// placeholder (for bolding the best).
type cellValue struct {
	text    string
	value   float64
	numeric bool
	ok      bool
}

// eval renders a cell template at b.
func (d *dataset) eval(tmpl string, b binding) cellValue {
	ps, err := parseCell(tmpl)
	if err != nil {
		panic(err) // declarations are checked when parsed
	}
	cv := cellValue{ok: true}
	var sb strings.Builder
	for _, p := range ps {
		s, v, num, ok := d.evalPiece(p, b)
		if !ok {
			return cellValue{}
		}
		if num && !cv.numeric {
			cv.value, cv.numeric = v, true
		}
		sb.WriteString(s)
	}
	cv.text = sb.String()
	return cv
}

func (d *dataset) evalPiece(p piece, b binding) (string, float64, bool, bool) {
	label := func(s string) (string, float64, bool, bool) { return s, 0, false, true }
	switch p.ref {
	case "":
		return label(p.lit)
	case "setting":
		if b.total != "" || b.set == nil {
			return label(b.total)
		}
		return label(b.set.label)
	case "model":
		if b.total != "" {
			return label(b.total)
		}
		return label(b.model)
	case "method":
		return label(b.method)
	case "family":
		return label(b.set.family)
	case "size":
		return label(fmt.Sprint(b.set.size))
	case "metric":
		return label(b.metric.Label)
	case "models":
		return label(fmt.Sprint(len(d.modelsOf(b.set))))
	case "m":
		m := b.metric
		fact, agg, f := m.Name, m.Agg, m.Format
		if b.total != "" {
			if m.TotalCell != "" {
				cv := d.eval(m.TotalCell, b)
				return cv.text, cv.value, cv.numeric, cv.ok
			}
			agg, f = or(m.Total, agg), or(m.TotalFormat, f)
		}
		return d.fact(piece{fact: fact, agg: agg, format: f}, b)
	}
	return d.fact(p, b)
}

// fact aggregates a fact over the runs at b.
func (d *dataset) fact(p piece, b binding) (string, float64, bool, bool) {
	method := or(p.onMethod, b.method)
	found := d.find(b.set, b.model, method)
	if b.parts != nil {
		found = slices.DeleteFunc(slices.Clone(found), func(o *obs) bool { return !slices.Contains(b.parts, o.part) })
	}
	if p.agg == "text" {
		t, ok := firstText(found, p.fact)
		return t, 0, false, ok
	}
	v, ok := aggregate(found, p.fact, p.agg)
	if !ok {
		return "", 0, false, false
	}
	s, ok := format(p.format, v)
	return s, v, true, ok
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// build renders the table (with its title and note) at set (a Per table),
// or "" when it has no row or no column.
func (s *section) build(t *tableSpec, at binding) (string, error) {
	at.parts = s.partsOf(t)
	g := &grid{tight: t.Tight}
	for _, l := range t.Lead {
		g.head = append(g.head, s.data.eval(l.Head, binding{}).text)
		g.right = append(g.right, l.Align == "right")
	}
	cols := s.columns(t)
	if len(t.Cols) > 0 && len(cols) == 0 {
		return "", nil
	}
	for _, c := range cols {
		g.head = append(g.head, s.data.eval(c.item.Head, binding{method: c.method}).text)
		g.right = append(g.right, c.item.Align != "left")
	}
	for _, rg := range t.Rows {
		if rg.When != "" && !slices.ContainsFunc(s.data.obs, func(o *obs) bool { _, ok := o.num[rg.When]; return ok }) {
			continue
		}
		var fit fitRow
		for _, b := range s.rows(t, rg, at) {
			r, vals := s.row(t, b, cols, rg.Collapse && (rg.Total == "" || b.total != ""))
			g.rows = append(g.rows, r)
			if rg.Fit != "" {
				fit.add(b.set, vals)
			}
		}
		if rg.Fit != "" {
			g.rows = append(g.rows, fit.row(rg.Fit, len(t.Lead), cols, float64(s.spec.Cost.MinFitN)))
		}
	}
	blankRepeats(g, t.Lead)
	if len(g.rows) == 0 {
		return "", nil
	}
	return s.frame(t, g, at.set)
}

// column is one column of a table's column groups.
type column struct {
	method string
	item   leadColumn
}

// columns expands the column groups of t.
func (s *section) columns(t *tableSpec) []column {
	var out []column
	for _, cg := range t.Cols {
		items := cg.Items
		if len(items) == 0 {
			items = []leadColumn{{Head: "{method}", Cell: "{m}"}}
		}
		if cg.Over != "method" {
			for _, it := range items {
				out = append(out, column{item: it})
			}
			continue
		}
		list := cg.Methods
		if cg.Compared {
			list = s.spec.Cost.Compare
		}
		for _, m := range s.methodsOf(list, cg.Bound, s.partsOf(t)) {
			for _, it := range items {
				if it.Need == "" || slices.ContainsFunc(s.data.find(nil, "", m), func(o *obs) bool { _, ok := o.num[it.Need]; return ok }) {
					out = append(out, column{method: m, item: it})
				}
			}
		}
	}
	return out
}

// methodsOf are the methods run in the stages of parts that are in list
// (in its order), or whose ln Z is a bound of kind (lower bounds first),
// or all.
func (s *section) methodsOf(list []string, kind string, parts []string) []string {
	ran := s.methodsIn(parts)
	if len(list) > 0 {
		return slices.DeleteFunc(slices.Clone(list), func(m string) bool { return !slices.Contains(ran, m) })
	}
	if kind == "" {
		return ran
	}
	var lower, upper []string
	for _, m := range ran {
		e, err := methods.Lookup(m)
		if err != nil {
			continue
		}
		switch e.LogZ {
		case methods.LogZLowerBound:
			lower = append(lower, m)
		case methods.LogZUpperBound:
			upper = append(upper, m)
		}
	}
	switch kind {
	case "lower":
		return lower
	case "upper":
		return upper
	}
	return append(lower, upper...)
}

// rows expands a row group into the bindings of its rows.
func (s *section) rows(t *tableSpec, rg rowGroup, at binding) []binding {
	bs := []binding{at}
	for k, axis := range rg.Axes {
		var next []binding
		for _, b := range bs {
			next = append(next, s.axis(t, rg, axis, b)...)
			if rg.Total != "" && k == len(rg.Axes)-1 {
				tb := b
				tb.total = rg.Total
				next = append(next, tb)
			}
		}
		bs = next
	}
	if rg.Need == "" {
		return bs
	}
	return slices.DeleteFunc(bs, func(b binding) bool {
		for _, o := range s.data.obs {
			if (b.set == nil || o.set == b.set) && (b.model == "" || o.model == b.model) && (b.method == "" || o.method == b.method) {
				if _, ok := o.num[rg.Need]; ok {
					return false
				}
			}
		}
		return true
	})
}

// axis lists the values of one axis at b.
func (s *section) axis(t *tableSpec, rg rowGroup, axis string, b binding) []binding {
	var out []binding
	switch axis {
	case "metric":
		for i := range rg.Metrics {
			nb := b
			nb.metric = &rg.Metrics[i]
			out = append(out, nb)
		}
	case "setting":
		for _, g := range s.settingsOf(t) {
			if b.family != "" && g.family != b.family {
				continue
			}
			nb := b
			nb.set = g
			out = append(out, nb)
		}
	case "model":
		for _, m := range s.data.modelsOf(b.set) {
			nb := b
			nb.model = m
			out = append(out, nb)
		}
	case "method":
		for _, m := range s.methodsOf(rg.Methods, "", s.partsOf(t)) {
			if len(s.data.find(b.set, b.model, m)) > 0 && !slices.Contains(rg.Except, m) {
				nb := b
				nb.method = m
				out = append(out, nb)
			}
		}
	}
	return out
}

// partsOf are the parts a table reads: its own, else the section's first.
func (s *section) partsOf(t *tableSpec) []string {
	if len(t.Parts) == 0 && len(s.data.parts) > 0 {
		return []string{s.data.parts[0].prefix}
	}
	return t.Parts
}

// methodsIn are the methods (columns) run in the stages of parts, in
// order.
func (s *section) methodsIn(parts []string) []string {
	var out []string
	for _, m := range s.data.methods {
		if slices.ContainsFunc(s.data.find(nil, "", m), func(o *obs) bool { return len(parts) == 0 || slices.Contains(parts, o.part) }) {
			out = append(out, m)
		}
	}
	return out
}

// settingsOf are the settings a table shows: those with runs of its
// parts, of its graph.
func (s *section) settingsOf(t *tableSpec) []*group {
	parts := s.partsOf(t)
	if s.data.index == nil {
		s.data.reindex()
	}
	var out []*group
	for _, g := range s.data.settings {
		inParts := slices.ContainsFunc(s.data.bySet[g], func(o *obs) bool { return len(parts) == 0 || slices.Contains(parts, o.part) })
		if inParts && (t.Graph == "" || g.graph == t.Graph) {
			out = append(out, g)
		}
	}
	return out
}

// row renders the cells of one row, bolding the best of its metric.
func (s *section) row(t *tableSpec, b binding, cols []column, collapse bool) (gridRow, []cellValue) {
	r := gridRow{collapse: collapse}
	for _, l := range t.Lead {
		r.cells = append(r.cells, s.data.eval(l.Cell, b).text)
	}
	vals := make([]cellValue, len(cols))
	for j, c := range cols {
		cb := b
		if c.method != "" {
			cb.method = c.method
		}
		vals[j] = s.data.eval(c.item.Cell, cb)
	}
	best := -1
	if b.metric != nil && b.metric.Best != "" {
		best = bestCell(vals, b.metric.Best == "max")
	}
	for j, v := range vals {
		switch {
		case !v.ok && t.Missing != nil:
			r.cells = append(r.cells, *t.Missing)
		case !v.ok:
			r.cells = append(r.cells, "—")
		case j == best:
			r.cells = append(r.cells, "**"+v.text+"**")
		default:
			r.cells = append(r.cells, v.text)
		}
	}
	return r, vals
}

// fitRow gathers a row group's cells for the growth exponents: the size
// of each row's setting and its cells' values.
type fitRow struct {
	sizes  []float64
	labels []string
	vals   [][]cellValue
}

func (f *fitRow) add(g *group, vals []cellValue) {
	f.sizes, f.labels, f.vals = append(f.sizes, float64(g.size)), append(f.labels, g.label), append(f.vals, vals)
}

// Label is the fit row's label: its settings, from the first of at least
// minN variables to the last.
func (f *fitRow) fitted(minN float64) []string {
	var out []string
	for i, n := range f.sizes {
		if n >= minN {
			out = append(out, f.labels[i])
		}
	}
	return out
}

// row is the least-squares slope of log(value) against log(size) of every
// column that fits (metrics.GrowthExponent), over the rows of at least
// minN variables where it has a value.
func (f *fitRow) row(label string, lead int, cols []column, minN float64) gridRow {
	if fitted := f.fitted(minN); len(fitted) > 0 {
		label = fmt.Sprintf("%s (%s to %s)", label, fitted[0], fitted[len(fitted)-1])
	}
	r := gridRow{cells: append([]string{label}, make([]string, lead-1)...), collapse: true}
	for j, c := range cols {
		if !c.item.Fit {
			r.cells = append(r.cells, "")
			continue
		}
		var n, y []float64
		for i, vals := range f.vals {
			if vals[j].ok && vals[j].numeric {
				n, y = append(n, f.sizes[i]), append(y, vals[j].value)
			}
		}
		r.cells = append(r.cells, orDash(metrics.GrowthExponent(n, y, minN), fixed(2)(metrics.GrowthExponent(n, y, minN))))
	}
	return r
}

// bestCell is the first cell holding the best number (NaN never is).
func bestCell(vals []cellValue, higher bool) int {
	best := -1
	for j, v := range vals {
		if !v.ok || !v.numeric || math.IsNaN(v.value) {
			continue
		}
		if best < 0 || higher && v.value > vals[best].value || !higher && v.value < vals[best].value {
			best = j
		}
	}
	return best
}

// blankRepeats blanks a lead cell that repeats the one above it, in the
// lead columns that ask for it.
func blankRepeats(g *grid, lead []leadColumn) {
	for k, l := range lead {
		if !l.Blank {
			continue
		}
		prev := ""
		for _, r := range g.rows {
			v := r.cells[k]
			if v == prev {
				r.cells[k] = ""
			}
			prev = v
		}
	}
}
