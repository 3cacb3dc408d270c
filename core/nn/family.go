package nn

import (
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
	"gonum.org/v1/gonum/blas/blas64"
)

// FamilyConfig is the architecture of a FamilyNet.
type FamilyConfig struct {
	// StateFeatures is the number of inputs per root state; RootFeatures
	// the number of inputs per root (the same for all of its states).
	StateFeatures, RootFeatures int
	// Hidden is the width of the correction layer.
	Hidden int
	// LinearInit is the initial weight of each state feature in the linear
	// part (length StateFeatures), so the untrained net starts from a
	// chosen read of its inputs.
	LinearInit []float64
	// Seed seeds the hidden layer's initialisation (mrf.NewRand).
	Seed int64
}

// maxFamilyWidth bounds Hidden and the feature counts: the net is meant to
// be small and shared.
const maxFamilyWidth = 1024

// familyInitStd scales the hidden layer's initial weights; the output
// weights start at 0, so the untrained net is its linear part.
const familyInitStd = 0.5

// Check reports whether c is a valid architecture.
func (c FamilyConfig) Check() error {
	switch {
	case c.StateFeatures < 1 || c.StateFeatures > maxFamilyWidth:
		return fmt.Errorf("family net: %d state features, want 1..%d", c.StateFeatures, maxFamilyWidth)
	case c.RootFeatures < 0 || c.RootFeatures > maxFamilyWidth:
		return fmt.Errorf("family net: %d root features, want 0..%d", c.RootFeatures, maxFamilyWidth)
	case c.Hidden < 1 || c.Hidden > maxFamilyWidth:
		return fmt.Errorf("family net: hidden width %d, want 1..%d", c.Hidden, maxFamilyWidth)
	case len(c.LinearInit) != c.StateFeatures:
		return fmt.Errorf("family net: %d initial linear weights for %d state features", len(c.LinearInit), c.StateFeatures)
	}
	return nil
}

// FamilyNet is a network whose parameters do not depend on the model's
// size: one small function applied to every state of every root region.
// With f(x) the state features of root state x and r the root's features,
//
//	logit(x) = Σ_i c_i f_i(x) + Σ_j u_j tanh(Σ_i W_ij f_i(x) + Σ_k V_kj r_k + b_j)
//
// The parameters are c (linear), W and V (stacked as the hidden layer's
// weights, state features first), b and u (output). Bind a model's inputs
// to get a Net for that model; every bound instance shares the parameters
// and accumulates into the same gradients, so a mini-batch of models is a
// sum of Backward calls between ZeroGrad and an optimiser step.
type FamilyNet struct {
	cfg FamilyConfig
	lin *Param
	hid *linear
	out *Param
}

// NewFamilyNet returns an untrained FamilyNet: linear weights LinearInit,
// hidden weights N(0, 0.5²/inputs), biases and output weights 0.
func NewFamilyNet(cfg FamilyConfig) (*FamilyNet, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.LinearInit = append([]float64(nil), cfg.LinearInit...)
	in := cfg.StateFeatures + cfg.RootFeatures
	f := &FamilyNet{cfg: cfg, lin: newParam("linear", cfg.StateFeatures),
		hid: &linear{in: in, out: cfg.Hidden, w: newParam("hidden.w", in*cfg.Hidden), b: newParam("hidden.b", cfg.Hidden)},
		out: newParam("output", cfg.Hidden)}
	copy(f.lin.Value, cfg.LinearInit)
	rng := mrf.NewRand(cfg.Seed)
	a := familyInitStd / math.Sqrt(float64(in))
	for i := range f.hid.w.Value {
		f.hid.w.Value[i] = a * rng.NormFloat64()
	}
	return f, nil
}

// Config returns the architecture.
func (f *FamilyNet) Config() FamilyConfig { return f.cfg }

// Params returns the shared parameters: linear, hidden.w, hidden.b, output.
func (f *FamilyNet) Params() []*Param { return []*Param{f.lin, f.hid.w, f.hid.b, f.out} }

// FamilyInstance is a FamilyNet bound to one model's inputs: a Net whose
// parameters are the family's.
type FamilyInstance struct {
	f      *FamilyNet
	x      blas64.General // rows: every root state; columns: state then root features
	offs   []int          // first row of each root
	excl   [][]int        // per root, states held at logit −Inf
	pre    blas64.General // tanh of the hidden pre-activations, after Forward
	dpre   blas64.General
	lin    []float64 // the linear part of the logits, per row
	flat   []float64 // logits, per row
	logits [][]float64
}

var _ Net = (*FamilyInstance)(nil)

