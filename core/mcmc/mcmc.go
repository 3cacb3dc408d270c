// Package mcmc is the Monte Carlo baseline: Gibbs sampling ("gibbs") and
// parallel tempering ("pt") on any factor graph (factors of any
// arity, variables of any cardinality; no region graph), and persistent
// Gibbs chains (Chains, and the "pcd" method built on them: the free phase
// of persistent contrastive divergence in learning; see chains.go and
// pcd.go).
//
// A sweep visits the variables in order and draws each from its conditional
// given the others: exp(Σ of its factors' log entries at the current
// configuration), with every factor's current table entry kept up to date so
// an update reads one entry per factor and state. On binary pairwise models (Ising
// models, spin glasses) every replica keeps every variable's field instead,
// so an update reads one number and a flip moves its neighbours' fields
// (fields.go; 1.5 times faster on a 10x10 spin glass, the same
// distribution). Where zeros tie variables together, the variables of a
// piece of them may instead be drawn jointly, a block at a time, by
// variable elimination (option blocks; blocks.go). Zero potentials and
// evidence: every chain starts from a configuration of non-zero probability
// (without zeros, uniform at random; with them, the blocks drawn exactly,
// then the propagation and backtracking search of core/feasible with
// random state preferences for the other variables), and a state of zero
// conditional probability is never drawn, so the chain never leaves the
// support. A model without such a configuration (Z = 0),
// or one the search cannot find within feasible.MaxSearchNodes choices or
// within the time budget, is an error.
//
// Budget and burn-in: every chain runs until Sweeps sweeps or MaxSeconds
// (whichever ends first; infer.Budget); the chains run in lock step (in
// parallel when a sweep is big enough), so Result.Iterations is the sweeps
// of each. MaxSeconds covers the whole call: its clock starts before the
// set-up (the search for feasible starts, which asks it before every
// choice, and pt's reference normaliser, whose exact count is capped by
// its tables' size and cost: see reference.go), and no sweep starts once
// it has run out (the first always runs), so the sweeps end at most one
// sweep after it. A chain whose start would need a search after the budget
// is spent starts at an earlier chain's configuration ("shared_starts"
// counts them). Samples are summed in batches
// (between 16 and 32 per chain, see batches.go); when the run ends the first
// BurnIn fraction of the batches (rounded up, at least one batch left) is
// discarded, so the same fraction is discarded whichever budget ended the
// run, and a run stopped by time after n sweeps is the run capped at n
// sweeps.
//
// Output: the marginals of every variable and every factor are the
// empirical frequencies of the kept samples of all chains, from the same
// samples, so every factor marginal sums exactly onto its variables'
// marginals (the shared check's consistency holds by construction; no
// Rao-Blackwellisation, which would break that, and which would not help
// where the errors are: rare states of whole clusters, which single-site
// conditionals do not see).
//
// Standard errors: StandardErrors gives the Monte Carlo standard error of
// every variable state, the largest of
//   - batch means at several batch sizes: the kept full batches of every
//     chain, then pairs of them, fours, ... while every chain has two
//     groups, each estimate multiplied by the Student t quantile of its
//     degrees of freedom over 1.96 (few groups, noisy spread) — small
//     batches look independent to a chain that stays in a mode for longer
//     than a batch, large ones do not;
//   - the spread of the chains' means (chains stuck in different modes);
//   - the error of n/τ independent samples, τ the integrated
//     autocorrelation time of the counted replica's log potential
//     ("energy_tau", batch means): no state is reported as better known
//     than the slowest thing the energy sees allows, with the frequency
//     moved by half a sample (a state never seen still gets an error);
//   - for pt, on a state seen less than once per round trip (frequency
//     below 1/R, R the "round_trips" of the kept sweeps: arrivals at β = 1
//     of replicas that have been at the hottest rung since, β = 0 or the
//     last relaxation rung), the error of R
//     independent samples: such states (a cluster excited with probability
//     1e-4 on a spin glass) reach β = 1 only down the ladder, in bursts, so
//     their counts are worth about R samples, and a state never seen may
//     still have probability about 1/R.
//
// NaN with fewer than two full kept batches in all. On the ten 10x10 spin
// glasses with couplings U(-10,10) of the paper run (seed 11), pt with 2
// chains of 60000 sweeps: batch means of one size and the chains' spread
// covered twice the error on 0.71 of the variables (the misses were rare
// cluster states never or barely seen, and mode weights); all four terms
// cover 0.99, at the price of standard errors several times the typical
// error on models with few round trips (se_mean 0.018 where the mean
// error is 0.0004, 39 round trips). Gibbs on the paper's 10x10 grids
// (J ~ N(0,1), γ 1; 4 chains of 20000): 0.94 before, 0.97 with them.
// Diagnostics: "ess_min" and "ess_mean"
// over variables of the effective sample size p(1-p)/SE² (least over a
// variable's states), "rhat_max" (split-R̂ over every variable state, each
// chain's kept batches cut into halves), "se_mean" and "se_max",
// "energy_tau", "sweeps", "burn_in_sweeps", "batch_size", "chains"; for pt
// also "round_trips" (all chains) and "round_trips_min" (the fewest of a
// chain), "swap_rate_mean", "swap_rate_min", "swap_rate_K" (between β_K and
// β_{K+1}, the rungs numbered from β = 1 down, relaxation rungs last),
// "log_z_se", "log_z_ref_too_wide" (1) when the feasible configurations
// were too many to count (reference.go), and "relax_rungs" and
// "penalty_max" when there are relaxation rungs.
//
// Converged means split-R̂ ≤ MaxRhat on every state of every variable
// (which needs two full kept batches per chain), and, as for every method,
// that the answer passed the shared check (the registry's wrapper). For pt
// the ladder must mix too, since R̂ of the β = 1 replicas cannot see a
// ladder that never brings them anything from the hot end (a strongly
// coupled chain with the ladder {1, 0}: R̂ 1.001, no swap accepted): every
// chain must make at least MinRoundTrips round trips in its kept sweeps
// (default 10: about ten independent draws of the modes' weights per chain),
// every neighbouring pair of temperatures must swap at a rate of at least
// MinSwapRate (default 0.05: a pair below it is a bottleneck of the
// ladder, and its stepping stone rests on rare overlaps), and ln Z must be
// finite. R̂ and
// the standard errors cannot see a mode no chain has visited, only bound
// how probable an unseen state may be (the n/τ and 1/R floors): on a 4x4
// spin glass with couplings U(-10,10) (infertest.SpinGlass seed 2), pt's 2
// chains of 20000 sweeps both missed a mode of about 3 % of the mass (R̂
// 1.001, ln Z 0.03 low); 4 chains of 100000 sweeps found it (mean error
// 0.004).
//
// Parallel tempering: every chain is a ladder of replicas at inverse
// temperatures 1 = β_0 > β_1 > ... > β_{K-1} > β_K = 0, each sampling a
// tempered model p_β. Zero potentials (evidence, deterministic entries of
// factors of any arity) are hard constraints and hold at every
// temperature: p_β(x) is 0 wherever the model's is, so every replica lives
// on the feasible set F = {x : p(x) > 0}, and swaps and stepping stones
// only ever compare feasible configurations. What is tempered are the
// finite entries, as the option temper says:
//   - "pairs": p_β(x) ∝ [x ∈ F]·exp(U(x) + β·P(x)), U the sum of the unary
//     factors (so fields hold at every temperature) and P the sum of the
//     finite entries of the factors of two or more variables; the
//     "energy" E below is P.
//   - "all": p_β(x) ∝ [x ∈ F]·exp(β·(U'(x) + P(x))), U' the unary factors'
//     finite entries: everything finite is tempered; β = 0 is uniform over
//     F; E is U' + P.
//
// A ladder whose β = 0 rung dropped the zeros of factors of several
// variables would put its mass on impossible configurations: on the
// shipped pedigrees its replica was never feasible, no swap with it was
// accepted and ln Z was -Inf; on the shipped soft CSPs no replica made a
// round trip and ln Z was 0.84 low.
//
// Relaxation rungs (option relax; ladder.go) may follow β = 0: the zeros
// of factors of several variables become a penalty falling to 0, so that
// replicas cross infeasible configurations between pieces of the feasible
// set that single-site moves cannot join (deterministic factors, as in
// genetic-linkage pedigrees: a child's allele is its parent's, chosen by a
// selector). By default (auto) they are added where a constraint fixes one
// of its variables given the others outside the blocks, or where the
// feasible configurations are too many to count. They are not enough on
// genetic-linkage pedigrees: such models need far more round trips than
// single-site moves make in seconds. Block draws (option blocks, default
// auto; blocks.go) are: each locus's variables are drawn jointly at every
// temperature, so every rung reaches every feasible configuration, and no
// relaxation rung is needed. On the linkage family (core/mrf;
// mrf.DeriveSeed(1, k); pt's defaults, 10 s for sizes 12 and 16, 20 s for
// 20 and 24, on a shared machine under load), single-site moves with relaxation rungs left ln Z
// off by up to 13 standard errors (-9.0 nats; -6.3 at size 24), mean |ΔP|
// 0.05 to 0.12, R̂ 1.2 to 5.1, least swap rate 0.003 to 0.1, and never
// converged; on one model of 432 variables the search for a feasible start
// gave up. With block draws: ln Z within 1.3 standard errors of exact on
// all 13 of the 20 models exact inference could solve (sizes 12 and 16,
// seeds k = 0..5; 20 and 24, k = 0..3), mean |ΔP| 0.003 to 0.010, least
// swap rate 0.35 or more, 17 of the 20 converged (R̂ 1.010 to 1.023 on the
// other three).
//
// Every sweep, each replica does one Gibbs sweep, then neighbours K, K+1
// swap configurations, in order from the top, with probability
// min(1, exp((β_K - β_{K+1})(E_{K+1} - E_K))). Only the β = 1 replica is
// counted. The default is temper "all" rather than "pairs":
// with untempered fields, the balance between the two orientations of a
// large frozen domain of a spin glass depends strongly on β (the fields'
// sum over the domain, several units, against β times the couplings'
// difference; at β = 1 they nearly cancel), so replicas carry the wrong
// orientation down the ladder and the β = 1 replica's weights relax only
// over many round trips; tempering the fields too keeps that balance near
// its β = 1 value along the whole ladder. On the ten 10x10 spin glasses
// with couplings U(-10,10), fields U(-1,1) of the paper run (seed 11), 2
// chains of 60000 sweeps, mean |ΔP| over the models for seeds 1, 2, 3
// went from 0.017, 0.003, 0.010 ("pairs") to 0.0020, 0.0024, 0.0044
// ("all"), se_coverage 0.985 or more, at 8 s of CPU per model; model 3
// (a domain of about 80 spins, orientations 0.60/0.40) from 0.158 to 0.010
// on one run (round trips 316 to 774, same swap rates). With couplings
// U(-15,15): 0.0066 to 0.0012 (seed 1; 0.0027, 0.0026 for seeds 2, 3); on
// the 10x10 tori with U(-10,10): 0.021 (se_coverage 0.84) to 0.0025, 0.0033,
// 0.0054 (se_coverage 1, 0.99, 0.88: on seed 3 both chains agreed on
// slightly wrong weights of two models, which no standard error sees). The default ladder is 20 temperatures geometric from 1 to 0.02
// plus 0, in 2 chains: on the spin glasses it is made for (couplings
// U(-10,10), fields U(-1,1) on 10x10 grids) β = 0.02 makes every coupling
// weaker than 0.2, so the hot end mixes freely, and the geometric spacing
// (ratio 0.81) gave swap rates of 0.3 to 0.8 between every pair of positive
// temperatures (swap_rate_*). Measured on two of those models at equal
// cost, 2 chains of 20 temperatures reached mean |ΔP| 0.004 and 0.0004 where
// 4 chains of 24 reached 0.32 and 0.12, and 2 chains of 12 or 16 (swap
// rates down to 0.01) 0.04 and worse: the chains must be long enough for
// replicas to travel the whole ladder many times.
//
// ln Z: gibbs makes none (Result.LogZ is NaN; registered as LogZNone). pt
// estimates it by stepping stones down its ladder: ln Z = ln Z_0 +
// Σ_K ln E_{p_{β_K}}[exp((β_{K-1} - β_K)·E)], K = 1..K, where Z_0, the
// normaliser of the β = 0 rung, is a weighted count of F: Σ_{x ∈ F}
// exp(U(x)) under temper "pairs", |F| under "all". It is counted exactly
// (reference.go): arc consistency, then the independent pieces the zeros
// of factors of several variables join, each by variable elimination (a
// product over the variables when the zeros are all unary). A piece too
// wide to count (beyond 2^20-entry tables; "log_z_ref_too_wide" 1) leaves
// the stones down the relaxation rungs, which relax auto then adds, to a
// last rung whose normaliser is a product over the variables; with relax
// off there is no ln Z (NaN), and the answer is not converged. "log_z_se" is the standard error of
// ln Z: the delta method on the sum of the stones' relative deviations per
// batch (so correlations between stones count), by batch means at every
// level of grouping and the chains' spread, the largest (as for the
// marginals). It understates the error when neighbouring temperatures
// overlap poorly (the swap-rate floor) or the chains miss a mode (then ln Z
// is low).
//
// Cluster move (option cluster "houdayer", off by default; cluster.go):
// chains are paired, and after every sweep the pair's replicas at every
// positive temperature exchange one cluster of the sites where they
// disagree (Houdayer 2001), always accepted. The pair's chains are then
// dependent, so the standard errors, R̂ and energy_tau treat each pair as
// one chain (counting both its β = 1 replicas; counted chain by chain,
// se_coverage was 0.83 on the spin glasses below with temper "pairs");
// "cluster_size_mean" in the diagnostics. It is not the default: on those spin glasses (2 chains of
// 60000 sweeps, seed 1, temper "all") it took 10.8 s of CPU per model
// against 8.3, above a budget of 10 s per model, for mean |ΔP| 0.0016
// against 0.0020 and |ln Z error| 0.038 against 0.094 (se_coverage 1
// both); with temper "pairs" it did not fix the domains temper "all"
// fixes (model 3: 0.10; a domain whose two orientations differ by fields
// is only exchanged between two replicas holding both, which leaves their
// pooled counts as they were). At 45000 sweeps (about the cost of 60000
// without it) it did as well or better on the runs measured: grids seeds 1
// and 3 mean |ΔP| 0.0023 and 0.0029, |ln Z error| 0.044 and 0.058,
// se_coverage 1; torus seed 3 0.0044, se_coverage 0.94 (0.88 without).
package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// defaultParallelWork is the work of one chain's sweep (replicas times
// variables and incidences) above which the chains of a sweep run in
// goroutines of their own: below it (a Gibbs chain on a small grid, some
// microseconds) starting them costs more than it saves. Each chain draws
// from its own generator, so the result does not depend on it.
const defaultParallelWork = 4000

