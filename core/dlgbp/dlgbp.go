// Package dlgbp implements double-loop generalized belief propagation
// ("dlgbp"): a convergent minimiser of the region (Kikuchi) free energy that
// parent-to-child GBP (core/gbp) looks for a stationary point of, on the same
// region graph, after Heskes, Albers and Kappen (2003, "Approximate inference
// and constrained optimization") and Yuille's CCCP (2002).
//
// The free energy of region beliefs b, with counting numbers c_R from the
// region graph and region energies E_R = -Σ_{a ∈ F_R} ln ψ_a, is
//
//	F(b) = Σ_R c_R Σ_x b_R(x) (E_R(x) + ln b_R(x)),
//
// minimised over normalised beliefs with Σ_{x_{P\C}} b_P = b_C on every edge
// P→C. Its stationary points are GBP's fixed points. Write every entropy
// weight as c_R = w_R + (c_R - w_R) with a convex weight w_R > 0: w_R = c_R
// where c_R > 0 and w_R = max(1, -c_R)/4 where c_R ≤ 0. The terms
// (c_R - w_R) Σ b_R ln b_R are then concave (c_R - w_R ≤ 0).
//
// Outer loop (CCCP). At the current beliefs b^t, every concave term is
// replaced by its linearisation, an upper bound that touches at b^t:
//
//	F_t(b) = Σ_R w_R Σ_x b_R(x) (ln b_R(x) - θ_R(x)) + const,
//	θ_R = (c_R ln ψ_R - (c_R - w_R) ln b^t_R) / w_R,
//
// a sum of weighted relative entropies, strictly convex. Its minimiser
// b^{t+1} under the constraints satisfies F(b^{t+1}) ≤ F_t(b^{t+1}) ≤
// F_t(b^t) = F(b^t): the free energy never increases (up to the inner loop's
// tolerance), and the outer loop stops when no belief entry moved by more
// than Tol. A fixed point of the outer loop is a stationary point of F, so
// where GBP converges dlgbp reaches the same fixed point (when F has one
// minimum nearby; measured equal within 1e-6 on grids and complete graphs).
//
// Acceleration. Where F is flat near its minimum the plain step converges
// linearly with a rate near 1: on a 10x10 torus with couplings U(-10,10)
// (hard models, seed 11, model 4) the largest belief change was 1e-6 after
// 2000 steps, 1e-8 after 10750 and then shrank by 0.9996 per step. The
// outer loop is therefore accelerated by SQUAREM (see squarem): two plain
// steps from an iterate, an extrapolated linearisation point from them (a
// consistent point, since the constraints are linear), and the extrapolation
// is kept only if the free energy is no higher than after the plain steps.
// A cycle whose inner loops stopped at InnerIter does not extrapolate (see
// squarem).
//
// Inner loop. With one Lagrange multiplier table λ_{PC}(x_C) per edge, the
// minimiser has the form b_R ∝ exp(θ_R + (Σ_{P ∈ pa(R)} λ_{PR} -
// Σ_{C ∈ ch(R)} λ_{RC}) / w_R), and the dual is a smooth concave function of
// λ. The inner loop is cyclic block-coordinate ascent on it, one block per
// child region C (the λ of every edge into C), maximised in closed form:
// with μ_P the marginal of parent P on C,
//
//	b_C ← Π_P μ_P^{w_P/W} · b_C^{w_C/W} (normalised),  W = w_C + Σ_P w_P,
//	b_P(x) ← b_P(x) · b_C(x_C) / μ_P(x_C) for every parent P,
//
// after which C agrees with all its parents. Exact cyclic block ascent on a
// smooth concave dual of a strictly convex problem with linear constraints
// converges (the iterative-scaling / Bregman-projection argument), whatever
// the model: there is no damping to tune. The beliefs themselves carry the
// multipliers, so the next outer step only multiplies them by
// exp(θ^{t+1} - θ^t) and the inner loop warm-starts; it stops when no parent
// marginal differs from its child by more than max(InnerTol, innerRel · δ),
// δ the last outer step (inexact CCCP), or after InnerIter sweeps; once
// the outer loop stalls (no new smallest step in 200), δ is the smallest
// step so far instead, so that the tolerance never loosens again.
//
// Start. A cold start first runs single-loop GBP (GBPIter sweeps, default
// 2000, within the time budget) and, where it converges, starts at its
// fixed point (a fixed point of the outer loop too), so that dlgbp returns
// GBP's answer where GBP has one; elsewhere, and with GBPIter 0, beliefs
// start uniform.
//
// Zero potentials and evidence. The states no positive-probability
// configuration can take are found by arc consistency on the region graph
// (region.Prune) and get θ = -Inf, belief exactly 0; after pruning a child
// state is zero exactly where every parent's marginal is, so the updates
// never divide a positive belief by zero (0/0 := 0).
//
// Results: variable and factor marginals are read out as core/gbp reads them
// (region.Binding.VarMarginals, FactorMarginals); FreeEnergy is F of the
// final beliefs and LogZ = -F. Converged means the outer loop settled within
// Tol, the last inner loop reached InnerTol and every edge is consistent
// within infer.ConsistencyTol. Diagnostics: "max_delta" (last outer step's
// largest belief change), "max_consistency", "inner_sweeps" (total),
// "inner_unconverged" (outer steps whose inner loop hit InnerIter),
// "degenerate_beliefs", "extrapolated" (SQUAREM cycles whose
// extrapolation was kept), "stalled" (1 when the outer loop stalled and the
// inner tolerance stopped loosening, see innerRel), "gbp_sweeps" (the
// sweeps of a cold start's GBP run) and "gbp_start" (1 when the run started
// at GBP's fixed point).
package dlgbp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// caveWeight sets the convex entropy weight of a region whose counting
// number is not positive, w_R = caveWeight · max(1, -c_R); the rest of its
// weight, c_R - w_R, is linearised by the outer loop. Smaller is a tighter
// bound (fewer outer steps) but a stiffer inner problem: on a 10x10 grid
// with couplings U(-10,10) (c_R = -1), 0.1 took 680 outer steps and 6755
// inner sweeps, 0.25 756 and 4551, 1 1155 and 16326 (inner loops stopped at
// 1e-2 of the outer change). Scaling with |c_R| keeps the bound's θ_R =
// (c_R ln ψ_R - (c_R - w_R) ln b_R)/w_R at most 5 ln b_R whatever c_R: with
// w_R = 1/4 for c_R = -18 (the cycles region graph of a 20+20 complete
// bipartite graph) θ_R was 73 ln b_R, small beliefs underflowed to 0 in
// the product form, and the first outer step left GBP's fixed point by 0.19.
const caveWeight = 0.25

