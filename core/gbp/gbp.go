// Package gbp implements generalized belief propagation ("gbp") on a region
// graph: the parent-to-child algorithm of Yedidia, Freeman and Weiss (2005,
// "Constructing free-energy approximations and generalized belief
// propagation algorithms"; paper appendix D), in log space, with the region
// free energy of its beliefs as its estimate of -ln Z.
//
// Every region-graph edge P→C carries one message m_{P→C}(x_C). Write
// E(R) = {R} ∪ descendants(R). A region's belief is its own factors times
// every message that enters E(R) from outside it:
//
//	b_R(x_R) ∝ Π_{a ∈ F_R} ψ_a(x_a) · Π_{I→J : J ∈ E(R), I ∉ E(R)} m_{I→J}(x_J).
//
// Requiring Σ_{x_{P\C}} b_P = b_C gives the update
//
//	m_{P→C}(x_C) ∝ Σ_{x_{P\C}} Π_{a ∈ F_P \ F_C} ψ_a · Π_{(I→J) ∈ N(P,C)} m_{I→J}
//	               / Π_{(I→J) ∈ D(P,C)} m_{I→J},
//
// where N(P,C) holds the edges I→J with J ∈ E(P) \ E(C) and I ∉ E(P), and
// D(P,C) the edges I→J with J ∈ E(C) and I ∈ E(P) \ E(C) other than P→C
// itself (the message being solved for). The factors of the update are all
// of the parent's factors that the child lacks, including those that link the
// parent's extra variables to the child's.
//
// Schedule. The messages out of root regions drive the iteration and every
// lower message is kept a function of the messages above it. A sweep visits
// the root edges in a fixed order (roots in region order, each root's
// children ascending); right after updating m_{P→C} it recomputes, undamped
// and top-down, every message on an edge whose parent lies in E(C). Those
// lower messages depend on m_{P→C} (it is in their N sets) and return in the
// D sets of other updates, where they must cancel the N messages they were
// built from. Left stale, they do not cancel: the plain sweep that updates
// every edge once, top-down, converged on none of ten 10x10 Ising grids
// (faces, γ = 0.1 or 1, damped 0.5 or not) and failed even on some weakly
// coupled 5x5 ones, while this schedule converged on every grid tried (ten
// each of 4x4, 10x10 and 20x20 at γ = 0.1 and 1). On a bethe region graph
// variables have no children, and the schedule is sequential loopy BP in
// factor order.
//
// Damping α (Options.Damping, default 0) mixes each driven update in the log
// domain, log m ← (1-α)·log m_new + α·log m_old. With this schedule it slows
// convergence on grids or prevents it (see Options), so it is off by
// default. Every message is shifted so that its largest entry is 0.
//
// Zero potentials (-Inf log entries) stay in log space. Before the sweeps,
// the states no positive-probability configuration can take are found by
// arc consistency on the region graph and masked out of every region and
// parent potential (see support.go): a message entry is then -Inf exactly
// where the child's belief is zero, excluded states carry exactly zero
// belief, never feed an allowed state, and messages are normalised on the
// allowed states. A division by a zero message gives a zero message entry
// (x/0 := 0, as in libDAI); -Inf - -Inf never occurs, so no NaN arises. A
// message with no mass anywhere (Z = 0) is set uniform and counted in the
// diagnostics. A model without -Inf entries is untouched by all this.
//
// Divergence. On some region graphs the undamped schedule is linearly
// unstable: on the bethe region graph of a 12-variable pedigree (arity-4
// factors, intersections of three variables, counting numbers down to -2)
// a perturbation of uniform messages grows about 1.5-fold per sweep even when
// every potential is uniform, so this is the region graph and schedule, not
// the zeros. The beliefs then saturate to point masses that stop changing
// while the messages run away and parent and child disagree; damping 0.5
// cures that pedigree (ln Z within 1e-4 of exact) but not every model. Such a
// run is never reported converged (see Convergence), and a run whose
// messages overflow float64 stops with "diverged" 1, returning the beliefs
// of its last finite sweep.
//
// Convergence. A run stops at the first sweep that changes no region belief
// entry by more than Tol, and is converged only if every child belief then
// equals each parent's marginal within ConsTol: a fixed point of the
// updates. Unchanging beliefs alone are not one. On noisy-OR networks the
// sweeps can settle into a cycle in which some messages drift by the same
// amount every sweep, in a direction the beliefs do not see, while the
// beliefs at the end of each sweep repeat to 1e-15 and a parent and child
// disagree by 4e-5 to 0.3 (the updates within a sweep undo one another;
// damping does not help, nor does sweeping on: the drift reaches the
// beliefs, and on one network 2000 more sweeps took the marginals' mean
// error from 0.0016 to 0.13). Those runs stop not converged, "inconsistent"
// 1 and "stalled" 1; double-loop GBP (core/dlgbp) finds the fixed point
// there. At the sweep that met Tol, the runs that converged on the families
// measured (data/uai, soft CSPs, noisy-OR networks, pedigrees, linkage,
// Ising grids, tori and complete graphs with N(0,1) and U(-f,f) couplings,
// f up to 15) disagreed by at most 4.3e-9 but for one noisy-OR network at
// 1.7e-7 (ln Z within 2e-7 of double-loop GBP's), the stalled noisy-OR ones
// by at least 3.8e-5 (ln Z 5e-5 to 4e-3 off, double-loop GBP's within
// 1e-10 of exact); ConsTol's default, 1e-6, lies between.
//
// Stalled runs: the beliefs of a stall pass the shared check and lie near
// the fixed point (on the stalled noisy-OR networks measured, mean
// marginal error 2e-6 to 5e-5): a start for another method (package renn
// starts there), not an answer (see Stalled).
//
// Results: variable and factor marginals are read out as the mean of the
// marginals of every region containing the variable or factor scope
// (region.Binding.VarMarginals, FactorMarginals); FreeEnergy is the region
// free energy F_R of the beliefs (region.Binding.FreeEnergy) and LogZ = -F.
// Diagnostics: "max_delta" (last sweep's largest belief change),
// "max_consistency" (largest |b_C - Σ_{P\C} b_P| over all edges and states),
// "damping", "degenerate_messages" and "degenerate_beliefs", and, only when
// set, "inconsistent", "diverged" (see Divergence) and "stalled" (see
// Stalled).
//
// Starts. Infer starts from uniform messages, or from the last call's when
// the model keeps its structure. InferFrom (the WarmStarter ability, warm.go)
// starts from messages the caller gives, such as an amortized network's
// (package renn), and converges by the same rule; Sweep runs a fixed number
// of sweeps with no convergence test or read-out.
package gbp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// Options configures a GBP run; start from DefaultOptions.
type Options struct {
	// Tol stops the run when no entry of any region belief changed by more
	// than Tol in a sweep. Default 1e-9.
	Tol float64 `json:"tol" help:"Stop when no entry of any region belief changed by more than tol in a sweep (converged if cons_tol holds too)."`
	// ConsTol is the largest disagreement |b_C - Σ_{P\C} b_P| between a
	// child belief and a parent's marginal that a converged run may leave,
	// in (0, infer.ConsistencyTol]. Default 1e-6 (see Convergence).
	ConsTol float64 `json:"cons_tol" help:"Converged only if no child belief differs from a parent's marginal by more than cons_tol when the run stops (at most 1e-3, the shared check's)."`
	// MaxIter caps the number of sweeps. Default 2000.
	MaxIter int `json:"max_iter" help:"Cap on the sweeps per call; a run stopped by it is not converged."`
	// Damping α in [0, 1) mixes every driven (root-edge) message update with
	// the old message in the log domain: (1-α)·new + α·old. Default 0: on ten
	// 10x10 Ising grids (γ = 1, faces) the undamped schedule converged on all
	// in 16.7 sweeps on average, with α = 0.2 in 33.6, and with α = 0.5 only
	// four of ten converged within 1000 sweeps.
	Damping float64 `json:"damping" help:"Damping in [0, 1) of the root messages in the log domain (0: undamped, measured to converge best on grids)."`
	// MaxSeconds is the time budget of a call (see infer.Budget); 0 means
	// no limit. Default 0.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit); a run stopped by it returns its last iterate, not converged."`
}

