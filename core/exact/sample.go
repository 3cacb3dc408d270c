package exact

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/renn-go/renn/core/mrf"
)

// Sample draws n independent exact samples of m (a state index per variable)
// and returns them with the exact log-probability of each,
// m.LogScore(x) - log Z. It eliminates forward as Solve does, then samples the
// variables in reverse elimination order, all samples together: at each step
// the later variables of the clique are already drawn, so the eliminated
// variable is drawn from the clique table restricted to them. The same rng
// state gives the same samples.
//
// Tables are scaled linear, as Solve's. A model where a product of some
// step's tables might leave float64's normal range (spin glasses with
// couplings in the hundreds) is found so before any draw and sampled with
// tables of logs instead, which draws what the linear tables would draw
// to rounding, more slowly.
func Sample(m *mrf.Model, n int, rng *rand.Rand, opt Options) ([][]int, []float64, error) {
	if n < 0 {
		return nil, nil, fmt.Errorf("exact: cannot draw %d samples", n)
	}
	if rng == nil {
		return nil, nil, errors.New("exact: Sample needs a random generator")
	}
	opt, err := opt.resolve()
	if err != nil {
		return nil, nil, err
	}
	t, plan, err := newTree(m, opt)
	if err != nil {
		return nil, nil, err
	}
	// The samples and their log probabilities come on top of the tables.
	samples := satMul(satMul(int64(n), int64(len(m.Cards))+1), 8)
	if err := checkMemory(t, plan, opt, false, samples); err != nil {
		return nil, nil, err
	}
	xs, logp, err := sampleIn(t, n, rng, opt, false)
	if err == errImprecise { // nothing drawn yet
		return sampleIn(t, n, rng, opt, true)
	}
	return xs, logp, err
}

// sampleIn samples along t, with tables of logs if logSpace; in linear
// space it fails with errImprecise, before drawing anything, if a product
// of some step's tables might leave float64's normal range.
func sampleIn(t *tree, n int, rng *rand.Rand, opt Options, logSpace bool) ([][]int, []float64, error) {
	m := t.model
	e, err := newEngineIn(t, opt.Memory, logSpace)
	if err != nil {
		return nil, nil, err
	}
	if !logSpace {
		e.vouch = true
		e.ranges = make([][2]float64, len(t.steps))
		for k := range e.ranges {
			e.ranges[k] = [2]float64{math.NaN(), math.NaN()}
		}
	}
	sp := &sampler{t: t, e: e, rng: rng, xs: make([][]int, n), logZ: t.constant}
	flat := make([]int, n*len(m.Cards))
	for i := range sp.xs {
		sp.xs[i] = flat[i*len(m.Cards) : (i+1)*len(m.Cards)]
	}
	e.visit = sp.visit
	if err := e.run(); err != nil {
		return nil, nil, err
	}
	logp := make([]float64, n)
	for i, x := range sp.xs {
		logp[i] = m.LogScore(x) - sp.logZ
	}
	return sp.xs, logp, nil
}

// sampler draws the variables of every sample in reverse elimination order
// as the engine visits the steps backward.
type sampler struct {
	t    *tree
	e    *engine
	rng  *rand.Rand
	xs   [][]int // the samples, drawn at the steps visited so far
	logZ float64 // log Z, once the roots are visited
	// checked: the roots' products are vouched for (linear space), which
	// the first visit, before any draw, makes sure of.
	checked bool
}

// visit draws step k's variable in every sample.
func (sp *sampler) visit(k int) error {
	if err := sp.checkRoots(); err != nil {
		return err
	}
	s := &sp.t.steps[k]
	c, scale, err := sp.conditional(k)
	if err != nil {
		return err
	}
	if s.parent < 0 {
		sum, lmax := c.fill(nil)
		if sum == 0 {
			return fmt.Errorf("exact: %w", ErrZeroPartition)
		}
		sp.logZ += math.Log(sum) + lmax + scale
	}
	for i, x := range sp.xs {
		sum, _ := c.fill(x)
		if !(sum > 0) {
			return fmt.Errorf("exact: internal error: sample %d reached a zero-probability state at variable %d", i, s.v)
		}
		x[s.v] = drawIndex(c.p, sp.rng.Float64()*sum)
	}
	for _, ch := range s.children {
		sp.e.releaseMsg(ch)
	}
	return nil
}

// conditional returns the clique table of step k as its operands (the
// children's messages and the step's factors), with the log of the scale
// taken out of them.
func (sp *sampler) conditional(k int) (*conditional, float64, error) {
	t, s := sp.t, &sp.t.steps[k]
	in, scale, err := sp.e.inputs(k)
	if err != nil {
		return nil, 0, err
	}
	in = append(in, sp.e.fac[k].vals)
	st := make([][]int, len(in))
	for i, c := range s.children {
		st[i] = t.strides(t.steps[c].sep, s.clique)
	}
	st[len(in)-1] = t.strides(s.scope, s.clique)
	c := &conditional{in: in, st: st, clique: s.clique, vd: slices.Index(s.clique, s.v),
		p: make([]float64, t.cards[s.v]), off: make([]int, len(in)), logs: sp.e.logSpace}
	return c, scale, nil
}

// conditional is a clique table as the product of its operands, read along
// its eliminated variable with the other variables fixed.
type conditional struct {
	in     [][]float64
	st     [][]int // strides of every operand on the clique
	clique []int
	vd     int       // position of the eliminated variable in clique
	p      []float64 // the table along the eliminated variable, as last filled
	off    []int     // scratch: every operand's offset
	logs   bool      // the operands are tables of logs
}

