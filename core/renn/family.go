package renn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
	"github.com/renn-go/renn/core/region"
)

// Family is a family network (nn.FamilyNet) with the way it reads a model.
// It predicts the messages of the message net: for every link from a root
// R to one of its children C and every child state c, one number a_{R→C}(c),
// so that
//
//	logit_R(x) = −E_R(x) + G_R(x) + Σ_C a_{R→C}(x_C),
//
// where G_R = log b_R + E_R is the log of the messages into the root after
// Sweeps sweeps of parent-to-child message passing (package gbp) from
// uniform messages. Its answer is thus of the form of generalized belief
// propagation's beliefs, and refinement (the message net's own training)
// can reach GBP's fixed point from it. The inputs of a link's child state c
// are
//
//	f_0 = log b_C(c) − log Σ_{x_C = c} b_R(x),
//	f_1 = f_0 one sweep earlier,
//	f_2 = the change of log Σ_{x_C = c} b_R(x) in the last sweep,
//
// each centred over the child's states (the mismatch between the child's
// belief and the root's marginal, which drives GBP's own update, and how it
// moves), and the link's inputs are the root's mean number of roots per
// variable and its number of children, both over 4. The untrained net
// outputs 0: the sweeps' beliefs. None of it depends on the number of
// variables, so a net trained on 10x10 grids reads 30x30 ones.
type Family struct {
	Net    *nn.FamilyNet
	Sweeps int
}

// Inputs of the family network (see Family).
const (
	FamilyStateFeatures = 3
	FamilyRootFeatures  = 2
)

// NewFamilyNet returns an untrained family network with the given hidden
// width and seed: it outputs 0, the sweeps' beliefs.
func NewFamilyNet(hidden int, seed int64) (*nn.FamilyNet, error) {
	return nn.NewFamilyNet(nn.FamilyConfig{StateFeatures: FamilyStateFeatures, RootFeatures: FamilyRootFeatures,
		Hidden: hidden, LinearInit: make([]float64, FamilyStateFeatures), Seed: seed})
}

// Check reports whether f is usable.
func (f *Family) Check() error {
	switch {
	case f == nil || f.Net == nil:
		return errors.New("family: no network")
	case f.Sweeps < 1:
		return fmt.Errorf("family: %d sweeps, want >= 1", f.Sweeps)
	}
	c := f.Net.Config()
	if c.StateFeatures != FamilyStateFeatures || c.RootFeatures != FamilyRootFeatures {
		return fmt.Errorf("family: the network takes %d state and %d root features, want %d and %d",
			c.StateFeatures, c.RootFeatures, FamilyStateFeatures, FamilyRootFeatures)
	}
	return nil
}

