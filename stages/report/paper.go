package report

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/renn-go/renn/core/methods"
)

//go:embed paper.toml
var paperTOML []byte

// Kinds of table.
const (
	KindInference    = "inference"     // metric x setting rows, from a score stage's summary
	KindNLL          = "nll"           // test NLL after learning, from learn-mrf's curves
	KindEpochSeconds = "epoch_seconds" // seconds per learning epoch, from the same curves
)

// Metrics of the inference tables, as the score stage names them.
var paperMetrics = []string{"l1", "corr", "logz_err"}

// Layout keys: the columns that name a row.
var layoutKeys = []string{"metric", "graph", "size", "gamma"}

// Paper is the set of the paper's tables with where our numbers come from.
type Paper struct {
	Tables []Table `toml:"table"`
}

// Table is one table of the paper.
type Table struct {
	Number    int      `toml:"number"`  // in the compiled paper
	Label     string   `toml:"label"`   // its LaTeX \label
	Caption   string   `toml:"caption"` // its LaTeX \caption
	Kind      string   `toml:"kind"`
	Source    string   `toml:"source"`  // inference: the score stage of every column without its own
	Sources   []string `toml:"sources"` // nll, epoch_seconds: the learn-mrf stages
	Layout    []string `toml:"layout"`  // row keys in the paper's order
	Transpose bool     `toml:"transpose"`
	Notes     []string `toml:"notes"`
	Columns   []Column `toml:"columns"`
	Rows      []Row    `toml:"rows"`

	// OptionalSources (nll, epoch_seconds) are learn-mrf stages read too
	// when the pipeline config has them: stages beyond the paper's, whose
	// columns say "not run" in a config without them.
	OptionalSources []string `toml:"optional_sources"`
}

// Column is one method column.
type Column struct {
	Name   string `toml:"name"`   // as printed
	Method string `toml:"method"` // our method name; "true" is the true model's NLL
	Source string `toml:"source"` // score stage, when not the table's
	From   string `toml:"from"`   // the paper table its paper numbers come from, when not this one
	Ref    bool   `toml:"ref"`    // a reference (the true model, exact learning): never the best of a row
}

// Row is one row of the paper: a metric (inference tables) on a setting.
type Row struct {
	Metric string   `toml:"metric"`
	Graph  string   `toml:"graph"`
	Size   int      `toml:"size"` // number of variables
	Gamma  float64  `toml:"gamma"`
	Paper  []string `toml:"paper"` // one per column; "" where the paper has none

	values []Value
}

// Values returns the paper's numbers of the row, one per column.
func (r Row) Values() []Value { return r.values }

// Value is one number of the paper: a mean with or without its std.
type Value struct {
	OK        bool // false: the paper has no number here
	Mean, Std float64
	HasStd    bool
	Text      string // as printed, with ± between mean and std
}

// ParseValue reads "mean ± std", "mean" or "" (no number).
func ParseValue(s string) (Value, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Value{}, nil
	}
	mean, std, hasStd := strings.Cut(s, "±")
	v := Value{OK: true, HasStd: hasStd}
	var err error
	if v.Mean, err = parseNumber(mean); err != nil {
		return Value{}, fmt.Errorf("value %q: %w", s, err)
	}
	v.Text = strings.TrimSpace(mean)
	if hasStd {
		if v.Std, err = parseNumber(std); err != nil {
			return Value{}, fmt.Errorf("value %q: %w", s, err)
		}
		if v.Std < 0 {
			return Value{}, fmt.Errorf("value %q: negative std", s)
		}
		v.Text += " ± " + strings.TrimSpace(std)
	}
	return v, nil
}

func parseNumber(s string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", strings.TrimSpace(s))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number", strings.TrimSpace(s))
	}
	return x, nil
}

// PaperTables returns the paper's tables embedded in the package.
func PaperTables() (*Paper, error) {
	return ParsePaper(paperTOML)
}

// ParsePaper parses and checks a paper.toml.
func ParsePaper(data []byte) (*Paper, error) {
	var p Paper
	md, err := toml.Decode(string(data), &p)
	if err != nil {
		return nil, fmt.Errorf("paper tables: %w", err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, fmt.Errorf("paper tables: unknown key %s", un[0])
	}
	if len(p.Tables) == 0 {
		return nil, fmt.Errorf("paper tables: no tables")
	}
	seen := map[int]bool{}
	for i := range p.Tables {
		t := &p.Tables[i]
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("paper tables: table %d (%s): %w", t.Number, t.Label, err)
		}
		if seen[t.Number] {
			return nil, fmt.Errorf("paper tables: table number %d given twice", t.Number)
		}
		seen[t.Number] = true
	}
	return &p, nil
}

