package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/renn-go/renn/core/mrf"
)

// Result holds the exact quantities of a model.
type Result struct {
	LogZ      float64
	Marginals mrf.Marginals // every variable's and every factor's marginal
	Plan      *Plan
}

// Solve computes log Z, every variable marginal and every factor marginal of
// m exactly. It plans first (Estimate): a plan whose tables exceed
// opt.MaxTable or whose peak memory exceeds opt.MaxMemory is sliced, and
// one that cannot fit even sliced (a *MemoryTooLargeError) or would take
// longer than opt.MaxPlannedSeconds (a *TooSlowError) is refused before any table
// is allocated. It fails on an invalid model and on a model whose partition
// function is zero. Solve(m, opt) is Prepare(m, opt) followed by the
// prepared plan's Solve.
func Solve(m *mrf.Model, opt Options) (*Result, error) {
	res, _, err := solve(m, opt)
	return res, err
}

// Prepared is a plan made for one model with one set of options, ready to
// run: a caller that plans to decide whether to solve (by the plan's
// Cost) solves without planning again. It is not safe for concurrent use.
type Prepared struct {
	Plan *Plan // the plan and its cost
	p    *cplan
	opt  Options
	now  func() time.Time // the clock of Solve's projection; time.Now if nil
}

// Prepare plans the solve of m as Solve does, failing as Solve does before
// allocating (a *TooSlowError or a *MemoryTooLargeError carries the plan),
// and calls opt.OnPlan with the plan.
func Prepare(m *mrf.Model, opt Options) (*Prepared, error) {
	pr, err := prepare(m, opt)
	if err != nil {
		return nil, err
	}
	if pr.opt.OnPlan != nil {
		pr.opt.OnPlan(pr.Plan)
	}
	return pr, nil
}

// prepare is Prepare without OnPlan; on a plan over opt's bounds it
// returns the plan with the error.
func prepare(m *mrf.Model, opt Options) (*Prepared, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("exact: invalid model: %w", err)
	}
	nw, err := newNetwork(m)
	if err != nil {
		return nil, err
	}
	p, plan, err := makePlan(nw, opt)
	return &Prepared{Plan: plan, p: p, opt: opt}, err
}

// Solve runs the prepared plan: the same ln Z and marginals, bit for bit,
// as Solve of the model and options it was prepared with. ctx is checked
// before every slice. When ctx has a deadline, a sliced solve also gives
// up (an error wrapping ErrBehindDeadline) once the slices after the first,
// at their mean time, project its end past the deadline: a caller with a
// budget loses two slices, not the budget, to a plan slower than its
// estimate. The first slice is not counted, as it also allocates the
// tables the others reuse.
func (pr *Prepared) Solve(ctx context.Context) (*Result, error) {
	res, _, err := run(ctx, pr.p, pr.Plan, pr.opt, pr.now)
	return res, err
}

// ErrBehindDeadline is the error a sliced solve gives up with when the
// slices done project its end past ctx's deadline.
var ErrBehindDeadline = errors.New("the slices done project the solve's end past the deadline")

// projection tells whether a sliced solve can still end by its deadline.
type projection struct {
	now      func() time.Time
	start    time.Time
	first    time.Time // when the first slice ended
	deadline time.Time
	on       bool // ctx has a deadline and the plan more than two slices
}

func newProjection(ctx context.Context, slices int64, now func() time.Time) *projection {
	if now == nil {
		now = time.Now
	}
	d, ok := ctx.Deadline()
	pj := &projection{now: now, deadline: d, on: ok && slices > 2}
	if pj.on {
		pj.start = now()
	}
	return pj
}

