package report

// The discussion: fixed prose (sections/discussion.toml) whose counts and
// numbers are named rules over the filled paper tables.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
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

// face compares a method's ℓ1 in its own column of table n (with the
// infinite face) and in its column from another table (without it) on the
// row of gamma.
func (rs results) face(n int, method string, gamma float64) string {
	res := rs[n]
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

// lambdaRatio is the mean over the ℓ1 rows of tables of a method's ℓ1 in
// its own column (λ = 0) over its ℓ1 in its column from another table (its
// usual λ).
func (rs results) lambdaRatio(tables []int, method string) string {
	var ours, paper float64
	var nOurs, nPaper int
	rs.rows(tables, func(res *result, i int) {
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
// learning setting of table n.
func (rs results) timeRatio(n int, a, b string, graph string, size int) string {
	res := rs[n]
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

// nllGap is the mean over the learning settings of tables of a method's
// test NLL minus that of learning with ref.
func (rs results) nllGap(tables []int, method, ref string) string {
	var ours, paper float64
	var nOurs, nPaper int
	rs.rows(tables, func(res *result, i int) {
		j, e := col(res.t, method), col(res.t, ref)
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

// discussionSpec declares the discussion: its text and its claims.
type discussionSpec struct {
	Text   string
	Claims []ruleSpec `toml:"claim"`
}

// ruleSpec is a claim over the paper's tables: a rule and its arguments.
type ruleSpec struct {
	ID     string
	Rule   string // best, winners, beats, agree, mean, gap, ratio, lambda, face, models
	Tables []int
	Metric string
	Method string
	Other  string // the method compared with
	Graph  string
	Size   int
	Gamma  float64
}

// rules are the discussion's rules, by name.
var rules = map[string]func(rs results, c ruleSpec) string{
	"best": func(rs results, c ruleSpec) string {
		t, _ := rs.bestOf(c.Tables, c.Metric, c.Method)
		return t.text("settings")
	},
	"winners": func(rs results, c ruleSpec) string {
		_, w := rs.bestOf(c.Tables, c.Metric, c.Method)
		return winnersText(w)
	},
	"beats": func(rs results, c ruleSpec) string {
		return rs.beats(c.Tables, c.Metric, c.Method, c.Other).text("settings")
	},
	"agree": func(rs results, c ruleSpec) string {
		return rs.agree(c.Tables, c.Metric, c.Method, c.Other).text("settings")
	},
	"mean": func(rs results, c ruleSpec) string {
		ours, paper, n, np := rs.meanOf(c.Tables, c.Metric, c.Method, nil)
		return pair(c.Metric, ours, paper, n, np)
	},
	"gap": func(rs results, c ruleSpec) string { return rs.nllGap(c.Tables, c.Method, c.Other) },
	"ratio": func(rs results, c ruleSpec) string {
		return rs.timeRatio(c.Tables[0], c.Method, c.Other, c.Graph, c.Size)
	},
	"lambda": func(rs results, c ruleSpec) string { return rs.lambdaRatio(c.Tables, c.Method) },
	"face":   func(rs results, c ruleSpec) string { return rs.face(c.Tables[0], c.Method, c.Gamma) },
	"models": func(rs results, c ruleSpec) string {
		models := 0
		for _, n := range c.Tables {
			if res := rs[n]; res != nil {
				models = max(models, res.models)
			}
		}
		if models == 0 {
			return "random models"
		}
		return fmt.Sprintf("%d random models per setting", models)
	},
}

// discussionScope is what the discussion's text sees.
type discussionScope struct {
	rs     results
	claims []ruleSpec
	paper  *paperData
}

// Claim evaluates a declared claim.
func (c discussionScope) Claim(id string) (string, error) {
	for _, r := range c.claims {
		if r.ID == id {
			return rules[r.Rule](c.rs, r), nil
		}
	}
	return "", fmt.Errorf("discussion: no claim %q", id)
}

// Share is the mean of a 0/1 metric (converged, check_failed) of method
// over the summary of a score stage, weighted by the runs of each
// setting: the share of runs where it was 1; NaN without runs.
func (c discussionScope) Share(stage, method, metric string) float64 {
	s, _ := c.share(stage, method, metric)
	return s
}

// Runs is how many runs Share counts.
func (c discussionScope) Runs(stage, method, metric string) int {
	_, n := c.share(stage, method, metric)
	return n
}

func (c discussionScope) share(stage, method, metric string) (float64, int) {
	total, runs := 0.0, 0
	for _, o := range c.paper.s.data.obs {
		if v, ok := o.num[metric]; ok && o.stage == stage && o.method == method && !math.IsNaN(v) {
			n := int(o.num[metric+"_n"])
			total += v * float64(n)
			runs += n
		}
	}
	if runs == 0 {
		return math.NaN(), 0
	}
	return total / float64(runs), runs
}

// ReadoutTol and ConsistencyTol are the shared check's tolerances.
func (discussionScope) ReadoutTol() float64     { return infer.ReadoutTol }
func (discussionScope) ConsistencyTol() float64 { return infer.ConsistencyTol }

// convergence is how often a method reported convergence on the settings
// of a score stage, and how often the shared check refused it.
type convergence struct {
	Where                 string
	Runs                  int
	Percent               float64
	Failed, FailedPercent float64
}

// Converged is RENN's convergence on the settings of stage.
func (c discussionScope) Converged(stage, where string) convergence {
	share, runs := c.share(stage, "renn", "converged")
	out := convergence{Where: where, Runs: runs, Percent: 100 * share}
	if f, n := c.share(stage, "renn", "check_failed"); n > 0 && f > 0 {
		out.Failed, out.FailedPercent = f, 100*f
	}
	return out
}
