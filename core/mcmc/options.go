package mcmc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/infer"
)

// Options configures a Gibbs run; start from DefaultOptions. Every value is
// honoured or rejected by Check, never replaced.
type Options struct {
	// Seed seeds every chain (chain c draws from mrf.NewRand of a seed
	// derived from Seed and c); a call with a sweep budget is reproducible.
	// Default 1.
	Seed int64 `json:"seed" help:"Seed of the chains' random numbers (a run ended by sweeps, not by time, is reproducible)."`
	// Chains is the number of independent chains (>= 1; split-R̂ needs 2).
	// Default 4.
	Chains int `json:"chains" help:"Number of independent chains, each from its own random feasible start (>= 1)."`
	// Sweeps caps the sweeps of every chain, burn-in included; 0 means no
	// cap (then MaxSeconds must be set). Default 20000.
	Sweeps int `json:"sweeps" help:"Sweeps per chain, burn-in included (0: no cap; then max_seconds must be set). Whichever of sweeps and max_seconds ends first ends the run."`
	// MaxSeconds is the time budget of a call; 0 means no limit (then
	// Sweeps must be set). Whichever of Sweeps and MaxSeconds ends first
	// ends the run. Default 60.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit; then sweeps must be set). Whichever of sweeps and max_seconds ends first ends the run."`
	// BurnIn is the fraction in [0, 1) of every chain's sweeps discarded
	// at the start, decided when the run ends (so it is the same fraction
	// whichever budget ended it), rounded up to whole batches and always
	// leaving one batch. Default 0.2.
	BurnIn float64 `json:"burn_in" help:"Fraction in [0, 1) of each chain's sweeps discarded as burn-in, rounded up to whole batches (decided when the run ends)."`
	// MaxRhat is the largest split-R̂ (over every variable state, across
	// the chains' halves) a converged answer may have. Default 1.01.
	MaxRhat float64 `json:"max_rhat" help:"Converged only when split-R-hat across the chains' halves is at most max_rhat on every variable (> 1)."`
	// Blocks says which variables a sweep draws jointly (blocks.go): the
	// pieces of the model's zero-potential constraints, under "auto" those
	// with a deterministic constraint or whose joint draw costs at most
	// blockRatio single-site sweeps of them, under "on" every one, under
	// "off" none (within maxBlockTable, maxBlockCost and maxBlocksCost).
	// Default "auto".
	Blocks string `json:"blocks" help:"Draw the variables that zeros of factors of two or more variables join (each connected piece of them) jointly by variable elimination: auto (a piece where such a factor fixes one variable given the others, or whose draw costs at most 16 single-site sweeps of it), on (every piece) or off (single-site updates only); a piece needing a table above 2^16 entries is never drawn jointly."`
}

// DefaultOptions returns Gibbs's documented defaults.
func DefaultOptions() Options {
	return Options{Seed: 1, Chains: 4, Sweeps: 20000, MaxSeconds: 60, BurnIn: 0.2, MaxRhat: 1.01, Blocks: BlocksAuto}
}

