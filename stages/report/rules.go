package report

// The one rule engine. Every claim of the report (a section's, the
// discussion's over the paper's tables, a learning section's) is a rule
// declared as data ([[claim]]): rows (settings, models, or the rows of
// the paper's tables) and a test on each, counted as "holds on k of n".
// What no declaration can compute (seed-paired gaps, PCD at another
// method's wall time, a longer budget against the better rival) is a
// metric of core/metrics.

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/metrics"
)

// ruleSpec declares a claim. Rule is one of:
//
//   - at_most (the default): on each setting of the section's first part
//     (Over "model": each model; of Graph; with Methods, each of them),
//     Value ("fact.agg@column#part") at most Factor times the least of the
//     Refs present (those whose column has RefIf equal to 1, if given), or
//     at most Limit, plus Slack (AtLeast: at least); rows lacking Value or
//     one of Needs, or whose When is not 1, are not counted; failures
//     are written with Format and Unit.
//   - best, winners, beats, agree, combine, models: over the rows of the
//     paper's Tables (of Metric, Graph, Size, Gamma), for us and the paper:
//     Method best of the paper's methods; our best method per row; Method
//     better than Other (From: Other is Method's column from another
//     table); their means within the smaller std; the mean of Op (a, diff,
//     ratio, pair) over the rows (First: the first); the models per setting.
//   - wall, budget: over the settings of a learning Part: Method's gap at
//     most PCD's at Method's wall time (PCD's runs in PCDPart); Method's
//     gap at most the better of Rivals' at the last epoch, over the last
//     Tail, and seed by seed (metrics.CompareBudget).
type ruleSpec struct {
	ID, Rule, Over, Graph, Value, When, Format, Unit string
	Needs, Refs                                      []string
	RefIf                                            string `toml:"ref_if"`
	Factor, Limit, Slack                             float64
	AtLeast                                          bool `toml:"at_least"`

	Tables                    []int
	Metric, Method, Other, Op string
	Size                      int
	Gamma                     float64
	First, From               bool

	Part            string
	PCDPart         string `toml:"pcd_part"`
	Methods, Rivals []string
	Tail            int
}

// ruleKinds are the rules, by name ("" is at_most).
var ruleKinds = map[string]func(*section, *ruleSpec, []string) any{
	"": (*section).atMost, "at_most": (*section).atMost, "wall": (*section).wallRule, "budget": (*section).budgetRule,
	"models": (*section).modelsText, "best": (*section).paperRule, "winners": (*section).paperRule,
	"beats": (*section).paperRule, "agree": (*section).paperRule, "combine": (*section).paperRule,
}

// tally says where a rule holds: on Holds of N rows (the Noun); Fails
// names the others. A learning rule adds its method, PCD and tolerance,
// where PCD had not finished an epoch (wall), where it holds over the
// tail, its (setting, seed) pairs and the failures' comparisons (budget).
type tally struct {
	Holds, N, TailHolds, SeedPairs, SeedHolds, SeedTailHolds int
	Noun, Ref, PCD                                           string
	Fails, Unfinished, Seeds                                 []string
	Tol                                                      float64
	Multi                                                    bool
	Notes                                                    []metrics.Budget
}

func (t *tally) count(held bool, fail string) {
	t.N++
	if held {
		t.Holds++
	} else {
		t.Fails = append(t.Fails, fail)
	}
}