// Sampler is gibbs or pt. It keeps no state between calls but the standard
// errors of the last one. A Sampler is not safe for concurrent use.
type Sampler struct {
	name  string
	opts  Options
	betas []float64 // the ladder: {1} for gibbs; positive ones then 0 for pt
	swaps int       // swap passes per sweep (pt)
	// temperAll: pt tempers the unary factors' finite entries too (option
	// temper "all").
	temperAll bool
	// move is the cluster move between paired chains (pt's cluster
	// option), nil for none; a field so that a test can break it.
	move func(l *layout, a, b *replica, rng *rand.Rand, w *clusterWork) int
	// minTrips and minSwap are pt's mixing requirements of a converged
	// answer (PTOptions.MinRoundTrips, MinSwapRate).
	minTrips int
	minSwap  float64
	// parallelWork is the sweep work above which chains run in parallel
	// (defaultParallelWork; a field so that a test can force either way).
	parallelWork int
	// relax, relaxRungs and penaltyMax are pt's relaxation rungs
	// (PTOptions.Relax, RelaxRungs, PenaltyMax; ladder.go).
	relax      string
	relaxRungs int
	penaltyMax float64
	// lad is the ladder of the current call: betas, then any relaxation
	// rungs.
	lad    []rung
	se     [][]float64
	logZSE float64 // of the last call's ln Z (NaN for gibbs)
}