// check returns an error wrapping ErrBehindDeadline when done of total
// slices, the second to the last done at their mean time, project the last
// to end after the deadline.
func (pj *projection) check(done, total int64) error {
	if !pj.on || done >= total {
		return nil
	}
	t := pj.now()
	if done == 1 {
		pj.first = t
		return nil
	}
	per := float64(t.Sub(pj.first)) / float64(done-1)
	end := t.Add(time.Duration(per * float64(total-done)))
	if !end.After(pj.deadline) {
		return nil
	}
	return fmt.Errorf("exact: %d of %d slices took %.3g s, so the solve would take %.3g s, %.3g s past the deadline: %w",
		done, total, t.Sub(pj.start).Seconds(), end.Sub(pj.start).Seconds(), end.Sub(pj.deadline).Seconds(), ErrBehindDeadline)
}

// runStats are what tests inspect of a solve.
type runStats struct {
	forwards  int // forward contractions, recomputations included
	slices    int // slices run
	logSlices int // slices run in log space
}

func solve(m *mrf.Model, opt Options) (*Result, *runStats, error) {
	pr, err := Prepare(m, opt)
	if err != nil {
		return nil, nil, err
	}
	return run(context.Background(), pr.p, pr.Plan, pr.opt, nil)
}

// run solves along a plan; now is the clock of the deadline's projection
// (time.Now if nil).
func run(ctx context.Context, p *cplan, plan *Plan, opt Options, now func() time.Time) (*Result, *runStats, error) {
	nw, m := p.nw, p.nw.model
	pj := newProjection(ctx, p.numSlices(), now)
	acc := newAccum(nw)
	stats := &runStats{}
	// The pool may hold a slice's peak, so that the next slices reuse its
	// tables: a pool smaller than the tables lets them become garbage, and
	// the heap grows to twice a slice's peak before the collector runs.
	pl := &pool{free: map[int][][]float64{}, limit: max(opt.Memory, plan.PeakMemory)}
	assign := make([]int, len(p.sliced))
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("exact: %w", err)
		}
		if err := p.runSlice(assign, pl, opt.Memory, acc, stats); err != nil {
			return nil, nil, err
		}
		stats.slices++
		if !nextState(assign, p.sliced, nw.card) {
			break
		}
		if err := pj.check(int64(stats.slices), p.numSlices()); err != nil {
			return nil, nil, err
		}
	}
	if acc.sumW == 0 {
		return nil, nil, fmt.Errorf("exact: %w", ErrZeroPartition)
	}
	res := &Result{Plan: plan, LogZ: nw.constant + acc.scale + math.Log(acc.sumW),
		Marginals: mrf.Marginals{Vars: make([][]float64, len(m.Cards)), Factors: make([][]float64, len(m.Factors))}}
	for _, v := range nw.loose {
		res.LogZ += math.Log(float64(nw.card[v]))
	}
	acc.marginals(res)
	return res, stats, nil
}

// nextState advances assign, the states of vars, to the next joint state
// (last fastest) and reports false after the last.
func nextState(assign, vars, card []int) bool {
	for d := len(assign) - 1; d >= 0; d-- {
		assign[d]++
		if assign[d] < card[vars[d]] {
			return true
		}
		assign[d] = 0
	}
	return false
}

// runSlice contracts the slice in which p.sliced take the states assign and
// adds its leaf marginals, weighted by its Z, into acc. A slice of Z = 0
// adds nothing. A slice beyond the range of scaled linear tables is solved
// in log space instead.
func (p *cplan) runSlice(assign []int, pl *pool, budget int64, acc *accum, stats *runStats) error {
	err := p.linearSlice(assign, pl, budget, acc, stats)
	if err == errImprecise {
		stats.logSlices++
		p.logSlice(assign, acc)
		return nil
	}
	return err
}

