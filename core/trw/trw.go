// Package trw implements tree-reweighted belief propagation ("trw") on the
// factor graph of a discrete MRF with factors of any arity and variables of
// any cardinality, and reports a certified upper bound on ln Z (Wainwright,
// Jaakkola and Willsky, "A new class of upper bounds on the log partition
// function", IEEE Trans. Inf. Theory 51(7), 2005).
//
// # Factor appearance probabilities
//
// A set of factors of arity ≥ 2 is a spanning hyperforest when the factor
// graph restricted to it is acyclic: adding its factors one by one, each new
// factor's variables lie in distinct components (union-find). Each of the
// Trees forests is drawn by visiting the factors in a random order (seeded by
// Seed) and keeping every factor that keeps the set acyclic, so each forest
// is maximal. While some factor lies in no forest (rare; possible on dense
// graphs), one more forest is drawn with the uncovered factors first, so
// every factor has ρ_a > 0. ρ_a is the fraction of the forests holding
// factor a; unary and constant factors lie in every forest (ρ = 1) and are
// folded into the variables' potentials θ_i.
//
// # Messages
//
// With ℓ_{a→i} = ln m_{a→i} and φ_i = θ_i + Σ_{a∋i} ρ_a ℓ_{a→i} (the log of
// the unnormalised belief b_i), one sweep visits the factors in model order
// and sets, for each variable i of factor a,
//
//	ℓ_{a→i}(x_i) = ln Σ_{x_a \ x_i} exp(θ_a(x_a)/ρ_a + Σ_{j∈a, j≠i} c_{a,j}(x_j)),
//	c_{a,j} = φ_j - ℓ_{a→j},
//
// damped in the log domain ((1-d)·new + d·old). The factor belief is
// b_a ∝ exp(θ_a/ρ_a + Σ_{j∈a} c_{a,j}). With ρ = 1 this is loopy BP. Zero
// potentials (-Inf entries) give messages of zero on the states they rule
// out; such a zero is sound (by induction, no configuration of non-zero
// probability has that state), and the cavity c_{a,j} of a state whose own
// message ℓ_{a→j} is -Inf is set to -Inf rather than (ρ_a - 1)·(-Inf) = +Inf.
// Marginals are therefore exactly 0 on zero potentials and on states that
// evidence (a point-mass unary factor) excludes.
//
// # The bound
//
// The reweighted (primal) free energy bounds ln Z only at an exact fixed
// point, so it is not what LogZ reports. Instead, from the final messages,
//
//	θ^T = Σ_i φ_i + Σ_{a∈T} (θ_a/ρ_a - Σ_{j∈a} ℓ_{a→j})
//
// for each forest T, which satisfies Σ_T θ^T / S = θ exactly for any finite
// messages (ρ_a is the fraction of forests holding a). ln Z(θ^T) is
// computed exactly by sum-product on the forest, and convexity of ln Z
// (Hölder's inequality, which also holds with zero potentials) gives
//
//	ln Z(θ) ≤ (1/S) Σ_T ln Z(θ^T) = LogZ,
//
// whatever the messages: converged or not. At a TRW fixed point it equals
// the primal optimum. States with a zero message or zero potential on a
// variable (sound exclusions, see above) get θ^T_i = -Inf in every forest
// and message terms 0 there, so no -Inf - (-Inf) arises; this changes
// neither θ's Z nor the bound's validity. Diagnostics "primal_logz" holds
// the primal objective at the final beliefs, "bound_gap" LogZ minus it, and
// "forests" the number S of forests used (Trees plus any added to cover
// every factor). FreeEnergy is -LogZ.
//
// # Divergence
//
// The damped iteration is not a contraction everywhere. On models with
// deterministic factors of arity 3 and more (constraint tables, the
// transmission factors of genetic-linkage networks) whose appearance
// probabilities are small, a mode of the iteration grows geometrically:
// log-message entries on states of positive probability fall by a constant
// factor per sweep (about 1.06 at damping 0.25 on a 192-variable linkage
// model, from sweep 470 on), so that within 1000 sweeps they reach 1e19 and
// beyond, and without damping 1e300, where they would overflow into false
// exclusions. The bound at such messages is still a bound in exact
// arithmetic, but a useless one (ln Z 1e18 where the exact value is -50),
// and beliefs at log magnitudes of 1e17 cannot be normalised in floating
// point. Damping halves the growth rate of an oscillating mode, so the run
// guards itself by the bound, which any finite messages certify: it is
// evaluated every checkEvery sweeps, and the messages of the lowest bound
// are kept. When a checkpoint's bound rises above the lowest by more than
// max(1, 1e-3 |lowest|), or a finite message entry passes explodeLimit,
// the run returns to the lowest bound's messages and halves 1 - damping
// (0.25 becomes 0.625, then 0.8125, ...) for its remaining sweeps, up to
// maxDamping, beyond which it stops. A run that does not converge ends on
// the messages of its lowest bound, which LogZ and the marginals then
// come from. Diagnostics "restarts" counts the returns, "damping" is the
// damping of the last sweep, and "diverged" is 1 for a run that diverged
// even at maxDamping.
package trw

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Options configures a TRW run; start from DefaultOptions.
type Options struct {
	// Trees is the number of random spanning hyperforests the appearance
	// probabilities are drawn from. Default 16.
	Trees int `json:"trees" help:"Number of random spanning forests of the factor graph whose factor frequencies are the appearance probabilities (more are added if some factor lies in none)."`
	// Seed seeds the random forests. Default 1.
	Seed int64 `json:"seed" help:"Seed of the random spanning forests."`
	// Tol stops the run when no variable belief entry changed by more than
	// Tol in a sweep. Default 1e-9.
	Tol float64 `json:"tol" help:"Converged when no entry of any variable's belief changed by more than tol in a sweep."`
	// MaxIter caps the number of sweeps. Default 1000.
	MaxIter int `json:"max_iter" help:"Cap on the sweeps per call; a run stopped by it is not converged (its ln Z is still an upper bound)."`
	// Damping d in [0, 1) mixes every new log message with the old one.
	// Default 0.25: on 10x10 grids with couplings U(-f,f) (sample-model seed
	// 11, 10 models per f), no damping converged on 5 of 10 models at f = 2
	// but oscillated at f >= 5 with gaps (TRW - exact) 11-17 % larger;
	// damping 0.1, 0.25 and 0.5 gave bounds within 0.1 % of each other and
	// converged on 3, 1 and 0 of 10 at f = 2 (none at f >= 5 within 1000
	// sweeps), but 0.1 missed convergence on a small pedigree where 0.25
	// and 0.5 converged. A run whose messages diverge raises it for its
	// remaining sweeps (see Divergence in the package comment).
	Damping float64 `json:"damping" help:"Damping d in [0, 1) of the factor-to-variable messages in the log domain: (1-d)*new + d*old. A run whose bound rises (the messages diverge) goes back to its lowest bound and continues with 1-d halved."`
	// MaxSeconds is the time budget of a call (see infer.Budget); 0 means
	// no limit. Default 0.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit); a run stopped by it returns its last iterate, not converged (its ln Z is still an upper bound)."`
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{Trees: 16, Seed: 1, Tol: 1e-9, MaxIter: 1000, Damping: 0.25}
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	if o.Trees < 1 {
		return fmt.Errorf("trw: trees %d, want >= 1", o.Trees)
	}
	if err := infer.CheckIterative("trw", o.Tol, o.MaxIter, o.Damping); err != nil {
		return err
	}
	return infer.CheckMaxSeconds("trw", o.MaxSeconds)
}

