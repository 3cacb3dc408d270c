package auto

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Auto is the auto method. It keeps nothing between calls but the last
// answer's standard errors; it is not safe for concurrent use.
type Auto struct {
	opts Options
	// run runs one step; the methods of the registry's packages by
	// default, fakes in tests.
	run func(ctx context.Context, m *mrf.Model, s step, limit float64) candidate
	// estimate plans exact inference of m: its estimated seconds, and the
	// plan that runs it.
	estimate func(m *mrf.Model) (exactPlan, error)
	// cores is the number of cores exact inference's kernels run on
	// (GOMAXPROCS; its time depends on it).
	cores int
	se    [][]float64 // standard errors of the last answer, if Monte Carlo
}

// New returns auto with opts.
func New(opts Options) (*Auto, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	a := &Auto{opts: opts, cores: runtime.GOMAXPROCS(0)}
	a.run = a.runStep
	a.estimate = func(m *mrf.Model) (exactPlan, error) {
		// Planning effort grows with the bound on the estimated time: a
		// model hopelessly over the budget is given up after one round.
		o := a.exactOptions()
		o.MaxPlannedSeconds = a.opts.MaxSeconds / twoCoreFactor
		return planExact(m, o)
	}
	return a, nil
}

// Name returns "auto".
func (a *Auto) Name() string { return "auto" }

// StandardErrors returns the standard errors of the last answer's variable
// marginals when it was parallel tempering's, else nil.
func (a *Auto) StandardErrors() [][]float64 { return a.se }

// Reset does nothing: auto starts every call afresh.
func (a *Auto) Reset() {}

// reserve is the part of the budget kept for choosing and checking the
// answer after the last run: 2% of it, at most half a second.
func reserve(budget float64) float64 { return math.Min(0.02*budget, 0.5) }

// minSlice is the shortest time limit a run is started with; a step with
// less time left is skipped.
const minSlice = 0.02

// clock measures a call's time on ctx's clock (infer.WithClock).
type clock struct {
	ctx      context.Context
	start    time.Time
	deadline float64 // seconds after start by which the runs must end
}

func (c clock) elapsed() float64 { return infer.Now(c.ctx).Sub(c.start).Seconds() }

// left returns the seconds left before the deadline (never negative).
func (c clock) left() float64 { return math.Max(0, c.deadline-c.elapsed()) }

// Infer answers m within the budget: exact inference when its plan's
// estimate fits, else the approximate methods, and the answer chosen by the
// rule of the package comment.
func (a *Auto) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	if m == nil {
		return nil, errors.New("auto: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("auto: %w", err)
	}
	a.se = nil
	ck := clock{ctx: ctx, start: infer.Now(ctx), deadline: a.opts.MaxSeconds - reserve(a.opts.MaxSeconds)}
	rec := &Record{Budget: a.opts.MaxSeconds}
	var cands []candidate
	if c, ok := a.exactStep(ctx, m, ck, rec); ok {
		cands = append(cands, c)
	}
	if len(cands) == 0 || !cands[0].converged() {
		cands = withPool(m, append(cands, a.approximate(ctx, m, ck)...))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("auto: %w", err)
	}
	ch, err := choose(m, cands)
	for i := range cands {
		rec.Runs = append(rec.Runs, runOf(&cands[i]))
	}
	if err != nil {
		return nil, err
	}
	return a.answer(m, cands, ch, rec), nil
}

// exactStep runs exact inference if allowed and its estimate fits the time
// left; ok is false when it did not run. The decision goes to rec.
func (a *Auto) exactStep(ctx context.Context, m *mrf.Model, ck clock, rec *Record) (candidate, bool) {
	d := &rec.Exact
	d.Estimate = Float(math.NaN())
	if !a.opts.Exact {
		d.Why = "exact=false"
		return candidate{}, false
	}
	ep, err := a.estimate(m)
	est := ep.seconds
	d.Left = Float(ck.left())
	s := step{name: "exact", method: "exact", kind: kindExact, plan: ep.plan}
	if err != nil {
		// Listed among the runs, so that a model every method fails on
		// (Z = 0, say) has exact inference's reason in its error too.
		d.Why = "no plan: " + err.Error()
		return s.skipped(d.Why), true
	}
	d.Estimate = Float(est)
	need := exactSeconds(est, a.cores)
	if need > ck.left() {
		d.Why = fmt.Sprintf("estimated %.3g s on one core, up to %.3g s on %d, above the %.3g s left", est, need, a.cores, ck.left())
		return candidate{}, false
	}
	d.Ran = true
	c := a.run(ctx, m, s, ck.left())
	switch {
	case c.err != nil:
		d.Why = "ran and failed: " + c.err.Error()
	case !c.converged():
		d.Why = "ran and failed the check: " + c.check
	default:
		d.Why = fmt.Sprintf("estimated %.3g s on one core, up to %.3g s on %d, within the %.3g s left", est, need, a.cores, float64(d.Left))
	}
	return c, true
}