// linearSlice is runSlice in scaled linear space; it fails with
// errImprecise, having added nothing to acc, if it cannot vouch for the
// slice's Z.
func (p *cplan) linearSlice(assign []int, pl *pool, budget int64, acc *accum, stats *runStats) error {
	nw := p.nw
	e := &tnEngine{p: p, leaf: make([]*table, len(nw.leaves)), val: make([]*table, len(p.steps)),
		adj: make([]*table, len(p.steps)), budget: budget, pool: pl}
	subs := make([][]float64, len(nw.leaves)) // leaf tables restricted to the slice
	subVars := make([][]int, len(nw.leaves))
	zero := false
	one := &table{vals: []float64{1}, lerr: math.Inf(-1)}
	for i := range nw.leaves {
		subs[i], subVars[i] = p.restrictLeaf(i, assign)
		n := make([]float64, tableSize(nw.card, p.leafVars[i]))
		kn := p.leafKernel(i, 0, subVars[i])
		ls, _ := normaliseKnown(n, true, kn.run(subs[i], one.vals, n, pl))
		lf := &nw.leaves[i].tab
		e.leaf[i] = &table{vals: n, logScale: lf.logScale + ls}
		if !bound(&table{lerr: lf.lerr, lmin: lf.lmin}, one, e.leaf[i], kn.lnK, ls) {
			return errImprecise
		}
		zero = zero || math.IsInf(ls, -1)
	}
	if zero {
		return nil
	}
	onLeaf := func(i int, adj []float64) error {
		pm := pl.get(len(subs[i]))
		p.leafKernel(i, 1, subVars[i]).run(subs[i], adj, pm, pl)
		acc.add(i, p.sliced, assign, pm)
		pl.put(pm)
		return nil
	}
	e.onLeaf = onLeaf
	switch len(p.steps) {
	case 0:
		logZ := 0.0
		if len(nw.leaves) == 1 {
			if !e.leaf[0].precise(e.leaf[0].vals[0]) {
				return errImprecise
			}
			logZ = e.leaf[0].logScale + math.Log(e.leaf[0].vals[0])
		}
		acc.begin(logZ)
		if len(nw.leaves) == 1 {
			return onLeaf(0, []float64{1})
		}
		return nil
	}
	e.onRoot = acc.begin
	err := sweep(e, p, 0, len(p.steps))
	stats.forwards += e.forwards
	if e.zero {
		return nil // this slice has Z = 0
	}
	return err
}

// restrictLeaf returns leaf i's table with the sliced variables at the
// states assign, over the leaf's other variables.
func (p *cplan) restrictLeaf(i int, assign []int) ([]float64, []int) {
	return p.restrictVals(i, p.nw.leaves[i].tab.vals, assign)
}

// restrictVals is restrictLeaf of vals, a table over leaf i's variables.
func (p *cplan) restrictVals(i int, vals []float64, assign []int) ([]float64, []int) {
	lf := &p.nw.leaves[i]
	var vars []int
	base := 0
	st := stridesIn(p.nw.card, lf.vars, lf.vars)
	for d, v := range lf.vars {
		if j := slices.Index(p.sliced, v); j >= 0 {
			base += st[d] * assign[j]
		} else {
			vars = append(vars, v)
		}
	}
	if len(vars) == len(lf.vars) {
		return vals, vars
	}
	sub := make([]float64, tableSize(p.nw.card, vars))
	vst := stridesIn(p.nw.card, lf.vars, vars)
	odometer(p.nw.card, vars, vst, func(k, off int) { sub[k] = vals[base+off] })
	return sub, vars
}

// accum adds the slices' leaf marginals, each weighted by its slice's Z
// relative to a running scale: weights exp(logZ_s - scale) stay in range
// while the scale is raised whenever a slice's log Z passes it by more
// than rescaleAt.
type accum struct {
	nw    *network
	marg  [][]float64 // per leaf, over the leaf's variables
	scale float64
	sumW  float64 // Σ_s exp(logZ_s - scale)
	w     float64 // weight of the current slice
	begun bool
}

const rescaleAt = 300

func newAccum(nw *network) *accum {
	a := &accum{nw: nw, marg: make([][]float64, len(nw.leaves))}
	for i, lf := range nw.leaves {
		a.marg[i] = make([]float64, len(lf.tab.vals))
	}
	return a
}