// rule evaluates the declared claim id; an at_most rule on the settings
// (or models) of parts when given, else of the section's first part.
func (s *section) rule(id string, parts ...string) (any, error) {
	i := slices.IndexFunc(s.spec.Claims, func(r ruleSpec) bool { return r.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("no claim %q", id)
	}
	return ruleKinds[s.spec.Claims[i].Rule](s, &s.spec.Claims[i], parts), nil
}

// cell is the cell template of a value "fact.agg@column#part".
func (r *ruleSpec) cell(v string) string {
	i := strings.IndexAny(v+"@", "@#")
	return "{" + v[:i] + ":" + or(r.Format, "num") + v[i:] + "}"
}

func (s *section) atMost(r *ruleSpec, parts []string) any {
	res := tally{Noun: or(r.Over, "setting") + "s"}
	for _, b := range s.ruleRows(r, parts) {
		value := func(v string) (cellValue, bool) {
			cv := s.data.eval(r.cell(v), b)
			return cv, cv.ok && !math.IsNaN(cv.value)
		}
		v, ok := value(r.Value)
		w, wok := value(r.When)
		if !ok || r.When != "" && (!wok || w.value != 1) || slices.ContainsFunc(r.Needs, func(n string) bool { _, ok := value(n); return !ok }) {
			continue
		}
		ref, refOK := r.reference(value)
		if len(r.Refs) > 0 && !refOK {
			continue
		}
		limit, against := r.Limit, ""
		if refOK {
			limit, against = r.Factor*ref.value, " against "+ref.text+r.Unit
		}
		limit += r.Slack
		where := b.model
		if where == "" {
			where = b.set.Label
		}
		if b.method != "" {
			where = b.method + " on " + where
		}
		res.count(v.value <= limit && !r.AtLeast || v.value >= limit && r.AtLeast, where+" ("+v.text+r.Unit+against+")")
	}
	return res
}

// ruleRows are the rows an at_most rule is checked on: the settings (or
// models) of parts, else of the section's first part (as a table's
// rows); a model of several parts is checked in each. A row's values are
// read from every part.
func (s *section) ruleRows(r *ruleSpec, parts []string) []binding {
	axes := []string{"setting"}
	if r.Over == "model" {
		axes = []string{"model"}
		if len(parts) > 0 {
			axes = []string{"setting", "model"}
		}
	}
	if len(r.Methods) > 0 {
		axes = append(axes, "method")
	}
	rows := s.rows(&tableSpec{Graph: r.Graph}, rowGroup{Axes: axes, Methods: r.Methods}, binding{parts: parts})
	for i := range rows {
		rows[i].parts = nil
	}
	return rows
}

// reference is the least of r's references that count, read by value.
func (r *ruleSpec) reference(value func(string) (cellValue, bool)) (ref cellValue, ok bool) {
	for _, v := range r.Refs {
		rv, has := value(v)
		if _, col, _ := strings.Cut(v, "@"); has && r.RefIf != "" {
			cond, found := value(r.RefIf + "@" + col)
			has = found && cond.value == 1
		}
		if has && (!ok || rv.value < ref.value) {
			ref, ok = rv, true
		}
	}
	return ref, ok
}

// The rules over the paper's tables, each counted for us and the paper.

// paperRule counts, writes or combines a rule over the rows of the paper's
// tables (of its metric, graph, size, gamma) that have Method's column and
// Other's, for us and for the paper (best, winners, beats, agree, combine).
func (s *section) paperRule(r *ruleSpec, _ []string) any {
	var side [2]tally
	var xs, ys [2][]float64
	winners := map[string]int{}
	other := r.Other
	if r.From || other == "" {
		other = r.Method
	}
	for _, n := range r.Tables {
		if s.filled[n] == nil {
			continue
		}
		t := s.filled[n].T
		a := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Method == r.Method && c.From == "" })
		b := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Method == other && (c.From != "") == r.From })
		for _, row := range t.Rows {
			if a < 0 || b < 0 || r.Metric != "" && row.Metric != r.Metric || r.Graph != "" && row.Graph != r.Graph || r.Size != 0 && row.Size != r.Size || r.Gamma != 0 && row.Gamma != r.Gamma {
				continue
			}
			theirs := s.paperValues(t, row, true)
			for k, v := range [][]metrics.Summary{s.paperValues(t, row, false), theirs} {
				x, y := v[a].Mean, v[b].Mean
				ok := !math.IsNaN(x) && !math.IsNaN(y)
				switch w := s.rowBest(t, row.Metric, v, theirs); {
				case (r.Rule == "best" || r.Rule == "winners") && w >= 0:
					side[k].count(t.Columns[w].Method == r.Method, "")
					if k == 0 {
						winners[t.Columns[w].Method]++
					}
				case r.Rule == "beats" && ok:
					side[k].count(s.better(row.Metric, x, y), "")
				case r.Rule == "agree" && ok && !math.IsNaN(min(v[a].Std, v[b].Std)):
					side[k].count(math.Abs(x-y) < min(v[a].Std, v[b].Std), "")
				case r.Rule == "combine" && ok && (r.Op != "ratio" || y > 0) && (!r.First || len(xs[k]) == 0):
					xs[k], ys[k] = append(xs[k], x), append(ys[k], y)
				}
			}
		}
	}
	switch r.Rule {
	case "winners":
		return winnersText(winners)
	case "combine":
		return sides(len(xs[0]) > 0, len(xs[1]) > 0, r.combined(xs[0], ys[0]), r.combined(xs[1], ys[1]))
	}
	return sides(side[0].N > 0, side[1].N > 0, fmt.Sprintf("%d of %d settings", side[0].Holds, side[0].N), fmt.Sprintf("%d of %d", side[1].Holds, side[1].N))
}