// New returns a Gibbs sampler with opts.
func New(opts Options) (*Sampler, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &Sampler{name: "gibbs", opts: opts, betas: []float64{1}, parallelWork: defaultParallelWork}, nil
}

// NewPT returns a parallel-tempering sampler with opts.
func NewPT(opts PTOptions) (*Sampler, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	b, err := opts.Ladder()
	if err != nil {
		return nil, err
	}
	s := &Sampler{name: "pt", opts: opts.common(), betas: append(b, 0), swaps: opts.Swaps, temperAll: opts.Temper == TemperAll,
		minTrips: opts.MinRoundTrips, minSwap: opts.MinSwapRate,
		relax: opts.Relax, relaxRungs: opts.RelaxRungs, penaltyMax: opts.PenaltyMax, parallelWork: defaultParallelWork}
	if opts.Cluster == ClusterHoudayer {
		s.move = (*layout).houdayer
	}
	return s, nil
}

// Name returns "gibbs" or "pt".
func (s *Sampler) Name() string { return s.name }

// SetParallel sets whether a call's chains sweep in goroutines of their own
// (the default: when GOMAXPROCS is above 1 and a sweep is long enough to
// repay the wait for the slowest chain every sweep). A caller that runs
// samplers side by side, one core each, turns it off.
func (s *Sampler) SetParallel(on bool) {
	s.parallelWork = defaultParallelWork
	if !on {
		s.parallelWork = math.MaxInt
	}
}