// fill fills p with the clique table restricted to sample x (whose variables
// of the clique other than the eliminated one are drawn), divided by
// e^lmax, and returns its sum and lmax (0 for linear operands).
func (c *conditional) fill(x []int) (sum, lmax float64) {
	for op, so := range c.st {
		o := 0
		for d, u := range c.clique {
			if d != c.vd {
				o += so[d] * x[u]
			}
		}
		c.off[op] = o
	}
	if c.logs {
		return c.fillLogs()
	}
	for y := range c.p {
		q := 1.0
		for op, tab := range c.in {
			q *= tab[c.off[op]+y*c.st[op][c.vd]]
		}
		c.p[y] = q
		sum += q
	}
	return sum, 0
}

// fillLogs is fill of operands of logs, at the offsets c.off.
func (c *conditional) fillLogs() (sum, lmax float64) {
	for y := range c.p {
		q := 0.0
		for op, tab := range c.in {
			q += tab[c.off[op]+y*c.st[op][c.vd]]
		}
		c.p[y] = q
	}
	lmax = slices.Max(c.p)
	if math.IsInf(lmax, -1) {
		clear(c.p)
		return 0, 0
	}
	for y, q := range c.p {
		c.p[y] = math.Exp(q - lmax)
		sum += c.p[y]
	}
	return sum, lmax
}

// checkRoots fails with errImprecise, on the first visit, if a product of
// a root step's tables might leave float64's normal range (the other
// steps' were checked as their messages were computed, all before the
// first visit).
func (sp *sampler) checkRoots() error {
	if sp.checked || !sp.e.vouch {
		return nil
	}
	sp.checked = true
	for k := range sp.t.steps {
		if sp.t.steps[k].parent < 0 && !sp.e.vouched(k) {
			return errImprecise
		}
	}
	return nil
}

// lnHuge is the natural log of the largest float64, with a margin for the
// sums of products.
const lnHuge = 700

// vouched reports whether every product of step k's operands (its
// children's messages and its factor table), partial products included,
// stays within float64's normal range, so that linear space loses nothing
// but rounding: from the log ranges of the children's messages as computed
// and the factor table's before any underflow.
func (e *engine) vouched(k int) bool {
	s := &e.t.steps[k]
	f := e.fac[k]
	lo, hi := min(f.lmin, 0), math.Log(float64(e.t.cards[s.v]))
	for _, c := range s.children {
		lo += min(e.ranges[c][0], 0)
		hi += max(e.ranges[c][1], 0)
	}
	return lo >= lnTiny && hi <= lnHuge // false if a range is unknown (NaN)
}

// logMinPositive returns the log of the smallest positive entry of vals,
// whose entries are not negative (+Inf if none is positive). A positive
// float64's bits order as its value, and a zero's less one wraps to the
// largest, so unsigned minima find it; four of them keep the comparisons
// independent.
func logMinPositive(vals []float64) float64 {
	const none = math.MaxUint64
	m := [4]uint64{none, none, none, none}
	i := 0
	for ; i+3 < len(vals); i += 4 {
		for j := range m {
			if b := math.Float64bits(vals[i+j]) - 1; b < m[j] {
				m[j] = b
			}
		}
	}
	for ; i < len(vals); i++ {
		if b := math.Float64bits(vals[i]) - 1; b < m[0] {
			m[0] = b
		}
	}
	lo := min(m[0], m[1], m[2], m[3])
	if lo == none {
		return math.Inf(1)
	}
	return math.Log(math.Float64frombits(lo + 1))
}

// logStep writes into out the message of step k from operands in, tables
// of logs (its children's messages, then its factor table): the log of
// the sum over the eliminated variable of their product, less its
// maximum, which it returns (-Inf if the message is zero).
func logStep(t *tree, k int, in [][]float64, out []float64) float64 {
	s := &t.steps[k]
	vd := slices.Index(s.clique, s.v)
	off := make([][]int, len(in)) // every operand's offset at each separator state
	vst := make([]int, len(in))   // its stride along the eliminated variable
	for op := range in {
		var st []int
		if op < len(s.children) {
			st = t.strides(t.steps[s.children[op]].sep, s.clique)
		} else {
			st = t.strides(s.scope, s.clique)
		}
		vst[op] = st[vd]
		off[op] = make([]int, s.sepSize)
		odometer(t.cards, s.sep, slices.Delete(st, vd, vd+1), func(i, o int) { off[op][i] = o })
	}
	terms := make([]float64, t.cards[s.v])
	for i := range out {
		for y := range terms {
			q := 0.0
			for op, tab := range in {
				q += tab[off[op][i]+y*vst[op]]
			}
			terms[y] = q
		}
		out[i] = logSumExp(terms)
	}
	mx := slices.Max(out)
	if !math.IsInf(mx, -1) {
		for i := range out {
			out[i] -= mx
		}
	}
	return mx
}

// logSumExp returns ln Σ e^x.
func logSumExp(xs []float64) float64 {
	mx := slices.Max(xs)
	if math.IsInf(mx, -1) {
		return mx
	}
	sum := 0.0
	for _, x := range xs {
		sum += math.Exp(x - mx)
	}
	return mx + math.Log(sum)
}

// drawIndex returns the index at which u, uniform in [0, Σp), falls in the
// cumulative sums of p.
func drawIndex(p []float64, u float64) int {
	y := 0
	for ; y < len(p)-1; y++ {
		if u < p[y] {
			break
		}
		u -= p[y]
	}
	for p[y] == 0 { // rounding pushed u past the last non-zero entry
		y--
	}
	return y
}
