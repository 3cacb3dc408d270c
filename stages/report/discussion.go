package report

// The discussion: fixed prose (sections/discussion.toml) whose counts and
// numbers are claims, named rules over the filled paper tables, each
// computed for us and for the paper.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
)

// ruleSpec is a claim over the rows of the paper's Tables (of Metric,
// unless empty; of Graph, Size, Gamma where given): Rule is best (rows
// where Method is the best of the paper's methods), winners (our best
// methods, counting rows), beats (rows where Method is better than Other),
// agree (rows where their means differ by less than the smaller std), or
// combine (the mean over the rows of Op of Method's value and Other's:
// a, diff, ratio, or pair; First: the first row only), written with Format.
type ruleSpec struct {
	ID, Rule, Metric string
	Tables           []int
	Method, Other    string
	From             bool // Other is Method's column taken from another table
	Op, Format       string
	First            bool
	Graph            string
	Size             int
	Gamma            float64
}

// results indexes the filled tables by number.
type results map[int]*result

// pairRow is one row of a claim: the two cells it compares.
type pairRow struct {
	metric string
	a, b   cell
}

// pairs are the rows of c's tables that have both columns.
func (rs results) pairs(c ruleSpec) []pairRow {
	var out []pairRow
	for _, n := range c.Tables {
		res := rs[n]
		if res == nil {
			continue
		}
		ja, jb := col(res.t, c.Method, false), col(res.t, c.Other, false)
		if c.From || c.Other == "" {
			jb = col(res.t, c.Method, c.From)
		}
		for i, r := range res.t.Rows {
			m := res.t.metricOf(r)
			keep := (c.Metric == "" || m == c.Metric) && (c.Graph == "" || r.Graph == c.Graph) && (c.Size == 0 || r.Size == c.Size) && (c.Gamma == 0 || r.Gamma == c.Gamma)
			if keep && ja >= 0 && jb >= 0 {
				out = append(out, pairRow{m, res.cells[i][ja], res.cells[i][jb]})
			}
		}
	}
	return out
}

// col is the column of method: its own, or with from its column taken
// from another table.
func col(t *Table, method string, from bool) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Method == method && (c.From != "") == from })
}

// side is one side of a pair row: ours or the paper's.
func (p pairRow) side(paper bool) (a, b stat) {
	if paper {
		return stat{ok: p.a.paper.OK, mean: p.a.paper.Mean, std: p.a.paper.Std}, stat{ok: p.b.paper.OK, mean: p.b.paper.Mean, std: p.b.paper.Std}
	}
	return p.a.ours, p.b.ours
}

// tally counts where holds of the pair rows, for us and for the paper.
func (rs results) tally(c ruleSpec, holds func(metric string, a, b stat) bool) string {
	var k, n [2]int
	for _, p := range rs.pairs(c) {
		for side, paper := range []bool{false, true} {
			a, b := p.side(paper)
			if a.ok && b.ok && (c.Rule != "agree" || !paper || p.a.paper.HasStd && p.b.paper.HasStd) {
				n[side]++
				k[side] += int(b2f(holds(p.metric, a, b)))
			}
		}
	}
	return sides(n[0] > 0, n[1] > 0, fmt.Sprintf("%d of %d settings", k[0], n[0]), fmt.Sprintf("%d of %d", k[1], n[1]))
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

// combine is the mean over the pair rows (or the first) of Op of the
// two values, for us and for the paper.
func (rs results) combine(c ruleSpec) string {
	var text [2]string
	var ok [2]bool
	for side, paper := range []bool{false, true} {
		var xs, ys []float64
		for _, p := range rs.pairs(c) {
			a, b := p.side(paper)
			if a.ok && b.ok && (c.Op != "ratio" || b.mean > 0) && (!c.First || len(xs) == 0) {
				xs, ys = append(xs, a.mean), append(ys, b.mean)
			}
		}
		if ok[side] = len(xs) > 0; !ok[side] {
			continue
		}
		text[side] = c.value(xs, ys)
	}
	return sides(ok[0], ok[1], text[0], text[1])
}

// value writes the mean of Op over xs and ys.
func (c ruleSpec) value(xs, ys []float64) string {
	sum := 0.0
	for i := range xs {
		switch c.Op {
		case "diff":
			sum += xs[i] - ys[i]
		case "ratio":
			sum += xs[i] / ys[i]
		case "pair":
			return fmt.Sprintf(c.Format, formatNumber(c.Metric, ys[i]), formatNumber(c.Metric, xs[i]))
		default:
			sum += xs[i]
		}
	}
	if c.Format == "" {
		return formatNumber(c.Metric, sum/float64(len(xs)))
	}
	return fmt.Sprintf(c.Format, sum/float64(len(xs)))
}

// best counts the rows where Method is the best of the paper's methods
// (the columns where the paper has a number, references excluded), for
// us only where all of them ran; and our best method of each row.
func (rs results) best(c ruleSpec) (string, map[string]int) {
	var k, n [2]int
	winners := map[string]int{}
	for _, num := range c.Tables {
		res := rs[num]
		if res == nil || col(res.t, c.Method, false) < 0 {
			continue
		}
		for i, r := range res.t.Rows {
			if res.t.metricOf(r) != c.Metric {
				continue
			}
			for side, paper := range []bool{false, true} {
				if w, ok := res.winner(i, c.Metric, paper); ok {
					n[side]++
					k[side] += int(b2f(res.t.Columns[w].Method == c.Method))
					if !paper {
						winners[res.t.Columns[w].Method]++
					}
				}
			}
		}
	}
	return sides(n[0] > 0, n[1] > 0, fmt.Sprintf("%d of %d settings", k[0], n[0]), fmt.Sprintf("%d of %d", k[1], n[1])), winners
}

// winner is the best column of row i among the paper's methods; ok is
// false unless two compete (and, for us, all of them ran).
func (res *result) winner(i int, metric string, paper bool) (w int, ok bool) {
	var cols []int
	for k, c := range res.t.Columns {
		if c.From == "" && !isReference(c.Method) && res.cells[i][k].paper.OK {
			cols = append(cols, k)
		}
	}
	value := func(k int) (float64, bool) {
		if paper {
			return res.cells[i][k].paper.Mean, true
		}
		return res.cells[i][k].ours.mean, res.cells[i][k].ours.ok
	}
	if len(cols) < 2 || slices.ContainsFunc(cols, func(k int) bool { _, ok := value(k); return !ok }) {
		return 0, false
	}
	w = cols[0]
	for _, k := range cols[1:] {
		a, _ := value(k)
		if b, _ := value(w); better(metric, a, b) {
			w = k
		}
	}
	return w, true
}

func winnersText(w map[string]int) string {
	if len(w) == 0 {
		return "*(not run yet)*"
	}
	ms := make([]string, 0, len(w))
	for m := range w {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b string) int {
		if w[a] != w[b] {
			return w[b] - w[a]
		}
		return strings.Compare(a, b)
	})
	for i, m := range ms {
		ms[i] = fmt.Sprintf("%s %d", m, w[m])
	}
	return strings.Join(ms, ", ")
}

