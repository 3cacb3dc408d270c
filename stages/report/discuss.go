package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/stages/score"
)

// tally counts the rows where a claim holds, for us and for the paper.
type tally struct {
	ours, oursN   int
	paper, paperN int
}

func (t tally) text(noun string) string {
	ours := "*(not run yet)*"
	if t.oursN > 0 {
		ours = fmt.Sprintf("%d of %d %s", t.ours, t.oursN, noun)
	}
	if t.paperN == 0 {
		return ours
	}
	return fmt.Sprintf("%s (paper: %d of %d)", ours, t.paper, t.paperN)
}

// results indexes the filled tables by number.
type results map[int]*result

func (rs results) rows(numbers []int, fn func(res *result, i int)) {
	for _, n := range numbers {
		res := rs[n]
		if res == nil {
			continue
		}
		for i := range res.t.Rows {
			fn(res, i)
		}
	}
}

func col(t *Table, method string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Method == method && c.From == "" })
}

func better(metric string, a, b float64) bool {
	if higherIsBetter(metric) {
		return a > b
	}
	return a < b
}

// pairs counts the rows of the tables, on metric ("" for all), where holds
// is true of methods a and b, for us and for the paper; withStd counts only
// rows where both have a standard deviation.
func (rs results) pairs(numbers []int, metric, a, b string, withStd bool, holds func(metric string, a, b stat) bool) tally {
	var t tally
	rs.rows(numbers, func(res *result, i int) {
		m := res.t.metricOf(res.t.Rows[i])
		if metric != "" && m != metric {
			return
		}
		ja, jb := col(res.t, a), col(res.t, b)
		if ja < 0 || jb < 0 {
			return
		}
		ca, cb := res.cells[i][ja], res.cells[i][jb]
		if ca.ours.ok && cb.ours.ok {
			t.oursN++
			if holds(m, ca.ours, cb.ours) {
				t.ours++
			}
		}
		if ca.paper.OK && cb.paper.OK && (!withStd || ca.paper.HasStd && cb.paper.HasStd) {
			t.paperN++
			if holds(m, stat{ok: true, mean: ca.paper.Mean, std: ca.paper.Std}, stat{ok: true, mean: cb.paper.Mean, std: cb.paper.Std}) {
				t.paper++
			}
		}
	})
	return t
}

// beats counts the rows where method a is better than method b.
func (rs results) beats(numbers []int, metric, a, b string) tally {
	return rs.pairs(numbers, metric, a, b, false, func(m string, x, y stat) bool { return better(m, x.mean, y.mean) })
}

// agree counts the rows where the means of methods a and b differ by less
// than the smaller of their standard deviations across models: a difference
// the models' spread cannot tell from none.
func (rs results) agree(numbers []int, metric, a, b string) tally {
	return rs.pairs(numbers, metric, a, b, true, func(_ string, x, y stat) bool {
		return math.Abs(x.mean-y.mean) < min(x.std, y.std)
	})
}

// bestOf counts the rows where method is the best of the paper's methods
// (the columns where the paper has a number, references excluded); for us,
// only rows where all those methods have run count.
func (rs results) bestOf(numbers []int, metric, method string) (tally, map[string]int) {
	var t tally
	winners := map[string]int{}
	rs.rows(numbers, func(res *result, i int) {
		r := res.t.Rows[i]
		m := res.t.metricOf(r)
		if m != metric {
			return
		}
		j := col(res.t, method)
		if j < 0 {
			return
		}
		var cols []int
		for k, c := range res.t.Columns {
			if c.From == "" && !isReference(c.Method) && res.cells[i][k].paper.OK {
				cols = append(cols, k)
			}
		}
		allOurs := true
		for _, k := range cols {
			allOurs = allOurs && res.cells[i][k].ours.ok
		}
		if allOurs && len(cols) > 1 {
			t.oursN++
			w := cols[0]
			for _, k := range cols[1:] {
				if better(m, res.cells[i][k].ours.mean, res.cells[i][w].ours.mean) {
					w = k
				}
			}
			winners[res.t.Columns[w].Method]++
			if w == j {
				t.ours++
			}
		}
		if len(cols) > 1 {
			t.paperN++
			w := cols[0]
			for _, k := range cols[1:] {
				if better(m, res.cells[i][k].paper.Mean, res.cells[i][w].paper.Mean) {
					w = k
				}
			}
			if w == j {
				t.paper++
			}
		}
	})
	return t, winners
}

