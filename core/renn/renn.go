// Package renn implements the Region-based Energy Neural Network (paper
// section 3.1) and, on the Bethe region graph, the Inference Net.
//
// A network outputs the beliefs of the root regions (a softmax over each
// root's joint states). Every lower region's belief is the mean of its
// parents' marginals onto it (paper eq. 4). The loss is the region free
// energy F plus λ times the squared L2 mismatch between every non-root region
// and each of its parents' marginals (eq. 5); Adam minimises it over the
// network's weights. The gradient is the analytic gradient of the loss with
// respect to the beliefs, carried back through the parent means and the
// softmax into the network's hand-written backward pass.
//
// # Networks
//
// Net "attention" is the paper's network (package nn): it sees nothing of
// the model but through the loss. Net "direct" is free logits per root state,
// an ablation. Net "message" reads the model: each root's logits are its
// negative energy times a learned weight, plus a learned weight times a
// feature made by up to Rounds sweeps of parent-to-child message passing on
// the model (package gbp; the feature is log b_R + E_R of the sweeps' root
// beliefs, the log of the messages into the root), plus free messages on the
// root's children. Its cost per step is linear in the size of the region
// tables.
//
// When the sweeps converge, the message net's first forward pass gives their
// beliefs, and before training the Lagrange multipliers are set by least
// squares (CGLS) so that a consistent stationary point of the region free
// energy is a stationary point of the loss. Such a run returns message
// passing's own answer unless it finds consistent beliefs of lower region
// free energy (see "Runs from a fixed point"). On a warm call (learning, or
// a model of the last one's structure) message passing runs from the last
// call's messages and from uniform ones, and the converged fixed point of
// lower region free energy is the start (see sweep). When they do not converge
// (strongly coupled models), their last iterate is no fixed point and was
// measured a poor start (on 10x10 tori with couplings U(−10,10), mean error
// 0.25 against 0.17 from uniform beliefs); the net then starts from uniform
// beliefs (both weights 0), as the free logits do. A stall (gbp.Stalled:
// beliefs that stopped changing within the consistency check's tolerance of
// a fixed point, not at one) is a start but not an answer: the run starts
// there as from a fixed point, but returns only an iterate of its own: on
// nine noisy-OR networks with evidence (16 to 80 findings) on which GBP
// stalls, renn-mp's mean marginal error was 2.5e-6 to 1.7e-4 in 550 to 3900
// steps from the stall, 2.1e-3 to 2.6e-2 from uniform beliefs in 10 s.
//
// # Family networks
//
// A family network (Family, family.go) is trained once on many models of a
// family (TrainFamily, amortize.go: the mean over mini-batches of models of
// the region free energy plus λ times the penalty, per variable) and then
// answers a new model in one forward pass: it predicts the message net's
// messages from a few sweeps of message passing, with parameters that do
// not depend on the model's size. NewFamilyInference returns that answer,
// or refines it: by GBP's own updates started from the answer's messages
// (RefineGBP; the gradient refinement where they do not converge), or by
// the message net's own loop (RefineGradient, the same convergence rule).
//
// # Constraints
//
// With the paper's plain penalty (Constraint "penalty") the minimiser stays
// O(1/λ) inconsistent, which biases the marginals; the multipliers are not
// updated (they stay 0, or at the values the message net's read set). The
// default of the paper's network, "auglag", is the method of multipliers:
// the loss gains a term Σ <μ_e, d_e> over the parent-child mismatches d_e,
// and every MultiplierEvery steps μ_e += 2λ d_e. At a fixed point the beliefs
// are consistent and stationary for F under the consistency constraints, as
// GBP's fixed points are. "auto" (renn-mp's default for inference; in
// learning it uses auglag on every graph, see core/methods) is the plain penalty
// with weight DenseLambda on dense region graphs (a variable in more than
// eight roots: complete and complete bipartite graphs) and auglag with
// Lambda elsewhere: on complete graphs the consistent minima of the region
// free energy are poor marginals, deeper than the fixed point GBP finds (see
// Defaults). A run that starts from message passing's converged fixed point
// uses auglag under "auto" on every graph: the plain penalty's minimiser is
// inconsistent, so it could never replace that start.
//
// # Runs from a fixed point
//
// A run of the message net that starts from message passing's converged
// fixed point returns the best consistent answer it met (best.go): message
// passing's own beliefs, free energy and marginals, unless an iterate passes
// the consistency check with a region free energy lower even after the
// price of its remaining inconsistency. And it keeps that start a local
// minimum of the loss: below some λ the fixed point is a saddle of F + <μ,d>
// + λ||d||² (the region free energy's negative counting numbers curve it
// down off the consistent set, the more so near small beliefs), and Adam,
// whose steps have about the learning rate's size whatever the gradient's,
// leaves it at once. So when the run's largest mismatch exceeds ConsTol it
// goes back to its best iterate and multiplies λ by LambdaGrowth
// (raiseLambda). A run that neither settles nor finds a better answer stops
// readPatience windows after its last raise of λ.
// Before, on noisy-OR networks with evidence, soft CSPs and Potts models
// where GBP converged, the run left GBP's fixed point for worse answers,
// unconverged (data/uai/noisy-or60-0: mean |ΔP| 0.059 against GBP's
// 0.00023; generated CSPs 2.8-6.5x GBP's, a 60-variable 11-state Potts
// model 1.6x): under the plain penalty that constraint auto picked on their
// dense region graphs it descended to inconsistent beliefs, and under
// auglag with λ 5 it oscillated around beliefs of lower F and worse
// marginals. λ was raised up to 80 on those models and to 5120 on
// pedigrees (arity-4 factors with zeros).
//
// # Optimisation and convergence
//
// Adam with a fixed learning rate keeps bouncing around the minimum, so the
// learning rate follows the loss, window by window (Window steps): it halves
// when the loss rose in more than a quarter of the window's steps
// (oscillation), and grows by half, up to LR, when it fell at every step.
//
// The run has converged when the mean of F + λ·penalty over a window (the
// loss without the multiplier term, so the multiplier updates do not move
// it) has changed by at most Tol relative to the window before, in two
// windows running, and no child belief differs from a parent's marginal by
// more than ConsTol (for the attention and direct nets under the plain
// penalty, whose beliefs stay inconsistent, only the first). Otherwise it
// stops after MaxSteps with Converged false; the message net under the plain
// penalty stops once the loss has settled, and reports Converged false when
// its beliefs are inconsistent. The paper's code stopped once the marginals changed by
// less than 1e-5 in one step, which at its learning rate happens long before
// the minimum.
//
// # Defaults
//
// DefaultOptions were chosen by measurement against exact inference and GBP
// on 5x5 and 10x10 grids (γ 0.1 and 1) and complete graphs K9 and K16 (γ 1);
// README.md in this directory has the tables. In short: width 32 with
// one-layer residual blocks needs about as many steps as wider networks at a
// fraction of the cost per step; λ 5 with multiplier updates every 20 steps
// converged fastest without oscillating; at Tol 1e-6 the marginals on grids
// end within about 1.2x of GBP's error. On complete graphs the consistent
// minima of the star region free energy are poor marginals, deeper than the
// fixed point GBP finds; there the paper's plain penalty with λ 3 scores
// better (and like the paper's RENN).
//
// The message net (renn-mp in the registry) was measured on spin glasses
// with fields U(−1,1) and couplings U(−f,f), f from 2 to 15, on 10x10 and
// 20x20 grids and 10x10 tori, and on K16: where message passing converges it
// ends at its fixed point in 300-350 steps (3-7x GBP's time, against 200-1000x
// for the attention net); from uniform beliefs it needs up to about 10 000
// steps, hence renn-mp's cap of 20 000. On the paper's K16 models (γ 1, 20
// models) constraint auto gives l1 0.157 and corr 0.781 (the paper's RENN:
// 0.181, 0.756; auglag: 0.216, 0.555).
package renn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
	"github.com/renn-go/renn/core/region"
)