// begin starts a slice of log partition function logZ.
func (a *accum) begin(logZ float64) {
	if !a.begun || logZ > a.scale+rescaleAt {
		f := 0.0
		if a.begun {
			f = math.Exp(a.scale - logZ)
		}
		for _, m := range a.marg {
			for i := range m {
				m[i] *= f
			}
		}
		a.sumW *= f
		a.scale, a.begun = logZ, true
	}
	a.w = math.Exp(logZ - a.scale)
	a.sumW += a.w
}

// add adds the current slice's marginal pm of leaf i (over the leaf's
// variables other than the sliced ones, which take the states assign),
// normalised and weighted.
func (a *accum) add(i int, sliced, assign []int, pm []float64) {
	sum := 0.0
	for _, x := range pm {
		sum += x
	}
	if sum == 0 {
		return
	}
	f := a.w / sum
	lf := &a.nw.leaves[i]
	m := a.marg[i]
	if len(pm) == len(m) {
		for k, x := range pm {
			m[k] += f * x
		}
		return
	}
	card := a.nw.card
	st := stridesIn(card, lf.vars, lf.vars)
	base := 0
	var vars []int
	for d, v := range lf.vars {
		if j := slices.Index(sliced, v); j >= 0 {
			base += st[d] * assign[j]
		} else {
			vars = append(vars, v)
		}
	}
	odometer(card, vars, stridesIn(card, lf.vars, vars), func(k, off int) { m[base+off] += f * pm[k] })
}

// marginals fills res with every variable's and factor's marginal over the
// model's states.
func (a *accum) marginals(res *Result) {
	for _, mg := range a.marg {
		sum := 0.0
		for _, x := range mg {
			sum += x
		}
		for k := range mg {
			mg[k] /= sum
		}
	}
	a.varMarginals(res)
	a.factorMarginals(res)
}

// varMarginals sums every variable's marginal out of the smallest leaf
// that holds it; a variable of one state is a point mass, one in no table
// uniform over its states.
func (a *accum) varMarginals(res *Result) {
	nw := a.nw
	card := nw.card
	from := make([]int, len(card)) // smallest leaf holding each variable
	for v := range from {
		from[v] = -1
	}
	for i, lf := range nw.leaves {
		for _, v := range lf.vars {
			if from[v] < 0 || len(nw.leaves[from[v]].tab.vals) > len(lf.tab.vals) {
				from[v] = i
			}
		}
	}
	for v, c := range nw.model.Cards {
		vm := make([]float64, c)
		switch {
		case card[v] == 1:
			vm[nw.dom[v][0]] = 1
		case from[v] < 0:
			for _, s := range nw.dom[v] {
				vm[s] = 1 / float64(card[v])
			}
		default:
			i := from[v]
			r := make([]float64, card[v])
			contract(card, a.marg[i], nw.leaves[i].vars, []float64{1}, nil, r, []int{v})
			for k, s := range nw.dom[v] {
				vm[s] = r[k]
			}
		}
		res.Marginals.Vars[v] = vm
	}
}

// factorMarginals sums every factor's marginal out of its leaf, over the
// factor's own table: zero at the states the reduction removed, and the
// one state of its conditioned variables.
func (a *accum) factorMarginals(res *Result) {
	nw := a.nw
	card := nw.card
	for f := range nw.model.Factors {
		fm := make([]float64, len(nw.model.Factors[f].LogTable))
		free := nw.free(f)
		if i := nw.leafOf[f]; i < 0 {
			fm[nw.offset(f, nil, nil)] = 1
		} else {
			r := make([]float64, tableSize(card, free))
			contract(card, a.marg[i], nw.leaves[i].vars, []float64{1}, nil, r, free)
			st, base := nw.factorStrides(f, free)
			states(card, free, func(k int, idx []int) {
				off := base
				for j, s := range idx {
					off += st[j] * nw.dom[free[j]][s]
				}
				fm[off] = r[k]
			})
		}
		res.Marginals.Factors[f] = fm
	}
}
