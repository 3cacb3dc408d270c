// Package meanfield implements naive mean field ("mf") for discrete MRFs with
// factors of any arity and variables of any cardinality.
//
// It minimises the naive mean-field free energy
//
//	F(q) = -Σ_a E_q[LogTable_a] + Σ_i Σ_{x_i} q_i(x_i) ln q_i(x_i)
//
// over fully factorised q = Π_i q_i by coordinate descent: each sweep visits
// the variables in a fresh random order (drawn from mrf.NewRand(Seed)) and
// sets q_i(x_i) ∝ exp(Σ_{a∋i} E_{q_-i}[LogTable_a | x_i]). F ≥ -ln Z, so the
// reported LogZ = -F is a lower bound on ln Z.
//
// Zero potentials (-Inf log entries) restrict q to configurations of
// non-zero probability, as exact inference does. Before the sweeps, every
// state that no entry of non-zero potential supports given the other
// variables' remaining states is ruled out (generalised arc consistency;
// evidence, a point-mass unary factor, rules out every other state of its
// variable and what follows from it), and q is set to 0 there. If q then
// still covers a zero potential (q's support is a product of the variables'
// supports, so any factor with zeros can do that), a backtracking search
// with the same propagation (at most 100 000 choices, states tried in the
// order of q) finds a configuration of non-zero probability and q starts as
// its point mass. From a q that covers no zero, every update keeps it so: a
// state x_i that puts any mass of the other q's on a zero gets q_i(x_i) = 0,
// and the states of q_i's support put none. So F is finite and LogZ a finite
// lower bound whenever Z > 0 and the search succeeds (diagnostic
// "feasible_start" is 1). If every state of x_i puts mass on a zero (no
// feasible start was found), only the states with the least such mass stay,
// weighted by the finite part; if the final q still covers a zero, F is +Inf
// and LogZ is -Inf (still a valid bound; the shared check fails it).
// Entries of weight zero never contribute (0 · -Inf = 0), so no NaN arises.
// A model whose Z is 0 (the propagation empties a domain) is run without
// the restriction and ends with LogZ -Inf.
package meanfield

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Options configures a mean-field run; start from DefaultOptions (Check
// rejects a zero Tol or MaxIter: nothing is replaced by a default).
type Options struct {
	// Tol stops the run when no entry of any q_i changed by more than Tol in
	// a sweep. Default 1e-9.
	Tol float64 `json:"tol" help:"Converged when no entry of any variable's belief changed by more than tol in a sweep."`
	// MaxIter caps the number of sweeps. Default 1000.
	MaxIter int `json:"max_iter" help:"Cap on the sweeps per call; a run stopped by it is not converged."`
	// Seed seeds the random visiting order; every Infer call restarts the
	// generator, so a call is reproducible. Default 1.
	Seed int64 `json:"seed" help:"Seed of the random order in which a sweep visits the variables."`
	// Damping d in [0, 1) sets q_i to (1-d)·update + d·old (renormalised,
	// and never on states the update rules out). Default 0.
	Damping float64 `json:"damping" help:"Damping d in [0, 1): each belief becomes (1-d)*update + d*old."`
	// MaxSeconds is the time budget of a call (see infer.Budget); 0 means
	// no limit. Default 0.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit); a run stopped by it returns its last iterate, not converged."`
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options { return Options{Tol: 1e-9, MaxIter: 1000, Seed: 1} }

// MF is naive mean field. It keeps q between Infer calls and warm-starts from
// it when the next model has the same structure (cardinalities and scopes);
// Reset forgets it. An MF is not safe for concurrent use.
type MF struct {
	opts Options

	g      *infer.FactorGraph // nil until the first Infer or after Reset
	varOff []int              // q_i is q[varOff[i]:varOff[i+1]]
	q      []float64
	perm   []int
	table  []float64 // scratch, largest factor table
	fin    []float64 // scratch: finite part of the expected log potential
	viol   []float64 // scratch: mass the other q's put on zero potentials

	allowed   feasible.Domains // states not ruled out by m's zero potentials; nil if none are
	restarted bool             // the call runs from a feasible point mass (see restart)
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	if err := infer.CheckIterative("mf", o.Tol, o.MaxIter, o.Damping); err != nil {
		return err
	}
	return infer.CheckMaxSeconds("mf", o.MaxSeconds)
}

// New returns a mean-field method with opts (start from DefaultOptions).
func New(opts Options) (*MF, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &MF{opts: opts}, nil
}

// Name returns "mf".
func (mf *MF) Name() string { return "mf" }

// Options returns the options in use.
func (mf *MF) Options() Options { return mf.opts }

// Reset forgets q, so the next Infer starts from uniform q's.
func (mf *MF) Reset() { mf.g = nil }

// Infer runs mean field on m, warm-starting from the q of the previous call
// when m has the same structure.
func (mf *MF) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	ctx = infer.BeginCall(ctx) // the time budget covers the set-up and a restart
	if m == nil {
		return nil, errors.New("mf: nil model")
	}
	if mf.g.SameStructure(m) {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("mf: %w", err)
		}
	} else {
		g, err := infer.NewFactorGraph(m)
		if err != nil {
			return nil, fmt.Errorf("mf: %w", err)
		}
		mf.setup(g)
	}
	r := mrf.NewRand(mf.opts.Seed)
	res := &infer.Result{Diagnostics: map[string]float64{"damping": mf.opts.Damping}}
	mf.allowed = nil
	if feasible.HasZeros(m) {
		res.Diagnostics["feasible_start"] = b2f(mf.feasibleStart(m))
	}
	// A restart is part of the call that made it (it inherits ctx's mark),
	// so it shares its time budget.
	budget := infer.Budget{MaxIter: mf.opts.MaxIter, MaxSeconds: mf.opts.MaxSeconds}
	delta, err := budget.Iterate(ctx, "mf", mf.opts.Tol, res, func() float64 { return mf.sweep(m, r) })
	if err != nil {
		return nil, err
	}
	res.Diagnostics["max_delta"] = delta
	mf.finish(m, res)
	if res.Diagnostics["violation"] > 0 && mf.allowed != nil && !mf.restarted {
		return mf.restart(ctx, m, res)
	}
	return res, nil
}