// Options configure RENN. Every field means what it says: New honours the
// value given or rejects it; nothing is replaced by a default. Start from
// DefaultOptions. The struct tags name each option in estimates.parquet
// (json) and document it on the command line (help).
type Options struct {
	// Name is the method name reported ("renn", "infnet", "renn-direct").
	Name string `json:"name" kong:"-" help:"Method name written to the outputs."`
	Net  string `json:"net" help:"attention (the paper's network), message (a network that reads the model: each root's energy plus messages over its children, started from parent-to-child message passing on the model) or direct (free logits per root region: an ablation without a network)."`

	// Rounds caps the sweeps of parent-to-child message passing the message
	// network runs on the model to make its input feature; 0 reads the
	// energies alone.
	Rounds int `json:"rounds" help:"Cap on the sweeps of parent-to-child message passing the message network (net message) runs on the model to make its input feature; 0: the root energies alone."`

	// The attention network (ignored by the direct net).
	Dim   int  `json:"dim" help:"Embedding width d of the attention network (the paper's code: 200)."`
	Heads int  `json:"heads" help:"Attention heads; must divide --dim."`
	Scale bool `json:"scale" help:"Scale attention scores by 1/sqrt(d/heads) (the paper's code did not)."`
	// BlockDepth is the number of linear layers in each residual block of
	// the heads: 2 as in the paper's code, or 1, at about half the cost.
	BlockDepth int `json:"block_depth" help:"Linear layers per residual block of the heads: 1, or 2 as in the paper's code (about twice the cost per step)."`

	// Lambda is the weight λ >= 0 of the consistency penalty; 0 drops the
	// consistency term (the paper's λ = 0 experiment; penalty only).
	Lambda float64 `json:"lambda" help:"Weight lambda >= 0 of the consistency penalty (the paper: 3, 5, 10 on grids; 1, 3, 5 on complete graphs); 0 trains on the region free energy alone (needs --constraint penalty)."`
	// Constraint is "auglag" (penalty plus Lagrange multipliers, see the
	// package comment) or "penalty" (the paper's plain penalty).
	Constraint string `json:"constraint" help:"auglag: penalty plus Lagrange multipliers, so the beliefs end consistent (a stationary point of the region free energy, like GBP's); penalty: the paper's plain penalty, whose minimiser stays O(1/lambda) inconsistent (multipliers not updated); auto: penalty with weight dense-lambda on dense region graphs (a variable in more than 8 root regions: complete and complete bipartite graphs), auglag with weight lambda elsewhere and in every run of the message net that starts from message passing's converged fixed point."`
	// DenseLambda is the penalty weight Constraint "auto" uses on dense
	// region graphs.
	DenseLambda float64 `json:"dense_lambda" help:"Weight of the plain penalty that constraint auto uses on dense region graphs (measured best: 3 on K16, gamma 1)."`
	// LambdaGrowth is the factor by which a run from message passing's
	// fixed point multiplies λ each time its beliefs leave the consistent
	// set (see raiseLambda); 1 keeps λ fixed.
	LambdaGrowth float64 `json:"lambda_growth" help:"Factor by which a run that starts from message passing's converged fixed point (net message) multiplies lambda, going back to its best iterate, each time a child belief leaves a parent's marginal by more than cons-tol (up to lambda 1e4): below some lambda that fixed point is a saddle of the loss and Adam leaves it; 1: lambda stays fixed."`
	// MultiplierEvery is the number of steps between multiplier updates
	// (auglag).
	MultiplierEvery int `json:"multiplier_every" help:"Steps between updates of the Lagrange multipliers (auglag)."`

	LR float64 `json:"lr" help:"Initial and largest Adam learning rate; it halves when the loss oscillates and grows back while it falls steadily."`

	// Convergence, tested every Window steps (see the package comment):
	// relative change of the window's mean of F + λ·penalty at most Tol in two windows
	// running, and (auglag) largest consistency violation at most ConsTol.
	// MaxSteps caps the run.
	MaxSteps int     `json:"max_steps" help:"Cap on the optimisation steps of a call (per model)."`
	Window   int     `json:"window" help:"Steps per window: the convergence test and the learning-rate rule run once per window."`
	Tol      float64 `json:"tol" help:"Converged when the window's mean of F + lambda*penalty changed by at most tol (relative) in two windows running ..."`
	ConsTol  float64 `json:"cons_tol" help:"... and no child belief differs from a parent's marginal by more than cons-tol (auglag only). Else the run stops at the step cap, not converged."`
	// WarmSteps caps the steps of a call that warm-starts from the previous
	// call's network (learning's min-max: a few inference steps per parameter
	// update); 0 means MaxSteps.
	WarmSteps int   `json:"warm_steps" help:"Step cap of a call that warm-starts from the previous call's network (learning); 0 means the same cap as --max-steps."`
	Seed      int64 `json:"seed" help:"Seed of the network's initialisation."`

	// MaxSeconds is the time budget of a call (see infer.Budget), the
	// message net's message passing included; 0 means no limit.
	MaxSeconds float64 `json:"max_seconds" help:"Time budget of a call in seconds (per model; per inference call in learning), 0: no limit; a run stopped by it returns its last beliefs, not converged."`

	// Progress, if set, is called at the end of every window with the step
	// count and the window's mean loss.
	Progress func(step int, loss float64) `json:"-" kong:"-"`
}

