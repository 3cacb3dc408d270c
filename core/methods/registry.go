package methods

import (
	"github.com/renn-go/renn/core/auto"
	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/dlgbp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/learn"
	"github.com/renn-go/renn/core/mcmc"
	"github.com/renn-go/renn/core/meanfield"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/core/trw"
)

// registry holds every method, in display order. A new method is one line
// here (and its own package).
var registry = []*Entry{
	define("exact", "Exact", "exact inference (junction tree in log space)", NoRegions, exact.DefaultOptions, nil, newExact),
	withLogZ(define("mf", "Mean Field", "naive mean field", NoRegions, meanfield.DefaultOptions, nil, newMF), LogZLowerBound),
	define("bp", "Loopy BP", "loopy belief propagation", NoRegions, bp.DefaultOptions, nil, newBP("bp")),
	define("dbp", "Damped BP", "damped loopy BP (damping 0.5)", NoRegions, bp.DampedOptions, nil, newBP("dbp")),
	withLogZ(define("trw", "TRW", "tree-reweighted BP with a certified upper bound on ln Z", NoRegions, trw.DefaultOptions, nil, newTRW), LogZUpperBound),
	define("gbp", "GBP", "parent-to-child generalized BP on the region graph", AnyRegions, gbp.DefaultOptions, nil, newGBP),
	define("dlgbp", "Double-loop GBP", "double-loop GBP: a convergent minimiser of GBP's region free energy", AnyRegions, dlgbp.DefaultOptions, nil, newDLGBP),
	define("infnet", "Inference Net", "Inference Net: the RENN network on the Bethe region graph", BetheRegions, rennDefaults("infnet", "attention", false), rennDefaults("infnet", "attention", true), newRENN),
	define("renn", "RENN", "RENN: region free energy minimised by a neural network", AnyRegions, rennDefaults("renn", "attention", false), rennDefaults("renn", "attention", true), newRENN),
	define("renn-mp", "RENN (MP net)", "RENN with the network that reads the model: root energies plus messages, started from parent-to-child message passing", AnyRegions, mpDefaults(false), mpDefaults(true), newRENN),
	define("renn-direct", "RENN (direct)", "RENN with free logits per root region (an ablation without a network)", AnyRegions, rennDefaults("renn-direct", "direct", false), rennDefaults("renn-direct", "direct", true), newRENN),
	withLogZ(define("gibbs", "Gibbs", "Gibbs sampling: single-site sweeps (variables tied together by zeros drawn jointly), several chains, standard errors from batch means, chain spread and the energy's autocorrelation time (no ln Z)", NoRegions, mcmc.DefaultOptions, mcmc.LearningOptions, newGibbs), LogZNone),
	withLogZ(define("pcd", "PCD", "persistent Gibbs chains: the free phase of persistent contrastive divergence in learning (chains kept from update to update; no ln Z, never converged)", NoRegions, mcmc.PCDDefaultOptions, mcmc.PCDLearningOptions, newPCD), LogZNone),
	define("pt", "Parallel Tempering", "parallel tempering: Gibbs replicas on a temperature ladder with neighbour swaps; stepping-stone ln Z", NoRegions, mcmc.PTDefaultOptions, nil, newPT),
	define("auto", "Auto", "the best answer within a time budget (max_seconds): exact inference when its plan fits, else GBP on the largest region graph that converges, double-loop GBP, and parallel tempering beside them, chosen by a documented rule; estimates carry a certificate (exact, converged, monte-carlo, bounds, none)", NoRegions, auto.DefaultOptions, auto.LearningOptions, newAuto),
}

func newExact(o exact.Options, _ *region.Graph) (infer.Method, error) { return learn.NewExact(o), nil }

func newMF(o meanfield.Options, _ *region.Graph) (infer.Method, error) { return meanfield.New(o) }

// newBP names the method after its entry, whatever its damping.
func newBP(name string) func(bp.Options, *region.Graph) (infer.Method, error) {
	return func(o bp.Options, _ *region.Graph) (infer.Method, error) {
		o.Name = name
		return bp.New(o)
	}
}

func newGibbs(o mcmc.Options, _ *region.Graph) (infer.Method, error) { return mcmc.New(o) }

func newPCD(o mcmc.PCDOptions, _ *region.Graph) (infer.Method, error) { return mcmc.NewPCD(o) }

func newPT(o mcmc.PTOptions, _ *region.Graph) (infer.Method, error) { return mcmc.NewPT(o) }

func newAuto(o auto.Options, _ *region.Graph) (infer.Method, error) { return auto.New(o) }

func newTRW(o trw.Options, _ *region.Graph) (infer.Method, error) { return trw.New(o) }

func newGBP(o gbp.Options, g *region.Graph) (infer.Method, error) { return gbp.New(g, o) }

func newDLGBP(o dlgbp.Options, g *region.Graph) (infer.Method, error) { return dlgbp.New(g, o) }

func newRENN(o renn.Options, g *region.Graph) (infer.Method, error) { return renn.New(g, o) }

// rennDefaults returns RENN's defaults (or its learning defaults) under
// another name and network.
// mpDefaults are renn-mp's: the message net, the constraint chosen by the
// region graph (auto), and a longer cap for the runs that start from uniform
// beliefs because message passing did not converge (on 10x10 spin glasses
// with couplings U(−10,10) they took up to 9750 steps). In learning the
// constraint is auglag on every region graph: learning takes ln Z and the
// gradient from a stationary point of the region free energy under the
// consistency constraints (the envelope theorem), which the plain penalty
// that auto picks on dense region graphs is not: on the 16 x 8 RBM its
// ln Z was 4-5 nats above the truth where GBP's and auglag's were within
// 0.25, and learning with it ended 2x further from exact learning.
func mpDefaults(learning bool) func() renn.Options {
	return func() renn.Options {
		o := rennDefaults("renn-mp", "message", learning)()
		o.Constraint = "auto"
		if learning {
			o.Constraint = "auglag"
		} else {
			o.MaxIter = 20000
		}
		return o
	}
}

func rennDefaults(name, net string, learning bool) func() renn.Options {
	return func() renn.Options {
		o := renn.DefaultOptions()
		if learning {
			o = renn.LearningOptions()
		}
		o.Name, o.Net = name, net
		return o
	}
}
