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
	e, err := newEngine(t, opt.Memory)
	if err != nil {
		return nil, nil, err
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
}

// visit draws step k's variable in every sample.
func (sp *sampler) visit(k int) error {
	s := &sp.t.steps[k]
	c, scale, err := sp.conditional(k)
	if err != nil {
		return err
	}
	if s.parent < 0 {
		sum := c.fill(nil)
		if sum == 0 {
			return fmt.Errorf("exact: %w", ErrZeroPartition)
		}
		sp.logZ += math.Log(sum) + scale
	}
	for i, x := range sp.xs {
		sum := c.fill(x)
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
		p: make([]float64, t.cards[s.v]), off: make([]int, len(in))}
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
}

// fill fills p with the clique table restricted to sample x (whose variables
// of the clique other than the eliminated one are drawn) and returns its sum.
func (c *conditional) fill(x []int) float64 {
	for op, so := range c.st {
		o := 0
		for d, u := range c.clique {
			if d != c.vd {
				o += so[d] * x[u]
			}
		}
		c.off[op] = o
	}
	sum := 0.0
	for y := range c.p {
		q := 1.0
		for op, tab := range c.in {
			q *= tab[c.off[op]+y*c.st[op][c.vd]]
		}
		c.p[y] = q
		sum += q
	}
	return sum
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