// DefaultOptions returns the defaults (see the package comment for how they
// were chosen).
func DefaultOptions() Options {
	return Options{Name: "renn", Net: "attention", Dim: 32, Heads: 1, BlockDepth: 1, Lambda: 5, Constraint: "auglag", DenseLambda: 3, LambdaGrowth: 4,
		MultiplierEvery: 20, LR: 3e-3, MaxSteps: 5000, Window: 50, Tol: 1e-6, ConsTol: 1e-3, Seed: 1, Rounds: 1000}
}

// LearningOptions returns the defaults for learning, where every parameter
// update warm-starts the network: a shorter first run, 20 steps per update
// (the min-max of the paper's eq. 6) and convergence checked every 20 steps.
func LearningOptions() Options {
	o := DefaultOptions()
	o.MaxSteps, o.WarmSteps, o.Window = 1000, 20, 20
	return o
}

// adamBeta2 replaces Adam's usual 0.999: with a memory of a thousand steps
// the second-moment estimate lags behind the shrinking gradients near the
// minimum, and when the learning rate grows again the steps overshoot. A
// memory of a hundred steps measured faster and without those spikes.
const adamBeta2 = 0.99

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	switch {
	case o.Name == "":
		return errors.New("renn: empty method name")
	case o.Constraint != "auglag" && o.Constraint != "penalty" && o.Constraint != "auto":
		return fmt.Errorf("constraint: unknown constraint handling %q (want auglag, penalty or auto)", o.Constraint)
	case !(o.DenseLambda > 0) || math.IsInf(o.DenseLambda, 1):
		return fmt.Errorf("dense-lambda: %v, want a positive number", o.DenseLambda)
	case o.Net != "attention" && o.Net != "direct" && o.Net != "message":
		return fmt.Errorf("net: unknown network %q (want message, attention or direct)", o.Net)
	case !(o.Lambda >= 0) || math.IsInf(o.Lambda, 1):
		return fmt.Errorf("lambda: %v, want a number >= 0", o.Lambda)
	case o.Lambda == 0 && o.Constraint != "penalty":
		return fmt.Errorf("lambda: 0 with constraint %s, whose multipliers move by 2*lambda*mismatch and would never move; use constraint penalty to train without the consistency term", o.Constraint)
	case !(o.LambdaGrowth >= 1) || math.IsInf(o.LambdaGrowth, 1):
		return fmt.Errorf("lambda-growth: %v, want a finite number >= 1 (1: lambda stays fixed)", o.LambdaGrowth)
	case !(o.LR > 0) || math.IsInf(o.LR, 1):
		return fmt.Errorf("lr: %v, want a positive number", o.LR)
	case !(o.Tol > 0) || math.IsInf(o.Tol, 1):
		return fmt.Errorf("tol: %v, want a positive number", o.Tol)
	case !(o.ConsTol > 0) || math.IsInf(o.ConsTol, 1):
		return fmt.Errorf("cons-tol: %v, want a positive number", o.ConsTol)
	case o.MaxSteps < 1:
		return fmt.Errorf("max-steps: %d, want >= 1", o.MaxSteps)
	case o.Window < 1:
		return fmt.Errorf("window: %d, want >= 1", o.Window)
	case o.MultiplierEvery < 1:
		return fmt.Errorf("multiplier-every: %d, want >= 1", o.MultiplierEvery)
	case o.WarmSteps < 0:
		return fmt.Errorf("warm-steps: %d, want >= 0 (0: the same cap as max-steps)", o.WarmSteps)
	case o.Rounds < 0:
		return fmt.Errorf("rounds: %d, want >= 0", o.Rounds)
	case !(o.MaxSeconds >= 0) || math.IsInf(o.MaxSeconds, 1):
		return fmt.Errorf("max-seconds: %v, want a finite number of seconds >= 0 (0: no limit)", o.MaxSeconds)
	case o.Dim < 1 || o.Dim > maxDim:
		return fmt.Errorf("dim: %d, want 1..%d", o.Dim, maxDim)
	case o.Heads < 1 || o.Dim%o.Heads != 0:
		return fmt.Errorf("heads: %d, want >= 1 and dividing dim %d", o.Heads, o.Dim)
	case o.BlockDepth != 1 && o.BlockDepth != 2:
		return fmt.Errorf("block-depth: %d, want 1 or 2", o.BlockDepth)
	}
	return nil
}