// Stalled reports whether res, an answer of GBP, stopped because its beliefs
// stopped changing but is not converged because a parent and child disagree
// by more than ConsTol, though within infer.ConsistencyTol, with finite
// messages (see Convergence). Its beliefs are no fixed point, but a start
// near one.
func Stalled(res *infer.Result) bool { return res.Diagnostics["stalled"] == 1 }

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options { return Options{Tol: 1e-9, ConsTol: 1e-6, MaxIter: 2000} }

// GBP is parent-to-child generalized belief propagation on one region graph.
// It keeps its messages between Infer calls and warm-starts from them when the
// next model has the same structure (cardinalities and scopes); Reset forgets
// them. A GBP is not safe for concurrent use.
type GBP struct {
	opts Options
	g    *region.Graph

	rb *region.Binding // g bound to the last model's structure; nil before the first Infer or after Reset
	st *structure      // precomputed for rb

	msg    []float64 // log messages, edge e at msg[st.msgOff[e]:st.msgOff[e+1]], max entry 0
	psiE   []float64 // per edge, over parent states: Σ_{a ∈ F_P \ F_C} log ψ_a
	psiR   []float64 // per region: Σ_{a ∈ F_R} log ψ_a
	belief []float64 // region beliefs (probabilities) after the last sweep
	next   []float64 // scratch, same shape as belief
	tab    []float64 // scratch, largest parent
	out    []float64 // scratch, largest child
	sum    []float64 // scratch, largest child

	allowed []bool // per region state: not ruled out by the zeros (support); nil until a model has zeros

	degenerateMsgs    int
	diverged          bool // a message overflowed; its entries are not numbers
	degenerateBeliefs int
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	if err := infer.CheckIterative("gbp", o.Tol, o.MaxIter, o.Damping); err != nil {
		return err
	}
	if !(o.ConsTol > 0 && o.ConsTol <= infer.ConsistencyTol) {
		return fmt.Errorf("gbp: cons_tol %v, want 0 < cons_tol <= %g (the shared consistency check's tolerance)", o.ConsTol, infer.ConsistencyTol)
	}
	return infer.CheckMaxSeconds("gbp", o.MaxSeconds)
}

