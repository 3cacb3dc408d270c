package report

// Double-loop GBP against single-loop GBP: both look for a stationary point
// of the same region free energy on the same region graph, dlgbp by a
// convergent minimisation. Where GBP converges, dlgbp should stop at GBP's
// point; where GBP does not, dlgbp should still converge (issue 22).

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/stages/score"
)

// SamePointTol is the largest difference between dlgbp's and GBP's beliefs,
// the largest |Δb| over every variable and factor marginal, that counts as
// the same fixed point. Both stop when no region belief moves by 1e-9 in a
// step, so at one fixed point they agree far more closely than this.
const SamePointTol = 1e-6

// beliefDistance is the largest |Δb| between two runs' variable and factor
// marginals; ok is false when either lacks them or they do not match.
func beliefDistance(a, b *hardRun) (d float64, ok bool) {
	if a == nil || b == nil || a.vars == nil || b.vars == nil || len(a.vars) != len(b.vars) || len(a.factors) != len(b.factors) {
		return 0, false
	}
	dist := func(x, y []float64) bool {
		if len(x) != len(y) || len(x) == 0 {
			return false
		}
		for k := range x {
			d = max(d, math.Abs(x[k]-y[k]))
		}
		return true
	}
	for i := range a.vars {
		if !dist(a.vars[i], b.vars[i]) {
			return 0, false
		}
	}
	for id, fa := range a.factors {
		if !dist(fa, b.factors[id]) {
			return 0, false
		}
	}
	return d, true
}

// dlgbpCounts tallies dlgbp against gbp over a setting's models.
type dlgbpCounts struct {
	models int // models where both ran
	// Where gbp converged: how often, on how many of those dlgbp converged
	// within SamePointTol of gbp's beliefs, and the largest distance.
	gbpConv, same int
	maxDist       float64
	// Where gbp did not converge: how often, and how often dlgbp did.
	gbpNot, rescued int
	misses          []string // models where dlgbp failed either claim
}

func countDLGBP(s *hardSetting) dlgbpCounts {
	var c dlgbpCounts
	for _, m := range s.models {
		g, dl := m.runs["gbp"], m.runs["dlgbp"]
		if g == nil || dl == nil || g.est == nil || dl.est == nil {
			continue
		}
		c.models++
		if !g.est.Converged {
			c.gbpNot++
			if dl.est.Converged {
				c.rescued++
			} else {
				c.misses = append(c.misses, m.name+" (neither converged)")
			}
			continue
		}
		c.gbpConv++
		d, ok := beliefDistance(g, dl)
		switch {
		case !dl.est.Converged:
			c.misses = append(c.misses, m.name+" (gbp converged, dlgbp did not)")
		case !ok:
			c.misses = append(c.misses, m.name+" (beliefs missing)")
		case d > SamePointTol:
			c.misses = append(c.misses, fmt.Sprintf("%s (another point: |Δb| %s)", m.name, residualText(d)))
		default:
			c.same++
		}
		if ok {
			c.maxDist = max(c.maxDist, d)
		}
	}
	return c
}

// dlgbpTable shows, setting by setting, whether dlgbp stopped at GBP's
// fixed point where GBP converged and converged where GBP did not, with
// the seconds of both and of the RENN runs beside them. It is empty when
// no setting has both methods.
func (d *hardData) dlgbpTable() string {
	if !slices.Contains(d.methods, "dlgbp") || !slices.Contains(d.methods, "gbp") {
		return ""
	}
	timed := []string{"gbp", "dlgbp"}
	for _, m := range []string{"renn-mp", "renn"} {
		if slices.Contains(d.methods, m) {
			timed = append(timed, m)
		}
	}
	var b strings.Builder
	b.WriteString("### Double-loop GBP against GBP\n\n")
	b.WriteString("| setting | models | gbp converged | of those: dlgbp converged at gbp's point | largest \\|Δb\\| there | gbp not converged | of those: dlgbp converged |")
	for _, m := range timed {
		fmt.Fprintf(&b, " seconds %s |", m)
	}
	b.WriteString("\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |" + strings.Repeat(" ---: |", len(timed)) + "\n")
	var total dlgbpCounts
	for _, s := range d.settings {
		c := countDLGBP(s)
		if c.models == 0 {
			continue
		}
		dist := "—"
		if c.gbpConv > 0 {
			dist = residualText(c.maxDist)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %d | %d |", s.label, c.models, c.gbpConv, c.same, dist, c.gbpNot, c.rescued)
		for _, m := range timed {
			v, ok := s.stat(m, score.Seconds, false)
			if !ok {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %s |", formatNumber(score.Seconds, v))
		}
		b.WriteString("\n")
		total.models += c.models
		total.gbpConv += c.gbpConv
		total.same += c.same
		total.maxDist = max(total.maxDist, c.maxDist)
		total.gbpNot += c.gbpNot
		total.rescued += c.rescued
		total.misses = append(total.misses, c.misses...)
	}
	if total.models == 0 {
		return ""
	}
	fmt.Fprintf(&b, "\nBoth minimise the region free energy of the setting's region graph; a converged run of either is a stationary point of it. ")
	fmt.Fprintf(&b, "|Δb| is the largest difference between the two runs' variable and factor marginals; the same point means dlgbp converged within %g of gbp's beliefs. Seconds: mean per model, one core, on a shared machine. ", SamePointTol)
	fmt.Fprintf(&b, "Over every setting: where gbp converged (%d models), dlgbp converged at its point on **%d**; where gbp did not (%d models), dlgbp converged on **%d**", total.gbpConv, total.same, total.gbpNot, total.rescued)
	if len(total.misses) > 0 {
		fmt.Fprintf(&b, ". Not: %s", strings.Join(truncate(total.misses, 12), "; "))
	}
	b.WriteString(".\n")
	return b.String()
}
