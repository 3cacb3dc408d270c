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
	xs := make([][]int, n)
	flat := make([]int, n*len(m.Cards))
	for i := range xs {
		xs[i] = flat[i*len(m.Cards) : (i+1)*len(m.Cards)]
	}
	logZ := t.constant
	e.visit = func(k int) error {
		s := &t.steps[k]
		in, scale, err := e.inputs(k)
		if err != nil {
			return err
		}
		in = append(in, e.fac[k].vals)
		// Strides of every operand on the clique; the variables other than
		// v are already drawn.
		st := make([][]int, len(in))
		for i, c := range s.children {
			st[i] = t.strides(t.steps[c].sep, s.clique)
		}
		st[len(in)-1] = t.strides(s.scope, s.clique)
		v := s.v
		vd := slices.Index(s.clique, v)
		p := make([]float64, t.cards[v])
		off := make([]int, len(in))
		// cond fills p with the clique table restricted to sample x and
		// returns its sum.
		cond := func(x []int) float64 {
			for op, so := range st {
				o := 0
				for d, u := range s.clique {
					if d != vd {
						o += so[d] * x[u]
					}
				}
				off[op] = o
			}
			sum := 0.0
			for y := range p {
				q := 1.0
				for op, tab := range in {
					q *= tab[off[op]+y*st[op][vd]]
				}
				p[y] = q
				sum += q
			}
			return sum
		}
		if s.parent < 0 {
			sum := cond(nil)
			if sum == 0 {
				return fmt.Errorf("exact: %w", ErrZeroPartition)
			}
			logZ += math.Log(sum) + scale
		}
		for i := range xs {
			sum := cond(xs[i])
			if !(sum > 0) {
				return fmt.Errorf("exact: internal error: sample %d reached a zero-probability state at variable %d", i, v)
			}
			u := rng.Float64() * sum
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
			xs[i][v] = y
		}
		for _, c := range s.children {
			e.releaseMsg(c)
		}
		return nil
	}
	if err := e.run(); err != nil {
		return nil, nil, err
	}
	logp := make([]float64, n)
	for i, x := range xs {
		logp[i] = m.LogScore(x) - logZ
	}
	return xs, logp, nil
}
