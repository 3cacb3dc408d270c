package report

import (
	"embed"
	"fmt"
	"math"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/renn-go/renn/core/methods"
)

// sectionSpec declares a section of the report: the stages it reads, its
// tables, its claims and its text (a Go text/template; see scope for what
// it can ask).
type sectionSpec struct {
	Title, Anchor string
	// Reads says what the section reads of its stages: "scores" (their
	// score stages: every model's scores with the estimates, exact ln Z
	// and marginals they scored), "learning" (their learn-mrf stages'
	// curves) or "summaries" (score stages' summaries).
	Reads string
	// Parts are the stage groups read: the stages whose names begin with a
	// prefix ("hidden_"), or with the prefix and end with the suffix of a
	// pattern ("hidden_*_long"). A stage belongs to the last part that
	// matches it; a part's run time counts every stage that matches it.
	Parts []string
	// Columns names a run's column: "method", or "method+scheme", where a
	// run on regions of a scheme other than auto is a column of its own.
	Columns string
	// Labels names the settings of a summaries section: "side" writes a
	// square grid as 10x10, other graphs as graph n=size.
	Labels string
	// Unscored, when set, also compares, on the models the section's
	// methods ran on but no score stage scored, every method's answers
	// with those of this method.
	Unscored string
	// Notes are text by family (a summaries section's score stage).
	Notes map[string]string
	// Order sorts the settings: "paper" (grid before complete graphs,
	// then by size and gamma), "size" (by graph, then size); else in the
	// order read.
	Order    string
	Learning learningSpec  // how a learning section compares methods
	Cost     costSpec      // how a cost section compares methods
	Beliefs  []string      // methods whose marginals are read (for Compare)
	Compare  []compareSpec // comparisons between two runs on every model
	Text     string
	Tables   []tableSpec  `toml:"table"`
	Figures  []figureSpec `toml:"figure"`
	Claims   []claimSpec  `toml:"claim"`
}

//go:embed sections/*.toml sections/*.tmpl
var sectionFiles embed.FS

// section is a declared section with the data it read.
type section struct {
	vars map[string]string // values the caller gives the text (Var)
	spec *sectionSpec
	data *dataset
	tmpl *template.Template
	plan *plan
	err  error // the first error met while writing the text
}

// loadSection parses the declaration sections/<name>.toml.
func loadSection(name string) (*sectionSpec, error) {
	b, err := sectionFiles.ReadFile("sections/" + name + ".toml")
	if err != nil {
		return nil, err
	}
	return parseSection(name, b)
}