// innerRel ties the inner loop's tolerance to the outer loop's progress: an
// inner loop stops once every parent marginal is within
// max(InnerTol, innerRel · δ) of its child, δ the previous outer step's
// largest belief change (1 before the first): inexact CCCP, whose inner
// errors shrink with the outer steps. Far from the fixed point minimising
// the bound to InnerTol is wasted work; the price of a loose inner loop is
// that F, evaluated at beliefs consistent only to that tolerance, can rise
// between steps by about that much (at most 8e-8 relative in the second
// half of the runs of TestMonotone). Once some step moved no entry by Tol,
// every later bound is minimised to InnerTol (see outer). With SQUAREM, on
// three 10x10 grids with couplings U(-10,10) (infertest.SpinGlass(10, false,
// 10, 0..2)) innerRel 1e-3 took 150328, 16245 and 37478 inner sweeps, 1e-2
// 75132, 5334 and 27179, 0.1 33511, 4585 and 16755 (plain CCCP with 1e-3:
// 141087, 23046 and 42910).
//
// Stall. An extrapolated SQUAREM step moves further than the plain ones
// (|T(x') - x'| up to 100 times), so δ from it loosens the next inner
// loops; their F is then too noisy to reject the next extrapolation, and
// the outer loop can settle into a cycle: on model 1 of the 20x20 grids
// with couplings U(-15,15) of the hard models the largest step fell to 2e-7
// by outer step 700, grew back to 5e-4 and stayed there until the cap of
// 10000 steps (832 s). Once stallWindow steps pass without a new smallest
// step, δ is the smallest step so far and the tolerance never loosens
// again: model 1 then stalled at step 914 (smallest step 1.7e-7) and
// converged in 1489 steps (54 s of CPU). Not from the start: the loose,
// noisy inner loops also let extrapolations through that help, and a
// never-loosening tolerance from the first step took 5963 outer steps and
// 702045 inner sweeps (38.5 s) instead of 1841 and 67786 (4.4 s) on model 2
// of the 10x10 grids with couplings U(-10,10).
const innerRel = 0.1