// Betas returns the ladder (gibbs: just 1; pt: ending in 0).
func (s *Sampler) Betas() []float64 { return append([]float64(nil), s.betas...) }

// ClaimsLogZ reports whether the sampler estimates ln Z (infer.LogZClaim):
// pt does, gibbs does not.
func (s *Sampler) ClaimsLogZ() bool { return len(s.betas) > 1 }

// StandardErrors returns the Monte Carlo standard error of every state of
// every variable's marginal from the last Infer call (infer.StandardErrors).
func (s *Sampler) StandardErrors() [][]float64 { return s.se }

// LogZStandardError returns the standard error of the last Infer call's ln
// Z ("log_z_se"; infer.LogZStandardError): NaN for gibbs, which makes no ln
// Z, and where pt could not estimate one.
func (s *Sampler) LogZStandardError() float64 { return s.logZSE }

// chain is one chain: a ladder of replicas (one for gibbs) and its batches.
type chain struct {
	rng      *rand.Rand
	reps     []*replica // reps[k] is at β_k
	b        *batches
	bw       *blockWork // scratch of the block draws (nil without blocks)
	steps    int        // sweeps done
	attempts []int      // swaps tried between β_k and β_{k+1}
	accepts  []int
}

// Infer samples m and returns the marginals of the kept samples.
func (s *Sampler) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	s.se, s.logZSE = nil, math.NaN()
	if m == nil {
		return nil, errors.New(s.name + ": nil model")
	}
	budget := infer.Budget{MaxIter: s.opts.Sweeps, MaxSeconds: s.opts.MaxSeconds}
	if budget.MaxIter == 0 {
		budget.MaxIter = math.MaxInt
	}
	// The budget covers the whole call: set-up, the search for feasible
	// starts and the reference normaliser count before the first sweep.
	stop := budget.Start(infer.BeginCall(ctx))
	g, err := infer.NewFactorGraph(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	l := newLayout(m, g)
	if s.temperAll {
		l.setTemperAll()
	}
	dom, err := s.domains(l)
	if err != nil {
		return nil, err
	}
	res := &infer.Result{Diagnostics: map[string]float64{}}
	if n := l.setBlocks(dom, s.opts.Blocks); n > 0 {
		res.Diagnostics["blocks"], res.Diagnostics["block_vars"] = float64(len(l.blocks)), float64(n)
	}
	ref, err := s.reference(l, dom, res.Diagnostics)
	if err != nil {
		return nil, err
	}
	chains, shared, err := s.start(ctx, l, dom, stop)
	if err != nil {
		return nil, err
	}
	if shared > 0 {
		res.Diagnostics["shared_starts"] = float64(shared)
	}
	if err := s.run(l, chains, stop, res); err != nil {
		return nil, err
	}
	res.Status = stop.Reason() // the sweeps or the time budget; finish tests convergence
	s.finish(l, chains, ref, res)
	return res, nil
}

// run sweeps every chain until stop ends the run, counting the sweeps in
// res, and notes the cluster moves' mean size.
func (s *Sampler) run(l *layout, chains []*chain, stop *infer.Stop, res *infer.Result) error {
	bufs := make([][]float64, len(chains))
	for c := range bufs {
		bufs[c] = make([]float64, l.g.MaxCard)
	}
	parallel := len(chains) > 1 && runtime.GOMAXPROCS(0) > 1 &&
		len(s.lad)*(len(l.cards)+len(l.incFactor)) >= s.parallelWork
	var work []*clusterWork
	if s.move != nil {
		for range len(chains) / 2 {
			work = append(work, newClusterWork(len(l.cards)))
		}
	}
	for {
		more, err := stop.Next()
		if err != nil {
			return fmt.Errorf("%s: stopped after %d sweeps: %w", s.name, res.Iterations, err)
		}
		if !more {
			break
		}
		if parallel {
			var wg sync.WaitGroup
			for k, c := range chains {
				wg.Go(func() { s.step(l, c, bufs[k]) })
			}
			wg.Wait()
		} else {
			for k, c := range chains {
				s.step(l, c, bufs[k])
			}
		}
		s.cluster(l, chains, work)
		res.Iterations++
	}
	if len(work) > 0 {
		moves, flipped := 0, 0
		for _, w := range work {
			moves, flipped = moves+w.moves, flipped+w.flipped
		}
		res.Diagnostics["cluster_size_mean"] = float64(flipped) / float64(max(moves, 1))
	}
	return nil
}