// TRW is tree-reweighted BP. It keeps its forests and messages between
// Infer calls and warm-starts from them when the next model has the same
// structure; Reset forgets them. A TRW is not safe for concurrent use.
type TRW struct {
	opts Options

	g       *infer.FactorGraph // nil until the first Infer or after Reset
	forests [][]int            // factors (arity >= 2) of every forest
	plans   []plan             // every forest's elimination order
	rho     []float64          // appearance probability of every factor (1 for arity < 2)
	// Edge e = edgeOff[a]+p joins factor a (arity >= 2) and its p-th
	// variable; its log message is msg[msgOff[e]:msgOff[e+1]], largest
	// entry 0.
	edgeOff    []int
	msgOff     []int
	edgeFactor []int   // the factor of every edge
	varEdges   [][]int // edges of every variable (factors of arity >= 2)
	msg        []float64
	varOff     []int     // variable i's entries are [varOff[i], varOff[i+1])
	unary      []float64 // θ_i: sum of the unary factors' tables
	phi        []float64 // φ_i, scratch
	belief     []float64 // probabilities after the last sweep
	next       []float64 // scratch, same shape as belief
	cav        []float64 // cavities c_{a,j}, scratch, per position of a factor
	cavOff     []int
	table      []float64 // scratch, largest factor table
	out        []float64 // scratch, largest cardinality
	node       []float64 // scratch, same shape as belief

	degenerate int // messages with no mass anywhere in the last sweep

	exploded  bool      // some finite message entry fell below -explodeLimit in the last sweep
	bestMsg   []float64 // the messages of the lowest bound seen in this call
	bestBound float64
}