// maxDim bounds the network width: a layer holds dim² weights, and 8192²
// float64 (512 MiB, times Adam's three copies) is already past any use.
const maxDim = 8192

// RENN is an inference method on one region graph. It keeps its network
// between calls and warm-starts from it when the model keeps its structure.
// A RENN is not safe for concurrent use.
type RENN struct {
	g    *region.Graph
	opts Options

	rb      *region.Binding // g bound to the structure of the model the network was built for
	net     nn.Net
	adam    *nn.Adam
	roots   []int
	edges   []region.Edge
	byKid   [][]int // edges into each region
	order   []int   // non-root regions by level
	b, gr   [][]float64
	dlogit  [][]float64
	mask    [][]int           // per root: states with zero potential (E = +Inf), held at belief 0
	rootE   [][]float64       // per root, its energy table (a view of the call's energies; message net)
	mp      *gbp.GBP          // the message passing the message net reads the model with
	cold    *gbp.GBP          // the same from uniform messages, on warm calls
	uniform []gbp.EdgeMessage // uniform messages on every edge, for cold
	fixed   [][]float64       // region beliefs of its converged fixed point, when the call started there
	stalled bool              // the call started from a stall of message passing, no fixed point (gbp.Stalled)
	auglag  bool              // the constraint in effect is auglag (Constraint, or auto on a sparse region graph)
	strict  bool              // converged needs consistent beliefs under every constraint (the message net)
	lambda  float64           // the consistency weight in effect
	mu      [][]float64       // Lagrange multipliers, one per edge and child state
	d       [][]float64       // per edge: child belief minus the parent's marginal
	warm    bool              // the network holds the result of a previous call
	last    float64           // mean loss of the previous call's last window

	family      *Family     // when set, the message net reads the model through this family network
	forwardOnly bool        // with family: return the family network's answer, no refinement steps
	refineBy    string      // with family and not forwardOnly: RefineGradient or RefineGBP
	refineCap   int         // RefineGBP: cap on the warm-started GBP's sweeps
	famOut      [][]float64 // the family network's output on the current model, per root link
	famGBP      *gbp.GBP    // the message passing that made the family network's inputs, at its last sweep
	familyMode  string      // with family: when the model is read through it (FamilyReadStart or FamilyReadEvery; "" is start)

	trace func(window) // test hook, called at every window end
}

// window is what the loop knows at the end of a window.
type window struct {
	step        int
	mean        float64 // mean of F + λ·penalty over the window
	change      float64 // relative change of mean from the window before
	viol        float64 // largest |child belief - parent's marginal|
	ups         int     // steps whose loss rose
	lr          float64 // learning rate for the next window
	converged   bool
	F, pen, lin float64 // the loss terms at the window's last step
}

var (
	_ infer.Method        = (*RENN)(nil)
	_ infer.RegionBeliefs = (*RENN)(nil)
)