// meanOf averages a method's row means over the rows of metric, for us and
// the paper (over the rows each has).
func (rs results) meanOf(numbers []int, metric, method string, keep func(Row) bool) (ours, paper float64, nOurs, nPaper int) {
	rs.rows(numbers, func(res *result, i int) {
		r := res.t.Rows[i]
		if res.t.metricOf(r) != metric || (keep != nil && !keep(r)) {
			return
		}
		j := col(res.t, method)
		if j < 0 {
			return
		}
		if c := res.cells[i][j]; c.ours.ok {
			ours += c.ours.mean
			nOurs++
		}
		if c := res.cells[i][j]; c.paper.OK {
			paper += c.paper.Mean
			nPaper++
		}
	})
	if nOurs > 0 {
		ours /= float64(nOurs)
	}
	if nPaper > 0 {
		paper /= float64(nPaper)
	}
	return ours, paper, nOurs, nPaper
}

// pair writes "ours (paper: theirs)" for two averages.
func pair(metric string, ours, paper float64, nOurs, nPaper int) string {
	s := "*(not run yet)*"
	if nOurs > 0 {
		s = formatNumber(metric, ours)
	}
	if nPaper > 0 {
		s += " (paper: " + formatNumber(metric, paper) + ")"
	}
	return s
}