// New returns a GBP method on region graph g with opts (start from
// DefaultOptions). g is kept, not copied, and must not change afterwards; every
// model passed to Infer must fit it (the model g was built from, or one with
// the same structure).
func New(g *region.Graph, opts Options) (*GBP, error) {
	if g == nil || len(g.Regions) == 0 {
		return nil, errors.New("gbp: empty region graph")
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &GBP{opts: opts, g: g}, nil
}

// Name returns "gbp".
func (gb *GBP) Name() string { return "gbp" }

// Options returns the options in use.
func (gb *GBP) Options() Options { return gb.opts }

// Graph returns the region graph the method runs on.
func (gb *GBP) Graph() *region.Graph { return gb.g }

// SetMaxIter sets the sweep cap of later calls (n >= 1), which warm-start
// from the messages as usual: a caller can read the beliefs after k sweeps
// and after one more without paying a call per sweep.
func (gb *GBP) SetMaxIter(n int) error {
	if n < 1 {
		return fmt.Errorf("gbp: max-iter %d, want >= 1", n)
	}
	gb.opts.MaxIter = n
	return nil
}

// Reset forgets the messages, so the next Infer starts from uniform ones.
func (gb *GBP) Reset() { gb.rb, gb.st = nil, nil }

// Beliefs returns a copy of the region beliefs of the last Infer call, one
// table per region of Graph (row-major over Region.Vars, last variable
// fastest), or nil before the first call or after Reset.
func (gb *GBP) Beliefs() [][]float64 {
	if gb.st == nil {
		return nil
	}
	out := make([][]float64, len(gb.g.Regions))
	for r := range out {
		out[r] = append([]float64(nil), gb.regionSlice(gb.belief, r)...)
	}
	return out
}

// RegionBeliefs returns the region beliefs of the last Infer call (views of
// the method's own tables, valid until the next call) and the parent→child
// edges of the region graph, for the shared check (infer.RegionBeliefs). Both
// are nil before the first call or after Reset.
func (gb *GBP) RegionBeliefs() ([][]float64, []region.Edge) {
	if gb.st == nil {
		return nil, nil
	}
	b := make([][]float64, len(gb.g.Regions))
	for r := range b {
		b[r] = gb.regionSlice(gb.belief, r)
	}
	edges := make([]region.Edge, len(gb.st.edges))
	for k, ed := range gb.st.edges {
		edges[k] = region.Edge{Parent: ed.parent, Child: ed.child, Map: gb.st.maps[ed.pc]}
	}
	return b, edges
}

// Infer runs GBP on m, warm-starting from the messages of the previous call
// when m has the same structure. It fails if m does not fit the region graph.
func (gb *GBP) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	ctx = infer.BeginCall(ctx) // the time budget covers binding the model
	if err := gb.prepare(m); err != nil {
		return nil, err
	}
	gb.support()
	return gb.run(ctx)
}

