package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
)

// Thresholds of the section's claims (issue 34's "must show").
const (
	amRatio       = 1.1  // auto's Hellinger at most this times the best single method's,
	amFloor       = 1e-4 // or at most this above it (where the best is exact to rounding, a ratio means nothing)
	amTimeFactor  = 1.1  // auto's wall time at most budget times this plus amTimeSlack
	amTimeSlack   = 1.0
	amMinCoverage = 0.9 // Monte Carlo standard errors cover at least this fraction of variables
)

// anyModelMarkdown renders the section.
func anyModelMarkdown(runs []*budgetRuns, command string) string {
	var b strings.Builder
	b.WriteString("## Any model, within a budget\n\n")
	b.WriteString("Method `auto` (`core/auto`) answers any model within a wall-time budget: exact inference when its plan's estimated time fits, " +
		"otherwise mean field, TRW, loopy BP, GBP on the largest region graph that converges and double-loop GBP on one core, " +
		"parallel tempering on the other, and the answer it can best back, with a certificate (exact, converged, monte-carlo, bounds or none). " +
		"Here it is given the same budget per model as every single method (their `max_seconds`; `gibbs` and `pt` without a cap on sweeps), " +
		"on models of the UAI competitions' kinds passed through UAI files, scored against exact inference without a budget. " +
		"`auto-approx` is auto with `exact=false`: its approximate answer, also on the models exact inference solves. " +
		"Hellinger is the mean Hellinger distance of the unobserved variables' marginals (the competitions' MAR score), ln Z error |ln Z − ln Z*|, seconds the wall time of each call.\n\n")
	if len(runs) == 0 {
		b.WriteString("Not run yet.\n\n")
	}
	for _, br := range runs {
		fmt.Fprintf(&b, "### Budget %s s\n\n", formatBudget(br.budget))
		for _, c := range br.claims() {
			b.WriteString("- " + c + "\n")
		}
		b.WriteString("\n")
		b.WriteString(br.familyTable())
		for _, t := range []struct{ metric, title, verb string }{
			{"hellinger", "Mean Hellinger distance", "%.4f"},
			{"logz_err", "Mean ln Z error", "%.3g"},
			{"seconds", "Mean seconds", "%.3g"},
		} {
			b.WriteString(br.metricTable(t.metric, t.title, t.verb))
		}
	}
	if command != "" {
		fmt.Fprintf(&b, "Made by `%s` from the outputs of `pipeline.anymodel.toml`.\n", command)
	}
	return b.String()
}

func formatBudget(s float64) string { return fmt.Sprintf("%g", s) }

// claims returns the section's checks of one budget, as sentences.
func (br *budgetRuns) claims() []string {
	fits, fitsExact := br.exactWhereItFits()
	out := []string{fmt.Sprintf("Exact where it fits: on the %d models where exact inference took at most %s s, auto's answer is certified exact on %d.",
		fits, formatBudget(br.budget), fitsExact)}
	for _, method := range []string{autoMethod, approxMethod} {
		if !slices.Contains(br.methods, method) {
			continue
		}
		where := "the models where exact inference took longer than the budget"
		if method == approxMethod {
			where = "every model"
		}
		n, ok, worst := br.withinRatio(method, method == approxMethod)
		out = append(out, fmt.Sprintf("%s's Hellinger at most %.1fx the best single method's (or at most %g above it) on %s: %d of %d%s.", method, amRatio, amFloor, where, ok, n, worst))
	}
	for _, method := range []string{autoMethod, approxMethod} {
		if slices.Contains(br.methods, method) {
			out = append(out, br.wallTime(method), br.certificates(method))
		}
	}
	return append(out, br.coverage())
}

// exactWhereItFits counts the models exact inference solved within the
// budget, and those of them where auto's answer is certified exact.
func (br *budgetRuns) exactWhereItFits() (fits, exact int) {
	for _, m := range br.models {
		if m.exact <= br.budget {
			fits++
			if br.certs[amKey{m.id, autoMethod}] == infer.CertExact {
				exact++
			}
		}
	}
	return fits, exact
}

// withinRatio counts the models (all of them, or those exact inference did
// not solve within the budget) where method's Hellinger is at most amRatio
// times the best single method's, or amFloor above it, and describes the
// model furthest beyond (or least within) that allowance.
func (br *budgetRuns) withinRatio(method string, all bool) (n, ok int, worst string) {
	worstShare := math.Inf(-1)
	for _, m := range br.models {
		if !all && m.exact <= br.budget {
			continue
		}
		h, has := br.value(m.id, method, "hellinger")
		best, by, hasBest := br.bestSingle(m.id, "hellinger")
		if !has || !hasBest {
			continue
		}
		n++
		allowed := math.Max(amRatio*best, best+amFloor)
		if h <= allowed {
			ok++
		}
		if share := h / allowed; share > worstShare {
			worstShare = share
			worst = fmt.Sprintf(" (furthest: %s, %s, %.4f against %s's %.4f, ratio %.3g)", m.name, m.family, h, by, best, h/best)
		}
	}
	return n, ok, worst
}

