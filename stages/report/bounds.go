package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/score"
)

// BoundsPrefix begins the name of the score stages that check the bounds
// on ln Z on more models (the paper's grids and complete graphs): their
// settings join the hard-models section's bounds table only.
const BoundsPrefix = "bounds_"

// boundsData is what the bounds stages give the bounds table.
type boundsData struct {
	sec      *scoreSection
	settings []*hardSetting
}

// readBounds reads the bounds_* score stages of plan (see
// readScoreSection).
func readBounds(plan *pipeline.Plan, binDir string) (*boundsData, error) {
	sec, err := readScoreSection(plan, BoundsPrefix, binDir)
	if err != nil {
		return nil, err
	}
	settings, _ := groupSettings(sec)
	return &boundsData{sec: sec, settings: settings}, nil
}

// markdown says which stages gave the bounds table its other settings and
// what they took.
func (d *boundsData) markdown() string {
	if d == nil || len(d.sec.stages) == 0 {
		return ""
	}
	s := fmt.Sprintf("The bounds table's settings of the paper's models come from stages %s. ", quoteJoin(d.sec.stages))
	if len(d.sec.notRun) > 0 {
		s += fmt.Sprintf("Not run yet: %s. ", strings.Join(truncate(d.sec.notRun, 12), ", "))
	}
	return s + sectionRunTime(d.sec.rt, d.sec.statusErr, BoundsPrefix)
}

// boundMethods returns the methods of ms whose ln Z is a bound, lower
// bounds first, each group in registry order.
func boundMethods(ms []string) (lower, upper []string) {
	for _, m := range ms {
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
	return lower, upper
}

// boundTally counts, for one bound method, the models where its bound held.
type boundTally struct{ held, n int }

func (t boundTally) String() string {
	if t.n == 0 {
		return "—"
	}
	return fmt.Sprintf("%d / %d", t.held, t.n)
}

// slack is the mean distance of method's ln Z from the exact ln Z on the
// bound's side (positive when the bound held), over s's models with both.
func (s *hardSetting) slack(method string, upper bool) (float64, bool) {
	var xs []float64
	for _, m := range s.models {
		r := m.runs[method]
		if r == nil || r.est == nil || !m.exact {
			continue
		}
		d := r.est.LogZ + m.negLogZ // ln Ẑ − ln Z
		if !upper {
			d = -d
		}
		xs = append(xs, d)
	}
	if len(xs) == 0 {
		return 0, false
	}
	return metrics.Summarize(xs).Mean, true
}

// boundsTable shows, for every setting where a bound method ran, how often
// each bound held, how far it lay from the exact ln Z, and the width of the
// sandwich between the best lower and the upper bound.
func boundsTable(settings []*hardSetting, ms []string) string {
	lower, upper := boundMethods(ms)
	if len(lower)+len(upper) == 0 {
		return ""
	}
	bounds := append(slices.Clone(lower), upper...)
	var b strings.Builder
	b.WriteString("### Bounds on ln Z\n\n")
	cols := []string{"setting", "models"}
	for _, m := range bounds {
		cols = append(cols, m+" held", m+" slack")
	}
	for _, m := range upper {
		cols = append(cols, m+" width")
	}
	b.WriteString(tableHeader(cols[:2], cols[2:]))
	total := map[string]boundTally{}
	rows := 0
	for _, s := range settings {
		tallies := make([]boundTally, len(bounds))
		any := false
		for j, m := range bounds {
			for _, v := range s.values(m, score.BoundHeld) {
				tallies[j].n++
				if v == 1 {
					tallies[j].held++
				}
			}
			any = any || tallies[j].n > 0
			t := total[m]
			t.held, t.n = t.held+tallies[j].held, t.n+tallies[j].n
			total[m] = t
		}
		if !any {
			continue
		}
		rows++
		fmt.Fprintf(&b, "| %s | %d |", s.label, len(s.models))
		for j, m := range bounds {
			sl, ok := s.slack(m, j >= len(lower))
			fmt.Fprintf(&b, " %s | %s |", tallies[j], orDash(ok, sl))
		}
		for _, m := range upper {
			w, ok := s.stat(m, score.SandwichWidth, false)
			fmt.Fprintf(&b, " %s |", orDash(ok, w))
		}
		b.WriteString("\n")
	}
	if rows == 0 {
		return ""
	}
	b.WriteString("\nheld: the models where the method's ln Z lay on its side of the exact ln Z (within 1e-9 relative), converged or not; ")
	b.WriteString("slack: mean distance from the exact ln Z on that side (ln Ẑ − ln Z for an upper bound, ln Z − ln Ẑ for a lower one); ")
	b.WriteString("width: mean of the upper bound minus the best lower bound on the same model, the interval the two certify.\n\n")
	for _, m := range bounds {
		t := total[m]
		side := "at or below"
		if slices.Contains(upper, m) {
			side = "at or above"
		}
		if t.n > 0 {
			fmt.Fprintf(&b, "- %s's ln Z was %s the exact ln Z on %d of %d models (%.1f%%).\n", m, side, t.held, t.n, 100*float64(t.held)/float64(t.n))
		}
	}
	return b.String()
}

// orDash formats a mean ln Z distance, or a dash when there is none.
func orDash(ok bool, v float64) string {
	if !ok || math.IsNaN(v) {
		return "—"
	}
	return formatNumber(metrics.LogZErr, v)
}