// New returns RENN on region graph g.
func New(g *region.Graph, opts Options) (*RENN, error) {
	if g == nil {
		return nil, errors.New("renn needs a region graph")
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return &RENN{g: g, opts: opts}, nil
}

// Name returns the method name ("renn" or "infnet").
func (r *RENN) Name() string { return r.opts.Name }

// Options returns the options in use.
func (r *RENN) Options() Options { return r.opts }

// Reset drops the network so the next call starts afresh.
func (r *RENN) Reset() { r.rb, r.warm, r.mp, r.cold, r.uniform = nil, false, nil, nil, nil }

// Beliefs returns the current region beliefs (valid after Infer).
func (r *RENN) Beliefs() [][]float64 { return r.b }

// RegionBeliefs returns the region beliefs of the last Infer call (the
// method's own tables, valid until the next call) and the parent→child edges
// of the region graph, for the shared check (infer.RegionBeliefs).
func (r *RENN) RegionBeliefs() ([][]float64, []region.Edge) {
	if r.rb == nil {
		return nil, nil
	}
	return r.b, r.edges
}

func (r *RENN) setup(m *mrf.Model) error {
	rb, err := r.g.Bind(m)
	if err != nil {
		return err
	}
	r.rb, r.warm, r.mp, r.cold, r.uniform = nil, false, nil, nil, nil // the state is rebuilt below: if that fails, nothing is left to warm-start from
	r.roots = r.g.Roots()
	r.auglag, r.lambda = r.constraint(false)
	// converged is a promise of consistent beliefs. The paper's networks
	// keep their older meaning under the plain penalty (settled loss only)
	// here, so the pinned outputs keep their bits; the shared check the
	// registry runs after every call (infer.Verify) clears converged when
	// their beliefs are inconsistent.
	r.strict = r.opts.Net == "message"
	rootVars := make([][]int, len(r.roots))
	for k, id := range r.roots {
		rootVars[k] = r.g.Regions[id].Vars
	}
	switch r.opts.Net {
	case "direct":
		r.net, err = nn.NewDirectNet(rootVars, m.Cards, r.opts.Seed)
	case "message":
		r.net, err = r.messageNet(rb)
	default:
		r.net, err = nn.NewAttentionNet(len(m.Cards), rootVars, m.Cards, nn.Config{Dim: r.opts.Dim, Heads: r.opts.Heads,
			Scale: r.opts.Scale, Seed: r.opts.Seed, SingleLayerBlocks: r.opts.BlockDepth == 1})
	}
	if err != nil {
		return err
	}
	r.adam = nn.NewAdam(r.net.Params(), r.opts.LR)
	r.adam.Beta2 = adamBeta2
	r.edges = rb.Edges()
	r.byKid = make([][]int, len(r.g.Regions))
	for k, e := range r.edges {
		r.byKid[e.Child] = append(r.byKid[e.Child], k)
	}
	r.order = r.order[:0]
	for id := range r.g.Regions {
		if r.g.Regions[id].Level > 0 {
			r.order = append(r.order, id)
		}
	}
	slices.SortStableFunc(r.order, func(a, b int) int { return r.g.Regions[a].Level - r.g.Regions[b].Level })
	r.b = rb.NewBeliefs()
	r.gr = rb.NewBeliefs()
	r.rootE = make([][]float64, len(r.roots))
	r.mu = make([][]float64, len(r.edges))
	r.d = make([][]float64, len(r.edges))
	for k, e := range r.edges {
		r.mu[k] = make([]float64, len(r.b[e.Child]))
		r.d[k] = make([]float64, len(r.b[e.Child]))
	}
	r.mask = make([][]int, len(r.roots))
	r.dlogit = make([][]float64, len(r.roots))
	for k, id := range r.roots {
		r.dlogit[k] = make([]float64, len(r.b[id]))
	}
	r.rb = rb
	return nil
}

// setMask records, for every root, the states of zero potential in E. It
// fails if a root has no state of non-zero potential.
func (r *RENN) setMask(E [][]float64) error {
	for k, id := range r.roots {
		r.mask[k] = r.mask[k][:0]
		for x, e := range E[id] {
			if math.IsInf(e, 1) {
				r.mask[k] = append(r.mask[k], x)
			}
		}
		if len(r.mask[k]) == len(E[id]) {
			return fmt.Errorf("%s: root region %d has zero potential in every state: the model has zero partition function", r.opts.Name, id)
		}
	}
	return nil
}

// beliefs runs the network and fills every region's belief.
func (r *RENN) beliefs() { r.beliefsFrom(r.net.Forward()) }

// beliefsFrom fills every region's belief from the roots' logits.
func (r *RENN) beliefsFrom(logits [][]float64) {
	for k, id := range r.roots {
		b := r.b[id]
		nn.Softmax(logits[k], b)
		if len(r.mask[k]) > 0 {
			// The softmax over the allowed states only.
			for _, x := range r.mask[k] {
				b[x] = 0
			}
			s := 0.0
			for _, v := range b {
				s += v
			}
			for x := range b {
				b[x] /= s
			}
		}
	}
	r.meansDown(r.b)
}

// meansDown fills every non-root table of t with the mean of its parents'
// marginals, top level first.
func (r *RENN) meansDown(t [][]float64) {
	var buf []float64
	for _, id := range r.order {
		bc := t[id]
		clear(bc)
		in := r.byKid[id]
		for _, k := range in {
			e := &r.edges[k]
			if cap(buf) < len(bc) {
				buf = make([]float64, len(bc))
			}
			buf = buf[:len(bc)]
			region.Marginalize(t[e.Parent], e.Map, buf)
			for x, v := range buf {
				bc[x] += v
			}
		}
		w := 1 / float64(len(in))
		for x := range bc {
			bc[x] *= w
		}
	}
}

// loss returns the free energy F, the penalty Σ||d||² and the multiplier
// term Σ<μ,d> at the current beliefs, and fills r.gr with the gradient of
// F + λ·penalty + <μ,d> with respect to every belief, carried back through
// the parent means onto the roots.
func (r *RENN) loss(m *mrf.Model, E [][]float64) (F, pen, lin float64) {
	F = r.rb.FreeEnergyGrad(E, r.b, r.gr)
	lam := r.lambda
	for k := range r.edges {
		e := &r.edges[k]
		child, d, mu := r.b[e.Child], r.d[k], r.mu[k]
		region.Marginalize(r.b[e.Parent], e.Map, d)
		gc := r.gr[e.Child]
		for x, v := range child {
			dx := v - d[x]
			d[x] = dx
			pen += dx * dx
			lin += mu[x] * dx
			gc[x] += 2*lam*dx + mu[x]
		}
		gp := r.gr[e.Parent]
		for x, c := range e.Map {
			gp[x] -= 2*lam*d[c] + mu[c]
		}
	}
	r.backMeans()
	return F, pen, lin
}

// backMeans carries r.gr back through b_R = mean_P marg(b_P) onto the roots,
// deepest level first.
func (r *RENN) backMeans() {
	for i := len(r.order) - 1; i >= 0; i-- {
		id := r.order[i]
		in := r.byKid[id]
		w := 1 / float64(len(in))
		gc := r.gr[id]
		for _, k := range in {
			e := &r.edges[k]
			gp := r.gr[e.Parent]
			for x, c := range e.Map {
				gp[x] += w * gc[c]
			}
		}
	}
}

// step does one forward/backward pass and, if update, one Adam step. It
// returns the loss terms at the beliefs before the update.
func (r *RENN) step(m *mrf.Model, E [][]float64, update bool) (F, pen, lin float64) {
	if !update {
		r.beliefs()
		return r.loss(m, E)
	}
	F, pen, lin = r.gradient(m, E)
	r.adam.Step()
	return F, pen, lin
}

// gradient runs the network, evaluates the loss terms and sets the
// parameters' gradients of F + λ·penalty + <μ,d>.
func (r *RENN) gradient(m *mrf.Model, E [][]float64) (F, pen, lin float64) {
	r.beliefs()
	F, pen, lin = r.loss(m, E)
	for k, id := range r.roots {
		for _, x := range r.mask[k] {
			r.gr[id][x] = 0 // infinite energy, zero belief: no gradient
		}
		nn.SoftmaxBackward(r.b[id], r.gr[id], r.dlogit[k])
	}
	r.net.ZeroGrad()
	r.net.Backward(r.dlogit)
	return F, pen, lin
}

// stepMultipliers does one step of the method of multipliers at the
// mismatches of the last loss evaluation: μ += 2λ d.
func (r *RENN) stepMultipliers() {
	step := 2 * r.lambda // the method of multipliers' step for penalty λ||d||²
	for k := range r.mu {
		for x, dx := range r.d[k] {
			r.mu[k][x] += step * dx
		}
	}
}

// maxViolation returns the largest |d| of the last loss evaluation.
func (r *RENN) maxViolation() float64 {
	v := 0.0
	for _, d := range r.d {
		for _, x := range d {
			v = max(v, math.Abs(x))
		}
	}
	return v
}

// Infer minimises the RENN loss on m and returns the beliefs' read-out. When
// m has the structure of the previous call's model, the network, the
// multipliers and the learning rate carry over (a warm start, capped by
// WarmSteps); otherwise a fresh network is built. The message net returns
// its best consistent iterate (see best.go), not necessarily its last.
func (r *RENN) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	// The time budget covers the whole call, the message passing run inside
	// it included (it inherits ctx's mark).
	ctx = infer.BeginCall(ctx)
	began := infer.CallStart(ctx)
	if !r.rb.SameStructure(m) {
		if err := r.setup(m); err != nil {
			return nil, err
		}
	}
	E, err := r.rb.Energies(m)
	if err != nil {
		return nil, err
	}
	if err := r.setMask(E); err != nil {
		return nil, err
	}
	st, res, err := r.begin(ctx, m, E, began)
	if res != nil || err != nil {
		return res, err
	}
	run, err := r.optimise(ctx, m, E, began, st)
	if err != nil {
		return nil, err
	}
	return r.result(m, E, st, run), nil
}