func parseSection(name string, b []byte) (*sectionSpec, error) {
	var s sectionSpec
	md, err := toml.Decode(string(b), &s)
	if err != nil {
		return nil, fmt.Errorf("section %s: %w", name, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, fmt.Errorf("section %s: unknown key %s", name, un[0])
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("section %s: %w", name, err)
	}
	return &s, nil
}

// check validates every cell template, aggregate and format of s.
func (s *sectionSpec) check() error {
	var cells []string
	for _, t := range s.Tables {
		for _, l := range t.Lead {
			cells = append(cells, l.Head, l.Cell)
		}
		for _, rg := range t.Rows {
			for _, m := range rg.Metrics {
				cells = append(cells, "{"+m.Name+"."+m.Agg+":"+m.Format+"}", m.TotalCell)
				if m.Total != "" || m.TotalFormat != "" {
					cells = append(cells, "{"+m.Name+"."+or(m.Total, m.Agg)+":"+or(m.TotalFormat, m.Format)+"}")
				}
			}
		}
		for _, cg := range t.Cols {
			for _, it := range cg.Items {
				cells = append(cells, it.Head, it.Cell)
			}
		}
	}
	for _, c := range s.Claims {
		cells = append(cells, c.cells()...)
	}
	for _, c := range cells {
		if _, err := parseCell(c); err != nil {
			return err
		}
	}
	return nil
}

// newSection reads the data of spec from plan and prepares its text.
func newSection(spec *sectionSpec, p *plan, binDir string) (*section, error) {
	s, err := prepare(spec, &dataset{})
	if err != nil {
		return nil, err
	}
	s.plan = p
	if err := s.read(binDir); err != nil {
		return nil, err
	}
	return s, nil
}

// prepare parses the text of spec, to be written from data.
func prepare(spec *sectionSpec, data *dataset) (*section, error) {
	s := &section{spec: spec, data: data}
	funcs := template.FuncMap{
		"quote":    quoteJoin,
		"join":     strings.Join,
		"truncate": func(n int, xs []string) []string { return truncate(xs, n) },
		"fmt":      func(f string, v float64) string { t, _ := format(f, v); return t },
		"utc":      func(t time.Time) string { return t.UTC().Format(time.DateTime) },
		"sub":      func(a, b int) int { return a - b },
		"chomp":    func(s string) string { return strings.TrimSuffix(s, "\n") },
		"list":     func(xs ...string) []string { return xs },
	}
	t, err := template.New(spec.Title).Funcs(funcs).Option("missingkey=error").ParseFS(sectionFiles, "sections/*.tmpl")
	if err != nil {
		return nil, err
	}
	if s.tmpl, err = t.New("text").Parse(spec.Text); err != nil {
		return nil, fmt.Errorf("section %s: %w", spec.Title, err)
	}
	for _, tb := range spec.Tables {
		for _, part := range [][2]string{{"title:", tb.Title}, {"note:", tb.Note}} {
			if _, err := s.tmpl.New(part[0] + tb.ID).Parse(part[1]); err != nil {
				return nil, fmt.Errorf("section %s, table %s: %w", spec.Title, tb.ID, err)
			}
		}
	}
	return s, nil
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
func (s *section) frame(t *tableSpec, g *grid, set *group) (string, error) {
	var b strings.Builder
	sc := scope{s: s, b: binding{set: set}}
	if err := s.tmpl.ExecuteTemplate(&b, "title:"+t.ID, sc); err != nil {
		return "", err
	}
	b.WriteString(g.String())
	if err := s.tmpl.ExecuteTemplate(&b, "note:"+t.ID, sc); err != nil {
		return "", err
	}
	return b.String(), nil
}

// scope is what a section's text sees: the section's data at a binding
// (a setting, or everything).
type scope struct {
	s *section
	b binding
}

// Var is a value the caller gave the section's text.
func (c scope) Var(name string) string { return c.s.vars[name] }

// Cost is the section's cost parameters.
func (c scope) Cost() costSpec { return c.s.spec.Cost }

// Having lists the methods with a run that has fact.
func (c scope) Having(fact string) []string { return c.HavingOf(fact, nil) }

// HavingOf lists the methods of list, in its order (nil: all), with a run
// that has fact.
func (c scope) HavingOf(fact string, list []string) []string {
	var out []string
	for _, m := range c.s.methodsOf(list, "", nil) {
		if slices.ContainsFunc(c.s.data.find(nil, "", m), func(o *obs) bool { _, ok := o.num[fact]; return ok }) {
			out = append(out, m)
		}
	}
	return out
}

// Fitted are the settings whose sizes enter the growth exponents.
func (c scope) Fitted() []string {
	var out []string
	for _, g := range c.s.data.settings {
		if g.size >= c.s.spec.Cost.MinFitN {
			out = append(out, g.label)
		}
	}
	return out
}

// Anchor is the section's Markdown anchor.
func (c scope) Anchor() string { return c.s.spec.Anchor }

// boundTally is how often a bound method's ln Z lay on its side of the
// exact ln Z.
type boundTally struct {
	Method, Side string
	Held, N      int
	Percent      float64
}

// Bound tallies bound_held of method over the whole section.
func (c scope) Bound(method, side string) boundTally {
	t := boundTally{Method: method, Side: side, Held: c.Int("bound_held", "sum", method), N: c.Int("bound_held", "count", method)}
	if t.N > 0 {
		t.Percent = 100 * float64(t.Held) / float64(t.N)
	}
	return t
}

// Setting is the scope's setting.
func (c scope) Setting() *group { return c.b.set }

// Cell renders a cell template over the scope ("—" when missing).
func (c scope) Cell(tmpl string) string {
	cv := c.s.data.eval(tmpl, c.b)
	if !cv.ok {
		return "—"
	}
	return cv.text
}

// Val is an aggregate of a fact over the scope, of the method given (else
// of the models themselves); NaN when missing.
func (c scope) Val(fact, agg string, method ...string) float64 {
	b := c.b
	if len(method) > 0 {
		b.method = method[0]
	}
	v, ok := aggregate(c.s.data.find(b.set, b.model, b.method), fact, agg)
	if !ok {
		return math.NaN()
	}
	return v
}

// Int is Val as a count (0 when missing).
func (c scope) Int(fact, agg string, method ...string) int {
	v := c.Val(fact, agg, method...)
	if math.IsNaN(v) {
		return 0
	}
	return int(math.Round(v))
}

// Has reports whether some run of the section has the fact.
func (c scope) Has(fact string) bool {
	return slices.ContainsFunc(c.s.data.obs, func(o *obs) bool { _, ok := o.num[fact]; return ok })
}

// Models is how many models the scope covers.
func (c scope) Models() int { return len(c.s.data.modelsOf(c.b.set)) }

// Texts lists a text fact of the scope's models, setting by setting.
func (c scope) Texts(fact string) []string {
	var out []string
	for _, g := range c.s.data.settings {
		if c.b.set != nil && g != c.b.set {
			continue
		}
		for _, m := range c.s.data.modelsOf(g) {
			if t, ok := firstText(c.s.data.find(g, m, ""), fact); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// Part is what the section read from the stages of prefix.
func (c scope) Part(prefix string) *part {
	for _, p := range c.s.data.parts {
		if p.prefix == prefix {
			return p
		}
	}
	c.s.fail(fmt.Errorf("no part %q", prefix))
	return &part{}
}

// Methods are the methods of the section's stages (all its parts) whose
// ln Z is a bound of kind ("lower", "upper", "any"; "" all).
func (c scope) Methods(kind string) []string { return c.s.methodsOf(nil, kind, nil) }

// HasMethods reports whether every one of ms ran in the section's first
// part.
func (c scope) HasMethods(ms ...string) bool {
	ran := c.s.methodsIn(c.s.partsOf(&tableSpec{}))
	return !slices.ContainsFunc(ms, func(m string) bool { return !slices.Contains(ran, m) })
}

// Summaries are "method (summary)" of those of ms that ran in the
// section's first part, in its order, the summary from the registry.
func (c scope) Summaries(ms ...string) []string {
	var out []string
	for _, m := range c.s.methodsIn(c.s.partsOf(&tableSpec{})) {
		if e, err := methods.Lookup(m); err == nil && slices.Contains(ms, m) {
			out = append(out, fmt.Sprintf("%s (%s)", m, e.Summary))
		}
	}
	return out
}

// Settings are the settings of the section's first part.
func (c scope) Settings() []*group { return c.s.settingsOf(&tableSpec{}) }

// Families are the score stages of a summaries section.
func (c scope) Families() []*family { return c.s.data.families }

// Note is the declared note of a family, or "".
func (c scope) Note(family string) string { return c.s.spec.Notes[family] }

// TableOf writes a declared table over the settings of one family.
func (c scope) TableOf(id, family string) string {
	c.b.family = family
	return c.Table(id)
}

// Table writes a declared table (every setting's, for a Per table), each
// followed by a blank line; "" when it has no row.
func (c scope) Table(id string) string {
	i := slices.IndexFunc(c.s.spec.Tables, func(t tableSpec) bool { return t.ID == id })
	if i < 0 {
		c.s.fail(fmt.Errorf("no table %q", id))
		return ""
	}
	t := &c.s.spec.Tables[i]
	sets := []*group{nil}
	if t.Per == "setting" {
		sets = c.s.settingsOf(t)
	}
	var b strings.Builder
	for _, g := range sets {
		out, err := c.s.build(t, binding{set: g, family: c.b.family})
		if err != nil {
			c.s.fail(err)
		}
		if out != "" {
			b.WriteString(out + "\n")
		}
	}
	return b.String()
}

// Claim evaluates a declared claim.
func (c scope) Claim(id string) claimResult {
	i := slices.IndexFunc(c.s.spec.Claims, func(cl claimSpec) bool { return cl.ID == id })
	if i < 0 {
		c.s.fail(fmt.Errorf("no claim %q", id))
		return claimResult{}
	}
	return c.s.claim(&c.s.spec.Claims[i])
}

// Compare is a declared comparison, for its tolerances.
func (c scope) Compare(name string) compareSpec {
	for _, cs := range c.s.spec.Compare {
		if cs.Name == name {
			return cs
		}
	}
	c.s.fail(fmt.Errorf("no comparison %q", name))
	return compareSpec{}
}

func (s *section) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// methods are the section's columns, in order.
func (s *section) methods() []string { return s.data.methods }

// Part accessors for the section's text.

func (p *part) Prefix() string   { return p.prefix }
func (p *part) Stages() []string { return p.stages }
func (p *part) NotRun() []string { return p.notRun }
func (p *part) RT() RunTime      { return p.rt }
func (p *part) StatusErr() error { return p.statusErr }
func (p *part) Instances() int   { return p.instances }
func (p *part) Done() int        { return p.done }

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
	return append(append([]string(nil), xs[:n]...), fmt.Sprintf("and %d more", len(xs)-n))
}

// read reads the stages of every part of the section.
func (s *section) read(binDir string) error {
	learn := &learnReader{d: s.data, plan: s.plan}
	for i, pattern := range s.spec.Parts {
		pt := &part{prefix: pattern}
		var all, own []*instance
		for _, inst := range s.plan.insts {
			if matchPart(inst.stage, pattern) {
				all = append(all, inst)
				if !slices.ContainsFunc(s.spec.Parts[i+1:], func(p string) bool { return matchPart(inst.stage, p) }) {
					own = append(own, inst)
				}
			}
		}
		var err error
		if pt.rt, pt.statusErr, err = readRunTime(s.plan, all, binDir); err != nil {
			return err
		}
		switch s.spec.Reads {
		case "scores":
			err = s.readScores(pt, own)
		case "summaries":
			err = s.readSummaries(pt, own)
		case "learning":
			pt.stages = stages(own, "learn-mrf")
			learn.samplesRead = nil
			err = learn.read(pt, pt.stages)
		case "costs":
			err = s.readCosts(pt)
		default:
			err = fmt.Errorf("section %s: reads %q, want scores, summaries or learning", s.spec.Title, s.spec.Reads)
		}
		if err != nil {
			return err
		}
		s.data.parts = append(s.data.parts, pt)
	}
	if s.spec.Unscored != "" {
		if err := s.readUnscored(s.spec.Unscored); err != nil {
			return err
		}
	}
	s.sortSettings()
	s.data.sortMethods()
	s.autoRegions()
	if s.spec.Reads == "costs" {
		s.costLabels()
	}
	if s.spec.Reads == "learning" {
		for _, pt := range s.data.parts {
			tail := 0
			if pt.prefix == s.spec.Learning.Long {
				tail = s.spec.Learning.Tail
			}
			s.summarise(pt.prefix, tail)
		}
		s.data.sortMethods()
	}
	return nil
}

// matchPart reports whether stage is of the part pattern (see Parts).
func matchPart(stage, pattern string) bool {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	return strings.HasPrefix(stage, prefix) && strings.HasSuffix(stage, suffix)
}

// autoRegions records on every model the region scheme its first run on
// auto regions used (a column without a scheme of its own).
func (s *section) autoRegions() {
	for _, mo := range s.data.find(nil, "", "") {
		for _, col := range s.methods() {
			if strings.Contains(col, " (") {
				continue
			}
			if t, ok := firstText(s.data.find(mo.set, mo.model, col), "regions"); ok {
				mo.text["auto_regions"] = t
				break
			}
		}
	}
}