// LearningOptions returns Gibbs's defaults inside learning, where it runs
// once per parameter update: 2000 sweeps per chain.
func LearningOptions() Options {
	o := DefaultOptions()
	o.Sweeps = 2000
	return o
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error { return o.check("gibbs") }

func (o Options) check(method string) error {
	switch {
	case o.Chains < 1:
		return fmt.Errorf("%s: chains %d, want >= 1", method, o.Chains)
	case o.Sweeps < 0:
		return fmt.Errorf("%s: sweeps %d, want >= 0 (0: no cap)", method, o.Sweeps)
	case !(o.BurnIn >= 0 && o.BurnIn < 1):
		return fmt.Errorf("%s: burn_in %v, want a fraction 0 <= burn_in < 1", method, o.BurnIn)
	case !(o.MaxRhat > 1) || math.IsInf(o.MaxRhat, 1):
		return fmt.Errorf("%s: max_rhat %v, want a finite number > 1", method, o.MaxRhat)
	case o.Blocks != BlocksAuto && o.Blocks != BlocksOn && o.Blocks != BlocksOff:
		return fmt.Errorf("%s: blocks %q, want %q, %q or %q", method, o.Blocks, BlocksAuto, BlocksOn, BlocksOff)
	}
	if err := infer.CheckMaxSeconds(method, o.MaxSeconds); err != nil {
		return err
	}
	if o.Sweeps == 0 && o.MaxSeconds == 0 {
		return fmt.Errorf("%s: sweeps 0 and max_seconds 0: the run would have no end; set one of them", method)
	}
	return nil
}

// PTOptions configures a parallel-tempering run; start from
// PTDefaultOptions. The ladder is Betas if given, else Temps inverse
// temperatures geometric from 1 down to BetaMin; β = 0 is always added
// below it (see the package comment).
type PTOptions struct {
	Seed int64 `json:"seed" help:"Seed of the chains' random numbers (a run ended by sweeps, not by time, is reproducible)."`
	// Chains defaults to 2: each chain is a whole ladder, and on hard
	// models longer chains beat more of them (split-R̂ still compares four
	// halves): on the 10x10 spin glasses with couplings U(-10,10), at the
	// same total sweeps, 4 chains of 20000 and 8 of 10000 missed modes
	// that 2 of 40000 found (mean |ΔP| 0.028 and 0.031 against 0.022 on
	// the hardest model; 0.20 and 0.27 against 0.08 on another).
	Chains     int     `json:"chains" help:"Number of independent chains (each a full ladder of replicas) (>= 1)."`
	Sweeps     int     `json:"sweeps" help:"Sweeps per chain (every replica sweeps once, then neighbours swap), burn-in included (0: no cap; then max_seconds must be set). Whichever of sweeps and max_seconds ends first ends the run."`
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (0: no limit; then sweeps must be set). Whichever of sweeps and max_seconds ends first ends the run."`
	BurnIn     float64 `json:"burn_in" help:"Fraction in [0, 1) of each chain's sweeps discarded as burn-in, rounded up to whole batches (decided when the run ends)."`
	MaxRhat    float64 `json:"max_rhat" help:"Converged only when split-R-hat of the beta = 1 replicas across the chains' halves is at most max_rhat on every variable (> 1)."`
	Blocks     string  `json:"blocks" help:"Draw the variables that zeros of factors of two or more variables join (each connected piece of them) jointly by variable elimination, at every temperature: auto (a piece where such a factor fixes one variable given the others, or whose draw costs at most 16 single-site sweeps of it), on (every piece) or off (single-site updates only); a piece needing a table above 2^16 entries is never drawn jointly."`
	// Temps is the number of inverse temperatures of the geometric ladder
	// (>= 2), β_k = BetaMin^(k/(Temps-1)). Default 20.
	Temps int `json:"temps" help:"Number of inverse temperatures of the geometric ladder from 1 down to beta_min (>= 2; beta = 0 is added below it). Ignored when betas is set."`
	// BetaMin is the smallest positive inverse temperature of the geometric
	// ladder, in (0, 1). Default 0.02.
	BetaMin float64 `json:"beta_min" help:"Smallest positive inverse temperature of the geometric ladder, 0 < beta_min < 1. Ignored when betas is set."`
	// Betas, if not empty, is the ladder itself: comma-separated inverse
	// temperatures separated by spaces (or commas, where no command line
	// splits them: run-baselines' --set does), starting at 1, strictly
	// decreasing, all positive.
	// Swaps is the number of passes of neighbour swaps after every sweep
	// (>= 1; each pass tries every pair once, from the top): swaps cost a
	// log potential difference each, a sweep a conditional per variable
	// and replica, and more passes move replicas along the ladder faster.
	Swaps int    `json:"swaps" help:"Passes of neighbour swaps after every sweep, each trying every neighbouring pair once from the top (>= 1)."`
	Betas string `json:"betas" help:"Explicit ladder instead of temps and beta_min: inverse temperatures separated by spaces starting at 1, strictly decreasing, positive (beta = 0 is added below it)."`
	// Cluster is the cluster move between paired chains: "none", or
	// "houdayer" (cluster.go): after every sweep, chains 0 and 1 (2 and 3,
	// ...) exchange one cluster of disagreeing sites between their
	// replicas at every positive inverse temperature; it needs an even
	// number of chains.
	Cluster string `json:"cluster" help:"Cluster move between paired chains (0 with 1, 2 with 3, ...) after every sweep: none, or houdayer (exchange one connected cluster of the sites where the pair's replicas at the same positive temperature disagree; needs an even number of chains)."`
	// Temper is what the ladder tempers: "pairs" (the factors of two or
	// more variables; the unary factors hold at every temperature) or
	// "all" (the unary factors' finite entries too; their zeros, such as
	// evidence, hold at every temperature). Default "all" (see the
	// package comment for why).
	Temper string `json:"temper" help:"What the ladder tempers: pairs (the finite entries of factors of two or more variables; unary factors hold at every temperature) or all (every finite entry). Zero potentials (evidence, deterministic entries) hold at every temperature."`
	// MinRoundTrips is the least number of round trips (a replica's
	// travel from the hottest rung, β = 0 or the last relaxation rung, to
	// β = 1, counted on arrival) every
	// chain must make in its kept sweeps for the answer to be converged
	// (>= 0). Default 10.
	MinRoundTrips int `json:"min_round_trips" help:"Converged only when every chain's replicas made at least min_round_trips round trips (hottest rung to beta = 1) in the kept sweeps (>= 0)."`
	// MinSwapRate is the least swap acceptance rate between every pair of
	// neighbouring inverse temperatures for the answer to be converged, in
	// [0, 1). Default 0.05.
	MinSwapRate float64 `json:"min_swap_rate" help:"Converged only when the swap acceptance rate between every pair of neighbouring temperatures is at least min_swap_rate (0 <= min_swap_rate < 1)."`
	// Relax says when relaxation rungs follow the temperature ladder
	// (ladder.go): "auto" (where a factor of two or more variables fixes
	// one of them given the others wherever it is not zero, outside the
	// blocks, or the feasible configurations are too many to count), "on"
	// (wherever such factors have zeros) or "off". Default "auto".
	Relax string `json:"relax" help:"Relaxation rungs below beta = 0, where the zeros of factors of two or more variables become a penalty falling to 0 (so chains can cross infeasible configurations): auto (where such a factor is deterministic outside the blocks, or the feasible configurations cannot be counted), on (wherever such factors have zeros) or off."`
	// RelaxRungs is the number of positive penalties of the relaxation
	// rungs (>= 1; a rung of penalty 0 is added below them). Default 10.
	RelaxRungs int `json:"relax_rungs" help:"Number of positive penalties of the relaxation rungs, falling quadratically from penalty_max (>= 1; a rung of penalty 0 is added below them)."`
	// PenaltyMax is the top penalty (> 0), or 0 for ln(H·ρ) + 2 (H the
	// hard factors, ρ the largest ratio of zero to non-zero entries of
	// one). Default 0.
	PenaltyMax float64 `json:"penalty_max" help:"Top penalty of the relaxation rungs per factor at a zero (> 0), or 0: ln(H*rho) + 2, H the factors of two or more variables with zeros and rho the largest ratio of zero to non-zero entries in one."`
}

// When pt adds relaxation rungs (PTOptions.Relax).
const (
	RelaxAuto = "auto"
	RelaxOn   = "on"
	RelaxOff  = "off"
)

// What the ladder tempers (PTOptions.Temper).
const (
	TemperPairs = "pairs"
	TemperAll   = "all"
)

// Cluster moves (PTOptions.Cluster).
const (
	ClusterNone     = "none"
	ClusterHoudayer = "houdayer"
)

// PTDefaultOptions returns parallel tempering's documented defaults: 2
// chains of 20 temperatures geometric from 1 to 0.02 tempering everything
// but the unary zeros, no cluster move (see the package comment for why),
// 20000 sweeps or 60 s.
func PTDefaultOptions() PTOptions {
	d := DefaultOptions()
	return PTOptions{Seed: d.Seed, Chains: 2, Sweeps: 20000, MaxSeconds: d.MaxSeconds, BurnIn: d.BurnIn, MaxRhat: d.MaxRhat, Blocks: d.Blocks,
		Temps: 20, BetaMin: 0.02, Swaps: 1, Cluster: ClusterNone, Temper: TemperAll, MinRoundTrips: 10, MinSwapRate: 0.05,
		Relax: RelaxAuto, RelaxRungs: 10}
}

func (o PTOptions) common() Options {
	return Options{Seed: o.Seed, Chains: o.Chains, Sweeps: o.Sweeps, MaxSeconds: o.MaxSeconds, BurnIn: o.BurnIn, MaxRhat: o.MaxRhat, Blocks: o.Blocks}
}

// Check reports whether o is valid; the error names the option.
func (o PTOptions) Check() error {
	if err := o.common().check("pt"); err != nil {
		return err
	}
	if o.Swaps < 1 || o.Swaps > maxSwaps {
		return fmt.Errorf("pt: swaps %d, want 1 <= swaps <= %d", o.Swaps, maxSwaps)
	}
	switch o.Cluster {
	case ClusterNone:
	case ClusterHoudayer:
		if o.Chains%2 != 0 {
			return fmt.Errorf("pt: cluster %q pairs the chains, but chains is %d: want an even number", o.Cluster, o.Chains)
		}
	default:
		return fmt.Errorf("pt: cluster %q, want %q or %q", o.Cluster, ClusterNone, ClusterHoudayer)
	}
	if o.MinRoundTrips < 0 {
		return fmt.Errorf("pt: min_round_trips %d, want >= 0", o.MinRoundTrips)
	}
	if !(o.MinSwapRate >= 0 && o.MinSwapRate < 1) {
		return fmt.Errorf("pt: min_swap_rate %v, want 0 <= min_swap_rate < 1", o.MinSwapRate)
	}
	if o.Relax != RelaxAuto && o.Relax != RelaxOn && o.Relax != RelaxOff {
		return fmt.Errorf("pt: relax %q, want %q, %q or %q", o.Relax, RelaxAuto, RelaxOn, RelaxOff)
	}
	if o.RelaxRungs < 1 || o.RelaxRungs > maxTemps {
		return fmt.Errorf("pt: relax_rungs %d, want 1 <= relax_rungs <= %d", o.RelaxRungs, maxTemps)
	}
	if !(o.PenaltyMax >= 0) || math.IsInf(o.PenaltyMax, 1) {
		return fmt.Errorf("pt: penalty_max %v, want a finite number >= 0 (0: automatic)", o.PenaltyMax)
	}
	if o.Temper != TemperPairs && o.Temper != TemperAll {
		return fmt.Errorf("pt: temper %q, want %q or %q", o.Temper, TemperPairs, TemperAll)
	}
	_, err := o.Ladder()
	return err
}

// Ladder returns the positive inverse temperatures, from 1 down (β = 0 is
// not included), or an error naming the option at fault.
func (o PTOptions) Ladder() ([]float64, error) {
	if strings.TrimSpace(o.Betas) != "" {
		return parseBetas(o.Betas)
	}
	switch {
	case o.Temps < 2:
		return nil, fmt.Errorf("pt: temps %d, want >= 2 (or an explicit betas list)", o.Temps)
	case o.Temps > maxTemps:
		return nil, fmt.Errorf("pt: temps %d, want at most %d", o.Temps, maxTemps)
	case !(o.BetaMin > 0 && o.BetaMin < 1):
		return nil, fmt.Errorf("pt: beta_min %v, want 0 < beta_min < 1", o.BetaMin)
	}
	b := make([]float64, o.Temps)
	for k := range b {
		b[k] = math.Pow(o.BetaMin, float64(k)/float64(o.Temps-1))
	}
	b[0], b[len(b)-1] = 1, o.BetaMin
	return b, nil
}

// maxTemps bounds the ladder (each temperature is a replica of the model
// per chain).
const maxTemps = 1000

// maxSwaps bounds the swap passes per sweep (far beyond where more help:
// the replicas' order is then at equilibrium given their log potentials).
const maxSwaps = 10000

func parseBetas(s string) ([]float64, error) {
	fields := strings.Fields(strings.ReplaceAll(s, ",", " "))
	if len(fields) == 0 {
		return nil, fmt.Errorf("pt: betas %q: no inverse temperatures", s)
	}
	if len(fields) > maxTemps {
		return nil, fmt.Errorf("pt: betas: %d inverse temperatures, want at most %d", len(fields), maxTemps)
	}
	b := make([]float64, len(fields))
	for k, f := range fields {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("pt: betas: %q is not a number", f)
		}
		switch {
		case k == 0 && x != 1:
			return nil, fmt.Errorf("pt: betas %q: the ladder must start at 1 (the model itself), not %v", s, x)
		case !(x > 0) || math.IsInf(x, 1):
			return nil, fmt.Errorf("pt: betas %q: %v is not a positive inverse temperature (beta = 0 is added by pt itself)", s, x)
		case k > 0 && !(x < b[k-1]):
			return nil, fmt.Errorf("pt: betas %q: not strictly decreasing at %v", s, x)
		}
		b[k] = x
	}
	return b, nil
}