// prepare binds m (reusing the structure when m has the last model's) and
// fills the potentials.
func (gb *GBP) prepare(m *mrf.Model) error {
	if m == nil {
		return errors.New("gbp: nil model")
	}
	if gb.rb.SameStructure(m) {
		// The graph was checked when it was bound; the tables are new.
		if err := m.Validate(); err != nil {
			return fmt.Errorf("gbp: invalid model: %w", err)
		}
	} else {
		rb, err := gb.g.Bind(m)
		if err != nil {
			return fmt.Errorf("gbp: %w", err)
		}
		gb.rb, gb.st = rb, newStructure(rb, m)
		gb.alloc()
	}
	gb.potentials(m)
	return nil
}

// run sweeps from the current messages until convergence or the budget.
func (gb *GBP) run(ctx context.Context) (*infer.Result, error) {
	if gb.diverged {
		// The last call's messages overflowed: start afresh.
		clear(gb.msg)
		gb.diverged = false
	}
	gb.beliefs(gb.belief) // what the first sweep is measured against
	res := &infer.Result{Diagnostics: map[string]float64{"damping": gb.opts.Damping}}
	budget := infer.Budget{MaxIter: gb.opts.MaxIter, MaxSeconds: gb.opts.MaxSeconds}
	divergedAt := 0
	delta, err := budget.Iterate(ctx, "gbp", gb.opts.Tol, res, func() float64 {
		if gb.diverged {
			return math.Inf(1) // nothing left to do; the budget ends the loop
		}
		gb.sweep()
		if gb.diverged {
			// Keep the beliefs of the last sweep whose messages were finite.
			divergedAt = res.Iterations + 1
			return math.Inf(1)
		}
		delta := gb.beliefs(gb.next)
		gb.belief, gb.next = gb.next, gb.belief
		return delta
	})
	if err != nil {
		return nil, err
	}
	if divergedAt > 0 {
		res.Iterations = divergedAt
		res.Diagnostics["diverged"] = 1
	}
	gb.finish(res)
	if cons := res.Diagnostics["max_consistency"]; res.Converged && !(cons <= gb.opts.ConsTol) {
		// Beliefs that stopped changing while parent and child disagree:
		// not a fixed point (see Convergence).
		res.Converged = false
		res.Diagnostics["inconsistent"] = 1
		if cons <= infer.ConsistencyTol && divergedAt == 0 {
			res.Diagnostics["stalled"] = 1
		}
	}
	res.Diagnostics["max_delta"] = delta
	res.Diagnostics["degenerate_messages"] = float64(gb.degenerateMsgs)
	res.Diagnostics["degenerate_beliefs"] = float64(gb.degenerateBeliefs)
	return res, nil
}