// New returns a TRW method with opts (start from DefaultOptions).
func New(opts Options) (*TRW, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &TRW{opts: opts}, nil
}

// Name returns "trw".
func (t *TRW) Name() string { return "trw" }

// Options returns the options in use.
func (t *TRW) Options() Options { return t.opts }

// Reset forgets the forests and messages, so the next Infer starts afresh.
func (t *TRW) Reset() { t.g = nil }

// Rho returns the appearance probability of every factor of the last
// model (1 for unary and constant factors), or nil before the first call.
func (t *TRW) Rho() []float64 {
	if t.g == nil {
		return nil
	}
	return append([]float64(nil), t.rho...)
}

// Infer runs TRW on m, warm-starting from the messages of the previous call
// when m has the same structure.
func (t *TRW) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	ctx = infer.BeginCall(ctx) // the time budget covers the set-up
	if m == nil {
		return nil, errors.New("trw: nil model")
	}
	if t.g.SameStructure(m) {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("trw: %w", err)
		}
	} else {
		g, err := infer.NewFactorGraph(m)
		if err != nil {
			return nil, fmt.Errorf("trw: %w", err)
		}
		t.setup(g)
	}
	t.setUnary(m)
	t.beliefs(t.belief)
	res := &infer.Result{Diagnostics: map[string]float64{"forests": float64(len(t.forests))}}
	bound, err := t.iterate(ctx, m, res)
	if err != nil {
		return nil, err
	}
	t.finish(m, res, bound)
	return res, nil
}

// setup allocates everything for g, draws the forests and sets the
// messages uniform.
func (t *TRW) setup(g *infer.FactorGraph) {
	t.g = g
	t.forests, t.rho = drawForests(g, t.opts.Trees, t.opts.Seed)
	t.plans = make([]plan, len(t.forests))
	for k, f := range t.forests {
		t.plans[k] = newPlan(g, f)
	}
	n := g.NumVars()
	t.varOff = make([]int, n+1)
	for i, c := range g.Cards {
		t.varOff[i+1] = t.varOff[i] + c
	}
	t.edgeOff = make([]int, g.NumFactors()+1)
	t.msgOff = t.msgOff[:0]
	t.varEdges = make([][]int, n)
	off := 0
	for a, s := range g.Scopes {
		k := 0
		if len(s) >= 2 {
			k = len(s)
			for _, v := range s {
				t.varEdges[v] = append(t.varEdges[v], len(t.msgOff))
				t.msgOff = append(t.msgOff, off)
				off += g.Cards[v]
			}
		}
		t.edgeOff[a+1] = t.edgeOff[a] + k
	}
	t.msgOff = append(t.msgOff, off)
	t.msg = make([]float64, off)
	t.bestMsg = make([]float64, off)
	t.edgeFactor = make([]int, len(t.msgOff)-1)
	for a := range g.Scopes {
		for e := t.edgeOff[a]; e < t.edgeOff[a+1]; e++ {
			t.edgeFactor[e] = a
		}
	}
	total := t.varOff[n]
	t.unary = make([]float64, total)
	t.phi = make([]float64, total)
	t.belief = make([]float64, total)
	t.next = make([]float64, total)
	t.node = make([]float64, total)
	maxArity := 0
	for _, s := range g.Scopes {
		maxArity = max(maxArity, len(s))
	}
	t.cav = make([]float64, maxArity*g.MaxCard)
	t.table = make([]float64, g.MaxSize)
	t.out = make([]float64, g.MaxCard)
}

