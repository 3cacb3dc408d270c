// Package bp implements loopy belief propagation (sum-product) on the factor
// graph of a discrete MRF, plain ("bp") and damped ("dbp"), in log space, with
// the Bethe free energy as its estimate of -ln Z.
//
// Schedule: one sweep visits the factors in model order. For each factor a it
// first refreshes the variable-to-factor messages m_{i→a} = Σ_{b∋i, b≠a}
// m_{b→i} (log space) from the current factor-to-variable messages, then
// replaces every m_{a→i}. Each update therefore sees the newest messages of
// the factors visited before it in the sweep; on a tree the messages are exact
// after at most diameter-many sweeps.
//
// Every factor is a node of the factor graph, unary factors included: a
// variable's degree d_i counts all factors containing it, and
//
//	F = Σ_a Σ_{x_a} b_a (ln b_a - LogTable_a) - Σ_i (d_i - 1) Σ_{x_i} b_i ln b_i,
//
// which equals -ln Z at the BP fixed point of a model whose factor graph is a
// tree. Factors with an empty scope (constants) contribute -LogTable[0].
package bp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// Options configures a BP run; start from DefaultOptions or DampedOptions.
type Options struct {
	// Tol stops the run when no variable belief entry changed by more than
	// Tol in a sweep. Default 1e-9.
	Tol float64 `json:"tol" help:"Converged when no entry of any variable's belief changed by more than tol in a sweep."`
	// MaxIter caps the number of sweeps. Default 1000.
	MaxIter int `json:"max_iter" help:"Cap on the sweeps per call; a run stopped by it is not converged."`
	// Damping d in [0, 1) mixes every new factor-to-variable log message with
	// the old one: (1-d)·new + d·old, then normalised. 0 is plain BP; damped
	// BP ("dbp") uses 0.5.
	Damping float64 `json:"damping" help:"Damping d in [0, 1) of the factor-to-variable messages in the log domain: (1-d)*new + d*old."`
	// MaxSeconds is the time budget of a call (see infer.Budget); 0 means
	// no limit. Default 0.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit); a run stopped by it returns its last iterate, not converged."`
	// Name overrides the method name; by default it is "bp" without damping
	// and "dbp" with it.
	Name string `json:"-"`
}

// DefaultOptions returns the options of plain loopy BP.
func DefaultOptions() Options { return Options{Tol: 1e-9, MaxIter: 1000} }

// DampedOptions returns the options of damped BP (damping 0.5).
func DampedOptions() Options { return Options{Tol: 1e-9, MaxIter: 1000, Damping: 0.5} }

// BP is loopy belief propagation. It keeps its messages between Infer calls
// and warm-starts from them when the next model has the same structure
// (cardinalities and scopes); Reset forgets them. A BP is not safe for
// concurrent use.
type BP struct {
	opts Options

	g *infer.FactorGraph // nil until the first Infer or after Reset
	// Edge e = edgeOff[a]+p joins factor a and its p-th scope variable;
	// its messages live at fv[msgOff[e]:msgOff[e]+card] (factor to variable)
	// and vf[...] (variable to factor), in log space with largest entry 0
	// (cheaper than normalising to sum one, and as good for BP).
	edgeOff  []int
	msgOff   []int
	varEdges [][]int // edges of every variable
	fv, vf   []float64
	varOff   []int     // variable i's belief is belief[varOff[i]:varOff[i+1]]
	belief   []float64 // probabilities after the last sweep
	logb     []float64 // scratch, same shape as belief
	table    []float64 // scratch, largest factor table
	out      []float64 // scratch, largest cardinality

	degenerate int // messages with no mass anywhere in the last sweep
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	if err := infer.CheckIterative("bp", o.Tol, o.MaxIter, o.Damping); err != nil {
		return err
	}
	return infer.CheckMaxSeconds("bp", o.MaxSeconds)
}