func (t *Table) check() error {
	if t.Number <= 0 || t.Label == "" || t.Caption == "" {
		return fmt.Errorf("needs a positive number, a label and a caption")
	}
	if err := t.checkSources(); err != nil {
		return err
	}
	if len(t.Layout) == 0 {
		return fmt.Errorf("empty layout")
	}
	for _, k := range t.Layout {
		if !slices.Contains(layoutKeys, k) {
			return fmt.Errorf("unknown layout key %q (want some of %s)", k, strings.Join(layoutKeys, ", "))
		}
		if k == "metric" && t.Kind != KindInference {
			return fmt.Errorf("layout key metric in a %s table", t.Kind)
		}
	}
	if t.Kind == KindInference && !slices.Contains(t.Layout, "metric") {
		return fmt.Errorf("an inference table's layout must include metric")
	}
	if len(t.Columns) == 0 || len(t.Rows) == 0 {
		return fmt.Errorf("no columns or no rows")
	}
	for i, c := range t.Columns {
		if e, err := methods.Lookup(c.Method); err == nil && c.Name == "" {
			t.Columns[i].Name = e.Title // the registry names the methods it has
		}
		if t.Columns[i].Name == "" || c.Method == "" {
			return fmt.Errorf("a column needs a method and, unless the registry has it, a name")
		}
	}
	for k := range t.Rows {
		if err := t.checkRow(k); err != nil {
			return err
		}
	}
	for _, c := range (&sectionSpec{Tables: []tableSpec{t.spec(nil)}}).cells() {
		if _, err := parseCell(c); err != nil {
			return err // a column name the builder cannot read
		}
	}
	return nil
}

// checkSources checks the kind of t and the stages its numbers come from.
func (t *Table) checkSources() error {
	switch t.Kind {
	case KindInference:
		if len(t.OptionalSources) > 0 {
			return fmt.Errorf("optional_sources are learn-mrf stages, for nll and epoch_seconds tables")
		}
		if slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Source == "" && t.Source == "" }) {
			return fmt.Errorf("a column has no source stage and neither has the table")
		}
	case KindNLL, KindEpochSeconds:
		if len(t.Sources) == 0 {
			return fmt.Errorf("no learn-mrf stages in sources")
		}
		if slices.ContainsFunc(t.OptionalSources, func(s string) bool { return slices.Contains(t.Sources, s) }) {
			return fmt.Errorf("a stage is in both sources and optional_sources")
		}
		if slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Source != "" }) {
			return fmt.Errorf("learning tables take their stages from sources, not per column")
		}
	default:
		return fmt.Errorf("unknown kind %q (want %s, %s or %s)", t.Kind, KindInference, KindNLL, KindEpochSeconds)
	}
	return nil
}

// checkRow checks row k of t and reads the paper's values.
func (t *Table) checkRow(k int) error {
	r := &t.Rows[k]
	where := fmt.Sprintf("row %d (%s)", k+1, r.describe())
	switch {
	case t.Kind == KindInference && !slices.Contains(paperMetrics, r.Metric):
		return fmt.Errorf("%s: metric %q, want one of %s", where, r.Metric, strings.Join(paperMetrics, ", "))
	case t.Kind != KindInference && r.Metric != "":
		return fmt.Errorf("%s: a %s table has no metric per row", where, t.Kind)
	case r.Graph == "" || r.Size <= 0:
		return fmt.Errorf("%s: needs a graph and a positive size", where)
	case len(r.Paper) != len(t.Columns):
		return fmt.Errorf("%s: %d paper values for %d columns", where, len(r.Paper), len(t.Columns))
	}
	r.values = make([]Value, len(r.Paper))
	for j, s := range r.Paper {
		v, err := ParseValue(s)
		if err == nil && v.OK && t.Kind == KindInference && !v.HasStd {
			err = fmt.Errorf("inference values are mean ± std, got %q", s)
		}
		if err != nil {
			return fmt.Errorf("%s, column %s: %w", where, t.Columns[j].Name, err)
		}
		r.values[j] = v
	}
	return nil
}

func (r Row) describe() string {
	s := fmt.Sprintf("%s n=%d gamma=%g", r.Graph, r.Size, r.Gamma)
	if r.Metric != "" {
		s = r.Metric + " " + s
	}
	return s
}

// columnSource is the score stage a column's numbers come from.
func (t *Table) columnSource(c Column) string {
	if c.Source != "" {
		return c.Source
	}
	return t.Source
}