// alloc sizes the message, potential, belief and scratch arrays for gb.st and
// sets every message uniform.
func (gb *GBP) alloc() {
	st := gb.st
	gb.msg = make([]float64, st.msgOff[len(st.edges)])
	gb.psiE = make([]float64, st.psiOff[len(st.edges)])
	gb.psiR = make([]float64, st.regOff[len(st.size)])
	gb.belief = make([]float64, len(gb.psiR))
	gb.next = make([]float64, len(gb.psiR))
	maxP, maxC := 0, 0
	for _, e := range st.edges {
		maxP = max(maxP, st.size[e.parent])
		maxC = max(maxC, st.size[e.child])
	}
	gb.tab = make([]float64, maxP)
	gb.out = make([]float64, maxC)
	gb.sum = make([]float64, maxC)
	gb.allowed = nil
}

func (gb *GBP) message(e int) []float64 { return gb.msg[gb.st.msgOff[e]:gb.st.msgOff[e+1]] }

func (gb *GBP) regionSlice(flat []float64, r int) []float64 {
	return flat[gb.st.regOff[r]:gb.st.regOff[r+1]]
}

// potentials fills psiR and psiE from m's tables.
func (gb *GBP) potentials(m *mrf.Model) {
	st := gb.st
	for r := range st.size {
		p := gb.regionSlice(gb.psiR, r)
		clear(p)
		for k, a := range gb.g.Regions[r].Factors {
			addTable(p, m.Factors[a].LogTable, st.factorMaps[r][k])
		}
	}
	for e := range st.edges {
		ed := &st.edges[e]
		p := gb.psiE[st.psiOff[e]:st.psiOff[e+1]]
		clear(p)
		facs := gb.g.Regions[ed.parent].Factors
		for _, k := range ed.factors {
			addTable(p, m.Factors[facs[k]].LogTable, st.factorMaps[ed.parent][k])
		}
	}
}

// addTable adds t[mp[x]] to p[x] for every x.
func addTable(p, t []float64, mp []int32) {
	for x, i := range mp {
		p[x] += t[i]
	}
}

// sweep updates every message once, in schedule order. It allocates nothing.
// sweep runs one sweep of the schedule: every root edge's message is updated
// (damped), and after each, every message below that edge's child is
// recomputed exactly, top-down. It allocates nothing.
func (gb *GBP) sweep() {
	st := gb.st
	gb.degenerateMsgs = 0
	for k, e := range st.drive {
		gb.update(e, gb.opts.Damping)
		for _, f := range st.below[k] {
			gb.update(f, 0)
		}
		if gb.diverged {
			return
		}
	}
}

// update recomputes the message of edge e by the parent-to-child rule and
// stores (1-alpha)·new + alpha·old, shifted to a largest entry of 0.
func (gb *GBP) update(e int, alpha float64) {
	st := gb.st
	ed := &st.edges[e]
	tab := gb.tab[:st.size[ed.parent]]
	copy(tab, gb.psiE[st.psiOff[e]:st.psiOff[e+1]])
	for _, g := range ed.num {
		addGroup(tab, gb.msg, st.maps[g.mp], g.offs)
	}
	out := gb.out[:st.size[ed.child]]
	logSumByMap(tab, st.maps[ed.pc], out, gb.sum[:len(out)])
	for _, g := range ed.den {
		for y, j := range st.maps[g.mp] {
			for _, o := range g.offs {
				switch d := gb.msg[o+int(j)]; {
				case math.IsInf(out[y], -1):
				case math.IsInf(d, -1):
					out[y] = math.Inf(-1) // division by a zero message: 0
				default:
					out[y] -= d
				}
			}
		}
	}
	switch mx := infer.ShiftMax(out); {
	case math.IsInf(mx, -1):
		gb.degenerateMsgs++
	case math.IsNaN(mx) || math.IsInf(mx, 1):
		// Log messages beyond ±1e308 (see "Divergence" in the package
		// comment): stop before NaN reaches the beliefs.
		gb.diverged = true
	}
	old := gb.message(e)
	if alpha > 0 {
		// alpha·(-Inf) is -Inf, never NaN, since 0 < alpha < 1 and no
		// entry is +Inf.
		for y := range out {
			out[y] = (1-alpha)*out[y] + alpha*old[y]
		}
		infer.ShiftMax(out)
	}
	copy(old, out)
}