// start is how a call's run begins.
type start struct {
	readFixedPoint bool // from message passing's converged fixed point
	restarted      bool // from the family network's answer
	fallback       int  // sweeps of a warm-started GBP that did not converge (-1: none)
}

// begin gives the message net its inputs and starting point. It returns a
// result instead when the call ends there (the family network's forward
// pass, or GBP's refinement of it when that converged).
func (r *RENN) begin(ctx context.Context, m *mrf.Model, E [][]float64, began time.Time) (start, *infer.Result, error) {
	st := start{fallback: -1}
	mn, ok := r.net.(*nn.MessageNet)
	switch {
	case ok && r.family != nil:
		var err error
		if st.restarted, err = r.familyStart(ctx, mn, m, E); err != nil {
			return st, nil, fmt.Errorf("%s: %w", r.opts.Name, err)
		}
		if r.forwardOnly {
			return st, r.forwardResult(m, E), nil
		}
		if st.restarted && r.refineBy == RefineGBP {
			res, err := r.refineGBP(ctx, m)
			if err != nil {
				return st, nil, fmt.Errorf("%s: %w", r.opts.Name, err)
			}
			if res.Converged {
				return st, res, nil
			}
			// Not converged: the gradient refinement from the family
			// network's answer, which needs the multipliers.
			st.fallback = res.Iterations
			r.solveMultipliers(m, E)
		}
	case ok:
		var err error
		if st.readFixedPoint, err = r.readModel(ctx, mn, m, E); err != nil {
			return st, nil, fmt.Errorf("%s: %w", r.opts.Name, err)
		}
	}
	r.auglag, r.lambda = r.constraint(st.readFixedPoint) // and λ as given, if the last run raised it
	return st, nil, nil
}

