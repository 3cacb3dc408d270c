package auto

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/dlgbp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mcmc"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/trw"
)

// step is one method run auto may make.
type step struct {
	name   string // as recorded: "exact", "mf", "bp", "trw", "gbp@faces", "dlgbp@blocks3", "pt"
	method string // the method: the name before "@"
	kind   kind
	rank   int             // region runs: larger graphs rank higher (bp 0)
	graph  *region.Graph   // gbp and dlgbp
	plan   *exact.Prepared // exact: its plan, made when estimating it
	// seed is added to auto's seed (a second sampler's chains differ from
	// the first's), and oneCore keeps a sampler's chains in one goroutine
	// (it runs beside another run, one core each).
	seed    int64
	oneCore bool
}

// on returns the step of method on region graph g of rank rank.
func on(method string, g regionGraph, rank int) step {
	return step{name: method + "@" + g.name, method: method, kind: kindRegion, rank: rank, graph: g.g}
}

// candidate returns the step's candidate before it runs.
func (s step) candidate(limit float64) candidate {
	return candidate{name: s.name, kind: s.kind, rank: s.rank, limit: limit}
}

// skipped returns the step's candidate when it did not run, and why.
func (s step) skipped(why string) candidate {
	c := s.candidate(0)
	c.err = errors.New(why)
	return c
}

// Shares of the variational methods' time left given to each run: mean
// field and loopy BP converge or give up fast, TRW's bound is wanted early,
// GBP on a graph that is not the last gets 60% of what is left, on the
// last 70%, and double-loop GBP the rest.
const (
	mfShare      = 0.02
	bpShare      = 0.05
	trwShare     = 0.05
	gbpShare     = 0.6
	lastGBPShare = 0.7
)

// variational runs, within ck's deadline: mean field and TRW (the bounds),
// loopy BP, GBP on each region graph from the largest down until one
// converges, and double-loop GBP on the largest graph if GBP did not
// converge there.
func (a *Auto) variational(ctx context.Context, m *mrf.Model, ck clock) []candidate {
	var out []candidate
	add := func(s step, share float64) candidate {
		c := a.timed(ctx, m, s, share*ck.left())
		out = append(out, c)
		return c
	}
	// Mean field always runs, for at least minSlice: however short the
	// budget, the call then has an answer (and a lower bound).
	out = append(out, a.run(ctx, m, step{name: "mf", method: "mf", kind: kindMF}, math.Max(mfShare*ck.left(), minSlice)))
	add(step{name: "bp", method: "bp", kind: kindRegion}, bpShare)
	add(step{name: "trw", method: "trw", kind: kindTRW}, trwShare)
	gs, _ := regionGraphs(m)
	first := -1 // the first graph whose GBP converged
	for i, g := range gs {
		share := gbpShare
		if i == len(gs)-1 {
			share = lastGBPShare
		}
		if c := add(on("gbp", g, len(gs)-i), share); c.converged() {
			first = i
			break
		}
	}
	if len(gs) > 0 && first != 0 {
		add(on("dlgbp", gs[0], len(gs)), 1)
	}
	return out
}

// runStep runs step s on m with time limit limit (seconds): the method
// with its defaults, seeded by auto's seed, stopped by limit.
func (a *Auto) runStep(ctx context.Context, m *mrf.Model, s step, limit float64) candidate {
	meth, err := a.build(s, limit)
	if err != nil {
		c := s.candidate(limit)
		c.err = err
		return c
	}
	return runMethod(ctx, m, s, limit, meth)
}

// runMethod runs meth as step s and puts its answer through the shared
// check (parallel tempering's marginals only: its ln Z is weighed apart): an
// answer that fails it is not converged, whatever the method said.
func runMethod(ctx context.Context, m *mrf.Model, s step, limit float64, meth infer.Method) candidate {
	c := s.candidate(limit)
	start := infer.Now(ctx)
	// The method's budget counts from its own start, not from auto's (or
	// an enclosing call's).
	res, err := meth.Infer(infer.BeginOwnCall(ctx), m)
	c.seconds = infer.Now(ctx).Sub(start).Seconds()
	if err != nil {
		c.err = err
		return c
	}
	rb, _ := meth.(infer.RegionBeliefs)
	check := infer.Verify
	if s.kind == kindMC {
		check = infer.VerifyMarginals
	}
	if c.check = check(m, res, rb); c.check != "" {
		res.Status = infer.CheckFailed
	}
	if se, ok := meth.(infer.StandardErrors); ok {
		c.se = slices.Clone(se.StandardErrors())
	}
	c.res = res
	return c
}

// build makes the method of step s with time limit limit.
func (a *Auto) build(s step, limit float64) (infer.Method, error) {
	seed := a.opts.Seed
	switch s.method {
	case "exact":
		return exactMethod{opts: a.exactOptions(), plan: s.plan, limit: limit}, nil
	case "mf":
		o := meanfield.DefaultOptions()
		o.Seed, o.MaxSeconds = seed, limit
		return meanfield.New(o)
	case "bp":
		o := bp.DefaultOptions()
		o.MaxSeconds = limit
		return bp.New(o)
	case "trw":
		o := trw.DefaultOptions()
		o.Seed, o.MaxSeconds = seed, limit
		return trw.New(o)
	case "gbp":
		o := gbp.DefaultOptions()
		o.MaxSeconds = limit
		return gbp.New(s.graph, o)
	case "dlgbp":
		// GBP already ran on this graph without converging: no warm start.
		o := dlgbp.DefaultOptions()
		o.MaxSeconds, o.GBPIter = limit, 0
		return dlgbp.New(s.graph, o)
	case "gibbs", "pt":
		return a.sampler(s, limit)
	}
	return nil, fmt.Errorf("auto: unknown step %q", s.name)
}