// cluster makes the cluster moves between paired chains (after the sweeps,
// swaps and counting of a step, before the next), at every positive
// inverse temperature, drawing from the pair's first chain's generator.
func (s *Sampler) cluster(l *layout, chains []*chain, work []*clusterWork) {
	for p, w := range work {
		a, b := chains[2*p], chains[2*p+1]
		for k := range len(s.betas) - 1 { // the positive temperatures
			s.move(l, a.reps[k], b.reps[k], a.rng, w)
		}
	}
}

// domains returns the domains arc consistency leaves (nil when the model
// has no zero potential), or an error when the model has no feasible
// configuration.
func (s *Sampler) domains(l *layout) (feasible.Domains, error) {
	if math.IsInf(l.constant, -1) { // a zero-arity factor of zero potential
		return nil, fmt.Errorf("%s: %w", s.name, errNoFeasible)
	}
	if !feasible.HasZeros(l.m) {
		return nil, nil
	}
	dom := feasible.Full(l.cards)
	if !feasible.Propagate(l.g, l.m, dom) {
		return nil, fmt.Errorf("%s: %w", s.name, errNoFeasible)
	}
	return dom, nil
}

// reference sets the call's ladder and returns ln Z_0 of the β = 0 rung,
// counted (reference.go), or NaN when it is not (gibbs, or too wide to
// count: then the relaxation rungs, if any, give ln Z). It notes in diag
// what it did.
func (s *Sampler) reference(l *layout, dom feasible.Domains, diag map[string]float64) (float64, error) {
	if len(s.betas) == 1 {
		s.lad = []rung{{beta: 1, lambda: math.Inf(1)}}
		return math.NaN(), nil
	}
	ref, err := l.refLogZ(dom)
	wide := errors.Is(err, errRefTooWide)
	if err != nil && !wide {
		return 0, fmt.Errorf("%s: reference normaliser: %w", s.name, err)
	}
	relax := l.nHard > 0 && (s.relax == RelaxOn || s.relax == RelaxAuto && (wide || l.deterministic(dom)))
	s.lad = s.ladder(l, relax)
	if wide {
		ref = math.NaN()
		diag["log_z_ref_too_wide"] = 1
	}
	if relax {
		diag["relax_rungs"] = float64(len(s.lad) - len(s.betas))
		diag["penalty_max"] = s.lad[len(s.betas)].lambda
	}
	return ref, nil
}

// start builds every chain from a feasible configuration within dom. A
// chain searches for its own unless the time budget of stop is spent; then,
// or when its search stops on the budget, it starts at an earlier chain's
// configuration (on a soft CSP of 100 variables a search took about 20 ms
// of CPU, the time of thousands of sweeps). With no configuration found
// before the budget ran out or ctx was done, start fails. It also returns
// how many chains share a start.
func (s *Sampler) start(ctx context.Context, l *layout, dom feasible.Domains, stop *infer.Stop) ([]*chain, int, error) {
	over := func() bool { return ctx.Err() != nil || stop.Expired() }
	chains := make([]*chain, s.opts.Chains)
	var found [][]int // the configurations the searches found
	for c := range chains {
		rng := mrf.NewRand(mrf.DeriveSeed(s.opts.Seed, c))
		x := sharedStart(found, c, dom, stop.Expired)
		if x == nil {
			var err error
			x, err = l.start(rng, dom, over)
			switch {
			case ctx.Err() != nil:
				return nil, 0, fmt.Errorf("%s: chain %d: stopped while searching for a feasible start: %w", s.name, c, ctx.Err())
			case err == nil:
				found = append(found, x)
			case len(found) > 0 && stop.Expired():
				x = found[c%len(found)]
			default:
				return nil, 0, fmt.Errorf("%s: chain %d: %w", s.name, c, err)
			}
		}
		ch := &chain{rng: rng, b: newBatches(l.width, len(s.lad)-1),
			attempts: make([]int, len(s.lad)-1), accepts: make([]int, len(s.lad)-1)}
		if len(l.blocks) > 0 {
			ch.bw = newBlockWork(l.blocks, l.g.MaxCard)
		}
		for range s.lad {
			ch.reps = append(ch.reps, l.newReplica(append([]int(nil), x...)))
		}
		chains[c] = ch
	}
	if dom == nil {
		return chains, 0, nil
	}
	return chains, len(chains) - len(found), nil
}

// sharedStart returns the start of chain c when it shares an earlier
// chain's: when its start needs a search (dom not nil), one has been found
// and the time budget is spent (expired); nil otherwise.
func sharedStart(found [][]int, c int, dom feasible.Domains, expired func() bool) []int {
	if dom == nil || len(found) == 0 || !expired() {
		return nil
	}
	return found[c%len(found)]
}