// NewWithFamily returns RENN whose message net starts from the family
// network's answer (its messages, with the sweeps' feature G at weight 1).
// With forwardOnly, Infer returns that answer (Iterations 0, not
// converged: nothing checked that it is stationary); otherwise the usual
// loop refines it, with multipliers set by least squares at the start and
// MaxSteps capping the steps. A later call on a model of the same
// structure (learning) warm-starts from the previous call's net, as plain
// RENN does (WarmSteps caps it), with the inputs read afresh from the new
// model. opts.Net must be "message".
func NewWithFamily(g *region.Graph, opts Options, f *Family, forwardOnly bool) (*RENN, error) {
	if opts.Net != "message" {
		return nil, fmt.Errorf("net: %q, a family network needs the message net", opts.Net)
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	r, err := New(g, opts)
	if err != nil {
		return nil, err
	}
	r.family, r.forwardOnly = f, forwardOnly
	return r, nil
}

// familyRead is what the family network reads on one model.
type familyRead struct {
	inst *nn.FamilyInstance
	G    [][]float64 // per root, the sweeps' log messages (the message net's feature)
}

// readFamily sets the message net's inputs on m (the root energies and the
// sweeps' log messages) and, unless the net is warm from a previous call on
// a model of the same structure (learning), its messages to the family
// network's output and the multipliers by least squares. It reports
// whether it restarted the net.
func (r *RENN) readFamily(ctx context.Context, mn *nn.MessageNet, m *mrf.Model, E [][]float64) (restarted bool, err error) {
	fr, err := r.familyRead(ctx, m, E, r.family)
	if err != nil {
		return false, err
	}
	if err := r.setFamilyInputs(mn, fr, E); err != nil {
		return false, err
	}
	if r.warm && !r.forwardOnly {
		return false, nil
	}
	r.restart(mn, 1)
	setMessages(mn, fr.inst.Forward())
	if !r.forwardOnly {
		r.solveMultipliers(m, E)
	}
	return true, nil
}

func (r *RENN) setFamilyInputs(mn *nn.MessageNet, fr *familyRead, E [][]float64) error {
	for k, id := range r.roots {
		r.rootE[k] = E[id]
	}
	return mn.SetInputs(r.rootE, [][][]float64{fr.G})
}

// setMessages copies the family net's output, per link and child state in
// the message net's link order, into its messages.
func setMessages(mn *nn.MessageNet, out [][]float64) {
	a := mn.Params()[0].Value
	for _, o := range out {
		n := copy(a, o)
		a = a[n:]
	}
}

// forwardResult is the answer of the current net without any step.
func (r *RENN) forwardResult(m *mrf.Model, E [][]float64) *infer.Result {
	F, pen, lin := r.step(m, E, false)
	r.warm = false
	return &infer.Result{
		Marginals:  mrf.Marginals{Vars: r.rb.VarMarginals(r.b), Factors: r.rb.FactorMarginals(r.b)},
		FreeEnergy: F,
		LogZ:       -F,
		Diagnostics: map[string]float64{"penalty": pen, "multiplier_term": lin, "loss": F + r.lambda*pen + lin,
			"max_violation": r.maxViolation(), "lambda": r.lambda, "steps": 0, "forward_only": 1},
	}
}

// familyRead runs the sweeps on m and binds the family network to its
// inputs (see Family): one row group per root→child link, in the order of
// the message net's links. r must be set up for m.
func (r *RENN) familyRead(ctx context.Context, m *mrf.Model, E [][]float64, f *Family) (*familyRead, error) {
	o := gbp.DefaultOptions()
	o.MaxIter, o.MaxSeconds = max(f.Sweeps-1, 1), r.opts.MaxSeconds
	mp, err := gbp.New(r.g, o)
	if err != nil {
		return nil, err
	}
	var prev, cur [][]float64    // region beliefs after one sweep fewer, and after the sweeps
	for range min(f.Sweeps, 2) { // Sweeps−1 sweeps, then one more
		if _, err := mp.Infer(ctx, m); err != nil {
			return nil, fmt.Errorf("family inputs: message passing: %w", err)
		}
		prev, cur = cur, mp.Beliefs()
		if err := mp.SetMaxIter(1); err != nil {
			return nil, err
		}
	}
	if prev == nil {
		prev = r.rb.NewBeliefs() // one sweep: compare with uniform messages
		for id, e := range E {
			gibbs(e, prev[id])
		}
	}
	inRoots := make(map[int]int)
	for _, id := range r.roots {
		for _, v := range r.g.Regions[id].Vars {
			inRoots[v]++
		}
	}
	rootIdx := make(map[int]int, len(r.roots))
	for k, id := range r.roots {
		rootIdx[id] = k
	}
	var state, root [][]float64
	var buf []float64
	for _, e := range r.edges {
		if _, ok := rootIdx[e.Parent]; !ok {
			continue
		}
		n := len(cur[e.Child])
		if cap(buf) < 4*n {
			buf = make([]float64, 4*n)
		}
		mNow, mPrev, f0, f1 := buf[:n], buf[n:2*n], make([]float64, n), make([]float64, n)
		region.Marginalize(cur[e.Parent], e.Map, mNow)
		region.Marginalize(prev[e.Parent], e.Map, mPrev)
		f2 := make([]float64, n)
		for c := range n {
			f0[c] = safeLog(cur[e.Child][c]) - safeLog(mNow[c])
			f1[c] = safeLog(prev[e.Child][c]) - safeLog(mPrev[c])
			f2[c] = safeLog(mNow[c]) - safeLog(mPrev[c])
		}
		st := make([]float64, n*FamilyStateFeatures)
		for i, fi := range [][]float64{f0, f1, f2} {
			centre(fi)
			for c, v := range fi {
				st[c*FamilyStateFeatures+i] = v
			}
		}
		state = append(state, st)
		vars := r.g.Regions[e.Parent].Vars
		mean := 0.0
		for _, v := range vars {
			mean += float64(inRoots[v])
		}
		root = append(root, []float64{mean / float64(len(vars)) / 4, float64(len(r.g.Regions[e.Parent].Children)) / 4})
	}
	if len(state) == 0 {
		return nil, errors.New("family inputs: the region graph has no root with children")
	}
	inst, err := f.Net.Bind(state, root, nil)
	if err != nil {
		return nil, err
	}
	return &familyRead{inst: inst, G: r.logMessages(cur, E)}, nil
}

// familyFloor bounds the log of a belief in the family net's inputs: a
// state message passing gave no mass reads as e^-30, not as −Inf.
const familyFloor = -30

func safeLog(v float64) float64 {
	if !(v > 0) {
		return familyFloor
	}
	return max(math.Log(v), familyFloor)
}

func centre(v []float64) {
	s := 0.0
	for _, x := range v {
		s += x
	}
	s /= float64(len(v))
	for i := range v {
		v[i] -= s
	}
}

// gibbs sets b ∝ exp(−e).
func gibbs(e, b []float64) {
	lo := math.Inf(1)
	for _, v := range e {
		lo = min(lo, v)
	}
	s := 0.0
	for i, v := range e {
		b[i] = math.Exp(lo - v)
		s += b[i]
	}
	for i := range b {
		b[i] /= s
	}
}

// logMessages returns, per root, log b_R + E_R on the allowed states (0 on
// the others, logFloor where b_R is 0 or not a number).
func (r *RENN) logMessages(b [][]float64, E [][]float64) [][]float64 {
	G := make([][]float64, len(r.roots))
	for k, id := range r.roots {
		G[k] = make([]float64, len(E[id]))
		for x, e := range E[id] {
			if math.IsInf(e, 1) {
				continue
			}
			v := b[id][x]
			if !(v > 0) || math.IsNaN(v) {
				G[k][x] = logFloor
				continue
			}
			G[k][x] = math.Max(math.Log(v), logFloor) + e
		}
	}
	return G
}