// sampler makes the Monte Carlo method of step s with time limit limit and
// no cap on sweeps: the chains use all the time they are given.
func (a *Auto) sampler(s step, limit float64) (infer.Method, error) {
	var smp *mcmc.Sampler
	var err error
	if s.method == "gibbs" {
		o := mcmc.DefaultOptions()
		o.Seed, o.Sweeps, o.MaxSeconds = a.opts.Seed+s.seed, 0, limit
		smp, err = mcmc.New(o)
	} else {
		o := mcmc.PTDefaultOptions()
		o.Seed, o.Sweeps, o.MaxSeconds = a.opts.Seed+s.seed, 0, limit
		smp, err = mcmc.NewPT(o)
	}
	if err != nil {
		return nil, err
	}
	smp.SetParallel(!s.oneCore)
	return smp, nil
}

// exactOptions are exact inference's defaults with auto's seed.
func (a *Auto) exactOptions() exact.Options {
	o := exact.DefaultOptions()
	o.Seed = a.opts.Seed
	return o
}

// exactMethod is exact inference as a method: it runs plan, made for the
// model it is given, if set, else plans the model with opts. A sliced plan
// gives up once it cannot end within limit seconds (none if 0).
type exactMethod struct {
	opts  exact.Options
	plan  *exact.Prepared
	limit float64
}

func (exactMethod) Name() string { return "exact" }

func (e exactMethod) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var r *exact.Result
	var err error
	if e.plan != nil {
		if e.limit > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(e.limit*float64(time.Second)))
			defer cancel()
		}
		r, err = e.plan.Solve(ctx)
	} else {
		r, err = exact.Solve(m, e.opts)
	}
	if err != nil {
		return nil, err
	}
	return &infer.Result{Marginals: r.Marginals, LogZ: r.LogZ, FreeEnergy: -r.LogZ, Iterations: 1, Status: infer.Converged,
		Diagnostics: map[string]float64{"largest_table": float64(r.Plan.LargestTable)}}, nil
}

// answer is the chosen candidate's result, with auto's diagnostics, its
// certificate and record: ln Z taken from the best other run when the
// chosen one's is not finite, and moved into the bounds when it lies
// outside them.
func (a *Auto) answer(m *mrf.Model, cands []candidate, ch choice, rec *Record) *infer.Result {
	c := &cands[ch.pick]
	res := *c.res
	switch {
	case c.converged():
		res.Status = infer.Converged
	case res.Status == infer.Converged || res.Status == infer.CheckFailed:
		// Auto's answer, not the run's: checked again as auto's.
		res.Status = infer.NotConverged
	}
	res.Check = ""
	res.Diagnostics = maps.Clone(c.res.Diagnostics)
	if res.Diagnostics == nil {
		res.Diagnostics = map[string]float64{}
	}
	d := res.Diagnostics
	d["budget"] = a.opts.MaxSeconds
	d["runs"] = float64(len(cands))
	d["exact_estimate"] = float64(rec.Exact.Estimate)
	rec.Chosen, rec.Reason, rec.Certificate, rec.Bounds = c.name, ch.reason, ch.cert, ch.bounds
	if !math.IsNaN(ch.excess) {
		f := Float(ch.excess)
		rec.Excess = &f
		d["excess"] = ch.excess
	}
	if !finite(res.LogZ) {
		if i := logZSource(cands, ch.pick); i >= 0 {
			res.LogZ, res.FreeEnergy = cands[i].res.LogZ, cands[i].res.FreeEnergy
			rec.LogZFrom = cands[i].name
			if se, ok := cands[i].res.Diagnostics["log_z_se"]; ok {
				res.Diagnostics["log_z_se"] = se
			}
		}
	}
	if b := ch.bounds; b != nil {
		d["log_z_lower"], d["log_z_upper"], d["bounds_width"] = float64(b.Lower), float64(b.Upper), float64(b.Width)
		if clamped := math.Min(math.Max(res.LogZ, float64(b.Lower)), float64(b.Upper)); clamped != res.LogZ && finite(res.LogZ) {
			res.LogZ, rec.LogZClamped = clamped, true
		}
	}
	res.Certificate, res.Record = ch.cert, rec
	a.se = nil
	if c.kind == kindMC {
		a.se = c.se
	}
	return &res
}

// logZSource returns the run whose ln Z stands in for the chosen one's when
// that is not finite (Gibbs sampling has none): for a sampler's answer the
// other sampler's if it converged (parallel tempering's stepping stones,
// with their standard error), else the best converged region run, else any
// finite one (region runs by rank first), or -1.
func logZSource(cands []candidate, pick int) int {
	ok := func(c *candidate) bool { return c.res != nil && finite(c.res.LogZ) && c.check == "" }
	if cands[pick].kind == kindMC {
		if i := find(cands, func(c *candidate) bool { return c.kind == kindMC && ok(c) && c.converged() }); i >= 0 {
			return i
		}
	}
	if i := bestRegion(cands, func(c *candidate) bool { return ok(c) && c.converged() }); i >= 0 {
		return i
	}
	if i := bestRegion(cands, ok); i >= 0 {
		return i
	}
	return find(cands, ok)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// runOf records candidate c.
func runOf(c *candidate) Run {
	r := Run{Method: c.name, Limit: c.limit, Seconds: c.seconds, LogZ: Float(math.NaN()), Check: c.check}
	if c.err != nil {
		r.Error = c.err.Error()
	}
	if c.res != nil {
		r.Converged, r.LogZ = c.converged(), Float(c.res.LogZ)
	}
	return r
}