// step runs one sweep of every replica of c, the swaps, and records the
// sample.
func (s *Sampler) step(l *layout, c *chain, buf []float64) {
	lad := s.lad
	for k, r := range c.reps {
		if lad[k].relaxed() {
			l.sweepRelaxed(r, lad[k].lambda, c.rng, buf)
		} else {
			l.sweep(r, lad[k].beta, c.rng, buf)
			if c.bw != nil {
				l.sweepBlocks(r, lad[k].beta, c.rng, c.bw)
			}
			r.v = 0
		}
	}
	if c.steps++; l.is != nil && c.steps%resyncSweeps == 0 {
		for _, r := range c.reps {
			l.sync(r)
		}
	}
	row := c.b.begin()
	if len(lad) > 1 {
		for k, r := range c.reps {
			if !lad[k].relaxed() {
				r.e = l.energy(r) // relaxation rungs are at β = 0
			}
		}
		for range s.swaps {
			for k := 0; k+1 < len(lad); k++ {
				la := swapLog(lad, k, c.reps[k], c.reps[k+1])
				c.attempts[k]++
				if la >= 0 || c.rng.Float64() < math.Exp(la) {
					c.reps[k], c.reps[k+1] = c.reps[k+1], c.reps[k]
					c.accepts[k]++
				}
			}
			c.reps[len(lad)-1].hot = true
			if r := c.reps[0]; r.hot {
				r.hot = false
				c.b.trips[row]++
			}
		}
	}
	e := s.record(l, c.reps[0], c.b.row(row))
	c.b.energy[2*row] += e
	c.b.energy[2*row+1] += e * e
	lw := c.b.logw[row*c.b.rungs : (row+1)*c.b.rungs]
	for k := 1; k < len(lad); k++ {
		lw[k-1] = logAddExp(lw[k-1], stoneLog(lad, k, c.reps[k]))
	}
}

// record counts r's variable states and factor entries into row and
// returns r's tempered log potential (finite: the counted replica is never
// outside the support).
func (s *Sampler) record(l *layout, r *replica, row []int32) float64 {
	e := l.softEnergy(r)
	for i, x := range r.x {
		row[l.varOff[i]+x]++
	}
	for k, v := range l.unaryVar {
		row[l.unaryOff[k]+r.x[v]]++
	}
	if is := l.is; is != nil {
		for k, a := range l.pairs {
			t := l.tOff[a] + r.x[is.v0[k]]*int(is.s0[k]) + r.x[is.v1[k]]*int(is.s1[k])
			row[l.pairOff[k]+t]++
			e += l.flat[t]
		}
	} else {
		for k, a := range l.pairs {
			t := r.idx[a]
			row[l.pairOff[k]+t]++
			e += l.flat[t]
		}
	}
	for _, off := range l.constOff {
		row[off]++
	}
	return e
}

// finish turns the kept batches into marginals, standard errors, ln Z and
// the diagnostics.
func (s *Sampler) finish(l *layout, chains []*chain, ref float64, res *infer.Result) {
	nChains := len(chains)
	if s.move != nil {
		chains = pairUp(chains)
	}
	b0 := chains[0].b // every chain has the same batches
	d := b0.burnIn(s.opts.BurnIn)
	full := b0.full(d)
	kept := b0.sweeps() - d*b0.size
	n := float64(kept * len(chains))
	tot := make([]float64, l.width)
	for _, c := range chains {
		for k := d; k < c.b.n; k++ {
			for j, v := range c.b.row(k) {
				tot[j] += float64(v)
			}
		}
	}
	mg := &res.Marginals
	mg.Vars = make([][]float64, len(l.cards))
	for i, c := range l.cards {
		mg.Vars[i] = scale(tot[l.varOff[i]:l.varOff[i]+c], n)
	}
	mg.Factors = make([][]float64, len(l.m.Factors))
	for a, f := range l.m.Factors {
		mg.Factors[a] = scale(tot[l.facOff[a]:l.facOff[a]+len(f.LogTable)], n)
	}
	st := s.varStats(l, chains, d, full, n, mg.Vars)
	diag := res.Diagnostics
	diag["chains"] = float64(nChains)
	diag["sweeps"] = float64(res.Iterations)
	diag["burn_in_sweeps"] = float64(d * b0.size)
	diag["batch_size"] = float64(b0.size)
	diag["ess_min"], diag["ess_mean"] = st.essMin, st.essMean
	diag["rhat_max"] = st.rhatMax
	diag["se_mean"], diag["se_max"] = st.seMean, st.seMax
	diag["energy_tau"] = st.tau
	converged := st.rhatMax <= s.opts.MaxRhat
	res.LogZ, res.FreeEnergy = math.NaN(), math.NaN()
	if len(s.betas) > 1 {
		least := s.swapStats(chains, diag)
		diag["round_trips"] = st.trips
		fewest := tripsMin(chains, d)
		diag["round_trips_min"] = fewest
		lz, se := s.logZ(l, chains, ref, d, full, n)
		res.LogZ, res.FreeEnergy = lz, -lz
		diag["log_z_se"], s.logZSE = se, se
		// The ladder must mix, and ln Z be finite (it is not without a
		// reference normaliser).
		converged = converged && fewest >= float64(s.minTrips) && least >= s.minSwap &&
			!math.IsNaN(lz) && !math.IsInf(lz, 0)
	}
	if converged {
		res.Status = infer.Converged
	}
}

// tripsMin returns the fewest round trips of a chain in its kept batches
// (from batch d on).
func tripsMin(chains []*chain, d int) float64 {
	fewest := math.Inf(1)
	for _, c := range chains {
		r := 0.0
		for k := d; k < c.b.n; k++ {
			r += c.b.trips[k]
		}
		fewest = min(fewest, r)
	}
	return fewest
}