// New returns a BP method with opts (start from DefaultOptions or
// DampedOptions).
func New(opts Options) (*BP, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = "bp"
		if opts.Damping > 0 {
			opts.Name = "dbp"
		}
	}
	return &BP{opts: opts}, nil
}

// Name returns "bp", "dbp" or Options.Name.
func (b *BP) Name() string { return b.opts.Name }

// Options returns the options in use.
func (b *BP) Options() Options { return b.opts }

// Reset forgets the messages, so the next Infer starts from uniform ones.
func (b *BP) Reset() { b.g = nil }

// Infer runs BP on m, warm-starting from the messages of the previous call
// when m has the same structure.
func (b *BP) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	ctx = infer.BeginCall(ctx) // the time budget covers the set-up
	if m == nil {
		return nil, errors.New("bp: nil model")
	}
	if b.g.SameStructure(m) {
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("bp: %w", err)
		}
	} else {
		g, err := infer.NewFactorGraph(m)
		if err != nil {
			return nil, fmt.Errorf("bp: %w", err)
		}
		b.setup(g)
	}

	b.beliefs(b.belief) // the beliefs the first sweep is measured against
	res := &infer.Result{Diagnostics: map[string]float64{"damping": b.opts.Damping}}
	budget := infer.Budget{MaxIter: b.opts.MaxIter, MaxSeconds: b.opts.MaxSeconds}
	delta, err := budget.Iterate(ctx, "bp", b.opts.Tol, res, func() float64 {
		b.sweep(m)
		delta := b.beliefs(b.logb)
		b.belief, b.logb = b.logb, b.belief
		return delta
	})
	if err != nil {
		return nil, err
	}
	res.Diagnostics["max_delta"] = delta
	res.Diagnostics["degenerate_messages"] = float64(b.degenerate)
	res.Diagnostics["degenerate_beliefs"] = float64(b.finish(m, res))
	return res, nil
}

// setup allocates the messages for g and sets them uniform.
func (b *BP) setup(g *infer.FactorGraph) {
	b.g = g
	b.edgeOff = make([]int, g.NumFactors()+1)
	b.msgOff = b.msgOff[:0]
	off := 0
	for a, s := range g.Scopes {
		b.edgeOff[a+1] = b.edgeOff[a] + len(s)
		for _, v := range s {
			b.msgOff = append(b.msgOff, off)
			off += g.Cards[v]
		}
	}
	b.msgOff = append(b.msgOff, off)
	b.fv = make([]float64, off)
	b.vf = make([]float64, off)
	b.varEdges = make([][]int, g.NumVars())
	for i, incs := range g.VarFactors {
		b.varEdges[i] = make([]int, len(incs))
		for k, inc := range incs {
			b.varEdges[i][k] = b.edgeOff[inc.Factor] + inc.Pos
		}
	}
	b.varOff = make([]int, g.NumVars()+1)
	for i, c := range g.Cards {
		b.varOff[i+1] = b.varOff[i] + c
	}
	b.belief = make([]float64, b.varOff[g.NumVars()])
	b.logb = make([]float64, len(b.belief))
	b.table = make([]float64, g.MaxSize)
	b.out = make([]float64, g.MaxCard)
}

func (b *BP) fvMsg(e int) []float64 { return b.fv[b.msgOff[e]:b.msgOff[e+1]] }
func (b *BP) vfMsg(e int) []float64 { return b.vf[b.msgOff[e]:b.msgOff[e+1]] }

// refreshVF recomputes the variable-to-factor message on edge e, which joins
// variable i to some factor: the sum of i's other incoming messages.
func (b *BP) refreshVF(i, e int) {
	v := b.vfMsg(e)
	clear(v)
	for _, e2 := range b.varEdges[i] {
		if e2 == e {
			continue
		}
		for x, l := range b.fvMsg(e2) {
			v[x] += l
		}
	}
	if math.IsInf(infer.ShiftMax(v), -1) {
		b.degenerate++
	}
}