// Options configures a double-loop GBP run; start from DefaultOptions.
type Options struct {
	// Tol stops the outer loop when no entry of any region belief changed
	// by more than Tol in an outer step. Default 1e-9.
	Tol float64 `json:"tol" help:"Converged when no entry of any region belief changed by more than tol in an outer step."`
	// MaxIter caps the outer steps per call. Default 10000: the outer loop
	// converges linearly and slowly where the free energy is flat near its
	// minimum; on the ten 10x10 grids with couplings U(-5,5) of the hard
	// models (seed 11) plain CCCP took 573 to 1846 steps, and more than 2000
	// on one; counts are outer steps (plain or SQUAREM) either way.
	MaxIter int `json:"max_iter" help:"Cap on the outer steps (re-linearisations of the free energy) per call; a run stopped by it is not converged."`
	// InnerIter caps the sweeps of one inner loop. Default 1000. A step
	// whose inner loop stops at the cap leaves the rest to the next step
	// (which continues from the multipliers reached); a smaller cap saves
	// sweeps where the inner problem is ill-conditioned (100: 14639 inner
	// sweeps instead of 68593 on infertest.SpinGlass(5, true, 10, 4)) but
	// can stall the outer loop: with 100, model 2 of the 10x10 grids with
	// couplings U(-15,15) of the hard models stopped at 10000 outer steps
	// (largest change 3e-5), with 1000 it converged in 768.
	InnerIter int `json:"inner_iter" help:"Cap on the sweeps of one inner loop (minimisation of the convex bound)."`
	// InnerTol stops an inner loop when every parent's marginal is within
	// InnerTol of its child's belief. Default 1e-11.
	InnerTol float64 `json:"inner_tol" help:"An inner loop stops when every parent marginal is within inner_tol of its child belief."`
	// GBPIter is the sweep cap of single-loop GBP (core/gbp, undamped, the
	// same Tol) run before a cold start; when it converges and its answer
	// passes the shared check, the outer loop starts at its beliefs, a
	// stationary point of F, so that dlgbp confirms GBP's fixed point
	// rather than possibly reaching another (from uniform beliefs: max |ΔP|
	// 0.89 from GBP's on one 10x10 torus with couplings U(-5,5), within
	// 1.4e-7 on the 20 20x20 grids with couplings U(-2,2), U(-5,5) and
	// U(-10,10) where GBP converges). Default 2000: with it dlgbp converged
	// on 10 of 10 models of each of the hard 10x10 grids with couplings
	// U(-10,10) and U(-15,15) and tori with U(-5,5) and U(-10,10), at
	// GBP's fixed point (max |ΔP| ≤ 1e-9) wherever GBP converged, in about
	// the CPU time of the uniform start. 0: no GBP run, start from uniform
	// beliefs. The GBP run is inside the time budget (MaxSeconds) and may
	// take at most half of it: one that the budget stops has not converged,
	// so the outer loop then starts from uniform beliefs, in the time left.
	GBPIter int `json:"gbp_iter" help:"Sweep cap of single-loop GBP run before a cold start; if it converges, the outer loop starts at its fixed point (0: no GBP run, start from uniform beliefs)."`
	// MaxSeconds is the time budget of a call (see infer.Budget), all of
	// it: binding the model, the GBP run of a cold start (at most half of
	// it), and the outer steps, whose inner loops check it before every
	// sweep (a step whose inner loop it cuts short is undone, so a run
	// stopped by time after n outer steps returns the beliefs the cap at n
	// gives from the same start); 0 means no limit. Default 0.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit); a run stopped by it returns its last iterate, not converged."`
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{Tol: 1e-9, MaxIter: 10000, InnerIter: 1000, InnerTol: 1e-11, GBPIter: 2000}
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	if err := infer.CheckIterative("dlgbp", o.Tol, o.MaxIter, 0); err != nil {
		return err
	}
	switch {
	case o.InnerIter < 1:
		return fmt.Errorf("dlgbp: inner_iter %d, want >= 1", o.InnerIter)
	case !(o.InnerTol > 0) || math.IsInf(o.InnerTol, 1):
		return fmt.Errorf("dlgbp: inner_tol %v, want a positive number", o.InnerTol)
	case o.GBPIter < 0:
		return fmt.Errorf("dlgbp: gbp_iter %d, want >= 0", o.GBPIter)
	}
	return infer.CheckMaxSeconds("dlgbp", o.MaxSeconds)
}

