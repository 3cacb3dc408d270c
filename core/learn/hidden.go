package learn

// Learning with hidden variables (paper, appendix F). When the samples hold
// the visible variables x_v only, the mean log-likelihood of a batch B is
//
//	ℓ(θ) = (1/|B|) Σ_{x_v∈B} ln Z(x_v; θ) - ln Z(θ),
//
// where Z(x_v; θ) sums the model's weights over the hidden variables z with
// x_v clamped. Its gradient with respect to LogTable_a(x_a) is the mean over
// the batch of p(x_a | x_v; θ) minus p(x_a; θ): the clamped phase minus the
// free phase. The free phase is the learner's inference method, as for
// complete data; the clamped phase is a ClampedPhase, by default
// MethodClamped, which runs an inference method on the model clamped to each
// distinct visible vector of the batch (mrf.Clamp: point-mass factors, as
// evidence). PCDClamped (pcd.go) is the sampling-based phase of persistent
// contrastive divergence: exact where the model allows, else persistent
// chains over z given x_v.

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// hiddenData is the part of Data for samples of the visible variables only.
type hiddenData struct {
	vis    []int   // the visible variables, increasing
	groups [][]int // the distinct visible vectors, in order of first appearance
	group  []int   // group[s]: sample s's visible vector
}

// NewHiddenData holds samples xs of the visible variables of m, those not in
// hidden (a valid set, mrf.CheckHidden): xs[s][k] is the state of the k-th
// visible variable in increasing order. Identical vectors share one group,
// so the clamped phase handles each once per batch. It fails, naming the
// sample, if a sample has the wrong length or a state out of range.
func NewHiddenData(m *mrf.Model, hidden []int, xs [][]int) (*Data, error) {
	if m == nil {
		return nil, errors.New("data: nil model")
	}
	if len(hidden) == 0 {
		return nil, errors.New("data: no hidden variables (use NewData for complete samples)")
	}
	if err := mrf.CheckHidden(hidden, len(m.Cards)); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	d := &Data{factors: len(m.Factors), sizes: make([]int, len(m.Factors))}
	for a, f := range m.Factors {
		d.sizes[a] = len(f.LogTable)
	}
	h := &hiddenData{vis: mrf.Visible(hidden, len(m.Cards)), group: make([]int, len(xs))}
	index := map[string]int{}
	var key []byte
	for s, x := range xs {
		if len(x) != len(h.vis) {
			return nil, fmt.Errorf("sample %d has %d values, the model has %d visible variables (of %d)", s, len(x), len(h.vis), len(m.Cards))
		}
		key = key[:0]
		for k, v := range x {
			if i := h.vis[k]; v < 0 || v >= m.Cards[i] {
				return nil, fmt.Errorf("sample %d: visible variable %d has state %d, want 0..%d", s, i, v, m.Cards[i]-1)
			}
			key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		g, ok := index[string(key)]
		if !ok {
			g = len(h.groups)
			index[string(key)] = g
			h.groups = append(h.groups, append([]int(nil), x...))
		}
		h.group[s] = g
	}
	d.hidden = h
	return d, nil
}

// Hidden reports whether d holds visible values only (NewHiddenData).
func (d *Data) Hidden() bool { return d != nil && d.hidden != nil }

// Visible returns the visible variables of hidden data, nil for complete
// data.
func (d *Data) Visible() []int {
	if !d.Hidden() {
		return nil
	}
	return d.hidden.vis
}

// Groups returns the number of distinct visible vectors of hidden data.
func (d *Data) Groups() int {
	if !d.Hidden() {
		return 0
	}
	return len(d.hidden.groups)
}

// GroupVector returns the visible vector of group g (not to be modified).
func (d *Data) GroupVector(g int) []int { return d.hidden.groups[g] }

// ClampedPhase supplies the data term of the gradient when samples hold the
// visible variables only: for each visible vector, the factor marginals of
// the model clamped to it, p(x_a | x_v), and an estimate of ln Z(x_v).
type ClampedPhase interface {
	// Name says what computes the phase ("exact", "bp", ...).
	Name() string
	// Clamped adds w[k] times the factor marginals of m clamped to the
	// visible vector of group groups[k] of d into acc (one slice per factor
	// of m, laid out as its LogTable) and returns Σ_k w[k] ln Z(x_v) with
	// the counts of its inference calls. m's tables change between calls
	// (learning moves them); its structure does not.
	Clamped(ctx context.Context, m *mrf.Model, d *Data, groups []int, w []float64, acc [][]float64) (ClampedStats, error)
}

// ClampedStats describe one call of a ClampedPhase.
type ClampedStats struct {
	LogZ        float64 // Σ_k w[k] ln Z(x_v) estimates
	Calls       int     // inference calls (visible vectors handled)
	Iterations  int     // summed over the calls
	Unconverged int     // calls that stopped before their convergence test passed
}

// MethodClamped is the clamped phase by an inference method run on the
// model clamped to each visible vector (mrf.Clamp). With PerGroup, every
// distinct visible vector keeps its own method, which warm-starts from its
// last state when the vector comes round again (next epoch); otherwise one
// method serves every vector, warm-starting from the previous vector's state.
type MethodClamped struct {
	name     string
	newM     func(clamped *mrf.Model) (infer.Method, error)
	perGroup bool

	shared  infer.Method
	byGroup map[int]infer.Method
	vis     []int
	model   *mrf.Model // m clamped, re-clamped in place for every vector
}

// NewMethodClamped returns the clamped phase that runs the methods newMethod
// makes; newMethod receives a clamped model (its structure is that of every
// clamped model to come, for region graphs) and is called once, or once per
// visible vector with perGroup.
func NewMethodClamped(name string, newMethod func(clamped *mrf.Model) (infer.Method, error), perGroup bool) *MethodClamped {
	return &MethodClamped{name: name, newM: newMethod, perGroup: perGroup, byGroup: map[int]infer.Method{}}
}

// Name returns the method's name.
func (c *MethodClamped) Name() string { return c.name }

// Clamped runs the method on m clamped to every group's vector.
func (c *MethodClamped) Clamped(ctx context.Context, m *mrf.Model, d *Data, groups []int, w []float64, acc [][]float64) (ClampedStats, error) {
	var st ClampedStats
	if !d.Hidden() {
		return st, errors.New("clamped phase: data without hidden variables")
	}
	vis := d.hidden.vis
	if c.model == nil {
		cm, err := mrf.Clamp(m, vis, d.hidden.groups[0])
		if err != nil {
			return st, err
		}
		c.model, c.vis = cm, vis
	}
	for k, g := range groups {
		mrf.SetClamp(c.model, m, c.vis, d.hidden.groups[g])
		meth, err := c.method(g)
		if err != nil {
			return st, err
		}
		res, err := meth.Infer(ctx, c.model)
		if err != nil {
			return st, fmt.Errorf("clamped to visible vector %d: %w", g, err)
		}
		if math.IsNaN(res.LogZ) || math.IsInf(res.LogZ, 0) {
			return st, fmt.Errorf("clamped to visible vector %d: ln Z estimate is %v", g, res.LogZ)
		}
		if len(res.Marginals.Factors) < len(m.Factors) {
			return st, fmt.Errorf("clamped to visible vector %d: %d factor marginals for %d factors", g, len(res.Marginals.Factors), len(m.Factors))
		}
		for a := range m.Factors {
			b := res.Marginals.Factors[a]
			if len(b) != len(acc[a]) {
				return st, fmt.Errorf("clamped to visible vector %d: factor %d: marginal of %d entries, table of %d", g, a, len(b), len(acc[a]))
			}
			for x, v := range b {
				if math.IsNaN(v) {
					return st, fmt.Errorf("clamped to visible vector %d: factor %d: marginal is NaN", g, a)
				}
				acc[a][x] += w[k] * v
			}
		}
		st.LogZ += w[k] * res.LogZ
		st.Calls++
		st.Iterations += res.Iterations
		if !res.Converged() {
			st.Unconverged++
		}
	}
	return st, nil
}

// method returns the method for group g, making it on first use.
func (c *MethodClamped) method(g int) (infer.Method, error) {
	if !c.perGroup {
		if c.shared == nil {
			m, err := c.newM(c.model)
			if err != nil {
				return nil, err
			}
			c.shared = m
		}
		return c.shared, nil
	}
	if m, ok := c.byGroup[g]; ok {
		return m, nil
	}
	m, err := c.newM(c.model)
	if err != nil {
		return nil, err
	}
	c.byGroup[g] = m
	return m, nil
}

// ExactClamped returns the exact clamped phase. When no factor holds two
// hidden variables (an RBM with its visible units observed, a grid with a
// quarter or a checkerboard of its nodes hidden), the hidden variables are
// independent given x_v and p(z | x_v) is a product of per-variable
// conditionals, computed directly (factorised); otherwise core/exact solves
// each clamped model.
func ExactClamped(opts exact.Options) ClampedPhase {
	return &exactClamped{general: NewMethodClamped("exact", func(*mrf.Model) (infer.Method, error) { return NewExact(opts), nil }, false)}
}

type exactClamped struct {
	general *MethodClamped
	fact    *factorised // nil until the first call decides; see ok
	checked bool
}

func (c *exactClamped) Name() string { return "exact" }

func (c *exactClamped) Clamped(ctx context.Context, m *mrf.Model, d *Data, groups []int, w []float64, acc [][]float64) (ClampedStats, error) {
	if !d.Hidden() {
		return ClampedStats{}, errors.New("clamped phase: data without hidden variables")
	}
	if !c.checked {
		c.fact, c.checked = newFactorised(m, d.hidden.vis), true
	}
	if c.fact == nil {
		return c.general.Clamped(ctx, m, d, groups, w, acc)
	}
	if err := ctx.Err(); err != nil {
		return ClampedStats{}, err
	}
	return c.fact.clamped(m, d, groups, w, acc)
}

// factorised is the exact clamped phase of a model whose factors hold at
// most one hidden variable each.
type factorised struct {
	hidden []int // hidden variables
	pos    []int // pos[v]: index of v in hidden, -1 for a visible variable
	hv     []int // hv[a]: factor a's hidden variable, -1 if none
	stride []int // stride[a]: the hidden variable's stride in factor a's table
	x      []int // scratch: a full assignment, hidden variables at state 0
	logit  [][]float64
}

// newFactorised returns the factorised phase for models with m's structure
// and visible variables vis, or nil when some factor holds two hidden
// variables.
func newFactorised(m *mrf.Model, vis []int) *factorised {
	n := len(m.Cards)
	f := &factorised{pos: make([]int, n), hv: make([]int, len(m.Factors)), stride: make([]int, len(m.Factors)), x: make([]int, n)}
	for v := range f.pos {
		f.pos[v] = -2
	}
	for _, v := range vis {
		f.pos[v] = -1
	}
	for v := range f.pos {
		if f.pos[v] == -2 {
			f.pos[v] = len(f.hidden)
			f.hidden = append(f.hidden, v)
			f.logit = append(f.logit, make([]float64, m.Cards[v]))
		}
	}
	for a, fa := range m.Factors {
		f.hv[a] = -1
		stride := 1
		for k := len(fa.Vars) - 1; k >= 0; k-- {
			v := fa.Vars[k]
			if f.pos[v] >= 0 {
				if f.hv[a] >= 0 {
					return nil
				}
				f.hv[a], f.stride[a] = v, stride
			}
			stride *= m.Cards[v]
		}
	}
	return f
}

// condition sets f.x to the visible vector xv (of the variables vis) and
// f.logit to the conditionals p(z_h | x_v), and returns ln Z(x_v).
func (f *factorised) condition(m *mrf.Model, vis, xv []int) float64 {
	for j, v := range vis {
		f.x[v] = xv[j]
	}
	for _, l := range f.logit {
		clear(l)
	}
	logZ := 0.0
	for a := range m.Factors {
		fa := &m.Factors[a]
		base := fa.Index(m.Cards, f.x)
		if h := f.hv[a]; h < 0 {
			logZ += fa.LogTable[base]
		} else {
			l := f.logit[f.pos[h]]
			for s := range l {
				l[s] += fa.LogTable[base+s*f.stride[a]]
			}
		}
	}
	for _, l := range f.logit {
		logZ += infer.NormalizeLogTo(l, l)
	}
	return logZ
}

// clamped is ClampedPhase.Clamped for the factorised case.
func (f *factorised) clamped(m *mrf.Model, d *Data, groups []int, w []float64, acc [][]float64) (ClampedStats, error) {
	st := ClampedStats{Calls: len(groups), Iterations: len(groups)}
	vis := d.hidden.vis
	for k, g := range groups {
		logZ := f.condition(m, vis, d.hidden.groups[g])
		if math.IsNaN(logZ) || math.IsInf(logZ, 0) {
			return st, fmt.Errorf("clamped to visible vector %d: ln Z(x_v) is %v (a visible vector the model excludes?)", g, logZ)
		}
		for a := range m.Factors {
			base := m.Factors[a].Index(m.Cards, f.x)
			if h := f.hv[a]; h < 0 {
				acc[a][base] += w[k]
			} else {
				for s, p := range f.logit[f.pos[h]] {
					acc[a][base+s*f.stride[a]] += w[k] * p
				}
			}
		}
		st.LogZ += w[k] * logZ
	}
	return st, nil
}

// batchGroups returns the distinct groups of samples rows of hidden data d
// with their weights (count/|rows|), using scratch cnt (one entry per group,
// zero on entry and on return).
func batchGroups(d *Data, rows []int, cnt []int, groups []int, w []float64) ([]int, []float64) {
	groups, w = groups[:0], w[:0]
	for _, s := range rows {
		g := d.hidden.group[s]
		if cnt[g] == 0 {
			groups = append(groups, g)
		}
		cnt[g]++
	}
	for _, g := range groups {
		w = append(w, float64(cnt[g])/float64(len(rows)))
		cnt[g] = 0
	}
	return groups, w
}

// GradientHidden writes into grad the gradient with respect to θ of the
// mean log-likelihood of the visible samples rows of hidden data d (every
// sample when rows is nil) under p.Model(theta) = m: the clamped phase's
// marginals averaged over the samples minus the free marginals b. It
// returns the clamped phase's statistics; its LogZ is the mean ln Z(x_v), so
// the mean NLL is ln Z minus it.
func GradientHidden(ctx context.Context, p Param, m *mrf.Model, d *Data, rows []int, b [][]float64, c ClampedPhase, grad []float64) (ClampedStats, error) {
	if !d.Hidden() {
		return ClampedStats{}, errors.New("gradient: data without hidden variables (use Gradient)")
	}
	if rows == nil {
		rows = make([]int, d.Len())
		for s := range rows {
			rows[s] = s
		}
	}
	tg := make([][]float64, len(b))
	for a := range b {
		tg[a] = make([]float64, len(b[a]))
	}
	groups, w := batchGroups(d, rows, make([]int, d.Groups()), nil, nil)
	return gradientHidden(ctx, p, m, d, groups, w, b, c, tg, grad)
}

// gradientHidden is GradientHidden for a batch already grouped, with
// caller-owned scratch tg.
func gradientHidden(ctx context.Context, p Param, m *mrf.Model, d *Data, groups []int, w []float64, b [][]float64, c ClampedPhase, tg [][]float64, grad []float64) (ClampedStats, error) {
	for a := range tg {
		for x, v := range b[a] {
			tg[a][x] = -v
		}
	}
	st, err := c.Clamped(ctx, m, d, groups, w, tg)
	if err != nil {
		return st, fmt.Errorf("clamped phase (%s): %w", c.Name(), err)
	}
	p.Chain(tg, grad)
	return st, nil
}

// exactHiddenNLL is the exact mean NLL of hidden data d under m: ln Z minus
// the mean ln Z(x_v), each distinct visible vector solved once.
// Models whose hidden variables are independent given the visible ones
// take the factorised path.
func exactHiddenNLL(m *mrf.Model, d *Data, opts exact.Options) (nll, logZ float64, err error) {
	var lp []float64
	if f := newFactorised(m, d.hidden.vis); f != nil {
		res, err := exact.Solve(m, opts)
		if err != nil {
			return math.NaN(), math.NaN(), fmt.Errorf("exact ln Z: %w", err)
		}
		logZ = res.LogZ
		lp = make([]float64, len(d.hidden.groups))
		for g, xv := range d.hidden.groups {
			lp[g] = f.condition(m, d.hidden.vis, xv) - logZ
		}
	} else if lp, logZ, err = exact.LogMarginals(m, d.hidden.vis, d.hidden.groups, opts); err != nil {
		return math.NaN(), math.NaN(), fmt.Errorf("exact ln p(x_v): %w", err)
	}
	sum := 0.0
	for _, g := range d.hidden.group {
		sum -= lp[g]
	}
	return sum / float64(len(d.hidden.group)), logZ, nil
}
