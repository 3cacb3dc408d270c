package report

import (
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// sectionSpec declares a section of the report (sections/*.toml): the
// stages it reads, its tables, claims and figures, and its text (a Go
// text/template over a scope).
type sectionSpec struct {
	Title, Anchor string
	// Sections are the sections that follow the paper's tables in
	// REPORT.md (of the paper's section).
	Sections []string
	// OwnConfig: the section reads a pipeline config of its own, not the
	// paper's, given by the section's name (report --with-<name>); REPORT.md
	// has the section only when it is given. WrapAnchor puts the anchor
	// before it there (its text, written on its own too, has none).
	OwnConfig  bool `toml:"own_config"`
	WrapAnchor bool `toml:"wrap_anchor"`
	// Require names a binary: a config without a stage of the parts that
	// runs it is an error.
	Require string
	// Committed is a file in the config's data directory holding the
	// section as written on its own: REPORT.md takes it when none of the
	// section's stages has outputs, after its heading CommittedNote (a
	// template; Var "file" is the file).
	Committed     string
	CommittedNote string `toml:"committed_note"`
	// Reads is what the section reads of its stages: "scores" (every
	// model's scores, with the estimates, exact ln Z and marginals scored),
	// "summaries" (score stages' summaries), "learning" (learn-mrf
	// curves), "costs" (method stages' estimates and stamps) or "paper"
	// (the stages of the paper's tables, paper.toml, with the paper's
	// numbers; the tables are the section's, by number).
	Reads string
	// ReadSpec: the parts, columns, labels, beliefs, compare and cost read.
	outputs.ReadSpec
	Order string // settings: "paper" (grids first, by size, gamma), "size" (by graph, size), or as read
	// Unscored also compares, on the models the section's methods ran on
	// but no score stage scored, every method's answers with this one's.
	Unscored string
	Notes    map[string]string // text by family (a summaries section's score stage)
	Learning learningSpec
	Text     string
	// Metrics are the row metrics of the paper's tables (reads "paper").
	Metrics []metricItem
	// PlotSources are the score stages whose summaries a Plot figure
	// draws (stages whose settings do not overlap).
	PlotSources []string     `toml:"plot_sources"`
	Tables      []tableSpec  `toml:"table"`
	Figures     []figureSpec `toml:"figure"`
	Claims      []ruleSpec   `toml:"claim"`

	name  string // of its file, sections/<name>.toml
	paper *Paper // the paper's tables, of a section that reads "paper"
}

// The facts the readers of stage outputs (stageio/outputs) give: a run's
// (obs), a setting of models (group), and the store of a section's.
type (
	obs    = outputs.Fact
	group  = outputs.Setting
	family = outputs.Family
)

// dataset is what a section read: the facts, and the parts they came from.
type dataset struct {
	outputs.Store
	parts []*part
}

// part is what a section read from the stages of one pattern, with their
// run time.
type part struct {
	outputs.Progress
	RT        runTime // of every instance of the pattern's stages
	StatusErr error
}

func newPart(prefix string) *part { return &part{Progress: outputs.Progress{Prefix: prefix}} }

//go:embed sections/*.toml sections/*.tmpl
var sectionFiles embed.FS

// section is a declared section with the data it read.
type section struct {
	spec *sectionSpec
	data *dataset
	tmpl *template.Template
	plan *plan
	vars map[string]string // values the caller gives the text (Var)
	// filled are the paper's tables with our numbers, by number, for the
	// rules over them (the discussion's).
	filled map[int]*tableDoc
	err    error // the first error met while writing the text
}

// loadSection parses sections/<name>.toml.
func loadSection(name string) (*sectionSpec, error) {
	b, err := sectionFiles.ReadFile("sections/" + name + ".toml")
	if err != nil {
		return nil, err
	}
	return parseSection(name, b)
}

// parseSection parses a section's declaration, checking every key and
// cell.
func parseSection(name string, b []byte) (*sectionSpec, error) {
	s := sectionSpec{name: name}
	if err := decode(name, b, &s); err != nil {
		return nil, err
	}
	if s.Reads == "paper" {
		var names []string
		for _, m := range s.Metrics {
			names = append(names, m.Name)
		}
		var err error
		if s.paper, err = ParsePaper(paperTOML, names); err != nil {
			return nil, err
		}
		for i := range s.paper.Tables {
			s.Tables = append(s.Tables, s.paper.Tables[i].spec(s.Metrics))
		}
	}
	for _, c := range s.cells() {
		if _, err := parseCell(c); err != nil {
			return nil, fmt.Errorf("section %s: %w", name, err)
		}
	}
	for _, r := range s.Claims {
		if ruleKinds[r.Rule] == nil {
			return nil, fmt.Errorf("section %s: claim %s: unknown rule %q (want one of %s)", name, r.ID, r.Rule, strings.Join(slices.Sorted(maps.Keys(ruleKinds))[1:], ", "))
		}
	}
	return &s, nil
}

// decode decodes TOML, refusing unknown keys.
func decode(name string, b []byte, v any) error {
	md, err := toml.Decode(string(b), v)
	if err == nil && len(md.Undecoded()) > 0 {
		err = fmt.Errorf("unknown key %s", md.Undecoded()[0])
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// cells are every cell template of s.
func (s *sectionSpec) cells() []string {
	var out []string
	for _, t := range s.Tables {
		out = append(out, t.Transpose)
		items := slices.Clone(t.Lead)
		for _, cg := range t.Cols {
			items = append(items, cg.Items...)
		}
		for _, l := range items {
			out = append(out, l.Head, l.Cell, l.Below)
		}
		for _, rg := range t.Rows {
			for _, m := range rg.Metrics {
				out = append(out, m.cell(""), m.cell("total"))
			}
		}
	}
	for _, c := range s.Claims {
		for _, v := range append(append(slices.Clone(c.Needs), c.Value, c.When), c.Refs...) {
			if v != "" {
				out = append(out, c.cell(v))
			}
		}
	}
	return out
}

// prepare parses the text of spec, to be written from data.
func prepare(spec *sectionSpec, data *dataset) (*section, error) {
	s := &section{spec: spec, data: data}
	funcs := template.FuncMap{
		"quote":    quoteJoin,
		"join":     strings.Join,
		"truncate": func(n int, xs []string) []string { return truncate(xs, n) },
		"fmt":      func(f string, v float64) string { t, _ := formatted(f, v); return t },
		"utc":      func(t time.Time) string { return t.UTC().Format(time.DateTime) },
		"sub":      func(a, b int) int { return a - b },
		"chomp":    func(s string) string { return strings.TrimSuffix(s, "\n") },
		"list":     func(xs ...string) []string { return xs },
	}
	var err error
	s.tmpl, err = template.New(spec.Title).Funcs(funcs).Option("missingkey=error").ParseFS(sectionFiles, "sections/*.tmpl")
	texts := [][2]string{{"text", spec.Text}, {"committed", spec.CommittedNote}}
	for _, tb := range spec.Tables {
		texts = append(texts, [2]string{"title:" + tb.ID, tb.Title}, [2]string{"note:" + tb.ID, tb.Note})
	}
	for _, t := range texts {
		if err == nil {
			_, err = s.tmpl.New(t[0]).Parse(t[1])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("section %s: %w", spec.Title, err)
	}
	return s, nil
}

// read reads the stages of every part of the section.
func (s *section) read(binDir string) error {
	if s.spec.Reads == "paper" {
		if err := s.readPaper(); err != nil {
			return err
		}
		return s.derive()
	}
	for i, pattern := range s.spec.Parts {
		pt := newPart(pattern)
		all := slices.DeleteFunc(slices.Clone(s.plan.insts), func(in *instance) bool { return !outputs.MatchPart(in.Stage, pattern) })
		own := slices.DeleteFunc(slices.Clone(all), func(in *instance) bool { return outputs.HasPrefix(in.Stage, s.spec.Parts[i+1:]) })
		var err error
		if pt.RT, pt.StatusErr, err = readRunTime(s.plan, all, binDir); err != nil {
			return err
		}
		rd := s.reader()
		switch s.spec.Reads {
		case "scores":
			err = rd.ReadScores(&pt.Progress, own)
		case "summaries":
			err = rd.ReadSummaries(&pt.Progress, own)
		case "learning":
			pt.Stages = outputs.Stages(own, "learn-mrf")
			err = rd.ReadLearning(&pt.Progress, pt.Stages)
		case "costs":
			err = rd.ReadCosts(&pt.Progress)
		default:
			err = fmt.Errorf("section %s: reads %q, want scores, summaries, learning, costs or paper", s.spec.Title, s.spec.Reads)
		}
		if err != nil {
			return err
		}
		s.data.parts = append(s.data.parts, pt)
	}
	if s.spec.Reads == "costs" && len(s.data.Settings) == 0 && len(s.data.parts) > 0 {
		return fmt.Errorf("%s: no stage instance with estimates.parquet has completed (%d to run): run the pipeline first", s.plan.config, s.data.parts[0].Instances)
	}
	return s.derive()
}

// derive sorts what was read and adds the facts that need all of it.
func (s *section) derive() error {
	if s.spec.Unscored != "" {
		pt, err := s.reader().ReadUnscored(s.spec.Unscored)
		if err != nil {
			return err
		}
		s.data.parts = append(s.data.parts, &part{Progress: *pt})
	}
	s.data.SortSettings(s.spec.Order)
	s.data.SortMethods()
	switch s.spec.Reads {
	case "scores":
		s.data.AutoRegions()
		s.verdicts()
	case "costs":
		s.reader().CostLabels()
	case "learning":
		for _, pt := range s.data.parts {
			tail := 0
			if pt.Prefix == s.spec.Learning.Long {
				tail = s.spec.Learning.Tail
			}
			s.data.SummariseLearning(pt.Prefix, s.spec.Learning.Reference, tail, spread)
		}
		s.data.SortMethods()
	}
	return nil
}

// reader reads the section's stages into its data.
func (s *section) reader() *outputs.Reader {
	r := &outputs.Reader{Store: &s.data.Store, Usage: usage, ReadSpec: s.spec.ReadSpec}
	if s.plan != nil {
		r.Insts, r.CfgDir = s.plan.insts, s.plan.dir
	}
	return r
}

// markdown writes the section.
func (s *section) markdown() (string, error) {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, "text", scope{s: s}); err != nil {
		return "", fmt.Errorf("section %s: %w", s.spec.Title, err)
	}
	return b.String(), s.err
}

// frame writes a table with its title and note.
func (s *section) frame(t *tableSpec, g *grid, set *group, parts []string) (string, error) {
	var b strings.Builder
	sc := scope{s: s, b: binding{set: set, parts: parts}}
	if err := s.tmpl.ExecuteTemplate(&b, "title:"+t.ID, sc); err != nil {
		return "", err
	}
	b.WriteString(g.String())
	err := s.tmpl.ExecuteTemplate(&b, "note:"+t.ID, sc)
	return b.String(), err
}

func (s *section) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func quoteJoin(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

func truncate(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(slices.Clone(xs[:n]), fmt.Sprintf("and %d more", len(xs)-n))
}

// verdicts writes, on every model a fixed_points comparison compared, its
// verdict (fact <name>_verdict).
func (s *section) verdicts() {
	for _, c := range s.spec.Compare {
		for _, mo := range s.data.Find(nil, "", "") {
			n := func(name string) float64 { return mo.Num[c.Name+"_"+name] }
			if _, ok := mo.Num[c.Name+"_conv_a"]; ok {
				mo.Text[c.Name+"_verdict"] = verdict(c, n("conv_a") == 1, n("conv_b") == 1, n("distance"), n("f_a"), n("f_b"), n("res_a"), n("res_b"))
			}
		}
	}
}

func verdict(c outputs.CompareSpec, convA, convB bool, dist, fA, fB, resA, resB float64) string {
	switch {
	case !convA && !convB:
		return "neither converged"
	case !convA:
		return c.A + " did not converge"
	case !convB:
		return c.B + " did not converge"
	case dist <= c.Same:
		return fmt.Sprintf("same fixed point (beliefs within %s)", smallE(dist))
	}
	what := "two stationary points of the Bethe F"
	if !(resA <= c.Stationary) || !(resB <= c.Stationary) {
		what = "two different converged points, not both stationary"
	}
	if fB > fA {
		return fmt.Sprintf("%s: %s's F higher by %s", what, c.B, formatNumber("", fB-fA))
	}
	return fmt.Sprintf("%s: %s's F higher by %s", what, c.A, formatNumber("", fA-fB))
}