// DLGBP is double-loop GBP on one region graph. It keeps its beliefs between
// Infer calls and warm-starts from them when the next model has the same
// structure and the same excluded states; Reset forgets them. A DLGBP is not
// safe for concurrent use.
type DLGBP struct {
	opts Options
	g    *region.Graph

	rb     *region.Binding // g bound to the last model's structure; nil before the first Infer or after Reset
	edges  []region.Edge   // by child, then parent
	blocks []block         // one per child region, in region order
	w      []float64       // convex entropy weight per region
	off    []int           // region r's tables are at [off[r], off[r+1])
	muOff  []int           // edge k's parent marginal is at [muOff[k], muOff[k+1])

	logPsi                []float64   // Σ_{a ∈ F_R} ln ψ_a, -Inf on pruned states
	allowed               []bool      // per region state: not pruned
	theta                 []float64   // θ of the current bound
	belief                []float64   // current beliefs (probabilities): the last bound's minimiser
	lin                   []float64   // the point the next bound is taken at (belief, or extrapolated from it)
	beliefViews, linViews [][]float64 // per-region views of belief and lin
	undoBelief, undoTheta []float64   // belief and theta before the current outer step, to undo a step the time budget cuts short

	mu   []float64 // scratch: parent marginals of one block
	acc  []float64 // scratch: largest child
	prod []float64 // scratch: largest child
	logb []float64 // scratch: largest region

	warm              bool      // belief, lin and theta hold a previous call's state
	phase             int       // position in the SQUAREM cycle (see squarem)
	sq0, sq1          []float64 // SQUAREM's x0 and x1 (then x2)
	f2                float64   // F(x2) of the current cycle
	fIterate          float64   // F of the current iterate
	capped            bool      // an inner loop of this SQUAREM cycle's x1 or x2 stopped at InnerIter
	extrapolated      int       // SQUAREM cycles whose extrapolated point was taken
	innerSweeps       int
	innerUnconverged  int
	lastInnerViol     float64
	lastDelta         float64 // the last outer step's largest belief change
	minDelta          float64 // the smallest largest belief change of an outer step so far in this call
	sinceMin          int     // outer steps since minDelta last fell
	stalled           bool    // the outer loop stalled: the inner tolerance follows minDelta (see tolDelta)
	stalls            int     // 1 if the call stalled
	stallWindow       int     // stallWindow; a test hook
	energy            [][]float64
	trace             *[]float64 // test hook: F after every outer step
	degenerateBeliefs int

	// test hook: called after every outer step with its largest belief
	// change, its inner tolerance and its inner sweeps
	stepHook func(delta, innerTol float64, sweeps int)
}

// block is one child region with the edges from its parents.
type block struct {
	child int
	edges []int // indices into DLGBP.edges
}