// rowBest is the column of the best of v among the paper's methods where
// the paper has a number (theirs), or -1 unless two compete and all have
// values in v.
func (s *section) rowBest(t *Table, metric string, v, theirs []metrics.Summary) int {
	best, n := -1, 0
	for j, c := range t.Columns {
		switch {
		case c.From != "" || c.Ref || math.IsNaN(theirs[j].Mean):
			continue
		case math.IsNaN(v[j].Mean):
			return -1
		}
		if n++; best < 0 || s.better(metric, v[j].Mean, v[best].Mean) {
			best = j
		}
	}
	if n < 2 {
		return -1
	}
	return best
}

// sides writes ours, or "not run yet", then the paper's if it has one.
func sides(oursOK, paperOK bool, ours, paper string) string {
	if !oursOK {
		ours = "*(not run yet)*"
	}
	if paperOK {
		ours += " (paper: " + paper + ")"
	}
	return ours
}

// combined writes the mean of Op over xs and ys ("" without values).
func (r *ruleSpec) combined(xs, ys []float64) string {
	if len(xs) == 0 {
		return ""
	}
	sum := 0.0
	for i := range xs {
		switch r.Op {
		case "diff":
			sum += xs[i] - ys[i]
		case "ratio":
			sum += xs[i] / ys[i]
		case "pair":
			return fmt.Sprintf(r.Format, formatNumber(r.Metric, ys[i]), formatNumber(r.Metric, xs[i]))
		default:
			sum += xs[i]
		}
	}
	if r.Format == "" {
		return formatNumber(r.Metric, sum/float64(len(xs)))
	}
	return fmt.Sprintf(r.Format, sum/float64(len(xs)))
}

func (s *section) modelsText(r *ruleSpec, _ []string) any {
	models := 0
	for _, n := range r.Tables {
		if doc := s.filled[n]; doc != nil {
			models = max(models, doc.Models)
		}
	}
	if models == 0 {
		return "random models"
	}
	return fmt.Sprintf("%d random models per setting", models)
}

func winnersText(w map[string]int) string {
	if len(w) == 0 {
		return "*(not run yet)*"
	}
	ms := slices.SortedFunc(maps.Keys(w), func(a, b string) int { return cmp.Or(w[b]-w[a], strings.Compare(a, b)) })
	for i, m := range ms {
		ms[i] = fmt.Sprintf("%s %d", m, w[m])
	}
	return strings.Join(ms, ", ")
}

// The learning rules.

// wallRule checks, on every setting, Method's gap (last epoch) against
// PCD's at Method's wall time, each to the reference of the same seed.
func (s *section) wallRule(r *ruleSpec, _ []string) any {
	l := s.spec.Learning
	c := tally{Ref: r.Method, PCD: l.PCD, Tol: l.Tol}
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{r.Part}}) {
		p := s.wallPoint(r.Part, r.PCDPart, g, r.Method, r.Tail)
		switch {
		case p == nil || len(s.data.Runs(r.Part, g, l.Reference)) == 0:
			continue
		case len(p.Epochs) == 0:
			c.Unfinished = append(c.Unfinished, g.Label)
			continue
		case p.GapSeeds == 0:
			continue
		}
		c.Multi = c.Multi || p.GapSeeds > 1
		note := fmt.Sprintf("%s%s: %s against %s (%.3f nats worse", g.Label, seedsText(p.GapSeeds), fmtGap(p.SlowGap), fmtGap(p.Gap), p.SlowGap-p.Gap)
		if r.Tail > 0 {
			note += fmt.Sprintf("; %s's gap over its last %d epochs %s", r.Method, r.Tail, fmtGap(p.SlowTailGap))
		}
		c.count(p.SlowGap <= p.Gap+l.Tol, note+")")
	}
	return c
}

