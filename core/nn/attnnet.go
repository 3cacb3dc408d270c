package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/mrf"
	"gonum.org/v1/gonum/blas/blas64"
)

// DefaultDim is the embedding width used when Config.Dim is 0. The paper's
// code used 200; 64 costs at least ten times less per step on 2x2 grid roots,
// whose heads have (4d)² weights per layer (see BenchmarkStepGrid10 and
// BenchmarkStepGrid10D200).
const DefaultDim = 64

// maxRootStates bounds the joint states of one root of an AttentionNet: its
// output layer has size·Dim·states weights.
const maxRootStates = 1 << 16

// maxAttentionEntries bounds numVars²·Heads, the size of the attention
// matrices (8 bytes each).
const maxAttentionEntries = 1 << 26

// maxNetEntries bounds the float64 entries of an attention net's parameters
// and activations (2 GiB); gradients and the optimiser's state come on top,
// about three times the parameters again. Checked before allocating.
const maxNetEntries = 1 << 28

// Config configures NewAttentionNet. The zero value gives the paper code's
// network at width DefaultDim.
type Config struct {
	Dim   int   // embedding width d; 0 means DefaultDim
	Heads int   // attention heads, dividing Dim; 0 means 1 (the paper's code)
	Scale bool  // scale attention scores by 1/sqrt(Dim/Heads); the paper's code did not
	Seed  int64 // seed of the initialisation, through mrf.NewRand

	// EmbedStd is the standard deviation of the initial embeddings, which
	// are Gaussian; 0 means 1, as in the paper's code. The layer norm after
	// the attention keeps the heads' input at unit scale whatever it is.
	EmbedStd float64

	// SingleLayerBlocks makes each residual block of the heads
	// y = x + ReLU(x W + b) instead of the paper code's
	// y = x + ReLU(ReLU(x W1 + b1) W2 + b2), at about half the cost.
	SingleLayerBlocks bool
}

func (c *Config) fill() error {
	switch {
	case c.Dim < 0:
		return fmt.Errorf("embedding width %d is negative", c.Dim)
	case c.Heads < 0:
		return fmt.Errorf("number of heads %d is negative", c.Heads)
	case c.EmbedStd < 0 || math.IsNaN(c.EmbedStd) || math.IsInf(c.EmbedStd, 0):
		return fmt.Errorf("embedding standard deviation %v is not a finite non-negative number", c.EmbedStd)
	}
	if c.Dim == 0 {
		c.Dim = DefaultDim
	}
	if c.Heads == 0 {
		c.Heads = 1
	}
	if c.EmbedStd == 0 {
		c.EmbedStd = 1
	}
	if c.Dim%c.Heads != 0 {
		return fmt.Errorf("embedding width %d is not divisible by %d heads", c.Dim, c.Heads)
	}
	return nil
}

// attentionNet is the network of the paper:
//
//	E                 learned embedding, numVars x d
//	H = LayerNorm(E + SelfAttention(E))
//	x_R = concat(H[v] for v in R)           for each root R
//	logits_R = Linear(Block(Block(x_R)))    one head per root shape
type attentionNet struct {
	embed  *Param
	attn   *selfAttention
	ln     *layerNorm
	z, h   blas64.General // E + attention output; layer-norm output
	dh, dz blas64.General
	groups []*headGroup
	logits [][]float64 // per root, rows of the groups' output matrices
	params []*Param
	ran    bool // Forward has run
}

// headGroup holds the roots of one shape (number of variables, number of
// joint states), their shared head, and the batched activations, one row per
// root.
type headGroup struct {
	vars   [][]int // scope of each root in the group, in group order
	blocks [2]*resBlock
	out    *linear
	// Forward activations and their gradients: x is the gathered input,
	// y1 and y2 the block outputs.
	x, y1, y2, logits  blas64.General
	dx, dy1, dy2, dlog blas64.General
	roots              []int // index of each root in the caller's order
}