// New returns a double-loop GBP method on region graph g with opts (start
// from DefaultOptions). g is kept, not copied, and must not change
// afterwards; every model passed to Infer must fit it.
func New(g *region.Graph, opts Options) (*DLGBP, error) {
	if g == nil || len(g.Regions) == 0 {
		return nil, errors.New("dlgbp: empty region graph")
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &DLGBP{opts: opts, g: g, stallWindow: stallWindow}, nil
}

// Name returns "dlgbp".
func (d *DLGBP) Name() string { return "dlgbp" }

// Options returns the options in use.
func (d *DLGBP) Options() Options { return d.opts }

// Graph returns the region graph the method runs on.
func (d *DLGBP) Graph() *region.Graph { return d.g }

// Reset forgets the beliefs, so the next Infer starts afresh.
func (d *DLGBP) Reset() { d.rb, d.warm = nil, false }

// Beliefs returns a copy of the region beliefs of the last Infer call, one
// table per region of Graph, or nil before the first call or after Reset.
func (d *DLGBP) Beliefs() [][]float64 {
	if d.rb == nil {
		return nil
	}
	out := make([][]float64, len(d.g.Regions))
	for r := range out {
		out[r] = append([]float64(nil), d.region(d.belief, r)...)
	}
	return out
}

// RegionBeliefs returns the region beliefs of the last Infer call (views of
// the method's own tables, valid until the next call) and the parent→child
// edges, for the shared check (infer.RegionBeliefs).
func (d *DLGBP) RegionBeliefs() ([][]float64, []region.Edge) {
	if d.rb == nil {
		return nil, nil
	}
	return d.views(d.belief), d.edges
}

func (d *DLGBP) region(flat []float64, r int) []float64 { return flat[d.off[r]:d.off[r+1]] }

func (d *DLGBP) views(flat []float64) [][]float64 {
	b := make([][]float64, len(d.g.Regions))
	for r := range b {
		b[r] = d.region(flat, r)
	}
	return b
}

// Infer runs double-loop GBP on m, warm-starting from the beliefs of the
// previous call when m has the same structure and excluded states.
func (d *DLGBP) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	if m == nil {
		return nil, errors.New("dlgbp: nil model")
	}
	ctx = infer.BeginCall(ctx) // the time budget covers the whole call, GBP's run included
	stop := infer.Budget{MaxIter: d.opts.MaxIter, MaxSeconds: d.opts.MaxSeconds}.Start(ctx)
	if d.rb.SameStructure(m) {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("dlgbp: invalid model: %w", err)
		}
	} else {
		rb, err := d.g.Bind(m)
		if err != nil {
			return nil, fmt.Errorf("dlgbp: %w", err)
		}
		d.bind(rb)
	}
	E, err := d.rb.Energies(m)
	if err != nil {
		return nil, fmt.Errorf("dlgbp: %w", err)
	}
	d.potentials(E)
	d.energy = E
	d.innerSweeps, d.innerUnconverged = 0, 0
	d.lastDelta, d.minDelta = 1, 1 // no belief moves by more than 1
	d.sinceMin, d.stalled, d.stalls = 0, false, 0
	res := &infer.Result{Diagnostics: map[string]float64{}}
	gbpStart := false
	if !d.warm {
		d.start()
		if gbpStart, err = d.startFromGBP(ctx, m, stop, res.Diagnostics); err != nil {
			return nil, err
		}
	}
	d.warm = true
	d.phase, d.extrapolated, d.capped = 0, 0, false
	copy(d.lin, d.belief)

	delta, err := d.run(stop, res)
	if err != nil {
		return nil, err
	}
	d.finish(res, E)
	innerOK := d.lastInnerViol < d.opts.InnerTol
	if res.Converged && (!innerOK || !(res.Diagnostics["max_consistency"] <= infer.ConsistencyTol)) {
		res.Converged = false
		res.Diagnostics["inconsistent"] = 1
	}
	res.Diagnostics["max_delta"] = delta
	res.Diagnostics["inner_sweeps"] = float64(d.innerSweeps)
	res.Diagnostics["inner_unconverged"] = float64(d.innerUnconverged)
	res.Diagnostics["degenerate_beliefs"] = float64(d.degenerateBeliefs)
	res.Diagnostics["extrapolated"] = float64(d.extrapolated)
	res.Diagnostics["stalled"] = float64(d.stalls)
	if gbpStart {
		res.Diagnostics["gbp_start"] = 1
	}
	return res, nil
}

// bind precomputes the edges, blocks, weights and table offsets of rb.
func (d *DLGBP) bind(rb *region.Binding) {
	d.rb, d.warm = rb, false
	n := len(d.g.Regions)
	d.off = make([]int, n+1)
	d.w = make([]float64, n)
	for r := range n {
		d.off[r+1] = d.off[r] + rb.NumStates(r)
		d.w[r] = caveWeight * max(1, -d.g.Regions[r].Counting)
		if c := d.g.Regions[r].Counting; c > 0 {
			d.w[r] = c
		}
	}
	d.edges = rb.Edges()
	d.blocks = d.blocks[:0]
	d.muOff = []int{0}
	maxBlock, maxChild := 0, 0
	for k, e := range d.edges {
		if nb := len(d.blocks); nb == 0 || d.blocks[nb-1].child != e.Child {
			d.blocks = append(d.blocks, block{child: e.Child})
		}
		b := &d.blocks[len(d.blocks)-1]
		b.edges = append(b.edges, k)
		size := rb.NumStates(e.Child)
		d.muOff = append(d.muOff, d.muOff[k]+size)
		maxBlock = max(maxBlock, d.muOff[k+1]-d.muOff[b.edges[0]])
		maxChild = max(maxChild, size)
	}
	total := d.off[n]
	d.logPsi = make([]float64, total)
	d.allowed = make([]bool, total)
	d.theta = make([]float64, total)
	d.belief = make([]float64, total)
	d.lin = make([]float64, total)
	d.sq0 = make([]float64, total)
	d.sq1 = make([]float64, total)
	d.undoBelief = make([]float64, total)
	d.undoTheta = make([]float64, total)
	d.beliefViews, d.linViews = d.views(d.belief), d.views(d.lin)
	d.mu = make([]float64, maxBlock)
	d.acc = make([]float64, maxChild)
	d.prod = make([]float64, maxChild)
	maxRegion := 0
	for r := range n {
		maxRegion = max(maxRegion, d.off[r+1]-d.off[r])
	}
	d.logb = make([]float64, maxRegion)
}

