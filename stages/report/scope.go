package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// scope is what a section's text sees: the section's data at a binding (a
// setting, or everything), and the methods below.
type scope struct {
	s *section
	b binding
}

func (c scope) Anchor() string            { return c.s.spec.Anchor }
func (c scope) Setting() *group           { return c.b.set }
func (c scope) PartName() string          { return strings.Join(c.b.parts, ", ") }
func (c scope) Var(name string) string    { return c.s.vars[name] }
func (c scope) Cost() outputs.CostSpec    { return c.s.spec.Cost }
func (c scope) Families() []*family       { return c.s.data.Families }
func (c scope) Note(family string) string { return c.s.spec.Notes[family] }
func (c scope) Models() int               { return len(c.s.data.ModelsOf(c.b.set)) }

// Settings are the settings of the section's first part.
func (c scope) Settings() []*group { return c.s.settingsOf(&tableSpec{}) }

// Val is an aggregate of a fact over the scope (its parts, if narrowed by
// In), of the method given (else of the models themselves); NaN when
// missing.
func (c scope) Val(fact, agg string, method ...string) float64 {
	v, ok := outputs.Aggregate(c.s.data.FindIn(c.b.parts, c.b.set, c.b.model, strings.Join(method, "")), fact, agg)
	if !ok {
		return math.NaN()
	}
	return v
}

// Int is Val as a count (0 when missing).
func (c scope) Int(fact, agg string, method ...string) int {
	if v := c.Val(fact, agg, method...); !math.IsNaN(v) {
		return int(math.Round(v))
	}
	return 0
}

// Has reports whether some run of the section has fact.
func (c scope) Has(fact string) bool { return c.s.has(c.s.data.Obs, fact) }

func (s *section) has(found []*obs, fact string) bool {
	return slices.ContainsFunc(found, func(o *obs) bool { _, ok := o.Num[fact]; return ok })
}

// Texts lists a text fact of the scope's models, setting by setting.
func (c scope) Texts(fact string) []string {
	var out []string
	for _, g := range c.s.data.Settings {
		for _, m := range c.s.data.ModelsOf(g) {
			if t, ok := outputs.FirstText(c.s.data.Find(g, m, ""), fact); ok && (c.b.set == nil || g == c.b.set) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Part is what the section read from the stages of a pattern.
func (c scope) Part(pattern string) *part { return c.s.part(pattern) }

// part is what the section read from the stages of a pattern; a part it
// has not is an error of its text.
func (s *section) part(pattern string) *part {
	if i := slices.IndexFunc(s.data.parts, func(p *part) bool { return p.Prefix == pattern }); i >= 0 {
		return s.data.parts[i]
	}
	s.fail(fmt.Errorf("no part %q", pattern))
	return &part{}
}

// Methods are the methods of all the section's stages whose ln Z is a
// bound of kind ("lower", "upper", "any"; "" all of them).
func (c scope) Methods(kind string) []string { return c.s.methodsOf(nil, kind, nil) }

// HasMethods reports whether every one of ms ran in the first part.
func (c scope) HasMethods(ms ...string) bool {
	ran := c.s.data.MethodsIn(c.s.partsOf(&tableSpec{}))
	return !slices.ContainsFunc(ms, func(m string) bool { return !slices.Contains(ran, m) })
}

// Summaries are "method (summary)", from the registry, of the methods of
// ms that ran in the first part, in its order.
func (c scope) Summaries(ms ...string) []string {
	var out []string
	for _, m := range c.s.data.MethodsIn(c.s.partsOf(&tableSpec{})) {
		if e, err := methods.Lookup(m); err == nil && slices.Contains(ms, m) {
			out = append(out, fmt.Sprintf("%s (%s)", m, e.Summary))
		}
	}
	return out
}

// HavingOf lists the methods of list (nil: all), in its order, with a run
// that has fact.
func (c scope) HavingOf(fact string, list []string) []string {
	return slices.DeleteFunc(c.s.methodsOf(list, "", nil), func(m string) bool { return !c.s.has(c.s.data.Find(nil, "", m), fact) })
}

// Fitted are the settings whose sizes enter the growth exponents.
func (c scope) Fitted() []string { return fitted(c.s.data.Settings, c.s.spec.Cost.MinFitN) }

// Table writes a declared table (each setting's, for a Per table), each
// followed by a blank line; "" without rows; over the settings of the
// family, if one is given.
func (c scope) Table(id string, family ...string) string {
	i := slices.IndexFunc(c.s.spec.Tables, func(t tableSpec) bool { return t.ID == id })
	if i < 0 {
		c.s.fail(fmt.Errorf("no table %q", id))
		return ""
	}
	t := &c.s.spec.Tables[i]
	at := []binding{{family: strings.Join(family, ""), parts: c.b.parts}}
	if t.Per == "setting" {
		at = nil
		for _, g := range c.s.settingsOf(t) {
			at = append(at, binding{set: g})
		}
	}
	var b strings.Builder
	for _, a := range at {
		out, err := c.s.build(t, a)
		if err != nil {
			c.s.fail(err)
		}
		if out != "" {
			b.WriteString(out + "\n")
		}
	}
	return b.String()
}

// Claim evaluates a declared claim (rules.go); an at_most claim on the
// settings (or models) of the scope's parts (In), else of the section's
// first part.
func (c scope) Claim(id string) any {
	v, err := c.s.rule(id, c.b.parts...)
	if err != nil {
		c.s.fail(err)
	}
	return v
}

// ReadoutTol and ConsistencyTol are the shared check's tolerances.
func (scope) ReadoutTol() float64     { return infer.ReadoutTol }
func (scope) ConsistencyTol() float64 { return infer.ConsistencyTol }

// In is the scope narrowed to the stages of part: its tables and claims
// read that part alone.
func (c scope) In(part string) scope {
	c.b.parts = []string{part}
	return c
}

// PartModels are the models scored in the stages of part, setting by
// setting; PartMethods the methods that ran there.
func (c scope) PartModels(part string) []string {
	var out []string
	for _, g := range c.s.settingsOf(&tableSpec{Parts: []string{part}}) {
		out = append(out, c.s.data.ModelsOf(g)...)
	}
	return out
}

func (c scope) PartMethods(part string) []string { return c.s.data.MethodsIn([]string{part}) }

// Compare is a declared comparison, for its tolerances.
func (c scope) Compare(name string) outputs.CompareSpec {
	if i := slices.IndexFunc(c.s.spec.Compare, func(cs outputs.CompareSpec) bool { return cs.Name == name }); i >= 0 {
		return c.s.spec.Compare[i]
	}
	c.s.fail(fmt.Errorf("no comparison %q", name))
	return outputs.CompareSpec{}
}
