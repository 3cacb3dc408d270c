package report

import (
	"math"
	"slices"
)

// claimSpec is a claim checked on every setting (or model) of a section:
// a value at most a reference times a factor, or at most a limit.
type claimSpec struct {
	ID   string
	Over string // "setting" (of the section's first part) or "model"
	// Graph keeps only the settings of this graph.
	Graph string
	// Needs are values ({fact.agg@column}, as in a cell) every row
	// checked has, not NaN; Value is the claim's subject.
	Needs []string
	Value string
	// Refs are the candidate references: the least of those present (not
	// NaN) is the reference, counting only those whose column's RefIf
	// aggregate ("converged.mean") is 1. A row without one is not checked.
	Refs   []string
	RefIf  string  `toml:"ref_if"`
	Factor float64 // holds when value <= Factor × reference
	Limit  float64 // without Refs: holds when value <= Limit
	Format string  // of the values in the failures
	Unit   string  // after each value in the failures (" s")
}

// claimResult says where a claim holds: on Holds of N rows; Fails names
// the others with their values.
type claimResult struct {
	Holds, N int
	Noun     string // what the rows are: settings or models
	Fails    []string
}

func (c *claimSpec) cells() []string {
	var out []string
	for _, v := range append(append(slices.Clone(c.Needs), c.Value), c.Refs...) {
		out = append(out, "{"+c.valueRef(v)+"}")
	}
	return out
}

// valueRef puts the claim's format into a value "fact.agg@column".
func (c *claimSpec) valueRef(v string) string {
	fa, col, _ := cutLast(v, "@")
	ref := fa + ":" + or(c.Format, "num")
	if col != "" {
		ref += "@" + col
	}
	return ref
}

func cutLast(s, sep string) (before, after string, found bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// claim checks c on every row.
func (s *section) claim(c *claimSpec) claimResult {
	res := claimResult{Noun: "settings"}
	if c.Over == "model" {
		res.Noun = "models"
	}
	for _, b := range s.claimRows(c) {
		value := func(v string) (cellValue, bool) {
			cv := s.data.eval("{"+c.valueRef(v)+"}", b)
			return cv, cv.ok && !math.IsNaN(cv.value)
		}
		if slices.ContainsFunc(c.Needs, func(n string) bool { _, ok := value(n); return !ok }) {
			continue
		}
		v, ok := value(c.Value)
		if !ok {
			continue
		}
		var ref cellValue
		refOK := false
		for _, r := range c.Refs {
			rv, ok := value(r)
			if ok && c.RefIf != "" {
				_, col, _ := cutLast(r, "@")
				fact, agg := cutAgg(c.RefIf)
				cond, has := aggregate(s.data.find(b.set, b.model, or(col, b.method)), fact, agg)
				ok = has && cond == 1
			}
			if ok && (!refOK || rv.value < ref.value) {
				ref, refOK = rv, true
			}
		}
		if len(c.Refs) > 0 && !refOK {
			continue
		}
		res.N++
		limit, text := c.Limit, ""
		if refOK {
			limit, text = c.Factor*ref.value, " against "+ref.text+c.Unit
		}
		if v.value <= limit {
			res.Holds++
			continue
		}
		name := b.model
		if b.set != nil {
			name = b.set.label
		}
		res.Fails = append(res.Fails, name+" ("+v.text+c.Unit+text+")")
	}
	return res
}

// cutAgg splits "fact.agg".
func cutAgg(s string) (fact, agg string) {
	fact, agg, _ = cutLast(s, ".")
	return fact, agg
}

// claimRows are the rows a claim checks.
func (s *section) claimRows(c *claimSpec) []binding {
	var out []binding
	if c.Over == "model" {
		for _, m := range s.data.models {
			out = append(out, binding{model: m})
		}
		return out
	}
	for _, g := range s.settingsOf(&tableSpec{Graph: c.Graph}) {
		out = append(out, binding{set: g})
	}
	return out
}
