package report

import (
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

//go:embed paper.toml
var paperTOML []byte

// Paper is the set of the paper's tables with where our numbers come from.
type Paper struct {
	Tables []Table `toml:"table"`
}

// Table is one table of the paper.
type Table struct {
	Number    int      `toml:"number"`  // in the compiled paper
	Label     string   `toml:"label"`   // its LaTeX \label
	Caption   string   `toml:"caption"` // its LaTeX \caption
	Source    string   `toml:"source"`  // the score stage of every column without its own
	Sources   []string `toml:"sources"` // a learning table's learn-mrf stages
	Layout    []string `toml:"layout"`  // row keys in the paper's order
	Transpose bool     `toml:"transpose"`
	Notes     []string `toml:"notes"`
	Columns   []Column `toml:"columns"`
	Rows      []Row    `toml:"rows"`

	// OptionalSources (of a learning table) are learn-mrf stages read too
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

// Row is one row of the paper: a metric on a setting.
type Row struct {
	Metric string   `toml:"metric"`
	Graph  string   `toml:"graph"`
	Size   int      `toml:"size"` // number of variables
	Gamma  float64  `toml:"gamma"`
	Paper  []string `toml:"paper"` // one per column; "" where the paper has none

	values []Value
}

// Value is one number of the paper: a mean with its std (NaN where the
// paper gives none).
type Value struct {
	OK        bool // false: the paper has no number here
	Mean, Std float64
	Text      string // as printed, with ± between mean and std
}

// ParseValue reads "mean ± std", "mean" or "" (no number).
func ParseValue(s string) (Value, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Value{}, nil
	}
	mean, std, hasStd := strings.Cut(s, "±")
	v, xs, nums := Value{OK: true, Text: strings.TrimSpace(mean)}, []float64{math.NaN(), math.NaN()}, []string{mean}
	if hasStd {
		v.Text, nums = v.Text+" ± "+strings.TrimSpace(std), append(nums, std)
	}
	for i, num := range nums {
		x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || i == 1 && x < 0 {
			return Value{}, fmt.Errorf("value %q: %q is not a number (finite, a std not negative)", s, strings.TrimSpace(num))
		}
		xs[i] = x
	}
	v.Mean, v.Std = xs[0], xs[1]
	return v, nil
}

// ParsePaper parses and checks a paper.toml whose rows' metrics are of
// metrics: what a transcription can get wrong (a table number given twice,
// a layout key, a column's method or source, a row's metric, the count of
// its values, a value).
func ParsePaper(data []byte, metrics []string) (*Paper, error) {
	var p Paper
	if err := decode("paper tables", data, &p); err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for i := range p.Tables {
		t := &p.Tables[i]
		if err := t.check(metrics); err != nil {
			return nil, fmt.Errorf("paper tables: table %d (%s): %w", t.Number, t.Label, err)
		}
		if seen[t.Number] {
			return nil, fmt.Errorf("paper tables: table number %d given twice", t.Number)
		}
		seen[t.Number] = true
	}
	return &p, nil
}

func (t *Table) check(metrics []string) error {
	for _, k := range t.Layout {
		if _, ok := layoutColumns[k]; !ok {
			return fmt.Errorf("unknown layout key %q (want some of %s)", k, strings.Join(slices.Sorted(maps.Keys(layoutColumns)), ", "))
		}
	}
	for i, c := range t.Columns {
		if e, err := methods.Lookup(c.Method); err == nil && c.Name == "" {
			t.Columns[i].Name = e.Title // the registry names the methods it has
		}
		if t.Columns[i].Name == "" || c.Method == "" || t.partOf(c) == "" {
			return fmt.Errorf("a column needs a method, a source stage (its own or the table's) and, unless the registry has the method, a name")
		}
	}
	for k := range t.Rows {
		r := &t.Rows[k]
		where := fmt.Sprintf("row %d (%s %s n=%d gamma=%g)", k+1, r.Metric, r.Graph, r.Size, r.Gamma)
		if !slices.Contains(metrics, r.Metric) {
			return fmt.Errorf("%s: metric %q, want one of %s", where, r.Metric, strings.Join(metrics, ", "))
		} else if len(r.Paper) != len(t.Columns) {
			return fmt.Errorf("%s: %d paper values for %d columns", where, len(r.Paper), len(t.Columns))
		}
		r.values = make([]Value, len(r.Paper))
		for j, s := range r.Paper {
			v, err := ParseValue(s)
			if err != nil {
				return fmt.Errorf("%s, column %s: %w", where, t.Columns[j].Name, err)
			}
			r.values[j] = v
		}
	}
	return nil
}

// The paper's section (sections/paper.toml, reads "paper"): what the
// paper's tables (paper.toml) read, the summaries of their score stages
// and the curves of their learn-mrf stages, and the paper's numbers.

// learnPart is the part of the paper's learning runs.
const learnPart = "learn"

// readPaper reads the score stages and learn-mrf stages the paper's
// tables name (optional learning stages where the config has them), in
// order of first use (so errors come out the same way every run), and the
// plot sources: a family per score stage (its summary), part learnPart,
// and a part per table (the paper's numbers).
func (s *section) readPaper() error {
	var scoreStages, learnStages []string
	for i := range s.spec.paper.Tables {
		t := &s.spec.paper.Tables[i]
		for _, st := range t.OptionalSources {
			if len(s.reader().Of(st)) > 0 {
				t.Sources = append(t.Sources, st)
			}
		}
		for _, st := range t.Sources {
			if !slices.Contains(learnStages, st) {
				learnStages = append(learnStages, st)
			}
		}
		for _, c := range t.Columns {
			if len(t.Sources) == 0 {
				scoreStages = append(scoreStages, t.partOf(c))
			}
		}
	}
	for _, stage := range append(scoreStages, s.spec.PlotSources...) {
		if len(s.reader().Of(stage)) == 0 {
			return fmt.Errorf("the pipeline config has no stage %q", stage)
		}
		if s.family(stage) != nil {
			continue // read for an earlier table
		}
		if err := s.reader().ReadFamily(&newPart(stage).Progress, stage, stage, ""); err != nil {
			return err
		}
	}
	learn := newPart(learnPart)
	s.data.parts = append(s.data.parts, learn)
	if len(learnStages) > 0 {
		if err := s.reader().ReadLearning(&learn.Progress, learnStages); err != nil {
			return err
		}
	}
	s.addPaper()
	return nil
}

// addPaper adds the paper's numbers: a run per column of each table, a
// summary cell (mean, std: NaN where the paper gives none, one count) and
// its text as printed, the facts named by the row's metric.
func (s *section) addPaper() {
	for _, t := range s.spec.paper.Tables {
		for _, r := range t.Rows {
			g := s.data.Setting(r.setting(), func() *group { return outputs.SettingOf(r.Graph, r.Size, r.Gamma) })
			for j, c := range t.Columns {
				if v := r.values[j]; v.OK {
					f := outputs.NewFact(paperPart(t.Number), "", g, "", c.Name)
					if found := s.data.FindIn([]string{f.Part}, g, "", c.Name); len(found) > 0 {
						f = found[0] // one fact per cell, as a score stage's summary
					} else {
						s.data.Add(f)
					}
					f.Text[r.Metric], f.Num[r.Metric], f.Num[r.Metric+"_std"], f.Num[r.Metric+"_n"] = v.Text, v.Mean, v.Std, 1
				}
			}
		}
	}
}

// family is the score stage's summary read, or nil.
func (s *section) family(stage string) *family {
	if i := slices.IndexFunc(s.data.Families, func(f *family) bool { return f.Stage == stage }); i >= 0 {
		return s.data.Families[i]
	}
	return nil
}
