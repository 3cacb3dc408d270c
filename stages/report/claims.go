package report

import (
	"math"
	"slices"
)

// claimSpec is a claim checked on every setting of the section's first
// part (or, Over "model", every model): a value at most a reference times
// Factor, or at most Limit. Values are written as in a cell,
// "fact.agg@column".
type claimSpec struct {
	ID, Over string
	Graph    string   // only the settings of this graph
	Needs    []string // values a row checked has, not NaN
	Value    string   // the claim's subject
	// Refs are the candidate references: the least of those present (not
	// NaN), counting only those whose column's RefIf aggregate is 1 (say
	// "converged.mean": converged on every model). No reference, no check.
	Refs   []string
	RefIf  string `toml:"ref_if"`
	Factor float64
	Limit  float64
	// Slack is added to the limit: at most Factor × reference + Slack.
	Slack float64
	// AtLeast turns the claim round: the value at least the limit.
	AtLeast bool `toml:"at_least"`
	// When is a value a row must have equal to 1 to be checked
	// ("exact_over.mean@auto": where exact inference took longer than
	// auto's budget).
	When   string
	Format string // of the values named in the failures
	Unit   string // after each of them (" s")
}

// claimResult says where a claim holds: on Holds of N rows (the Noun);
// Fails names the others with their values.
type claimResult struct {
	Holds, N int
	Noun     string
	Fails    []string
}

// cell is the cell template of a value "fact.agg@column".
func (c *claimSpec) cell(v string) string {
	i := len(v)
	if k := slices.Index([]byte(v), '@'); k >= 0 {
		i = k
	}
	return "{" + v[:i] + ":" + or(c.Format, "num") + v[i:] + "}"
}

// claim checks c on every setting (or model) of the section's first part,
// or of parts when given: a model of several parts is checked in each.
func (s *section) claim(c *claimSpec, parts ...string) claimResult {
	res := claimResult{Noun: "settings"}
	if c.Over == "model" {
		res.Noun = "models"
	}
	for _, b := range s.claimRows(c, parts) {
		value := func(v string) (cellValue, bool) {
			cv := s.data.eval(c.cell(v), b)
			return cv, cv.ok && !math.IsNaN(cv.value)
		}
		v, ok := value(c.Value)
		if !ok || slices.ContainsFunc(c.Needs, func(n string) bool { _, ok := value(n); return !ok }) {
			continue
		}
		if w, ok := value(c.When); c.When != "" && (!ok || w.value != 1) {
			continue
		}
		ref, refOK := s.reference(c, b, value)
		if len(c.Refs) > 0 && !refOK {
			continue
		}
		res.N++
		limit, against := c.Limit, ""
		if refOK {
			limit, against = c.Factor*ref.value, " against "+ref.text+c.Unit
		}
		limit += c.Slack
		if v.value <= limit && !c.AtLeast || v.value >= limit && c.AtLeast {
			res.Holds++
		} else {
			res.Fails = append(res.Fails, or(b.model, setLabel(b.set))+" ("+v.text+c.Unit+against+")")
		}
	}
	return res
}

// claimRows are the rows c is checked on.
func (s *section) claimRows(c *claimSpec, parts []string) []binding {
	var rows []binding
	switch {
	case c.Over == "model" && len(parts) > 0:
		for _, g := range s.settingsOf(&tableSpec{Graph: c.Graph, Parts: parts}) {
			for _, m := range s.data.modelsOf(g) {
				rows = append(rows, binding{set: g, model: m})
			}
		}
	case c.Over == "model":
		for _, m := range s.data.models {
			rows = append(rows, binding{model: m})
		}
	default:
		for _, g := range s.settingsOf(&tableSpec{Graph: c.Graph, Parts: parts}) {
			rows = append(rows, binding{set: g})
		}
	}
	return rows
}

// reference is the least of c's references at b that count.
func (s *section) reference(c *claimSpec, b binding, value func(string) (cellValue, bool)) (ref cellValue, ok bool) {
	for _, r := range c.Refs {
		rv, has := value(r)
		if has && c.RefIf != "" {
			_, col, _ := cutLast(r, "@")
			fact, agg, _ := cutLast(c.RefIf, ".")
			cond, found := aggregate(s.data.find(b.set, b.model, or(col, b.method)), fact, agg)
			has = found && cond == 1
		}
		if has && (!ok || rv.value < ref.value) {
			ref, ok = rv, true
		}
	}
	return ref, ok
}

func setLabel(g *group) string {
	if g == nil {
		return ""
	}
	return g.label
}

func cutLast(s, sep string) (before, after string, found bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}