func winnersText(w map[string]int) string {
	if len(w) == 0 {
		return "*(not run yet)*"
	}
	var ms []string
	for m := range w {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b string) int {
		if w[a] != w[b] {
			return w[b] - w[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s %d", m, w[m]))
	}
	return strings.Join(parts, ", ")
}

// meanShare is the mean of a 0/1 metric (converged, check_failed) of
// method over the summaries of stages, weighted by their runs: the share of
// runs where it was 1.
func meanShare(sums map[string]*summaryData, stages []string, method, metric string) (share float64, runs int) {
	total := 0.0
	for _, st := range stages {
		d := sums[st]
		if d == nil {
			continue
		}
		for k, s := range d.cells {
			if k.method == method && k.metric == metric && s.ok {
				total += s.mean * float64(s.n)
				runs += s.n
			}
		}
	}
	if runs == 0 {
		return math.NaN(), 0
	}
	return total / float64(runs), runs
}

// convergence says how often RENN reported convergence on the grid and the
// complete-graph settings, and how often the shared check refused it.
func convergence(sums map[string]*summaryData) string {
	part := func(stage, where string) string {
		share, runs := meanShare(sums, []string{stage}, "renn", score.Converged)
		if runs == 0 {
			return "*(not run yet)* on " + where
		}
		s := fmt.Sprintf("%.0f%% of %d runs on %s", 100*share, runs, where)
		if f, n := meanShare(sums, []string{stage}, "renn", score.CheckFailed); n > 0 && f > 0 {
			s += fmt.Sprintf(" (%.0f%% failed the shared check)", 100*f)
		}
		return s
	}
	return fmt.Sprintf("%s and %s", part("grid_score", "the grid settings"), part("complete_score", "the complete-graph settings"))
}

// face compares RENN's ℓ1 with and without the infinite face (Table 7).
func (rs results) face(method string, gamma float64) string {
	res := rs[7]
	if res == nil {
		return "*(not run yet)*"
	}
	with := col(res.t, method)
	without := slices.IndexFunc(res.t.Columns, func(c Column) bool { return c.Method == method && c.From != "" })
	for i, r := range res.t.Rows {
		if r.Metric != "l1" || r.Gamma != gamma || with < 0 || without < 0 {
			continue
		}
		w, wo := res.cells[i][with], res.cells[i][without]
		ours := "*(not run yet)*"
		if w.ours.ok && wo.ours.ok {
			ours = fmt.Sprintf("%s without, %s with", formatNumber("l1", wo.ours.mean), formatNumber("l1", w.ours.mean))
		}
		return fmt.Sprintf("%s (paper: %s without, %s with)", ours, formatNumber("l1", wo.paper.Mean), formatNumber("l1", w.paper.Mean))
	}
	return "*(not run yet)*"
}

// lambdaRatio is the mean over settings of RENN's ℓ1 at λ = 0 over its ℓ1
// with its usual λ (Tables 10, 11).
func (rs results) lambdaRatio(method string) string {
	var ours, paper float64
	var nOurs, nPaper int
	rs.rows([]int{10, 11}, func(res *result, i int) {
		r := res.t.Rows[i]
		if r.Metric != "l1" {
			return
		}
		zero := col(res.t, method)
		usual := slices.IndexFunc(res.t.Columns, func(c Column) bool { return c.Method == method && c.From != "" })
		if zero < 0 || usual < 0 {
			return
		}
		z, u := res.cells[i][zero], res.cells[i][usual]
		if z.ours.ok && u.ours.ok && u.ours.mean > 0 {
			ours += z.ours.mean / u.ours.mean
			nOurs++
		}
		if z.paper.OK && u.paper.OK && u.paper.Mean > 0 {
			paper += z.paper.Mean / u.paper.Mean
			nPaper++
		}
	})
	s := "*(not run yet)*"
	if nOurs > 0 {
		s = fmt.Sprintf("%.1f times", ours/float64(nOurs))
	}
	if nPaper > 0 {
		s += fmt.Sprintf(" (paper: %.1f times)", paper/float64(nPaper))
	}
	return s
}

// timeRatio is method a's seconds per epoch over method b's on one
// learning setting (Table 12).
func (rs results) timeRatio(a, b string, graph string, size int) string {
	res := rs[12]
	if res == nil {
		return "*(not run yet)*"
	}
	ja, jb := col(res.t, a), col(res.t, b)
	for i, r := range res.t.Rows {
		if r.Graph != graph || r.Size != size || ja < 0 || jb < 0 {
			continue
		}
		ca, cb := res.cells[i][ja], res.cells[i][jb]
		s := "*(not run yet)*"
		if ca.ours.ok && cb.ours.ok && cb.ours.mean > 0 {
			s = fmt.Sprintf("%.2f", ca.ours.mean/cb.ours.mean)
		}
		if ca.paper.OK && cb.paper.OK && cb.paper.Mean > 0 {
			s += fmt.Sprintf(" (paper: %.2f)", ca.paper.Mean/cb.paper.Mean)
		}
		return s
	}
	return "*(not run yet)*"
}

// nllGap is the mean over learning settings of a method's test NLL minus
// exact learning's.
func (rs results) nllGap(method string) string {
	var ours, paper float64
	var nOurs, nPaper int
	rs.rows([]int{3}, func(res *result, i int) {
		j, e := col(res.t, method), col(res.t, "exact")
		if j < 0 || e < 0 {
			return
		}
		c, x := res.cells[i][j], res.cells[i][e]
		if c.ours.ok && x.ours.ok {
			ours += c.ours.mean - x.ours.mean
			nOurs++
		}
		if c.paper.OK && x.paper.OK {
			paper += c.paper.Mean - x.paper.Mean
			nPaper++
		}
	})
	s := "*(not run yet)*"
	if nOurs > 0 {
		s = fmt.Sprintf("%.3f", ours/float64(nOurs))
	}
	if nPaper > 0 {
		s += fmt.Sprintf(" (paper: %.3f)", paper/float64(nPaper))
	}
	return s
}

// discussion writes the discussion: fixed prose whose numbers are computed
// from the tables.
func discussion(rs results, sums map[string]*summaryData) string {
	grids, completes, inference := []int{5, 6}, []int{8, 9}, []int{5, 6, 8, 9}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	l1Grid, _ := rs.bestOf(grids, "l1", "renn")
	l1Complete, _ := rs.bestOf(completes, "l1", "renn")
	corrAll, _ := rs.bestOf(inference, "corr", "renn")
	p("### Where RENN wins\n\n")
	p("- Marginals on grids (Tables 5, 6): RENN has the lowest ℓ1 error of the paper's six methods in %s.\n", l1Grid.text("settings"))
	p("- Marginals on complete graphs (Tables 8, 9): lowest ℓ1 in %s.\n", l1Complete.text("settings"))
	p("- Correlation ρ, all inference settings: highest in %s.\n", corrAll.text("settings"))
	p("- Against GBP on the same region graph, RENN's ℓ1 is lower in %s; against loopy BP in %s.\n",
		rs.beats(inference, "l1", "renn", "gbp").text("settings"), rs.beats(inference, "l1", "renn", "bp").text("settings"))
	p("- RENN and GBP minimise the same region-based free energy on the same region graph, RENN by gradient steps on a network and GBP by message passing, so where both converge they should reach the same beliefs. On grids (Tables 5, 6) RENN's mean ℓ1 is within one standard deviation (the smaller of the two) of GBP's in %s; on complete graphs (Tables 8, 9), in %s. Most of the paper's margin over GBP comes from its GBP (see below).\n",
		rs.agree(grids, "l1", "renn", "gbp").text("settings"), rs.agree(completes, "l1", "renn", "gbp").text("settings"))
	p("- Learning (Table 3): RENN's learned models have the lowest test NLL among the approximate methods in %s; its mean gap to exact learning is %s nats per sample.\n",
		func() string { t, _ := rs.bestOf([]int{3}, "nll", "renn"); return t.text("settings") }(), rs.nllGap("renn"))
	p("\n### Where it does not\n\n")
	logz, winners := rs.bestOf(inference, "logz_err", "renn")
	p("- log Z: RENN's error is the lowest in %s. Our lowest log Z error by method, counting settings: %s.\n", logz.text("settings"), winnersText(winners))
	p("- RENN's log Z error is lower than GBP's in %s, and lower than loopy BP's in %s.\n",
		rs.beats(inference, "logz_err", "renn", "gbp").text("settings"), rs.beats(inference, "logz_err", "renn", "bp").text("settings"))
	p("- Cost: RENN trains a network per model. Its seconds per learning epoch relative to loopy BP's are %s on the 225-node grid and %s on the 16-node complete graph; inference times are in the seconds rows of each table and in the plots.\n",
		rs.timeRatio("renn", "bp", "grid", 225), rs.timeRatio("renn", "bp", "complete", 16))
	p("- The attention network against free logits per root region (RENN (direct), an ablation not in the paper): the network's ℓ1 is lower in %s.\n",
		rs.beats(inference, "l1", "renn", "renn-direct").text("settings"))
	p("- Beyond the paper, the network that reads the model (RENN (MP net), `train-renn`'s default: each root's energy plus messages on its children, started from message passing): its ℓ1 is lower than the attention network's in %s and than GBP's in %s; its log Z error is lower than the attention network's in %s.\n",
		rs.beats(inference, "l1", "renn-mp", "renn").text("settings"), rs.beats(inference, "l1", "renn-mp", "gbp").text("settings"),
		rs.beats(inference, "logz_err", "renn-mp", "renn").text("settings"))

	p("\n### What changed from the paper\n\n")
	gbpOurs, gbpPaper, gn, gpn := rs.meanOf([]int{6}, "l1", "gbp", nil)
	p("- **GBP is the textbook parent-to-child algorithm.** The paper's GBP left out the factors that link a parent region's extra variables to the child, which is not the algorithm of Yedidia, Freeman and Weiss; ours keeps them. On grids with γ = 1 (Table 6) our GBP's mean ℓ1 over the sizes is %s.\n",
		pair("l1", gbpOurs, gbpPaper, gn, gpn))
	bpOurs, bpPaper, bn, bpn := rs.meanOf(completes, "logz_err", "bp", nil)
	mfOurs, mfPaper, mn, mpn := rs.meanOf(completes, "l1", "mf", nil)
	p("- **Complete graphs use their own neighbourhoods.** The paper's mean field and BP on complete graphs used grid neighbour lists, so its loopy BP, damped BP and Inference Net log Z errors there (hundreds of nats) are artefacts. Our loopy BP's mean log Z error on complete graphs (Tables 8, 9) is %s; our mean field's mean ℓ1 there is %s.\n",
		pair("logz_err", bpOurs, bpPaper, bn, bpn), pair("l1", mfOurs, mfPaper, mn, mpn))
	why := ""
	if f, n := meanShare(sums, []string{"complete_score"}, "renn", score.CheckFailed); n > 0 && f > 0 {
		why = fmt.Sprintf(" On complete graphs the paper's plain penalty (λ 3, as its code) trades consistency for free energy: the answers that failed the check have beliefs further apart than its tolerances (%g between factor and variable marginals, %g between regions), so they are not called converged (`--constraint auglag`, or renn-mp's default, enforces consistency).", infer.ReadoutTol, infer.ConsistencyTol)
	}
	p("- **RENN stops on a convergence test.** The paper's code stopped after at most 200 steps once the marginals moved by less than 1e-5, which stops too early. Ours runs until the loss settles and the beliefs are consistent (see `train-renn --help`), and an answer must then pass the shared check (`infer.Verify`: normalised, consistent marginals) to be called converged. Our RENN reported convergence in %s.%s\n", convergence(sums), why)
	p("- **The infinite face** (Table 7): RENN's ℓ1 on 5x5 grids with γ = 0.1 is %s; with γ = 1, %s.\n", rs.face("renn", 0.1), rs.face("renn", 1))
	p("- **λ = 0** (Tables 10, 11): without the consistency term RENN's ℓ1 is on average %s its ℓ1 with the default λ; Inference Net's, %s.\n", rs.lambdaRatio("renn"), rs.lambdaRatio("infnet"))
	models := 0
	for _, n := range inference {
		if res := rs[n]; res != nil {
			models = max(models, res.models)
		}
	}
	count := "random models"
	if models > 0 {
		count = fmt.Sprintf("%d random models per setting", models)
	}
	p("- Models: %s, drawn by our seeded generator, so they are not the paper's models; differences within a standard deviation are not differences.\n", count)
	return b.String()
}