// potentials sets logPsi from the region energies E and prunes the states
// the zeros exclude. A warm start whose excluded states changed is dropped.
func (d *DLGBP) potentials(E [][]float64) {
	allowed := make([][]bool, len(E))
	for r, e := range E {
		lp := d.region(d.logPsi, r)
		allowed[r] = make([]bool, len(e))
		for x, v := range e {
			lp[x] = -v
			allowed[r][x] = !math.IsInf(v, 1)
		}
	}
	region.Prune(allowed, d.edges)
	for r, ok := range allowed {
		lp := d.region(d.logPsi, r)
		for x, a := range ok {
			if !a {
				lp[x] = math.Inf(-1)
			}
			if a != d.allowed[d.off[r]+x] {
				d.allowed[d.off[r]+x] = a
				d.warm = false
			}
		}
	}
}

// startFromGBP runs single-loop GBP (GBPIter sweeps, within half of the
// call's time budget, unless that is already spent) and, if it converged
// and passed the shared check, sets the beliefs to its fixed point, θ to
// their logarithm (a bound whose minimiser they are, with zero
// multipliers) and minDelta below Tol, so that the first outer step
// minimises its bound to InnerTol. It reports whether it did, and notes
// GBP's sweeps in diag.
func (d *DLGBP) startFromGBP(ctx context.Context, m *mrf.Model, stop *infer.Stop, diag map[string]float64) (bool, error) {
	if d.opts.GBPIter == 0 || stop.Expired() {
		return false, nil
	}
	// GBP's budget counts from the beginning of this call (ctx's mark) and
	// ends at half of the call's, so that where GBP does not converge the
	// outer loop has time of its own: with all of it, on the shipped 10x10
	// torus (data/uai) at max_seconds 2 on a loaded machine, GBP's 2000
	// sweeps took the whole budget and the call returned its uniform start.
	o := gbp.DefaultOptions()
	o.Tol, o.MaxIter, o.MaxSeconds = d.opts.Tol, d.opts.GBPIter, d.opts.MaxSeconds/2
	gm, err := gbp.New(d.g, o)
	if err != nil {
		return false, fmt.Errorf("dlgbp: gbp start: %w", err)
	}
	res, err := gm.Infer(ctx, m)
	if err != nil {
		return false, fmt.Errorf("dlgbp: gbp start: %w", err)
	}
	diag["gbp_sweeps"] = float64(res.Iterations)
	if !res.Converged || infer.Verify(m, res, gm) != "" {
		return false, nil
	}
	for r, bg := range gm.Beliefs() {
		b, th := d.region(d.belief, r), d.region(d.theta, r)
		ok := d.allowed[d.off[r]:d.off[r+1]]
		for x, p := range bg {
			b[x], th[x] = 0, math.Inf(-1)
			if ok[x] && p > 0 {
				b[x] = p
			}
		}
		normalize(b)
		for x, p := range b {
			if p > 0 {
				th[x] = math.Log(p)
			}
		}
	}
	d.lastDelta, d.minDelta = d.opts.Tol/2, d.opts.Tol/2
	return true, nil
}

// start sets every belief uniform on its allowed states and θ to its
// logarithm, as if every multiplier were 0 and the bound were taken there.
func (d *DLGBP) start() {
	for r := range d.g.Regions {
		b, th := d.region(d.belief, r), d.region(d.theta, r)
		ok := d.allowed[d.off[r]:d.off[r+1]]
		n := 0
		for _, a := range ok {
			if a {
				n++
			}
		}
		all := n == 0 // no allowed state (Z = 0): uniform; the shared check rejects the answer
		if all {
			n = len(ok)
		}
		for x, a := range ok {
			b[x], th[x] = 0, math.Inf(-1)
			if a || all {
				b[x], th[x] = 1/float64(n), -math.Log(float64(n))
			}
		}
	}
}
