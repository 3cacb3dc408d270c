package report

import "strings"

// grid is a Markdown table: every table of the report is written by it.
type grid struct {
	head  []string
	right []bool // per column of head: right-aligned (numbers)
	rows  []gridRow
	// tight writes the separator row as |---|---:| instead of
	// | --- | ---: |.
	tight bool
}

// gridRow is a row of cells; collapse writes an empty cell as "| |"
// rather than "|  |".
type gridRow struct {
	cells    []string
	collapse bool
}

// String writes the table, a pipe in a cell escaped.
func (g *grid) String() string {
	var b strings.Builder
	line := func(cells []string, collapse bool) {
		b.WriteString("|")
		for _, c := range cells {
			if collapse && c == "" {
				b.WriteString(" |")
				continue
			}
			b.WriteString(" " + escapePipes(c) + " |")
		}
		b.WriteString("\n")
	}
	line(g.head, false)
	sep := make([]string, len(g.head))
	for k, right := range g.right {
		sep[k] = map[bool]string{false: "---", true: "---:"}[right]
	}
	if g.tight {
		b.WriteString("|" + strings.Join(sep, "|") + "|\n")
	} else {
		line(sep, false)
	}
	for _, r := range g.rows {
		line(r.cells, r.collapse)
	}
	return b.String()
}

// escapePipes writes | as \| (a cell's text may hold a pipe, as in
// |ΔP|), leaving an escaped one as it is.
func escapePipes(s string) string {
	if !strings.Contains(s, "|") {
		return s
	}
	s = strings.ReplaceAll(s, `\|`, "|")
	return strings.ReplaceAll(s, "|", `\|`)
}

// transpose writes g's columns after the first lead ones as rows: corner,
// then a column per row of g headed by its label; each row a column's
// head and its cells.
func (g *grid) transpose(corner string, labels []string, lead int) *grid {
	t := &grid{head: append([]string{corner}, labels...), tight: g.tight, right: []bool{false}}
	for range labels {
		t.right = append(t.right, true)
	}
	for j := lead; j < len(g.head); j++ {
		cells := []string{g.head[j]}
		for _, r := range g.rows {
			cells = append(cells, r.cells[j])
		}
		t.rows = append(t.rows, gridRow{cells: cells})
	}
	return t
}
