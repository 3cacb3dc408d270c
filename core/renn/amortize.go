package renn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
	"github.com/renn-go/renn/core/region"
)

// TrainOptions configure the training of a family network (TrainFamily).
// Every field means what it says; Check names the option at fault.
type TrainOptions struct {
	Hidden int     `json:"hidden" help:"Width of the family network's hidden layer."`
	Sweeps int     `json:"sweeps" help:"Sweeps of parent-to-child message passing that make the family network's inputs (also at inference: stored with the weights)."`
	Lambda float64 `json:"lambda" help:"Weight of the consistency penalty in the training loss (region free energy + lambda * penalty, per variable, mean over models)."`
	// Constraint is "penalty" (the plain penalty) or "auglag": every model
	// also keeps Lagrange multipliers, updated after every epoch by the
	// method of multipliers, so the loss's minimisers move from the
	// penalty's O(1/λ)-inconsistent ones towards consistent stationary
	// points of the region free energy (GBP's fixed points).
	Constraint string  `json:"constraint" help:"penalty: the plain penalty; auglag: plus per-model Lagrange multipliers updated after every epoch (mu += 2*lambda*mismatch), so training aims at consistent stationary points of the region free energy."`
	LR         float64 `json:"lr" help:"Adam learning rate of the family network."`
	Epochs     int     `json:"epochs" help:"Cap on the passes over the training models."`
	Batch      int     `json:"batch" help:"Models per mini-batch (one Adam step each)."`
	// Validation is the fraction of the models held out; 0 trains on all
	// and stops early on the training loss.
	Validation float64 `json:"validation" help:"Fraction of the models held out for validation and early stopping (0: none; early stopping then watches the training loss)."`
	Patience   int     `json:"patience" help:"Stop after this many epochs without a better validation loss (relative gain above 1e-6); the best epoch's weights are kept."`
	Seed       int64   `json:"seed" help:"Seed of the initialisation, the validation split and the mini-batch order."`
}

// DefaultTrainOptions returns the defaults of TrainFamily.
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{Hidden: 16, Sweeps: 5, Lambda: 5, Constraint: "penalty", LR: 1e-3, Epochs: 200, Batch: 10, Validation: 0.2, Patience: 20, Seed: 1}
}

// Check reports whether o is valid; the error names the option.
func (o TrainOptions) Check() error {
	switch {
	case o.Hidden < 1 || o.Hidden > 1024:
		return fmt.Errorf("hidden: %d, want 1..1024", o.Hidden)
	case o.Sweeps < 1:
		return fmt.Errorf("sweeps: %d, want >= 1", o.Sweeps)
	case !(o.Lambda > 0) || math.IsInf(o.Lambda, 1):
		return fmt.Errorf("lambda: %v, want a positive number", o.Lambda)
	case o.Constraint != "penalty" && o.Constraint != "auglag":
		return fmt.Errorf("constraint: %q, want penalty or auglag", o.Constraint)
	case !(o.LR > 0) || math.IsInf(o.LR, 1):
		return fmt.Errorf("lr: %v, want a positive number", o.LR)
	case o.Epochs < 1:
		return fmt.Errorf("epochs: %d, want >= 1", o.Epochs)
	case o.Batch < 1:
		return fmt.Errorf("batch: %d, want >= 1", o.Batch)
	case !(o.Validation >= 0 && o.Validation < 1):
		return fmt.Errorf("validation: %v, want a fraction in [0, 1)", o.Validation)
	case o.Patience < 1:
		return fmt.Errorf("patience: %d, want >= 1", o.Patience)
	}
	return nil
}

// Instance is one model of a family with its region graph.
type Instance struct {
	Model *mrf.Model
	Graph *region.Graph
}

// TrainReport says how training went.
type TrainReport struct {
	Train, Validation int     // models in each split
	Epochs, BestEpoch int     // epochs run; the epoch whose weights were kept (1-based)
	TrainLoss         float64 // mean training loss per variable at the best epoch
	ValidationLoss    float64 // mean validation loss per variable at the best epoch (NaN without validation)
	Seconds           float64 // wall time, input features included
	FeatureSeconds    float64 // of which making the inputs
}

// familyProblem is one model ready for the family net: its RENN state (set
// up with the plain penalty, its message net reading the sweeps), energies
// and bound family network.
type familyProblem struct {
	r    *RENN
	mn   *nn.MessageNet
	m    *mrf.Model
	E    [][]float64
	inst *nn.FamilyInstance
	dout [][]float64 // d loss/d family output, per link
	n    float64     // number of variables
}

func newFamilyProblem(ctx context.Context, in Instance, f *Family, lambda float64) (*familyProblem, error) {
	o := DefaultOptions()
	o.Name, o.Net, o.Constraint, o.Lambda = "renn-family", "message", "penalty", lambda
	r, err := New(in.Graph, o)
	if err != nil {
		return nil, err
	}
	if err := r.setup(in.Model); err != nil {
		return nil, err
	}
	E, err := r.rb.Energies(in.Model)
	if err != nil {
		return nil, err
	}
	if err := r.setMask(E); err != nil {
		return nil, err
	}
	fr, err := r.familyRead(ctx, in.Model, E, f)
	if err != nil {
		return nil, err
	}
	mn := r.net.(*nn.MessageNet)
	if err := r.setFamilyInputs(mn, fr, E); err != nil {
		return nil, err
	}
	r.restart(mn, 1)
	p := &familyProblem{r: r, mn: mn, m: in.Model, E: E, inst: fr.inst, n: float64(len(in.Model.Cards))}
	for _, t := range fr.inst.Forward() {
		p.dout = append(p.dout, make([]float64, len(t)))
	}
	return p, nil
}