// exactSeconds is the longest exact inference is expected to take, on
// cores cores, along a plan whose estimate (Cost.Seconds, one core) is est:
// the estimate is within 25% of one-core solves, and two-core solves of
// unsliced plans took 0.24 to 0.59 of it (of the UAI-like models, from
// 0.01 to 30 s). Sliced plans are less predictable (0.3 to 2.9 of it), so
// a sliced solve is given the time left as its deadline and gives up as
// soon as its slices show it cannot end by then (exact.ErrBehindDeadline).
func exactSeconds(est float64, cores int) float64 {
	if cores >= 2 {
		return twoCoreFactor * est
	}
	return oneCoreFactor * est
}

// The bounds on a solve's time as a multiple of its one-core estimate.
const (
	oneCoreFactor = 1.25
	twoCoreFactor = 0.6
)

// variationalShare is the fraction of the time left that the variational
// methods may take: parallel tempering, which needs every sweep it gets
// where they fail (its error falls as one over the square root of its
// sweeps), keeps about 90% of the machine's time on two cores (GBP runs on one core beside its two chains for 30% of the time) and 70% on one.
const variationalShare = 0.3

// approximate runs the variational methods, in at most variationalShare of
// the time left, and parallel tempering until the deadline: beside them on
// two cores when allowed, else after them. On two cores the first core,
// once the variational methods are done, runs a second sampler until the
// deadline: Gibbs sampling on a model with hard constraints, else parallel
// tempering again with other seeds; each sampler keeps its chains on its
// own core, and their answers are pooled when they agree (withPool).
func (a *Auto) approximate(ctx context.Context, m *mrf.Model, ck clock) []candidate {
	pt := step{name: "pt", method: "pt", kind: kindMC}
	vc := ck
	vc.deadline = ck.elapsed() + variationalShare*ck.left()
	if !a.opts.Parallel || runtime.GOMAXPROCS(0) < 2 {
		cands := a.variational(ctx, m, vc)
		return append(cands, a.timed(ctx, m, pt, ck.left()))
	}
	pt.oneCore = true
	var mc candidate
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mc = a.timed(ctx, m, pt, ck.left())
	}()
	cands := a.variational(ctx, m, vc)
	second := step{name: "pt2", method: "pt", kind: kindMC, seed: secondSeed, oneCore: true}
	if deterministic(m) {
		// Where hard constraints hold at every rung of parallel
		// tempering's ladder, Gibbs sampling is the second sampler (see
		// the package comment).
		second = step{name: gibbsName, method: "gibbs", kind: kindMC, oneCore: true}
	}
	cands = append(cands, a.timed(ctx, m, second, ck.left()))
	wg.Wait()
	return append(cands, mc)
}

// secondSeed is added to auto's seed for the second run of parallel
// tempering, whose chains must be independent of the first's.
const secondSeed = 1 << 20

// timed runs step s with time limit limit, or records it skipped when the
// limit is below minSlice.
func (a *Auto) timed(ctx context.Context, m *mrf.Model, s step, limit float64) candidate {
	if limit < minSlice {
		return s.skipped(fmt.Sprintf("skipped: %.3g s left", limit))
	}
	return a.run(ctx, m, s, limit)
}

// deterministic reports whether a factor over two or more variables has a
// zero entry (a hard constraint: pedigrees, linkage models, CSPs, noisy-OR
// networks), as opposed to evidence alone.
func deterministic(m *mrf.Model) bool {
	for _, f := range m.Factors {
		if len(f.Vars) >= 2 && slices.Contains(f.LogTable, math.Inf(-1)) {
			return true
		}
	}
	return false
}