// NewAttentionNet returns the paper's network for numVars variables with
// cardinalities cards and the given root regions (each a list of distinct
// variables; its logits are row-major over them, last fastest). Roots with
// the same number of variables and of joint states share one head.
//
// Initialisation, from cfg.Seed: embeddings N(0, EmbedStd²); every linear
// map and bias uniform in ±1/sqrt(fan-in) (PyTorch's default, which the
// paper's code used); layer norm gain 1, bias 0.
func NewAttentionNet(numVars int, roots [][]int, cards []int, cfg Config) (Net, error) {
	states, err := checkAttentionNet(numVars, roots, cards, &cfg)
	if err != nil {
		return nil, fmt.Errorf("attention net: %w", err)
	}
	d := cfg.Dim
	rng := mrf.NewRand(cfg.Seed)
	n := &attentionNet{
		embed: newParam("embed", numVars*d),
		z:     newMat(numVars, d), h: newMat(numVars, d),
		dh: newMat(numVars, d), dz: newMat(numVars, d),
		logits: make([][]float64, len(roots)),
	}
	for i := range n.embed.Value {
		n.embed.Value[i] = cfg.EmbedStd * rng.NormFloat64()
	}
	scale := 1.0
	if cfg.Scale {
		scale = 1 / math.Sqrt(float64(d/cfg.Heads))
	}
	n.attn = newSelfAttention("attn", numVars, d, cfg.Heads, scale, rng)
	n.ln = newLayerNorm("ln", numVars, d)
	n.params = append([]*Param{n.embed}, n.attn.params()...)
	n.params = append(n.params, n.ln.params()...)

	depth := 2
	if cfg.SingleLayerBlocks {
		depth = 1
	}
	shapes, members := rootShapes(roots, states)
	for g, s := range shapes {
		hg, params := newHeadGroup(s, members[g], roots, d, depth, rng)
		n.params = append(n.params, params...)
		for i, r := range hg.roots {
			n.logits[r] = row(hg.logits, i)
		}
		n.groups = append(n.groups, hg)
	}
	return n, nil
}

// checkAttentionNet fills in cfg's defaults and checks the network's
// arguments and size; it returns the joint states of every root.
func checkAttentionNet(numVars int, roots [][]int, cards []int, cfg *Config) ([]int, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	if numVars < 1 {
		return nil, errors.New("no variables")
	}
	if len(cards) != numVars {
		return nil, fmt.Errorf("%d cardinalities for %d variables", len(cards), numVars)
	}
	if numVars > maxAttentionEntries/numVars/cfg.Heads {
		return nil, fmt.Errorf("%d variables and %d heads need more than %d attention weights",
			numVars, cfg.Heads, maxAttentionEntries)
	}
	states, err := checkRoots(roots, cards, maxRootStates)
	if err != nil {
		return nil, err
	}
	d := cfg.Dim
	if e := netEntries(numVars, d, roots, states, !cfg.SingleLayerBlocks); e > maxNetEntries {
		return nil, fmt.Errorf("width %d on %d variables and %d roots needs about %d parameters and activations, above the bound %d; lower --dim",
			d, numVars, len(roots), e, maxNetEntries)
	}
	return states, nil
}

// rootShape is what roots sharing a head have in common.
type rootShape struct{ size, states int }

// rootShapes groups the roots by shape, groups in order of first
// appearance: members[g] are the roots of shape shapes[g], ascending.
func rootShapes(roots [][]int, states []int) (shapes []rootShape, members [][]int) {
	index := make(map[rootShape]int)
	for r, vars := range roots {
		s := rootShape{len(vars), states[r]}
		g, ok := index[s]
		if !ok {
			g = len(shapes)
			index[s] = g
			shapes = append(shapes, s)
			members = append(members, nil)
		}
		members[g] = append(members[g], r)
	}
	return shapes, members
}

// newHeadGroup returns the head of the roots members (indices into roots),
// all of shape s, on width-d variable features, and its parameters.
func newHeadGroup(s rootShape, members []int, roots [][]int, d, depth int, rng *rand.Rand) (*headGroup, []*Param) {
	rows, width := len(members), s.size*d
	name := fmt.Sprintf("head%dx%d", s.size, s.states)
	hg := &headGroup{roots: members,
		x: newMat(rows, width), y1: newMat(rows, width), y2: newMat(rows, width),
		dx: newMat(rows, width), dy1: newMat(rows, width), dy2: newMat(rows, width),
		logits: newMat(rows, s.states), dlog: newMat(rows, s.states)}
	var params []*Param
	for k := range hg.blocks {
		hg.blocks[k] = newResBlock(fmt.Sprintf("%s.block%d", name, k+1), rows, width, depth, rng)
		params = append(params, hg.blocks[k].params()...)
	}
	hg.out = newLinear(name+".out", width, s.states, rng)
	params = append(params, hg.out.params()...)
	for _, r := range hg.roots {
		hg.vars = append(hg.vars, append([]int(nil), roots[r]...))
	}
	return hg, params
}