func seedsText(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (%d seeds)", n)
	}
	return ""
}

func (s *section) budgetRule(r *ruleSpec, _ []string) any {
	l := s.spec.Learning
	var c tally
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{r.Part}}) {
		var rivals [][]metrics.LearningRun
		for _, m := range r.Rivals {
			rivals = append(rivals, s.data.Runs(r.Part, g, m))
		}
		b, ok := metrics.CompareBudget(s.data.Runs(r.Part, g, l.Reference), s.data.Runs(r.Part, g, r.Method), r.Rivals, rivals, r.Tail, l.Tol)
		if !ok {
			continue
		}
		c.N++
		c.Seeds = append(c.Seeds, fmt.Sprintf("%d on %s", len(b.Seeds), g.Label))
		c.Multi = c.Multi || len(b.Seeds) > 1
		c.SeedPairs, c.SeedHolds, c.SeedTailHolds = c.SeedPairs+len(b.Seeds), c.SeedHolds+b.SeedHeldLast, c.SeedTailHolds+b.SeedHeldTail
		okLast, okTail := b.Last.Holds(), b.Tail.Comparable() && b.Tail.Holds()
		if okLast {
			c.Holds++
		}
		if okTail {
			c.TailHolds++
		}
		if !okLast || !okTail {
			c.Fails, c.Notes = append(c.Fails, g.Label+seedsText(len(b.Seeds))), append(c.Notes, b)
		}
	}
	return c
}

// A learning section's comparisons: its gaps written, PCD at another
// method's wall time, and what its text reads of them.

// learningSpec declares how a learning section compares methods.
type learningSpec struct {
	Reference string   // the method every gap is to (exact learning)
	Tol       float64  // how much larger a gap may be and count as at most another
	Tail      int      // epochs the longer part's tail means are over
	Long      string   // the part of the longer budget
	PCD       string   // the method compared at another's wall time
	WallRef   string   `toml:"wall_ref"`    // whose wall time it is compared at
	LongRef   string   `toml:"long_ref"`    // the longer budget's subject
	LongRival []string `toml:"long_rivals"` // the longer budget's rivals
}

// spread is the mean of gaps over seeds, with their range when there are
// several that differ at the tables' precision.
func spread(gaps []float64) string {
	out := fmtGap(metrics.Mean(gaps))
	if lo, hi := fmtGap(slices.Min(gaps)), fmtGap(slices.Max(gaps)); len(gaps) > 1 && lo != hi {
		out += fmt.Sprintf(" (%s to %s)", lo, hi)
	}
	return out
}

// WallPoint is PCD at another method's wall time on one setting.
type WallPoint struct {
	metrics.WallPoint
	PCD, Ref string
}

func (s *section) wallPoint(refPart, pcdPart string, g *group, ref string, tail int) *WallPoint {
	l := s.spec.Learning
	p, ok := metrics.AtWallTime(s.data.Runs(refPart, g, ref), s.data.Runs(pcdPart, g, l.PCD), s.data.Runs(refPart, g, l.Reference), tail)
	if !ok {
		return nil
	}
	return &WallPoint{WallPoint: p, PCD: l.PCD, Ref: ref}
}

// MinSecs and MaxSecs are the least and most of the seeds' wall times.
func (p *WallPoint) MinSecs() float64 { return slices.Min(p.SeedSecs) }
func (p *WallPoint) MaxSecs() float64 { return slices.Max(p.SeedSecs) }

// The learning rules, for a section's text.

func (c scope) Learning() learningSpec { return c.s.spec.Learning }

// HasRuns reports whether some learning run of part (of the method, if
// given) has finished.
func (c scope) HasRuns(part string, method ...string) bool {
	return slices.ContainsFunc(c.s.data.Obs, func(o *obs) bool {
		return o.Part == part && o.Run != nil && (len(method) == 0 || o.Method == method[0])
	})
}

// WallPoint is PCD at ref's wall time on the scope's setting, or nil.
func (c scope) WallPoint(refPart, pcdPart, ref string, tail int) *WallPoint {
	return c.s.wallPoint(refPart, pcdPart, c.b.set, ref, tail)
}
