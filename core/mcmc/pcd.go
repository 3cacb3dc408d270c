package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// PCDOptions configure persistent Gibbs chains ("pcd"); start from
// PCDDefaultOptions. Every value is honoured or rejected by Check.
type PCDOptions struct {
	// Seed seeds the chains (chain c from a seed derived from Seed and c).
	// Default 1.
	Seed int64 `json:"seed" help:"Seed of the chains' random numbers (chain c uses a seed derived from it and c)."`
	// Chains is the number of persistent chains (fantasy particles), >= 1.
	// Default 100.
	Chains int `json:"chains" help:"Number of persistent Gibbs chains (>= 1), kept from call to call."`
	// Sweeps is the number of Gibbs sweeps of every chain per call (per
	// parameter update in learning), >= 1; the configuration after each
	// is counted. Default 1 (Tieleman's PCD).
	Sweeps int `json:"sweeps" help:"Gibbs sweeps of every chain per call (per parameter update in learning), >= 1; each sweep's configurations are counted. Whichever of sweeps and max_seconds ends first ends the call."`
	// MaxSeconds is the time budget of a call, starting the chains
	// included (a chain started after it is spent starts at an earlier
	// chain's configuration: "shared_starts"); 0 means no limit. The first
	// sweep always runs.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit; the first sweep always runs). Whichever of sweeps and max_seconds ends first ends the call."`
}

// PCDDefaultOptions returns pcd's defaults outside learning, where one call
// is a plain Gibbs run from random starts without burn-in: 100 chains of
// 1000 sweeps or 60 s, seed 1.
func PCDDefaultOptions() PCDOptions {
	return PCDOptions{Seed: 1, Chains: 100, Sweeps: 1000, MaxSeconds: 60}
}

// PCDLearningOptions returns pcd's defaults inside learning (persistent
// contrastive divergence as Tieleman 2008 ran it): 100 chains, one sweep
// per parameter update, no time budget (so a run is reproducible).
func PCDLearningOptions() PCDOptions {
	return PCDOptions{Seed: 1, Chains: 100, Sweeps: 1}
}

// maxPCDChains bounds the chains (each holds a configuration and the
// counts are per chain sweep).
const maxPCDChains = 1 << 20

// Check reports whether o is valid; the error names the option.
func (o PCDOptions) Check() error {
	switch {
	case o.Chains < 1 || o.Chains > maxPCDChains:
		return fmt.Errorf("pcd: chains %d, want 1..%d", o.Chains, maxPCDChains)
	case o.Sweeps < 1:
		return fmt.Errorf("pcd: sweeps %d, want >= 1", o.Sweeps)
	}
	return infer.CheckMaxSeconds("pcd", o.MaxSeconds)
}

// PCD is the free phase of persistent contrastive divergence as an
// inference method: Chains persistent Gibbs chains, Sweeps sweeps of each
// per call, the marginals being the frequencies of the configurations of
// that call's sweeps. The chains persist between calls on models of the
// same structure (learning: the chains follow the parameters); a model of
// another structure starts new chains. No burn-in is discarded: in
// learning the chains are never restarted, so after the first updates they
// are as warm as the parameters' changes allow.
//
// It makes no claim on ln Z (ClaimsLogZ is false, Result.LogZ NaN), and
// never on convergence: a few sweeps of a persistent chain have no
// convergence test, so Result.Converged is always false. Learning with it
// therefore has no training NLL and no plateau stop (see core/learn).
type PCD struct {
	opts   PCDOptions
	chains *Chains
}

// NewPCD returns persistent chains with opts.
func NewPCD(opts PCDOptions) (*PCD, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &PCD{opts: opts}, nil
}

// Name returns "pcd".
func (p *PCD) Name() string { return "pcd" }

// ClaimsLogZ is false: persistent chains estimate no ln Z.
func (p *PCD) ClaimsLogZ() bool { return false }

// Chains returns the persistent chains (nil before the first call).
func (p *PCD) Chains() *Chains { return p.chains }

// Infer moves the chains onto m's tables, runs Sweeps sweeps and returns
// the frequencies of their configurations.
func (p *PCD) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	if m == nil {
		return nil, errors.New("pcd: nil model")
	}
	// The time budget covers starting the chains.
	stop := infer.Budget{MaxIter: p.opts.Sweeps, MaxSeconds: p.opts.MaxSeconds}.Start(infer.BeginCall(ctx))
	shared := 0
	if p.chains == nil || !p.chains.SameStructure(m) {
		c, n, err := newChains(m, p.opts.Chains, p.opts.Seed, stop.Expired)
		if err != nil {
			return nil, fmt.Errorf("pcd: %w", err)
		}
		p.chains, shared = c, n
	} else if err := p.chains.SetModel(m); err != nil {
		return nil, fmt.Errorf("pcd: %w", err)
	}
	p.chains.ClearStats()
	sweeps := 0
	for {
		more, err := stop.Next()
		if err != nil {
			return nil, fmt.Errorf("pcd: stopped after %d sweeps: %w", sweeps, err)
		}
		if !more {
			break
		}
		if err := p.chains.Sweep(ctx, 1); err != nil {
			return nil, fmt.Errorf("pcd: %w", err)
		}
		sweeps++
	}
	mg, err := p.chains.Marginals()
	if err != nil {
		return nil, fmt.Errorf("pcd: %w", err)
	}
	res := &infer.Result{Marginals: mg, LogZ: math.NaN(), FreeEnergy: math.NaN(), Iterations: sweeps,
		Diagnostics: map[string]float64{"chains": float64(p.chains.Len()), "sweeps": float64(sweeps),
			"total_sweeps": float64(p.chains.SweepsRun())}}
	if shared > 0 {
		res.Diagnostics["shared_starts"] = float64(shared)
	}
	stop.Note(res.Diagnostics)
	return res, nil
}