// run is what the optimisation loop leaves.
type run struct {
	steps     int
	converged bool // settled (and, auglag or the message net, consistent)
	best      best // the best consistent iterate (runs from a fixed point)
	raised    int  // times λ was raised (runs from a fixed point)
	stop      *infer.Stop
}

// optimise runs Adam on the loss until it settles, the step cap or the time
// budget.
func (r *RENN) optimise(ctx context.Context, m *mrf.Model, E [][]float64, began time.Time, st start) (*run, error) {
	o := &r.opts
	limit, w := r.startLoop(st)
	out := &run{stop: infer.Budget{MaxIter: limit, MaxSeconds: o.MaxSeconds}.StartAt(ctx, began)}
	if st.readFixedPoint {
		r.considerFixedPoint(&out.best, m, E)
	}
	for {
		more, err := out.stop.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Name, err)
		}
		if !more {
			break
		}
		F, pen, lin := r.gradient(m, E)
		if st.readFixedPoint {
			if r.maxViolation() > o.ConsTol && r.raiseLambda(&out.best) {
				// Left the consistent set: back to the best iterate, with a
				// stiffer penalty (see raiseLambda).
				out.raised++
				out.steps++
				w.restart()
				w.stale, w.seen = 0, out.best.updates
				continue
			}
			r.consider(&out.best, F, out.steps)
		}
		r.adam.Step()
		L := F + r.lambda*pen + lin
		if math.IsNaN(L) {
			r.Reset() // the network is spoilt: the next call starts afresh
			return nil, fmt.Errorf("%s: loss is NaN at step %d", o.Name, out.steps)
		}
		if L > w.prevL && !w.fresh {
			w.ups++
		}
		w.prevL, w.fresh = L, false
		out.steps++
		w.steps++
		w.sum += F + r.lambda*pen
		if r.auglag && out.steps%o.MultiplierEvery == 0 {
			r.stepMultipliers()
			w.fresh = true
		}
		if w.steps == o.Window && (r.endWindow(&w, out, F, pen, lin) || st.readFixedPoint && w.exhausted(&out.best)) {
			break
		}
	}
	r.warm, r.last = true, w.lastMean
	return out, nil
}

// windowState is what the loop tracks over a window of steps.
type windowState struct {
	steps    int     // steps in the current window
	ups      int     // steps whose loss rose
	sum      float64 // F + λ·penalty over the window
	prev     float64 // the previous window's mean
	prevL    float64 // the loss of the last step
	lastMean float64 // the last window's mean
	fresh    bool    // the loss changed by a multiplier update, not a step
	flat     bool    // the last window's mean changed by at most Tol
	stale    int     // windows since the best iterate last changed (runs from a fixed point)
	seen     int     // the best iterate's updates at the last window's end
}

// readPatience is the number of windows a run from a fixed point goes on
// without finding a better answer (after the last raise of λ). Where GBP
// converged, runs that never settled wandered near the fixed point for up
// to 20 000 steps (a noisy-OR network of 24 variables) without beating it.
const readPatience = 10

// exhausted reports, at the end of a window, whether the best answer has
// not changed for readPatience windows.
func (w *windowState) exhausted(b *best) bool {
	if b.updates != w.seen {
		w.stale, w.seen = 0, b.updates
		return false
	}
	w.stale++
	return w.stale >= readPatience
}

// restart begins a new window with no window before it.
func (w *windowState) restart() {
	w.steps, w.ups, w.sum, w.prev, w.prevL, w.fresh, w.flat = 0, 0, 0, math.Inf(1), math.Inf(1), true, false
}

// startLoop returns the step cap of a call and its first window, and sets
// the learning rate it starts with.
func (r *RENN) startLoop(st start) (limit int, w windowState) {
	o := &r.opts
	w.restart()
	w.lastMean = math.Inf(1)
	limit = o.MaxSteps
	if r.warm {
		if o.WarmSteps > 0 {
			limit = o.WarmSteps
		}
		w.prev = r.last
	} else {
		r.adam.LR = o.LR
	}
	if st.restarted {
		w.prev = math.Inf(1) // a new start from the family network's answer
		limit = o.MaxSteps
	}
	if st.readFixedPoint {
		w.prev = math.Inf(1) // a new start: the previous call's loss says nothing of it
		// Adam moves every weight by about the learning rate whatever the
		// gradient, so at a stationary point the full rate is pure noise;
		// the rate grows back by the usual rule while the loss falls.
		r.adam.LR = o.LR * readLRScale
	}
	return limit, w
}