// Bind returns the net on one model. state[r] holds root r's state
// features row-major (states × StateFeatures), root[r] its root features;
// excl[r] lists the states of zero potential (logit −Inf; may be nil). The
// inputs are copied.
func (f *FamilyNet) Bind(state, root [][]float64, excl [][]int) (*FamilyInstance, error) {
	if len(state) == 0 {
		return nil, errors.New("family net: no root regions")
	}
	if len(root) != len(state) || (excl != nil && len(excl) != len(state)) {
		return nil, fmt.Errorf("family net: %d state tables, %d root feature rows and %d exclusion lists", len(state), len(root), len(excl))
	}
	sf, rf := f.cfg.StateFeatures, f.cfg.RootFeatures
	rows := 0
	offs := make([]int, len(state)+1)
	for r, s := range state {
		if len(s) == 0 || len(s)%sf != 0 {
			return nil, fmt.Errorf("family net: root %d has %d state inputs, not a positive multiple of %d", r, len(s), sf)
		}
		if len(root[r]) != rf {
			return nil, fmt.Errorf("family net: root %d has %d root features, want %d", r, len(root[r]), rf)
		}
		rows += len(s) / sf
		if rows > maxMessageEntries/(sf+rf+2*f.cfg.Hidden) {
			return nil, fmt.Errorf("family net: more than %d table entries", maxMessageEntries)
		}
		offs[r+1] = rows
	}
	in := sf + rf
	n := &FamilyInstance{f: f, x: newMat(rows, in), offs: offs, excl: make([][]int, len(state)),
		pre: newMat(rows, f.cfg.Hidden), dpre: newMat(rows, f.cfg.Hidden), lin: make([]float64, rows), flat: make([]float64, rows),
		logits: make([][]float64, len(state))}
	for r, s := range state {
		states := len(s) / sf
		for x := range states {
			row := n.x.Data[(offs[r]+x)*in : (offs[r]+x+1)*in]
			copy(row, s[x*sf:(x+1)*sf])
			copy(row[sf:], root[r])
		}
		n.logits[r] = n.flat[offs[r]:offs[r+1]]
		if excl != nil {
			for _, x := range excl[r] {
				if x < 0 || x >= states {
					return nil, fmt.Errorf("family net: root %d excludes state %d of %d", r, x, states)
				}
			}
			n.excl[r] = append([]int(nil), excl[r]...)
		}
	}
	for _, v := range n.x.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("family net: an input is not finite")
		}
	}
	return n, nil
}

// Forward returns the logits of every root.
func (n *FamilyInstance) Forward() [][]float64 {
	f := n.f
	sf, in := f.cfg.StateFeatures, f.cfg.StateFeatures+f.cfg.RootFeatures
	f.hid.forward(n.x, n.pre)
	for i, v := range n.pre.Data {
		n.pre.Data[i] = math.Tanh(v)
	}
	u := f.out.Value
	for i := range n.flat {
		xr := n.x.Data[i*in : i*in+sf]
		s := 0.0
		for k, c := range f.lin.Value {
			s += c * xr[k]
		}
		n.lin[i] = s
		h := n.pre.Data[i*f.cfg.Hidden : (i+1)*f.cfg.Hidden]
		for j, w := range u {
			s += w * h[j]
		}
		n.flat[i] = s
	}
	for r, ex := range n.excl {
		for _, x := range ex {
			n.logits[r][x] = math.Inf(-1)
		}
	}
	return n.logits
}

// Backward adds the parameters' gradients given d loss/d logits (entries
// of excluded states are ignored).
func (n *FamilyInstance) Backward(dLogits [][]float64) {
	checkGrads(n.logits, dLogits)
	f := n.f
	sf, in, hd := f.cfg.StateFeatures, f.cfg.StateFeatures+f.cfg.RootFeatures, f.cfg.Hidden
	u := f.out.Value
	for r, d := range dLogits {
		ex := n.excl[r]
		for x, g := range d {
			i := n.offs[r] + x
			dp := n.dpre.Data[i*hd : (i+1)*hd]
			if len(ex) > 0 && excluded(ex, x) {
				clear(dp)
				continue
			}
			xr := n.x.Data[i*in : i*in+sf]
			for k := range f.lin.Grad {
				f.lin.Grad[k] += g * xr[k]
			}
			h := n.pre.Data[i*hd : (i+1)*hd]
			for j, hj := range h {
				f.out.Grad[j] += g * hj
				dp[j] = g * u[j] * (1 - hj*hj)
			}
		}
	}
	f.hid.backward(n.x, n.dpre, blas64.General{}, 0)
}

func excluded(ex []int, x int) bool {
	for _, e := range ex {
		if e == x {
			return true
		}
	}
	return false
}

// Params returns the family's parameters.
func (n *FamilyInstance) Params() []*Param { return n.f.Params() }

// ZeroGrad sets the family's gradients to zero.
func (n *FamilyInstance) ZeroGrad() { zeroGrad(n.f.Params()) }
