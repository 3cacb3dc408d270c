package renn

import (
	"context"
	"math"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
)

// maxCGLS caps the conjugate-gradient iterations of the multiplier solve; on
// grids with couplings U(−5,5) it met its tolerance in a few iterations.
const maxCGLS = 200

// logFloor replaces log 0 for a state the model allows but message passing
// gave no mass.
const logFloor = -690

// readModel gives the message net its inputs and its starting point. The
// inputs are the root energies and, as the one feature, log b_R + E_R for the
// root beliefs b_R after at most Rounds sweeps of parent-to-child message
// passing on the model (the log of the messages into the root; the sweeps
// warm-start from the previous call's messages).
//
// If the sweeps converged, the net restarts from their beliefs (messages 0,
// weights 1) with the multipliers that make them a stationary point of the
// loss. Otherwise their last iterate is no fixed point and a poor start: a
// fresh net starts from uniform beliefs (weights 0), as the free logits do,
// and a warm one keeps its state.
func (r *RENN) readModel(ctx context.Context, mn *nn.MessageNet, m *mrf.Model, E [][]float64) (read bool, err error) {
	b, err := r.sweep(ctx, m)
	if err != nil {
		return false, err
	}
	G := make([][]float64, len(r.roots))
	for k, id := range r.roots {
		G[k] = make([]float64, len(E[id]))
		r.rootE[k] = E[id]
		if b == nil {
			continue
		}
		for x, e := range E[id] {
			if math.IsInf(e, 1) {
				continue
			}
			v := b[id][x]
			if !(v > 0) {
				G[k][x] = logFloor
				continue
			}
			G[k][x] = math.Max(math.Log(v), logFloor) + e
		}
	}
	if err := mn.SetInputs(r.rootE, [][][]float64{G}); err != nil {
		return false, err
	}
	switch {
	case b != nil:
		r.restart(mn, 1)
		// With the plain penalty the multipliers stay at these values, so
		// the loss keeps the fixed point stationary.
		r.solveMultipliers(m, E)
		r.keepFixedPoint(b)
	case !r.warm:
		r.restart(mn, 0)
	}
	return b != nil, nil
}

// sweep runs the message passing and returns its region beliefs, or nil if
// it did not converge within Rounds sweeps and the time budget (or Rounds
// is 0). Message passing warm-starts from the last call's messages; then it
// also runs from uniform messages, and the fixed point of lower region free
// energy is the start (and the messages the next call continues from). A
// warm start tracks the fixed point it found first while the model moves,
// and that was often not the lowest: in learning the 12 x 6 RBM of
// core/renn/README.md, message passing from uniform messages converged to a
// fixed point of lower free energy in 145 of 223 free-phase calls, and
// learning from the warm fixed points alone drifted off (test NLL up to 3
// nats above exact learning's).
func (r *RENN) sweep(ctx context.Context, m *mrf.Model) ([][]float64, error) {
	r.stalled = false
	if r.opts.Rounds == 0 {
		return nil, nil
	}
	warm := r.mp != nil
	s, err := r.passMessages(ctx, m, &r.mp, nil)
	if err != nil || !warm {
		r.stalled = s.stalled
		return s.b, err
	}
	c, err := r.passMessages(ctx, m, &r.cold, r.uniform)
	if err != nil {
		return nil, err
	}
	if r.uniform == nil && r.cold != nil {
		r.uniform = r.cold.EdgeMessages() // after its first run, from uniform messages: their layout
		for _, msg := range r.uniform {
			clear(msg.Log)
		}
	}
	if c.better(s, r.opts.Tol) {
		r.mp, r.cold = r.cold, r.mp
		s = c
	}
	r.stalled = s.stalled
	return s.b, nil
}

// mpStart is where a run of message passing ended: region beliefs b (nil if
// none is a start) of free energy F, a stall or a fixed point.
type mpStart struct {
	b       [][]float64
	F       float64
	stalled bool
}

// better reports whether s is the better start than t: a fixed point beats
// a stall, and between two of a kind the lower free energy (by more than the
// relative tolerance tol) wins.
func (s mpStart) better(t mpStart, tol float64) bool {
	switch {
	case s.b == nil:
		return false
	case t.b == nil || s.stalled != t.stalled:
		return t.b == nil || t.stalled
	}
	return s.F < t.F-tol*max(1, math.Abs(t.F))
}

// passMessages runs the message passing *mp (made on first use) on m, from
// the messages from if given (else from its last call's), and returns where
// it ended: its region beliefs and free energy if it converged or stalled
// (gbp.Stalled), else nil beliefs.
func (r *RENN) passMessages(ctx context.Context, m *mrf.Model, mp **gbp.GBP, from []gbp.EdgeMessage) (mpStart, error) {
	if *mp == nil {
		o := gbp.DefaultOptions()
		o.MaxIter, o.MaxSeconds = r.opts.Rounds, r.opts.MaxSeconds
		gb, err := gbp.New(r.g, o)
		if err != nil {
			return mpStart{}, err
		}
		*mp, from = gb, nil // a new one starts from uniform messages
	}
	var res *infer.Result
	var err error
	if from != nil {
		res, err = (*mp).InferFrom(ctx, m, from)
	} else {
		res, err = (*mp).Infer(ctx, m)
	}
	if err != nil {
		if ctx.Err() != nil {
			return mpStart{}, err
		}
		(*mp).Reset()
		return mpStart{}, nil // a failed sweep is no fixed point to start from
	}
	if !res.Converged && !gbp.Stalled(res) {
		return mpStart{}, nil
	}
	b := (*mp).Beliefs()
	for _, t := range b {
		for _, v := range t {
			if math.IsNaN(v) {
				return mpStart{}, nil
			}
		}
	}
	return mpStart{b: b, F: res.FreeEnergy, stalled: !res.Converged}, nil
}