// endWindow runs the convergence test and the learning-rate rule at the end
// of a window (F, pen, lin: the loss terms of its last step, whose
// mismatches r.d holds) and starts the next window. It reports whether the
// run has settled.
func (r *RENN) endWindow(w *windowState, out *run, F, pen, lin float64) bool {
	o := &r.opts
	mean := w.sum / float64(o.Window)
	w.lastMean = mean
	change := math.Abs(w.prev-mean) / max(1, math.Abs(mean))
	viol := r.maxViolation()
	wasFlat := w.flat
	w.flat = change <= o.Tol
	settled := w.flat && wasFlat && (viol <= o.ConsTol || !r.auglag)
	out.converged = settled && (viol <= o.ConsTol || !r.strict)
	switch {
	case settled:
	case w.ups > o.Window/4:
		r.adam.LR /= 2
	case w.ups == 0:
		r.adam.LR = min(1.5*r.adam.LR, o.LR)
	}
	if r.trace != nil {
		r.trace(window{step: out.steps, mean: mean, change: change, viol: viol, ups: w.ups, lr: r.adam.LR, converged: out.converged, F: F, pen: pen, lin: lin})
	}
	if o.Progress != nil {
		o.Progress(out.steps, mean)
	}
	w.prev, w.sum, w.steps, w.ups = mean, 0, 0, 0
	return settled
}

// result evaluates the run's answer: its last iterate, or for the message
// net its best consistent iterate (see best.go).
func (r *RENN) result(m *mrf.Model, E [][]float64, st start, run *run) *infer.Result {
	F, pen, lin := r.step(m, E, false)
	converged := run.converged
	from := run.steps
	if st.readFixedPoint {
		r.consider(&run.best, F, run.steps)
		if b := &run.best; b.ok && (b.step != run.steps || b.fixedPoint) {
			F, pen, lin = r.answer(b, m, E)
			from = b.step
			// Converged: message passing's fixed point, or an iterate of the
			// two flat windows in which the run settled.
			converged = b.fixedPoint || run.converged && b.step >= run.steps-2*r.opts.Window
		}
	}
	viol := r.maxViolation()
	res := &infer.Result{
		Marginals:  mrf.Marginals{Vars: r.rb.VarMarginals(r.b), Factors: r.rb.FactorMarginals(r.b)},
		FreeEnergy: F,
		LogZ:       -F,
		Iterations: run.steps,
		Converged:  converged,
		Diagnostics: map[string]float64{"penalty": pen, "multiplier_term": lin, "loss": F + r.lambda*pen + lin,
			"max_violation": viol, "lambda": r.lambda, "final_lr": r.adam.LR, "steps": float64(run.steps), "auglag": b2f(r.auglag)},
	}
	run.stop.Note(res.Diagnostics)
	if st.readFixedPoint {
		// The step of the iterate returned (0: the start), and how often λ
		// was raised.
		res.Diagnostics["returned_step"] = float64(from)
		res.Diagnostics["returned_fixed_point"] = b2f(run.best.fixedPoint)
		res.Diagnostics["lambda_raised"] = float64(run.raised)
	}
	if st.fallback >= 0 {
		res.Diagnostics["refine_gbp_sweeps"] = float64(st.fallback)
		res.Diagnostics["refine_gbp"] = 0
	}
	if _, ok := r.net.(*nn.MessageNet); ok && r.family == nil {
		// Whether the run started from message passing's fixed point, or
		// (sweeps not converged) from uniform beliefs or the last call's net.
		res.Diagnostics["read_fixed_point"] = b2f(st.readFixedPoint)
	}
	return res
}

// messageNet builds the network that reads the model on rb: one link from
// every root to each of its children.
func (r *RENN) messageNet(rb *region.Binding) (nn.Net, error) {
	slot := make(map[int]int) // child region id -> child index
	rootIdx := make(map[int]int, len(r.roots))
	rootStates := make([]int, len(r.roots))
	for k, id := range r.roots {
		rootIdx[id] = k
		rootStates[k] = rb.NumStates(id)
	}
	var childStates []int
	var links []nn.Link
	for _, e := range rb.Edges() {
		k, ok := rootIdx[e.Parent]
		if !ok {
			continue
		}
		c, ok := slot[e.Child]
		if !ok {
			c = len(childStates)
			slot[e.Child] = c
			childStates = append(childStates, rb.NumStates(e.Child))
		}
		links = append(links, nn.Link{Root: k, Child: c, Map: e.Map})
	}
	return nn.NewMessageNet(rootStates, childStates, links, nn.MessageConfig{Features: 1})
}

// readLRScale scales the learning rate of a run that starts at message
// passing's fixed point.
const readLRScale = 0.1

// denseRoots is the number of root regions a variable must exceed for
// constraint auto to count the region graph as dense.
const denseRoots = 8

// constraint returns the constraint handling and weight in effect on r's
// region graph: auto is the plain penalty with weight DenseLambda when some
// variable is in more than denseRoots roots (the star of a complete graph,
// the cycles of a complete bipartite one: there the penalty's inconsistent
// minimiser gave better marginals than the consistent ones, see the package
// comment), auglag with Lambda elsewhere or in a run from a fixed point.
func (r *RENN) constraint(fromFixedPoint bool) (auglag bool, lambda float64) {
	switch {
	case r.opts.Constraint == "auglag", r.opts.Constraint == "auto" && fromFixedPoint:
		return true, r.opts.Lambda
	case r.opts.Constraint == "penalty":
		return false, r.opts.Lambda
	}
	count := make(map[int]int)
	for _, id := range r.roots {
		for _, v := range r.g.Regions[id].Vars {
			count[v]++
			if count[v] > denseRoots {
				return false, r.opts.DenseLambda
			}
		}
	}
	return true, r.opts.Lambda
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