// sweep updates every factor's messages once, in factor order. It allocates
// nothing.
func (b *BP) sweep(m *mrf.Model) {
	b.degenerate = 0
	d := b.opts.Damping
	for a := range m.Factors {
		f := &m.Factors[a]
		e0 := b.edgeOff[a]
		axes := b.g.Axes[a]
		for p, v := range f.Vars {
			b.refreshVF(v, e0+p)
		}
		for p := range f.Vars {
			out := b.out[:axes[p].Card]
			if len(f.Vars) == 1 {
				copy(out, f.LogTable) // a unary factor's message is its table
			} else {
				tab := b.table[:len(f.LogTable)]
				copy(tab, f.LogTable)
				for q := range f.Vars {
					if q != p {
						infer.AddAlong(tab, axes[q], b.vfMsg(e0+q))
					}
				}
				infer.LogSumAlong(tab, axes[p], out)
			}
			if math.IsInf(infer.ShiftMax(out), -1) {
				b.degenerate++
			}
			old := b.fvMsg(e0 + p)
			if d > 0 {
				// d·(-Inf) is -Inf, never NaN, since 0 < d < 1.
				for x := range out {
					out[x] = (1-d)*out[x] + d*old[x]
				}
				infer.ShiftMax(out)
			}
			copy(old, out)
		}
	}
}

// beliefs writes every variable's belief (probabilities) into dst and
// returns the largest absolute change from b.belief.
func (b *BP) beliefs(dst []float64) float64 {
	delta := 0.0
	for i := range b.g.Cards {
		lo, hi := b.varOff[i], b.varOff[i+1]
		bi := dst[lo:hi]
		clear(bi)
		for _, e := range b.varEdges[i] {
			for x, l := range b.fvMsg(e) {
				bi[x] += l
			}
		}
		infer.NormalizeLogTo(bi, bi)
		for x, p := range bi {
			delta = max(delta, math.Abs(p-b.belief[lo+x]))
		}
	}
	return delta
}

// finish fills in res's marginals and Bethe free energy from the current
// messages. It returns the number of beliefs that had no mass anywhere (set
// uniform), which happens only when the messages contradict a zero potential.
func (b *BP) finish(m *mrf.Model, res *infer.Result) int {
	degenerate := 0
	g := b.g
	res.Marginals.Vars = make([][]float64, g.NumVars())
	res.Marginals.Factors = make([][]float64, g.NumFactors())
	F := 0.0
	for a := range m.Factors {
		f := &m.Factors[a]
		e0 := b.edgeOff[a]
		for p, v := range f.Vars {
			b.refreshVF(v, e0+p)
		}
		logba := append([]float64(nil), f.LogTable...)
		for p := range f.Vars {
			infer.AddAlong(logba, g.Axes[a][p], b.vfMsg(e0+p))
		}
		if math.IsInf(infer.ShiftLog(logba), -1) {
			degenerate++
		}
		for t, l := range logba {
			if math.IsInf(l, -1) {
				logba[t] = 0
				continue
			}
			p := math.Exp(l)
			F += p * (l - f.LogTable[t]) // +Inf only if a degenerate belief covers a zero
			logba[t] = p
		}
		res.Marginals.Factors[a] = logba
	}
	logb := b.out
	for i, c := range g.Cards {
		lo := b.varOff[i]
		clear(logb[:c])
		for _, e := range b.varEdges[i] {
			for x, l := range b.fvMsg(e) {
				logb[x] += l
			}
		}
		if math.IsInf(infer.LogSumExp(logb[:c]), -1) {
			degenerate++
		}
		res.Marginals.Vars[i] = append([]float64(nil), b.belief[lo:lo+c]...)
		negH := 0.0
		for _, p := range res.Marginals.Vars[i] {
			negH += infer.XLogX(p)
		}
		F -= float64(g.Degree(i)-1) * negH
	}
	res.FreeEnergy = F
	res.LogZ = -F
	return degenerate
}