// restart sets the net's messages to 0 and its weights to w, and forgets
// the optimiser's moments and the multipliers.
func (r *RENN) restart(mn *nn.MessageNet, w float64) {
	for _, p := range mn.Params() {
		clear(p.Value)
	}
	mn.SetWeights(w, []float64{w})
	r.adam.Reset()
	r.adam.LR = r.opts.LR
	for _, mu := range r.mu {
		clear(mu)
	}
}

// solveMultipliers sets μ to the least-squares solution of "the gradient of
// F + <μ,d> with respect to every root belief is constant over the root's
// states" at the current beliefs (CGLS), so that a consistent stationary
// point of the region free energy is a stationary point of the loss.
func (r *RENN) solveMultipliers(m *mrf.Model, E [][]float64) {
	for _, mu := range r.mu {
		clear(mu)
	}
	r.beliefs()
	r.loss(m, E) // r.gr: the gradient of F (+ λ·penalty, 0 at consistency)
	g := make([][]float64, len(r.roots))
	for k, id := range r.roots {
		g[k] = append([]float64(nil), r.gr[id]...)
		r.center(k, g[k])
	}
	mu := newLike(r.mu)
	res := make([][]float64, len(g)) // b - A μ with b = -P g
	for k := range g {
		res[k] = make([]float64, len(g[k]))
		for x, v := range g[k] {
			res[k][x] = -v
		}
	}
	sv := newLike(r.mu)
	r.adjoint(res, sv)
	p := newLike(r.mu)
	copyAll(p, sv)
	gamma := dot(sv, sv)
	q := newLike(res)
	stop := 1e-20 * gamma // a relative residual of 1e-10 in the normal equations
	for it := 0; it < maxCGLS && gamma > stop; it++ {
		r.apply(p, q)
		qq := dot(q, q)
		if qq == 0 {
			break
		}
		alpha := gamma / qq
		axpy(mu, alpha, p)
		axpy(res, -alpha, q)
		r.adjoint(res, sv)
		gn := dot(sv, sv)
		beta := gn / gamma
		gamma = gn
		for e := range p {
			for x := range p[e] {
				p[e][x] = sv[e][x] + beta*p[e][x]
			}
		}
	}
	copyAll(r.mu, mu)
}

// center removes the mean over the root's allowed states (masked states are
// set to 0).
func (r *RENN) center(k int, v []float64) {
	for _, x := range r.mask[k] {
		v[x] = 0
	}
	n := len(v) - len(r.mask[k])
	s := 0.0
	for _, x := range v {
		s += x
	}
	s /= float64(n)
	for x := range v {
		v[x] -= s
	}
	for _, x := range r.mask[k] {
		v[x] = 0
	}
}

// apply sets out = P Dᵀ μ: the centred root gradient of <μ,d>.
func (r *RENN) apply(mu, out [][]float64) {
	for _, t := range r.gr {
		clear(t)
	}
	for k := range r.edges {
		e := &r.edges[k]
		gc, gp := r.gr[e.Child], r.gr[e.Parent]
		for x, v := range mu[k] {
			gc[x] += v
		}
		for x, c := range e.Map {
			gp[x] -= mu[k][c]
		}
	}
	r.backMeans()
	for k, id := range r.roots {
		copy(out[k], r.gr[id])
		r.center(k, out[k])
	}
}

// adjoint sets out = D P y: the mismatches d of root tables P y carried
// down through the parent means.
func (r *RENN) adjoint(y, out [][]float64) {
	for k, id := range r.roots {
		copy(r.gr[id], y[k])
		r.center(k, r.gr[id])
	}
	r.meansDown(r.gr)
	for k := range r.edges {
		e := &r.edges[k]
		d := out[k]
		clear(d)
		for x, c := range e.Map {
			d[c] -= r.gr[e.Parent][x]
		}
		for x, v := range r.gr[e.Child] {
			d[x] += v
		}
	}
}

func newLike(t [][]float64) [][]float64 {
	out := make([][]float64, len(t))
	for i := range t {
		out[i] = make([]float64, len(t[i]))
	}
	return out
}

func copyAll(dst, src [][]float64) {
	for i := range src {
		copy(dst[i], src[i])
	}
}

func dot(a, b [][]float64) float64 {
	s := 0.0
	for i := range a {
		for j, v := range a[i] {
			s += v * b[i][j]
		}
	}
	return s
}

func axpy(y [][]float64, a float64, x [][]float64) {
	for i := range y {
		for j, v := range x[i] {
			y[i][j] += a * v
		}
	}
}
