package learn

// The clamped phase of persistent contrastive divergence (method pcd).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/renn-go/renn/core/mcmc"
	"github.com/renn-go/renn/core/mrf"
)

// PCDClamped returns the clamped phase of persistent contrastive
// divergence. When no factor holds two hidden variables (an RBM), the
// hidden variables are independent given x_v and the phase is exact and
// factorised, as ExactClamped's; this is what PCD does on RBMs in practice.
// Otherwise every distinct visible vector keeps one persistent Gibbs chain
// over the hidden variables (visible ones fixed at the vector), which runs
// sweeps sweeps each time its vector is in a batch and contributes the
// frequencies of those sweeps' configurations; it continues from where it
// stopped, one visit (usually one epoch) earlier, on the current
// parameters. The chains start from hidden states drawn uniformly with a
// generator seeded from seed. The sampled phase has no ln Z(x_v): its
// ClampedStats.LogZ is NaN, Iterations counts sweeps, and every call is
// counted unconverged (a few sweeps have no convergence test).
func PCDClamped(sweeps int, seed int64) (ClampedPhase, error) {
	if sweeps < 1 {
		return nil, fmt.Errorf("pcd clamped phase: sweeps %d, want >= 1", sweeps)
	}
	return &pcdClamped{sweeps: sweeps, seed: seed, states: map[int][]int{}}, nil
}

type pcdClamped struct {
	sweeps  int
	seed    int64
	checked bool
	fact    *factorised // the exact phase, when the model allows it

	chains *mcmc.Chains  // one chain, loaded with each vector's state in turn
	states map[int][]int // each visible vector's chain state
	rng    *rand.Rand    // starting hidden states
	hidden []int         // the hidden variables
	x      []int         // scratch
}

func (c *pcdClamped) Name() string { return "pcd" }

func (c *pcdClamped) Clamped(ctx context.Context, m *mrf.Model, d *Data, groups []int, w []float64, acc [][]float64) (ClampedStats, error) {
	if !d.Hidden() {
		return ClampedStats{}, errors.New("clamped phase: data without hidden variables")
	}
	vis := d.hidden.vis
	if !c.checked {
		c.fact, c.checked = newFactorised(m, vis), true
	}
	if c.fact != nil {
		if err := ctx.Err(); err != nil {
			return ClampedStats{}, err
		}
		return c.fact.clamped(m, d, groups, w, acc)
	}
	if c.chains == nil {
		ch, err := mcmc.NewChains(m, 1, mrf.DeriveSeed(c.seed, 0))
		if err != nil {
			return ClampedStats{}, err
		}
		if err := ch.Fix(vis); err != nil {
			return ClampedStats{}, err
		}
		c.chains, c.rng = ch, mrf.NewRand(mrf.DeriveSeed(c.seed, 1))
		c.hidden = hiddenOf(vis, len(m.Cards))
	} else if err := c.chains.SetModel(m); err != nil {
		return ClampedStats{}, err
	}
	st := ClampedStats{LogZ: math.NaN()}
	for k, g := range groups {
		x, ok := c.states[g]
		if !ok {
			x = make([]int, len(m.Cards))
			for j, v := range vis {
				x[v] = d.hidden.groups[g][j]
			}
			for _, h := range c.hidden {
				x[h] = c.rng.IntN(m.Cards[h])
			}
		}
		if err := c.chains.SetState(0, x); err != nil {
			return st, fmt.Errorf("visible vector %d: %w", g, err)
		}
		c.chains.ClearStats()
		if err := c.chains.Sweep(ctx, c.sweeps); err != nil {
			return st, err
		}
		if err := c.chains.AddFactorMarginals(w[k], acc); err != nil {
			return st, fmt.Errorf("visible vector %d: %w", g, err)
		}
		c.states[g] = c.chains.State(0)
		st.Calls++
		st.Iterations += c.sweeps
		st.Unconverged++
	}
	return st, nil
}

// hiddenOf returns the variables of 0..n-1 not in vis (increasing).
func hiddenOf(vis []int, n int) []int {
	in := make([]bool, n)
	for _, v := range vis {
		in[v] = true
	}
	var h []int
	for v := range n {
		if !in[v] {
			h = append(h, v)
		}
	}
	return h
}