// setUnary sums m's unary factor tables into θ_i.
func (t *TRW) setUnary(m *mrf.Model) {
	clear(t.unary)
	for _, f := range m.Factors {
		if len(f.Vars) == 1 {
			u := t.unaryOf(f.Vars[0])
			for x, l := range f.LogTable {
				u[x] += l
			}
		}
	}
}

func (t *TRW) unaryOf(i int) []float64  { return t.unary[t.varOff[i]:t.varOff[i+1]] }
func (t *TRW) phiOf(i int) []float64    { return t.phi[t.varOff[i]:t.varOff[i+1]] }
func (t *TRW) msgOf(e int) []float64    { return t.msg[t.msgOff[e]:t.msgOff[e+1]] }
func (t *TRW) cavOf(p, c int) []float64 { return t.cav[p*t.g.MaxCard : p*t.g.MaxCard+c] }

// cavity writes c_{a,j} = φ_j - ℓ_{a→j} for the variable j on edge e into
// dst: θ_j plus the other messages weighted by their ρ, plus (ρ_a - 1)·ℓ_{a→j},
// and -Inf where ℓ_{a→j} is -Inf (a sound exclusion).
func (t *TRW) cavity(j, e int, dst []float64) {
	copy(dst, t.unaryOf(j))
	for _, e2 := range t.varEdges[j] {
		r := t.rho[t.edgeFactor[e2]]
		if e2 == e {
			r--
		}
		for x, l := range t.msgOf(e2) {
			switch {
			case math.IsInf(l, -1) && e2 == e:
				dst[x] = math.Inf(-1)
			case r != 0:
				dst[x] += r * l
			}
		}
	}
}

// sweep updates every factor's messages once, in factor order. It
// allocates nothing.
func (t *TRW) sweep(m *mrf.Model, d float64) {
	t.degenerate = 0
	t.exploded = false
	for a := range m.Factors {
		f := &m.Factors[a]
		if len(f.Vars) < 2 {
			continue
		}
		e0 := t.edgeOff[a]
		axes := t.g.Axes[a]
		for p, v := range f.Vars {
			t.cavity(v, e0+p, t.cavOf(p, axes[p].Card))
		}
		inv := 1 / t.rho[a]
		for p := range f.Vars {
			tab := t.table[:len(f.LogTable)]
			for k, l := range f.LogTable {
				tab[k] = l * inv
			}
			for q := range f.Vars {
				if q != p {
					infer.AddAlong(tab, axes[q], t.cavOf(q, axes[q].Card))
				}
			}
			out := t.out[:axes[p].Card]
			infer.LogSumAlong(tab, axes[p], out)
			if math.IsInf(infer.ShiftMax(out), -1) {
				t.degenerate++ // only when Z = 0 (zeros are sound)
			}
			old := t.msgOf(e0 + p)
			if d > 0 {
				for x := range out {
					out[x] = (1-d)*out[x] + d*old[x] // -Inf stays -Inf, never NaN
				}
				infer.ShiftMax(out)
			}
			for _, l := range out {
				if l < -explodeLimit && !math.IsInf(l, -1) {
					t.exploded = true
				}
			}
			copy(old, out)
		}
	}
}

// computePhi sets φ_i = θ_i + Σ_{a∋i} ρ_a ℓ_{a→i} for every variable.
func (t *TRW) computePhi() {
	copy(t.phi, t.unary)
	for i := range t.g.Cards {
		phi := t.phiOf(i)
		for _, e := range t.varEdges[i] {
			r := t.rho[t.edgeFactor[e]]
			for x, l := range t.msgOf(e) {
				phi[x] += r * l
			}
		}
	}
}

// beliefs writes every variable's belief into dst and returns the largest
// absolute change from t.belief.
func (t *TRW) beliefs(dst []float64) float64 {
	t.computePhi()
	delta := 0.0
	for i := range t.g.Cards {
		lo, hi := t.varOff[i], t.varOff[i+1]
		infer.NormalizeLogTo(dst[lo:hi], t.phi[lo:hi])
		for k := lo; k < hi; k++ {
			delta = max(delta, math.Abs(dst[k]-t.belief[k]))
		}
	}
	return delta
}