// loss returns (F + λ·penalty)/n at the family net's answer and, if scale
// is not 0, adds scale times the gradient of (F + λ·penalty + <μ,d>)/n to
// the family's parameters (μ: the model's multipliers, 0 under the plain
// penalty).
func (p *familyProblem) loss(scale float64) float64 {
	r := p.r
	setMessages(p.mn, p.inst.Forward())
	r.beliefs()
	F, pen, _ := r.loss(p.m, p.E)
	if scale != 0 {
		for k, id := range r.roots {
			for _, x := range r.mask[k] {
				r.gr[id][x] = 0
			}
			nn.SoftmaxBackward(r.b[id], r.gr[id], r.dlogit[k])
			for x := range r.dlogit[k] {
				r.dlogit[k][x] *= scale / p.n
			}
		}
		p.mn.ZeroGrad()
		p.mn.Backward(r.dlogit)
		g := p.mn.Params()[0].Grad
		for _, d := range p.dout {
			g = g[copy(d, g):]
		}
		p.inst.Backward(p.dout)
	}
	return (F + r.lambda*pen) / p.n
}

// TrainFamily trains a family network on models: Adam on the mean over a
// mini-batch of models of the RENN loss per variable (region free energy
// plus λ times the squared mismatch of parent and child beliefs, the plain
// penalty: a multiplier per model would be a per-model parameter), with
// early stopping on a held-out split. progress, if set, is called after
// every epoch.
func TrainFamily(ctx context.Context, models []Instance, o TrainOptions, progress func(epoch int, train, val float64)) (*Family, TrainReport, error) {
	if err := o.Check(); err != nil {
		return nil, TrainReport{}, err
	}
	if len(models) == 0 {
		return nil, TrainReport{}, errors.New("no models to train on")
	}
	began := time.Now()
	net, err := NewFamilyNet(o.Hidden, o.Seed)
	if err != nil {
		return nil, TrainReport{}, err
	}
	f := &Family{Net: net, Sweeps: o.Sweeps}
	rng := mrf.NewRand(o.Seed)
	perm := rng.Perm(len(models))
	nVal, err := validationSize(o.Validation, len(models))
	if err != nil {
		return nil, TrainReport{}, err
	}
	probs, err := familyProblems(ctx, models, perm, f, o.Lambda)
	if err != nil {
		return nil, TrainReport{}, err
	}
	val, train := probs[:nVal], probs[nVal:]
	rep := TrainReport{Train: len(train), Validation: len(val), FeatureSeconds: time.Since(began).Seconds(), ValidationLoss: math.NaN()}
	params := net.Params()
	adam := nn.NewAdam(params, o.LR)
	best, bestW, stale := math.Inf(1), nn.Snapshot(params), 0
	for epoch := 1; epoch <= o.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		trainEpoch(rng, train, o.Batch, params, adam)
		tl, vl := meanLoss(train), math.NaN()
		score := tl
		if len(val) > 0 {
			vl = meanLoss(val)
			score = vl
		}
		if o.Constraint == "auglag" {
			// meanLoss left every model's mismatches d at this epoch's
			// answer: one multiplier step on each.
			for _, p := range probs {
				p.r.stepMultipliers()
			}
		}
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return nil, rep, fmt.Errorf("epoch %d: loss is %v", epoch, score)
		}
		rep.Epochs = epoch
		if progress != nil {
			progress(epoch, tl, vl)
		}
		if score < best-1e-6*math.Abs(best) || math.IsInf(best, 1) {
			best, bestW, stale = score, nn.Snapshot(params), 0
			rep.BestEpoch, rep.TrainLoss, rep.ValidationLoss = epoch, tl, vl
			continue
		}
		if stale++; stale >= o.Patience {
			break
		}
	}
	if err := nn.Restore(params, bestW); err != nil {
		return nil, rep, err
	}
	rep.Seconds = time.Since(began).Seconds()
	return f, rep, nil
}

// validationSize returns the number of the n models held out for
// validation: the fraction frac of them, at least one if frac > 0, leaving
// at least one to train on.
func validationSize(frac float64, n int) (int, error) {
	nVal := int(math.Round(frac * float64(n)))
	if frac > 0 && nVal == 0 {
		nVal = 1
	}
	if nVal >= n {
		return 0, fmt.Errorf("validation: %v of %d models leaves none to train on", frac, n)
	}
	return nVal, nil
}

// familyProblems returns the training problems of models in the order perm,
// all sharing the network of f.
func familyProblems(ctx context.Context, models []Instance, perm []int, f *Family, lambda float64) ([]*familyProblem, error) {
	probs := make([]*familyProblem, len(models))
	for i, j := range perm {
		var err error
		if probs[i], err = newFamilyProblem(ctx, models[j], f, lambda); err != nil {
			return nil, fmt.Errorf("model %d: %w", j, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return probs, nil
}

// trainEpoch shuffles train and takes one Adam step per mini-batch of it.
func trainEpoch(rng *rand.Rand, train []*familyProblem, batchSize int, params []*nn.Param, adam *nn.Adam) {
	rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
	for lo := 0; lo < len(train); lo += batchSize {
		batch := train[lo:min(lo+batchSize, len(train))]
		zeroGrads(params)
		for _, p := range batch {
			p.loss(1 / float64(len(batch)))
		}
		adam.Step()
	}
}

func meanLoss(probs []*familyProblem) float64 {
	s := 0.0
	for _, p := range probs {
		s += p.loss(0)
	}
	return s / float64(len(probs))
}

func zeroGrads(params []*nn.Param) {
	for _, p := range params {
		clear(p.Grad)
	}
}