// addGroup adds to t[x], for every state x, the entry mp[x] of each message
// of a group (msg[o+mp[x]] for o in offs), in the order of offs: every sum is
// formed in the order of adding one whole message after another, so the
// result is the same to the bit. Four states are summed at once, as four
// independent chains: a single chain would wait on each add's latency.
func addGroup(t, msg []float64, mp []int32, offs []int) {
	if len(offs) == 1 {
		m := msg[offs[0]:]
		for x, j := range mp {
			t[x] += m[j]
		}
		return
	}
	t = t[:len(mp)]
	x := 0
	for ; x+4 <= len(mp); x += 4 {
		j0, j1, j2, j3 := int(mp[x]), int(mp[x+1]), int(mp[x+2]), int(mp[x+3])
		s0, s1, s2, s3 := t[x], t[x+1], t[x+2], t[x+3]
		for _, o := range offs {
			s0 += msg[o+j0]
			s1 += msg[o+j1]
			s2 += msg[o+j2]
			s3 += msg[o+j3]
		}
		t[x], t[x+1], t[x+2], t[x+3] = s0, s1, s2, s3
	}
	for ; x < len(mp); x++ {
		j := int(mp[x])
		s := t[x]
		for _, o := range offs {
			s += msg[o+j]
		}
		t[x] = s
	}
}

// logSumByMap sets out[y] = ln Σ_{x : mp[x] = y} exp(tab[x]) without
// overflow; sum is scratch of len(out). A child state with no finite entry
// gets -Inf.
func logSumByMap(tab []float64, mp []int32, out, sum []float64) {
	for y := range out {
		out[y] = math.Inf(-1)
	}
	for x, y := range mp {
		out[y] = max(out[y], tab[x])
	}
	clear(sum)
	for x, y := range mp {
		if mx := out[y]; !math.IsInf(mx, -1) {
			sum[y] += math.Exp(tab[x] - mx)
		}
	}
	for y, s := range sum {
		if !math.IsInf(out[y], -1) {
			out[y] += math.Log(s)
		}
	}
}

// beliefs writes every region's belief (probabilities) into dst and returns
// the largest absolute change from gb.belief. It allocates nothing.
func (gb *GBP) beliefs(dst []float64) float64 {
	st := gb.st
	gb.degenerateBeliefs = 0
	delta := 0.0
	for r := range st.size {
		b := gb.regionSlice(dst, r)
		copy(b, gb.regionSlice(gb.psiR, r))
		for _, g := range st.in[r] {
			addGroup(b, gb.msg, st.maps[g.mp], g.offs)
		}
		if math.IsInf(infer.NormalizeLogTo(b, b), -1) {
			gb.degenerateBeliefs++
		}
		for x, p := range gb.regionSlice(gb.belief, r) {
			delta = max(delta, math.Abs(b[x]-p))
		}
	}
	return delta
}

// finish fills in res's marginals, free energy and consistency from the
// current beliefs.
func (gb *GBP) finish(res *infer.Result) {
	st := gb.st
	n := len(st.size)
	b := make([][]float64, n)
	E := make([][]float64, n)
	for r := range b {
		b[r] = gb.regionSlice(gb.belief, r)
		psi := gb.regionSlice(gb.psiR, r)
		E[r] = make([]float64, len(psi))
		for x, l := range psi {
			E[r][x] = -l
		}
	}
	res.Marginals.Vars = gb.rb.VarMarginals(b)
	res.Marginals.Factors = gb.rb.FactorMarginals(b)
	F := gb.rb.FreeEnergy(E, b)
	if math.IsNaN(F) {
		// Only degenerate beliefs that cover zero potentials, in regions of
		// both signs, give +Inf - Inf: the beliefs are infeasible.
		F = math.Inf(1)
	}
	res.FreeEnergy = F
	res.LogZ = -F

	viol := 0.0
	for _, ed := range st.edges {
		out := gb.out[:st.size[ed.child]]
		region.Marginalize(b[ed.parent], st.maps[ed.pc], out)
		for y, p := range b[ed.child] {
			viol = max(viol, math.Abs(p-out[y]))
		}
	}
	res.Diagnostics["max_consistency"] = viol
}