// restart runs mean field again from the point mass of a configuration of
// non-zero probability, when the run that gave res ended covering a zero
// potential, and returns that run's result with both runs' sweeps counted;
// res itself if the search finds no such configuration.
func (mf *MF) restart(ctx context.Context, m *mrf.Model, res *infer.Result) (*infer.Result, error) {
	x := feasible.Search(mf.g, m, mf.allowed.Clone(), func(i, s int) float64 { return mf.qOf(i)[s] })
	if x == nil {
		return res, nil
	}
	for i, s := range x {
		qi := mf.qOf(i)
		clear(qi)
		qi[s] = 1
	}
	mf.restarted = true
	defer func() { mf.restarted = false }()
	again, err := mf.Infer(ctx, m)
	if err != nil {
		return nil, err
	}
	again.Iterations += res.Iterations
	again.Diagnostics["restarts"] = 1
	return again, nil
}

func (mf *MF) setup(g *infer.FactorGraph) {
	mf.g = g
	mf.varOff = make([]int, g.NumVars()+1)
	for i, c := range g.Cards {
		mf.varOff[i+1] = mf.varOff[i] + c
	}
	mf.q = make([]float64, mf.varOff[g.NumVars()])
	for i, c := range g.Cards {
		for k := mf.varOff[i]; k < mf.varOff[i+1]; k++ {
			mf.q[k] = 1 / float64(c)
		}
	}
	mf.perm = make([]int, g.NumVars())
	for i := range mf.perm {
		mf.perm[i] = i
	}
	mf.table = make([]float64, g.MaxSize)
	mf.fin = make([]float64, g.MaxCard)
	mf.viol = make([]float64, g.MaxCard)
}

func (mf *MF) qOf(i int) []float64 { return mf.q[mf.varOff[i]:mf.varOff[i+1]] }

// sweep updates every q_i once in a random order and returns the largest
// change of any entry. It allocates nothing.
func (mf *MF) sweep(m *mrf.Model, r *rand.Rand) float64 {
	r.Shuffle(len(mf.perm), func(a, b int) { mf.perm[a], mf.perm[b] = mf.perm[b], mf.perm[a] })
	delta := 0.0
	for _, i := range mf.perm {
		delta = max(delta, mf.update(m, i))
	}
	return delta
}