// discussionScope is what the discussion's text sees.
type discussionScope struct {
	rs     results
	claims []ruleSpec
	paper  *paperData
}

// Claim evaluates a declared claim.
func (c discussionScope) Claim(id string) (string, error) {
	i := slices.IndexFunc(c.claims, func(r ruleSpec) bool { return r.ID == id })
	if i < 0 {
		return "", fmt.Errorf("discussion: no claim %q", id)
	}
	r := c.claims[i]
	switch r.Rule {
	case "best":
		t, _ := c.rs.best(r)
		return t, nil
	case "winners":
		_, w := c.rs.best(r)
		return winnersText(w), nil
	case "beats":
		return c.rs.tally(r, func(m string, a, b stat) bool { return better(m, a.mean, b.mean) }), nil
	case "agree":
		return c.rs.tally(r, func(_ string, a, b stat) bool { return math.Abs(a.mean-b.mean) < min(a.std, b.std) }), nil
	case "combine":
		return c.rs.combine(r), nil
	case "models":
		models := 0
		for _, n := range r.Tables {
			if res := c.rs[n]; res != nil {
				models = max(models, res.models)
			}
		}
		if models == 0 {
			return "random models", nil
		}
		return fmt.Sprintf("%d random models per setting", models), nil
	}
	return "", fmt.Errorf("discussion: claim %s: unknown rule %q", id, r.Rule)
}

// convergence is how often a method reported convergence on the settings of
// a score stage, and how often the shared check refused it.
type convergence struct {
	Where         string
	Runs          int
	Percent       float64
	FailedPercent float64
}

// Converged is method's convergence on the settings of stage: the mean
// of the 0/1 metrics converged and check_failed over its summary, weighted
// by each setting's runs.
func (c discussionScope) Converged(stage, method, where string) convergence {
	share, runs := c.share(stage, method, "converged")
	out := convergence{Where: where, Runs: runs, Percent: 100 * share}
	if f, n := c.share(stage, method, "check_failed"); n > 0 && f > 0 {
		out.FailedPercent = 100 * f
	}
	return out
}

// CheckFailed is the share of method's runs on stage's settings that
// failed the shared check (NaN without runs).
func (c discussionScope) CheckFailed(stage, method string) float64 {
	s, _ := c.share(stage, method, "check_failed")
	return s
}

func (c discussionScope) share(stage, method, metric string) (float64, int) {
	total, runs := 0.0, 0
	for _, o := range c.paper.s.data.obs {
		if v, ok := o.num[metric]; ok && o.stage == stage && o.method == method && !math.IsNaN(v) {
			total += v * o.num[metric+"_n"]
			runs += int(o.num[metric+"_n"])
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

// discussionSpec declares the discussion: its text and its claims.
type discussionSpec struct {
	Text   string
	Claims []ruleSpec `toml:"claim"`
}