func scale(c []float64, n float64) []float64 {
	p := make([]float64, len(c))
	for k, v := range c {
		p[k] = v / n
	}
	return p
}

// stats are the per-variable Monte Carlo summaries.
type stats struct {
	essMin, essMean, rhatMax, seMean, seMax float64
	tau                                     float64 // energyTau
	trips                                   float64 // pt's round trips in the kept sweeps (NaN for gibbs)
}

// varStats sets s.se and returns the summaries: standard errors and ESS
// over the full kept batches of every chain (see the package comment),
// split-R̂ over the halves of each chain's full kept batches.
func (s *Sampler) varStats(l *layout, chains []*chain, d, full int, n float64, p [][]float64) stats {
	size := float64(chains[0].b.size)
	half := full / 2
	st := stats{essMin: math.Inf(1), rhatMax: 1}
	if half < 1 {
		st.rhatMax = math.NaN()
	}
	s.se = make([][]float64, len(l.cards))
	nse, ness := 0, 0
	st.tau = energyTau(chains, d, full)
	st.trips = math.NaN()
	if len(s.betas) > 1 {
		st.trips = 0
		for _, c := range chains {
			for k := d; k < c.b.n; k++ {
				st.trips += c.b.trips[k]
			}
		}
	}
	bm := newBatchMeans(chains, d, full)
	seqs := make([]float64, 0, 2*len(chains))
	for i, c := range l.cards {
		s.se[i] = make([]float64, c)
		ess := math.Inf(1)
		for x := range c {
			j := l.varOff[i] + x
			seqs = seqs[:0]
			for _, ch := range chains {
				if half >= 1 {
					seqs = append(seqs, meanOf(ch.b, j, d, half), meanOf(ch.b, j, d+full-half, half))
				}
			}
			se := math.NaN()
			if full*len(chains) >= 2 {
				q := p[i][x]
				se = max(bm.se(j, n), chainSE(chains, j, d, n), iidSE(q, n/st.tau))
				if r := st.trips; r >= 0 && min(q, 1-q)*r < 1 {
					se = max(se, iidSE(q, max(r, 1)))
				}
				st.seMean += se
				st.seMax = max(st.seMax, se)
				nse++
			}
			s.se[i][x] = se
			if q := p[i][x]; q > 0 && q < 1 && se > 0 {
				ess = min(ess, q*(1-q)/(se*se))
			}
			if half >= 1 {
				st.rhatMax = max(st.rhatMax, rhat(seqs, float64(half)*size))
			}
		}
		if !math.IsInf(ess, 1) {
			st.essMin = min(st.essMin, ess)
			st.essMean += ess
			ness++
		}
	}
	if nse > 0 {
		st.seMean /= float64(nse)
	} else {
		st.seMean, st.seMax = math.NaN(), math.NaN()
	}
	if ness > 0 {
		st.essMean /= float64(ness)
	} else {
		st.essMin, st.essMean = math.NaN(), math.NaN()
	}
	return st
}

// tRatio is the 97.5 % quantile of Student's t with nu degrees of freedom
// over the normal's 1.96: the factor by which a standard error estimated
// with nu degrees of freedom must grow for twice it to cover the error as
// often as twice a known one would.
func tRatio(nu int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}.Quantile(0.975) / 1.96
}

// batchMeans computes batch-means standard errors at several batch sizes:
// level g groups 2^g consecutive full kept batches of a chain (while every
// chain has at least two groups), and its error is inflated by tRatio of
// its degrees of freedom. The largest over the levels is the estimate: a
// chain that stays in a mode for longer than a batch makes the small
// batches look independent when they are not, and the larger ones see it.
type batchMeans struct {
	chains  []*chain
	d, full int
	t       []float64 // tRatio of level g
	means   []float64
}

func newBatchMeans(chains []*chain, d, full int) *batchMeans {
	b := &batchMeans{chains: chains, d: d, full: full}
	for g := 1; full/g >= 2; g *= 2 {
		b.t = append(b.t, tRatio(len(chains)*(full/g)-1))
	}
	return b
}

// se returns the estimate for counted state j of n kept samples (0 with
// fewer than two full batches per chain).
func (b *batchMeans) se(j int, n float64) float64 {
	size := float64(b.chains[0].b.size)
	best := 0.0
	for lv, g := 0, 1; lv < len(b.t); lv, g = lv+1, g*2 {
		b.means = b.means[:0]
		for _, ch := range b.chains {
			for k := range b.full / g {
				b.means = append(b.means, meanOf(ch.b, j, b.d+k*g, g))
			}
		}
		best = max(best, b.t[lv]*math.Sqrt(size*float64(g)*variance(b.means)/n))
	}
	return best
}

// energyTau is the integrated autocorrelation time (in sweeps, at least 1)
// of the counted replica's tempered log potential, by batch means over the
// full kept batches of every chain pooled: n/τ is the number of
// independent samples the run is worth for the slowest thing the energy
// sees (a mode switch moves it), and no variable is reported as better
// known than that.
func energyTau(chains []*chain, d, full int) float64 {
	if full < 1 {
		return 1
	}
	size := float64(chains[0].b.size)
	var means []float64
	s, s2 := 0.0, 0.0
	for _, c := range chains {
		for k := d; k < d+full; k++ {
			means = append(means, c.b.energy[2*k]/size)
			s += c.b.energy[2*k]
			s2 += c.b.energy[2*k+1]
		}
	}
	n := size * float64(len(means))
	v := s2/n - (s/n)*(s/n)
	if !(v > 0) || len(means) < 2 {
		return 1
	}
	return max(1, size*variance(means)/v)
}

