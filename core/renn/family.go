package renn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
// propagation's beliefs, and refinement (GBP's updates from its messages,
// or the message net's own training) can reach GBP's fixed point from it. The inputs of a link's child state c
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
	by := RefineGradient
	if forwardOnly {
		by = RefineNone
	}
	return NewFamilyInference(g, opts, f, by, 0)
}

// How NewFamilyInference refines the family network's answer.
const (
	// RefineNone returns the forward pass (Iterations 0, not converged).
	RefineNone = "none"
	// RefineGradient runs the message net's own loop (Adam on the RENN
	// loss, the usual convergence rule) from the forward pass.
	RefineGradient = "gradient"
	// RefineGBP runs GBP's parent-to-child updates (package gbp, its
	// default tolerance) from the forward pass's messages (see
	// refineGBP); when GBP does not converge within the sweep cap, the
	// gradient refinement follows from the forward pass.
	RefineGBP = "gbp"
)

// RefineKinds lists the refinements NewFamilyInference knows.
var RefineKinds = []string{RefineGBP, RefineGradient, RefineNone}

// NewFamilyInference returns RENN that answers from the family network's
// forward pass, refined by by (RefineGBP, RefineGradient or RefineNone).
// sweeps caps the sweeps of RefineGBP's message passing (>= 1; ignored,
// and may be 0, for the others); opts.MaxSteps caps the gradient steps.
func NewFamilyInference(g *region.Graph, opts Options, f *Family, by string, sweeps int) (*RENN, error) {
	switch {
	case !slices.Contains(RefineKinds, by):
		return nil, fmt.Errorf("refine-by: %q, want one of %s", by, strings.Join(RefineKinds, ", "))
	case by == RefineGBP && sweeps < 1:
		return nil, fmt.Errorf("refine-by gbp: sweep cap %d, want >= 1", sweeps)
	}
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
	r.family, r.forwardOnly, r.refineBy, r.refineCap = f, by == RefineNone, by, sweeps
	return r, nil
}

// refineGBP runs GBP from the family network's answer: the messages of the
// sweeps that made the network's inputs, with the message of every root
// edge P→C corrected so that each root's belief gains the network's
// output, Σ_C a_{R→C}(x_C), as in the forward pass. A root R's belief reads
// the messages into its children from their other parents, so with P_C
// the k >= 2 root parents of C, every P ∈ P_C adds
//
//	δ_{P→C} = Σ_{Q ∈ P_C} a_{Q→C} / (k−1) − a_{P→C},
//
// which gives Σ_{P ∈ P_C \ {R}} δ_{P→C} = a_{R→C} for every R ∈ P_C (the
// lower messages, functions of these, then move as well; a child with one
// root parent carries no correction). GBP then sweeps from there with its
// default tolerance, as cold GBP does, up to the sweep cap and the time
// left of the call. The result is GBP's (beliefs, marginals, region free
// energy), Converged by GBP's own rule.
func (r *RENN) refineGBP(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	mp := r.famGBP
	msgs := mp.EdgeMessages()
	r.correctMessages(msgs, r.famOut)
	if err := mp.SetMaxIter(r.refineCap); err != nil {
		return nil, err
	}
	res, err := mp.InferFrom(ctx, m, msgs)
	if err != nil {
		return nil, fmt.Errorf("refinement by gbp: %w", err)
	}
	b, _ := mp.RegionBeliefs()
	for id, t := range b {
		copy(r.b[id], t)
	}
	r.warm = false // the network does not hold this answer
	res.Diagnostics["refine_gbp"] = 1
	res.Diagnostics["forward_sweeps"] = float64(r.family.Sweeps)
	res.Diagnostics["steps"] = 0
	return res, nil
}

// correctMessages adds to msgs (every edge of the region graph) the
// corrections of refineGBP for the family network's output out (per root
// link, in the message net's link order).
func (r *RENN) correctMessages(msgs []gbp.EdgeMessage, out [][]float64) {
	type link struct{ parent, row int }
	byChild := make(map[int][]link)
	row := 0
	isRoot := make(map[int]bool, len(r.roots))
	for _, id := range r.roots {
		isRoot[id] = true
	}
	for _, e := range r.edges {
		if isRoot[e.Parent] {
			byChild[e.Child] = append(byChild[e.Child], link{e.Parent, row})
			row++
		}
	}
	delta := make(map[[2]int][]float64)
	for c, ls := range byChild {
		if len(ls) < 2 {
			continue
		}
		sum := make([]float64, len(out[ls[0].row]))
		for _, l := range ls {
			for y, a := range out[l.row] {
				sum[y] += a
			}
		}
		for _, l := range ls {
			d := make([]float64, len(sum))
			for y, a := range out[l.row] {
				d[y] = sum[y]/float64(len(ls)-1) - a
			}
			delta[[2]int{l.parent, c}] = d
		}
	}
	for _, msg := range msgs {
		if d, ok := delta[[2]int{msg.Parent, msg.Child}]; ok {
			for y := range msg.Log {
				msg.Log[y] += d[y] // −Inf stays −Inf
			}
		}
	}
}

// familyRead is what the family network reads on one model.
type familyRead struct {
	inst *nn.FamilyInstance
	G    [][]float64 // per root, the sweeps' log messages (the message net's feature)
	mp   *gbp.GBP    // the sweeps' message passing, holding its messages
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
	r.famOut, r.famGBP = fr.inst.Forward(), fr.mp
	setMessages(mn, r.famOut)
	if !r.forwardOnly && r.refineBy != RefineGBP {
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
	o.MaxSeconds = r.opts.MaxSeconds
	mp, err := gbp.New(r.g, o)
	if err != nil {
		return nil, err
	}
	var prev, cur [][]float64 // region beliefs after one sweep fewer, and after the sweeps
	for _, n := range []int{f.Sweeps - 1, 1} {
		if n == 0 {
			continue // one sweep: compared with uniform messages below
		}
		if err := mp.Sweep(ctx, m, n); err != nil {
			return nil, fmt.Errorf("family inputs: message passing: %w", err)
		}
		prev, cur = cur, mp.Beliefs()
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
	return &familyRead{inst: inst, G: r.logMessages(cur, E), mp: mp}, nil
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