// netEntries counts, saturating, the float64 entries NewAttentionNet
// allocates for its parameters and activations (gradients of the parameters
// excepted): the embedding and attention layers, and for every root two
// residual blocks of depth layers of width size*d squared (a head shared by
// roots of one shape counts once for weights, per root for activations).
func netEntries(numVars, d int, roots [][]int, states []int, twoLayers bool) int64 {
	n, dd := int64(numVars), int64(d)
	if dd > 1<<24 {
		return math.MaxInt64
	}
	depth := int64(1)
	if twoLayers {
		depth = 2
	}
	total := 5*n*dd + 4*(dd*dd+dd) + 8*n*dd + n*n + 2*dd // embed, mats, attention, layer norm
	type shape struct{ size, states int }
	seen := map[shape]bool{}
	for r, vars := range roots {
		w := int64(len(vars)) * dd
		if w > 1<<28 {
			return math.MaxInt64
		}
		st := int64(states[r])
		sh := shape{len(vars), states[r]}
		if !seen[sh] {
			seen[sh] = true
			total = satAdd(total, 2*depth*(w*w+w)+w*st+st)
		}
		total = satAdd(total, (6+2*depth)*w+2*st) // activations of this root's row
	}
	return total
}

func satAdd(a, b int64) int64 {
	if b < 0 || a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func (n *attentionNet) Params() []*Param { return n.params }

func (n *attentionNet) ZeroGrad() { zeroGrad(n.params) }

func (n *attentionNet) embedding(s []float64) blas64.General {
	return asMat(s, n.z.Rows, n.z.Cols)
}

func (n *attentionNet) Forward() [][]float64 {
	E := n.embedding(n.embed.Value)
	n.attn.forward(E, n.z)
	for i, v := range E.Data {
		n.z.Data[i] += v
	}
	n.ln.forward(n.z, n.h)
	for _, g := range n.groups {
		gather(n.h, g.vars, g.x)
		g.blocks[0].forward(g.x, g.y1)
		g.blocks[1].forward(g.y1, g.y2)
		g.out.forward(g.y2, g.logits)
	}
	n.ran = true
	return n.logits
}

func (n *attentionNet) Backward(dLogits [][]float64) {
	if !n.ran {
		panic("nn: Backward before Forward")
	}
	checkGrads(n.logits, dLogits)
	clear(n.dh.Data)
	for _, g := range n.groups {
		for i, r := range g.roots {
			copy(row(g.dlog, i), dLogits[r])
		}
		g.out.backward(g.y2, g.dlog, g.dy2, 0)
		g.blocks[1].backward(g.y1, g.dy2, g.dy1)
		g.blocks[0].backward(g.x, g.dy1, g.dx)
		scatterAdd(g.dx, g.vars, n.dh)
	}
	n.ln.backward(n.dh, n.dz)
	// z = E + attention(E): the residual path and the attention path.
	dE := n.embedding(n.embed.Grad)
	for i, v := range n.dz.Data {
		dE.Data[i] += v
	}
	n.attn.backward(n.embedding(n.embed.Value), n.dz, dE, 1)
}

// gather sets row i of x to the concatenation of the rows vars[i] of h.
func gather(h blas64.General, vars [][]int, x blas64.General) {
	d := h.Cols
	for i, vs := range vars {
		xi := row(x, i)
		for k, v := range vs {
			copy(xi[k*d:(k+1)*d], row(h, v))
		}
	}
}

// scatterAdd is the adjoint of gather: it adds the blocks of row i of dx to
// the rows vars[i] of dh.
func scatterAdd(dx blas64.General, vars [][]int, dh blas64.General) {
	d := dh.Cols
	for i, vs := range vars {
		dxi := row(dx, i)
		for k, v := range vs {
			dhv := row(dh, v)
			for j, g := range dxi[k*d : (k+1)*d] {
				dhv[j] += g
			}
		}
	}
}