// chainSE is the standard error of the mean of counted state j from the
// spread of the chains' own means (kept samples), 0 with one chain: it
// catches chains that each stay in their own part of the space, which
// batches within a chain cannot see.
func chainSE(chains []*chain, j, d int, n float64) float64 {
	if len(chains) < 2 {
		return 0
	}
	m := make([]float64, len(chains))
	for k, c := range chains {
		cnt := 0.0
		for r := d; r < c.b.n; r++ {
			cnt += float64(c.b.row(r)[j])
		}
		m[k] = cnt * float64(len(chains)) / n
	}
	return math.Sqrt(variance(m) / float64(len(chains)))
}

// iidSE is the standard error of a frequency p of n independent samples,
// with p moved to (np + 1/2)/(n + 1) so that a state never or always seen
// still has one: Monte Carlo samples are never worth more than independent
// ones.
func iidSE(p, n float64) float64 {
	q := (p*n + 0.5) / (n + 1)
	return math.Sqrt(q * (1 - q) / n)
}

// meanOf returns the frequency of counted state j over rows from to
// from+k-1 of full batches.
func meanOf(b *batches, j, from, k int) float64 {
	c := 0.0
	for r := from; r < from+k; r++ {
		c += float64(b.row(r)[j])
	}
	return c / float64(k*b.size)
}

// rhat is split-R̂ of an indicator from the frequencies p of sequences of
// length n each: sqrt(((n-1)/n·W + B/n) / W), W the mean within-sequence
// variance p(1-p)·n/(n-1), B/n the variance of the p. With W = 0 it is 1 if
// every sequence agrees, else +Inf.
func rhat(p []float64, n float64) float64 {
	w := 0.0
	for _, q := range p {
		w += q * (1 - q)
	}
	w /= float64(len(p))
	if n > 1 {
		w *= n / (n - 1)
	}
	bn := variance(p)
	if w == 0 {
		if bn == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return math.Sqrt(((n-1)/n*w + bn) / w)
}

// variance is the sample variance (n-1 in the denominator).
func variance(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

// swapStats adds the swap acceptance rates of every neighbouring pair and
// returns the least.
func (s *Sampler) swapStats(chains []*chain, diag map[string]float64) float64 {
	mean, least := 0.0, math.Inf(1)
	for k := 0; k+1 < len(s.lad); k++ {
		tried, took := 0, 0
		for _, c := range chains {
			tried += c.attempts[k]
			took += c.accepts[k]
		}
		r := float64(took) / float64(max(tried, 1))
		diag["swap_rate_"+strconv.Itoa(k)] = r
		mean += r
		least = min(least, r)
	}
	diag["swap_rate_mean"] = mean / float64(len(s.lad)-1)
	diag["swap_rate_min"] = least
	return least
}

// logZ returns the stepping-stone estimate of ln Z and its standard error:
// from the β = 0 rung's counted ln Z_0 (refLogZ) down the temperature
// stones, or, when it was not counted, from the last relaxation rung's
// (freeLogZ) down every stone; NaN without either.
func (s *Sampler) logZ(l *layout, chains []*chain, ref float64, d, full int, n float64) (float64, float64) {
	stones := len(s.betas) - 1
	if math.IsNaN(ref) && len(s.lad) > len(s.betas) {
		ref, stones = l.freeLogZ(), len(s.lad)-1
	}
	lz := l.constant + ref
	size := float64(chains[0].b.size)
	// y[c][b]: the stones' relative deviations, summed, in full batch b of
	// chain c (delta method: ln Z's error is about their sum).
	y := make([][]float64, len(chains))
	for c := range y {
		y[c] = make([]float64, max(full, 0))
	}
	for k := range stones {
		sum := math.Inf(-1)
		for _, c := range chains {
			for r := d; r < c.b.n; r++ {
				sum = logAddExp(sum, c.b.logw[r*c.b.rungs+k])
			}
		}
		lr := sum - math.Log(n)
		lz += lr
		for ci, c := range chains {
			for r := d; r < d+full; r++ {
				y[ci][r-d] += math.Exp(c.b.logw[r*c.b.rungs+k]-math.Log(size)-lr) - 1
			}
		}
	}
	if math.IsNaN(lz) || math.IsInf(lz, 0) {
		return lz, math.NaN()
	}
	return lz, seriesSE(y, size, n)
}

// seriesSE is the standard error of the mean of a quantity recorded per
// full kept batch of size sweeps (y[c][b], chain c, batch b; n samples in
// the mean): the largest of batch means at every level of grouping (as
// batchMeans, inflated by tRatio) and the spread of the chains' means; NaN
// with fewer than two batches in all.
func seriesSE(y [][]float64, size, n float64) float64 {
	full := len(y[0])
	if full*len(y) < 2 {
		return math.NaN()
	}
	best := 0.0
	for g := 1; g == 1 || full/g >= 2; g *= 2 {
		var means []float64
		for _, c := range y {
			for k := 0; k+g <= full; k += g {
				means = append(means, meanOf64(c[k:k+g]))
			}
		}
		best = max(best, tRatio(len(means)-1)*math.Sqrt(size*float64(g)*variance(means)/n))
	}
	if len(y) >= 2 {
		m := make([]float64, len(y))
		for c := range y {
			m[c] = meanOf64(y[c])
		}
		best = max(best, math.Sqrt(variance(m)/float64(len(y))))
	}
	return best
}

func meanOf64(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