// update sets q_i from the other q's and returns the largest entry change.
func (mf *MF) update(m *mrf.Model, i int) float64 {
	c := mf.g.Cards[i]
	fin, viol := mf.fin[:c], mf.viol[:c]
	clear(fin)
	clear(viol)
	for _, inc := range mf.g.VarFactors[i] {
		f := &m.Factors[inc.Factor]
		axes := mf.g.Axes[inc.Factor]
		if len(axes) == 1 {
			for x, l := range f.LogTable {
				if math.IsInf(l, -1) {
					viol[x]++
				} else {
					fin[x] += l
				}
			}
			continue
		}
		// w[t] = Π_{j≠i} q_j(x_j(t)): the weight of table entry t given x_i.
		w := mf.table[:len(f.LogTable)]
		for t := range w {
			w[t] = 1
		}
		for p, v := range f.Vars {
			if p != inc.Pos {
				infer.ScaleAlong(w, axes[p], mf.qOf(v))
			}
		}
		ax := axes[inc.Pos]
		block := ax.Stride * ax.Card
		for base := 0; base < len(w); base += block {
			for x := 0; x < c; x++ {
				lo := base + x*ax.Stride
				for t := lo; t < lo+ax.Stride; t++ {
					switch l := f.LogTable[t]; {
					case w[t] == 0:
					case math.IsInf(l, -1):
						viol[x] += w[t]
					default:
						fin[x] += w[t] * l
					}
				}
			}
		}
	}
	if mf.allowed != nil {
		for x, ok := range mf.allowed[i] {
			if !ok {
				viol[x] = math.Inf(1) // ruled out by the zeros: never chosen
			}
		}
	}
	least := math.Inf(1)
	for _, v := range viol {
		least = min(least, v)
	}
	for x, v := range viol {
		if v > least {
			fin[x] = math.Inf(-1)
		}
	}
	infer.NormalizeLogTo(fin, fin) // fin now holds the updated q_i
	qi := mf.qOf(i)
	if d := mf.opts.Damping; d > 0 {
		s := 0.0
		for x := range fin {
			if viol[x] == least { // ruled-out states stay at zero
				fin[x] = (1-d)*fin[x] + d*qi[x]
			}
			s += fin[x]
		}
		for x := range fin {
			fin[x] /= s
		}
	}
	delta := 0.0
	for x, p := range fin {
		delta = max(delta, math.Abs(p-qi[x]))
		qi[x] = p
	}
	return delta
}

// finish fills in res's marginals and the mean-field free energy from q.
func (mf *MF) finish(m *mrf.Model, res *infer.Result) {
	g := mf.g
	res.Marginals.Vars = make([][]float64, g.NumVars())
	res.Marginals.Factors = make([][]float64, g.NumFactors())
	F := 0.0
	violation := 0.0
	for i := range g.Cards {
		res.Marginals.Vars[i] = append([]float64(nil), mf.qOf(i)...)
		for _, p := range res.Marginals.Vars[i] {
			F += infer.XLogX(p)
		}
	}
	for a := range m.Factors {
		f := &m.Factors[a]
		w := make([]float64, len(f.LogTable))
		for t := range w {
			w[t] = 1
		}
		for p, v := range f.Vars {
			infer.ScaleAlong(w, g.Axes[a][p], mf.qOf(v))
		}
		for t, l := range f.LogTable {
			switch {
			case w[t] == 0:
			case math.IsInf(l, -1):
				violation += w[t]
			default:
				F -= w[t] * l
			}
		}
		res.Marginals.Factors[a] = w
	}
	if violation > 0 {
		F = math.Inf(1)
	}
	res.Diagnostics["violation"] = violation
	res.FreeEnergy = F
	res.LogZ = -F
}

// feasibleStart rules out the states arc consistency excludes given m's
// zero potentials (mf.allowed) and sets q to 0 there. It reports whether q
// then covers no zero potential.
func (mf *MF) feasibleStart(m *mrf.Model) bool {
	d := feasible.Full(mf.g.Cards)
	if !feasible.Propagate(mf.g, m, d) {
		return false // Z = 0
	}
	mf.allowed = d
	for i := range mf.g.Cards {
		qi := mf.qOf(i)
		s := 0.0
		for x := range qi {
			if !d[i][x] {
				qi[x] = 0
			}
			s += qi[x]
		}
		if s == 0 { // a warm start's q lies outside the domain
			for x := range qi {
				qi[x] = b2f(d[i][x])
				s += qi[x]
			}
		}
		for x := range qi {
			qi[x] /= s
		}
	}
	return mf.violation(m) == 0
}

// violation returns the mass the product of the q's puts on zero potentials.
func (mf *MF) violation(m *mrf.Model) float64 {
	v := 0.0
	for a := range m.Factors {
		f := &m.Factors[a]
		w := mf.table[:len(f.LogTable)]
		for t := range w {
			w[t] = 1
		}
		for p, u := range f.Vars {
			infer.ScaleAlong(w, mf.g.Axes[a][p], mf.qOf(u))
		}
		for t, l := range f.LogTable {
			if math.IsInf(l, -1) {
				v += w[t]
			}
		}
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