// wallTime says on how many models method kept to the budget's limit.
func (br *budgetRuns) wallTime(method string) string {
	limit := amTimeFactor*br.budget + amTimeSlack
	n, ok, most := 0, 0, 0.0
	for _, m := range br.models {
		s, has := br.value(m.id, method, "seconds")
		if !has {
			continue
		}
		n++
		if s <= limit {
			ok++
		}
		most = math.Max(most, s)
	}
	return fmt.Sprintf("%s's wall time at most %.3g s (%.1fx the budget + %.0f s) on %d of %d models; the longest %.3g s.", method, limit, amTimeFactor, amTimeSlack, ok, n, most)
}

// certificates counts method's certificates.
func (br *budgetRuns) certificates(method string) string {
	count := map[string]int{}
	for _, m := range br.models {
		if c, ok := br.certs[amKey{m.id, method}]; ok {
			count[c]++
		}
	}
	var parts []string
	for _, c := range []string{infer.CertExact, infer.CertConverged, infer.CertMonteCarlo, infer.CertBounds, infer.CertNone} {
		parts = append(parts, fmt.Sprintf("%s %d", c, count[c]))
	}
	return fmt.Sprintf("Certificates of %s: %s.", method, strings.Join(parts, ", "))
}

// coverage checks the Monte Carlo standard errors of auto's answers
// certified monte-carlo: the fraction of variables whose error is within
// two standard errors (score's se_coverage).
func (br *budgetRuns) coverage() string {
	n, ok, sum := 0, 0, 0.0
	for _, m := range br.models {
		for _, method := range []string{autoMethod, approxMethod} {
			if br.certs[amKey{m.id, method}] != infer.CertMonteCarlo {
				continue
			}
			c, has := br.value(m.id, method, "se_coverage")
			if !has {
				continue
			}
			n++
			sum += c
			if c >= amMinCoverage {
				ok++
			}
		}
	}
	if n == 0 {
		return "No answer of auto or auto-approx is certified monte-carlo."
	}
	return fmt.Sprintf("Monte Carlo standard errors: of the %d answers of auto and auto-approx certified monte-carlo, %d have at least %.0f%% of their variables within two standard errors of the exact marginal (mean %.3f).",
		n, ok, 100*amMinCoverage, sum/float64(n))
}

// familyTable is auto's summary per family: models, exact inference within
// the budget, auto certified exact there, auto and auto-approx within
// amRatio of the best single method, auto's certificates.
func (br *budgetRuns) familyTable() string {
	var b strings.Builder
	b.WriteString("| family | models | exact within budget | auto exact there | auto ≤ 1.1x best elsewhere | auto-approx ≤ 1.1x best | auto's certificates |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, fam := range br.families() {
		sub := br.only(fam)
		fits, exact := sub.exactWhereItFits()
		n, ok, _ := sub.withinRatio(autoMethod, false)
		na, oka, _ := sub.withinRatio(approxMethod, true)
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d of %d | %d of %d | %s |\n", fam, len(sub.models), fits, exact, ok, n, oka, na,
			strings.TrimSuffix(strings.TrimPrefix(sub.certificates(autoMethod), "Certificates of auto: "), "."))
	}
	return b.String() + "\n"
}

// only returns br restricted to the models of family fam.
func (br *budgetRuns) only(fam string) *budgetRuns {
	sub := *br
	sub.models = nil
	for _, m := range br.models {
		if m.family == fam {
			sub.models = append(sub.models, m)
		}
	}
	return &sub
}

// metricTable is the mean of metric per family and method, the smallest
// of a row in bold.
func (br *budgetRuns) metricTable(metric, title, verb string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s per family (budget %s s):\n\n| family | models |", title, formatBudget(br.budget))
	for _, m := range br.methods {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString("\n| --- | ---: |" + strings.Repeat(" ---: |", len(br.methods)) + "\n")
	for _, fam := range br.families() {
		sub := br.only(fam)
		means := make([]float64, len(br.methods))
		for i, method := range br.methods {
			means[i] = sub.mean(method, metric)
		}
		low := math.Inf(1)
		for _, v := range means {
			if !math.IsNaN(v) {
				low = math.Min(low, v)
			}
		}
		fmt.Fprintf(&b, "| %s | %d |", fam, len(sub.models))
		for _, v := range means {
			cell := "—"
			if !math.IsNaN(v) {
				cell = fmt.Sprintf(verb, v)
				if v == low && metric != "seconds" {
					cell = "**" + cell + "**"
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	return b.String() + "\n"
}

// mean returns the mean of metric over the models where method has it, NaN
// if none has.
func (br *budgetRuns) mean(method, metric string) float64 {
	sum, n := 0.0, 0
	for _, m := range br.models {
		if v, ok := br.value(m.id, method, metric); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
