// Package learn fits the parameters of a discrete MRF to complete data by
// maximising the mean log-likelihood of the training samples (paper, section
// 4), with ln Z and its gradient supplied by any inference method.
//
// For log-potentials θ the mean log-likelihood of a batch B is
//
//	ℓ(θ) = (1/|B|) Σ_{x∈B} Σ_a LogTable_a(x_a; θ) - ln Z(θ),
//
// and ∂ℓ/∂LogTable_a(x_a) = freq_B(x_a) - p(x_a; θ). Learning replaces ln Z
// by the method's estimate (-F at its beliefs) and p(x_a) by the method's
// factor marginals: at a stationary point of the free energy these are the
// gradient of -F (the envelope theorem), which makes the update a step of
// the min-max of the paper's eq. (6). The gradient reaches θ through the
// parameterisation (Param: "ising" or "table").
//
// One epoch is one pass over the training set in a fresh random order, in
// batches of Options.Batch samples; every batch makes one parameter update
// and one call of the inference method. Methods keep their state between
// calls and warm-start from it, as infer.Method allows: BP, damped BP, GBP
// and mean field continue from their last messages or beliefs, RENN and
// Inference Net from their network (with renn.Options.WarmSteps a few
// optimisation steps per update instead of a fresh optimisation). This
// reading of "epoch" and "batch" follows the paper's code for the
// message-passing methods (its Makefile: batch 500, 4000 training samples);
// its network methods ran 20 passes per "epoch", ours run one, so seconds
// per epoch compare like with like across our methods.
//
// A warm-started method can break down: a network whose optimisation
// diverged (saturated softmaxes, say) never recovers on its own, and one that
// lags behind the moving parameters underestimates ln Z, which learning then
// exploits (the training NLL runs off below zero). Two checks catch this:
// keeping the previous beliefs would give ln Z_prev + Σ b·ΔLogTable (the
// tangent of -F at those beliefs), and ln Z is at least the log-sum-exp of
// the scores of the distinct training samples. An estimate clearly below
// either makes the learner reset the method (methods with a Reset method)
// and run it again from scratch; see Options.Guard. (The data bound triggers
// at most one reset per epoch.) EpochStats count the resets and the
// estimates still below the data bound.
//
// Samples may hold the visible variables only (NewHiddenData, NewHidden):
// the gradient is then the clamped phase, a ClampedPhase run on the model
// clamped to each distinct visible vector of the batch, minus the free
// phase (paper, appendix F; see hidden.go).
//
// Parameters move by Adam (default; as the paper's code) or plain gradient
// ascent, with the step size decaying over the epochs (Options.Decay). Fit
// stops early on a plateau: when the epoch's training NLL has changed by less
// than Options.Tol in each of the last Options.Patience epochs (the paper's
// code used 3 epochs and 1e-3); there is no validation split, so every
// training sample is used and the test split is never looked at for
// stopping.
package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
)

// Options configure learning. Every value means what it says (Check rejects
// what cannot be honoured; nothing is replaced by a default): start from
// DefaultOptions.
type Options struct {
	// Epochs caps the number of passes over the training set.
	Epochs int
	// Batch is the number of samples per parameter update; a batch as large
	// as the training set gives full-batch gradient ascent.
	Batch int
	// LR is the step size (Adam's learning rate, or the gradient ascent
	// step).
	LR float64
	// Optimizer is "adam" or "sgd" (plain gradient ascent).
	Optimizer string
	// Decay lowers the step size as the epochs pass, to quieten the noise of
	// batch gradients: epoch e (from 1) uses LR / (1 + Decay·(e-1)). 0 keeps
	// LR fixed.
	Decay float64
	// Seed drives the order in which each epoch visits the samples.
	Seed int64
	// Plateau rule: Fit stops when the training NLL changed by less than Tol
	// (per sample) in each of the last Patience epochs. A negative Tol turns
	// early stopping off.
	Tol      float64
	Patience int
	// Guard is the relative slack of the checks that catch an inference
	// method whose warm-started state has broken down: the tangent check and
	// the data bound (see the package comment); a negative Guard turns both
	// off.
	Guard float64
	// Exact configures the exact solver Fit uses for the test NLL.
	Exact exact.Options
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{Epochs: 100, Batch: 500, LR: 0.1, Decay: 0.05, Optimizer: "adam", Tol: 1e-3, Patience: 3, Guard: 0.01,
		Exact: exact.DefaultOptions()}
}

// Check reports whether o is valid; nothing is replaced by a default.
func (o Options) Check() error {
	if err := o.Exact.Check(); err != nil {
		return fmt.Errorf("learn: test NLL: %w", err)
	}
	switch {
	case o.Epochs < 1:
		return fmt.Errorf("learn: epochs %d, want >= 1", o.Epochs)
	case o.Batch < 1:
		return fmt.Errorf("learn: batch %d, want >= 1", o.Batch)
	case !(o.LR > 0) || math.IsInf(o.LR, 1):
		return fmt.Errorf("learn: learning rate %v, want a positive number", o.LR)
	case o.Optimizer != "adam" && o.Optimizer != "sgd":
		return fmt.Errorf("learn: unknown optimizer %q (want adam or sgd)", o.Optimizer)
	case o.Patience < 1:
		return fmt.Errorf("learn: patience %d, want >= 1", o.Patience)
	case !(o.Decay >= 0) || math.IsInf(o.Decay, 1):
		return fmt.Errorf("learn: decay %v, want a number >= 0", o.Decay)
	case math.IsNaN(o.Tol) || math.IsNaN(o.Guard):
		return errors.New("learn: tolerance or guard is NaN")
	}
	return nil
}

// EpochStats describe one epoch.
type EpochStats struct {
	Epoch int // 1-based
	// TrainNLL is the mean NLL per sample of the training set under the
	// method's ln Z, accumulated over the epoch's batches at the parameters
	// each batch's update started from (as the paper's code reports it);
	// NaN for a method without a ln Z (gibbs, pcd), whose runs then never
	// stop on the plateau rule (it compares training NLLs).
	TrainNLL float64
	// TestNLL is the mean NLL per sample of the test set under the exact ln
	// Z of the parameters at the end of the epoch (set by Fit; NaN without a
	// test set).
	TestNLL float64
	// TestLogZ is that exact ln Z.
	TestLogZ float64
	// Updates is the number of parameter updates (batches).
	Updates int
	// Iterations sums the iterations the method reported over the epoch's
	// calls; Unconverged counts the calls that stopped at their cap.
	Iterations, Unconverged int
	// Resets counts the calls the tangent check or the data bound rejected:
	// the method was reset and run again from scratch. BelowBound counts the
	// calls whose final estimate was still below the data bound (ln Z is at
	// least the log-sum-exp of the distinct training samples' scores): a
	// training NLL below the truth's that learning can exploit.
	Resets, BelowBound int
	// ClampedCalls, ClampedIterations and ClampedUnconverged count the
	// clamped phase's inference calls (one per distinct visible vector of
	// each batch), their iterations, and those that stopped unconverged;
	// zero for complete data.
	ClampedCalls, ClampedIterations, ClampedUnconverged int
	// Seconds is the wall time of the epoch's updates (inference, gradient,
	// step), without the test evaluation.
	Seconds float64
}

// Learner fits the parameters of one model family with one inference method.
// It is not safe for concurrent use.
type Learner struct {
	method infer.Method
	param  Param
	opts   Options
	train  *Data

	theta []float64
	model *mrf.Model // param.Model(theta), kept up to date
	up    []float64  // gradient of the mean NLL (what the optimiser descends)
	tg    [][]float64
	adam  *nn.Adam
	rng   *rand.Rand
	order []int
	epoch int
	lr    float64 // step size of the current epoch

	// The previous call's ln Z estimate, factor marginals and tables, for
	// the tangent check; havePrev is false before the first call.
	havePrev  bool
	prevLogZ  float64
	prevB     [][]float64
	prevTable [][]float64

	// Hidden variables: the clamped phase and batch scratch (NewHidden).
	clamped ClampedPhase
	cnt     []int
	groups  []int
	gw      []float64

	distinct   []int     // one training sample of every distinct state
	scores     []float64 // scratch for dataBound
	boundReset int       // the epoch of the last reset the data bound caused
}

// New returns a learner starting from theta, with train indexed against
// p.Model's layout (NewData(p.Model(theta), xs)). theta is copied.
func New(method infer.Method, p Param, theta []float64, train *Data, opts Options) (*Learner, error) {
	if method == nil || p == nil {
		return nil, errors.New("learn: nil method or parameterisation")
	}
	if train.Hidden() {
		return nil, errors.New("learn: training samples with hidden variables need a clamped phase (NewHidden)")
	}
	return newLearner(method, p, theta, train, opts)
}

// NewHidden returns a learner for samples of the visible variables only
// (train from NewHiddenData against p.Model's layout): the free phase is
// method, the clamped phase c (see the comment of hidden.go). The data
// bound of the guard needs complete samples and is off; the tangent check
// applies to the free phase as usual.
func NewHidden(method infer.Method, c ClampedPhase, p Param, theta []float64, train *Data, opts Options) (*Learner, error) {
	if method == nil || p == nil || c == nil {
		return nil, errors.New("learn: nil method, clamped phase or parameterisation")
	}
	if !train.Hidden() {
		return nil, errors.New("learn: NewHidden needs samples with hidden variables (NewHiddenData)")
	}
	l, err := newLearner(method, p, theta, train, opts)
	if err != nil {
		return nil, err
	}
	l.clamped = c
	l.cnt = make([]int, train.Groups())
	return l, nil
}

// newLearner is New after the checks on the data kind.
func newLearner(method infer.Method, p Param, theta []float64, train *Data, opts Options) (*Learner, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if len(theta) != p.Len() {
		return nil, fmt.Errorf("learn: %d starting parameters, the %s parameterisation has %d", len(theta), p.Name(), p.Len())
	}
	for k, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("learn: starting parameter %d is %v", k, v)
		}
	}
	if train.Len() == 0 {
		return nil, errors.New("learn: no training samples")
	}
	l := &Learner{method: method, param: p, opts: opts, train: train, theta: append([]float64(nil), theta...)}
	l.model = p.Model(l.theta)
	if err := sameLayout(l.model, train); err != nil {
		return nil, fmt.Errorf("learn: training data: %w", err)
	}
	l.up = make([]float64, p.Len())
	l.tg = make([][]float64, len(l.model.Factors))
	l.prevB = make([][]float64, len(l.model.Factors))
	l.prevTable = make([][]float64, len(l.model.Factors))
	for a, f := range l.model.Factors {
		l.tg[a] = make([]float64, len(f.LogTable))
		l.prevB[a] = make([]float64, len(f.LogTable))
		l.prevTable[a] = make([]float64, len(f.LogTable))
	}
	if opts.Optimizer == "adam" {
		l.adam = nn.NewAdam([]*nn.Param{{Name: "theta", Value: l.theta, Grad: l.up}}, opts.LR)
	}
	seen := map[string]bool{}
	var key []byte
	for s := 0; s < train.Len() && !train.Hidden(); s++ {
		key = key[:0]
		for _, x := range train.row(s) {
			key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			l.distinct = append(l.distinct, s)
		}
	}
	l.rng = mrf.NewRand(opts.Seed)
	l.order = make([]int, train.Len())
	for s := range l.order {
		l.order[s] = s
	}
	return l, nil
}

// sameLayout checks that d was indexed against m's factor layout.
func sameLayout(m *mrf.Model, d *Data) error {
	if d.factors != len(m.Factors) {
		return fmt.Errorf("indexed against %d factors, the model has %d", d.factors, len(m.Factors))
	}
	for a, f := range m.Factors {
		if d.sizes[a] != len(f.LogTable) {
			return fmt.Errorf("factor %d: indexed against a table of %d entries, the model's has %d", a, d.sizes[a], len(f.LogTable))
		}
	}
	return nil
}

// Theta returns a copy of the current parameters.
func (l *Learner) Theta() []float64 { return append([]float64(nil), l.theta...) }

// Model returns a copy of the current model.
func (l *Learner) Model() *mrf.Model { return l.model.Clone() }

// Epoch runs one pass over the training set: one inference call and one
// parameter update per batch.
func (l *Learner) Epoch(ctx context.Context) (EpochStats, error) {
	l.epoch++
	st := EpochStats{Epoch: l.epoch, TestNLL: math.NaN(), TestLogZ: math.NaN()}
	start := time.Now()
	l.lr = l.opts.LR / (1 + l.opts.Decay*float64(l.epoch-1))
	if l.adam != nil {
		l.adam.LR = l.lr
	}
	l.rng.Shuffle(len(l.order), func(i, j int) { l.order[i], l.order[j] = l.order[j], l.order[i] })
	n := len(l.order)
	nll := 0.0
	for lo := 0; lo < n; lo += l.opts.Batch {
		rows := l.order[lo:min(lo+l.opts.Batch, n)]
		res, reset, below, err := l.infer(ctx)
		if err != nil {
			return st, fmt.Errorf("epoch %d update %d: %w", l.epoch, st.Updates+1, infer.Named(l.method.Name(), err))
		}
		if reset {
			st.Resets++
		}
		if below {
			st.BelowBound++
		}
		st.Iterations += res.Iterations
		if !res.Converged {
			st.Unconverged++
		}
		var score float64
		if l.clamped != nil {
			l.groups, l.gw = batchGroups(l.train, rows, l.cnt, l.groups, l.gw)
			cs, err := gradientHidden(ctx, l.param, l.model, l.train, l.groups, l.gw, res.Marginals.Factors, l.clamped, l.tg, l.up)
			if err != nil {
				return st, fmt.Errorf("epoch %d update %d: %w", l.epoch, st.Updates+1, err)
			}
			score = cs.LogZ
			st.ClampedCalls += cs.Calls
			st.ClampedIterations += cs.Iterations
			st.ClampedUnconverged += cs.Unconverged
		} else {
			score = gradient(l.param, l.model, l.train, rows, res.Marginals.Factors, l.tg, l.up)
		}
		nll += float64(len(rows)) * (res.LogZ - score)
		l.step()
		st.Updates++
	}
	st.TrainNLL = nll / float64(n)
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// infer runs the method on the current model. When the method was warm and
// can be reset, and its estimate fails the tangent check or the data bound,
// it is reset and run again from scratch.
//
// The tangent check: for fixed beliefs b, -F(b; θ) is affine in the log
// tables with slope b (for region methods, when b is consistent), so keeping
// the previous call's beliefs would give ln Z_prev + Σ_a Σ_x b_a(x)·ΔLogTable_a(x).
// A warm-started method should do at least as well; an estimate below that
// by more than Guard·max(1, |ln Z_prev|) means its state broke down (a
// network whose optimisation diverged, say) rather than tracked the model.
// The exact ln Z is convex and never fails the check.
//
// The data bound: Z sums exp(score) over all states, so ln Z is at least the
// log-sum-exp of the scores of the distinct training samples; an estimate
// below that (by the same slack) is certainly wrong. The bound triggers at
// most one reset per epoch: where the approximation itself underestimates
// ln Z, a fresh run is low too, and a reset every update would cost a cold
// start each (for a network, MaxSteps steps), yet an occasional restart
// still keeps learning from running off (measured on K16).
func (l *Learner) infer(ctx context.Context) (res *infer.Result, reset, below bool, err error) {
	if res, err = l.method.Infer(ctx, l.model); err != nil {
		return nil, false, false, err
	}
	if err := l.check(res); err != nil {
		return nil, false, false, err
	}
	bound := l.dataBound()
	r, resettable := l.method.(interface{ Reset() })
	if resettable && l.havePrev && l.opts.Guard >= 0 {
		pred := l.prevLogZ
		for a, f := range l.model.Factors {
			for x, t := range f.LogTable {
				if b := l.prevB[a][x]; b > 0 && !math.IsInf(t, 0) {
					pred += b * (t - l.prevTable[a][x])
				}
			}
		}
		slack := l.opts.Guard * max(1, math.Abs(l.prevLogZ))
		tangentFail := res.LogZ < pred-slack
		boundFail := l.boundReset != l.epoch && res.LogZ < bound-slack
		if tangentFail || boundFail {
			r.Reset()
			if res, err = l.method.Infer(ctx, l.model); err != nil {
				return nil, false, false, fmt.Errorf("after a reset: %w", err)
			}
			if err := l.check(res); err != nil {
				return nil, false, false, fmt.Errorf("after a reset: %w", err)
			}
			reset = true
			if boundFail && !tangentFail {
				l.boundReset = l.epoch
			}
		}
	}
	l.havePrev, l.prevLogZ = true, res.LogZ
	for a, f := range l.model.Factors {
		copy(l.prevB[a], res.Marginals.Factors[a])
		copy(l.prevTable[a], f.LogTable)
	}
	return res, reset, res.LogZ < bound, nil
}

// dataBound returns ln Σ exp(score(x)) over the distinct training samples x,
// a lower bound on ln Z.
func (l *Learner) dataBound() float64 {
	scores := l.scores[:0]
	for _, s := range l.distinct {
		sum := 0.0
		for a, x := range l.train.row(s) {
			sum += l.model.Factors[a].LogTable[x]
		}
		scores = append(scores, sum)
	}
	l.scores = scores
	return infer.LogSumExp(scores)
}

// check rejects results learning cannot use. A NaN ln Z is accepted from a
// method that makes no claim on it (infer.LogZClaim; gibbs): the gradient
// needs only the factor marginals, and the train NLL is then NaN.
func (l *Learner) check(res *infer.Result) error {
	noClaim := false
	if c, ok := l.method.(infer.LogZClaim); ok {
		noClaim = !c.ClaimsLogZ()
	}
	if (math.IsNaN(res.LogZ) && !noClaim) || math.IsInf(res.LogZ, 0) {
		return fmt.Errorf("ln Z estimate is %v", res.LogZ)
	}
	if len(res.Marginals.Factors) != len(l.model.Factors) {
		return fmt.Errorf("%d factor marginals for %d factors", len(res.Marginals.Factors), len(l.model.Factors))
	}
	for a, b := range res.Marginals.Factors {
		if len(b) != len(l.tg[a]) {
			return fmt.Errorf("factor %d: marginal of %d entries, table of %d", a, len(b), len(l.tg[a]))
		}
		for _, v := range b {
			if math.IsNaN(v) {
				return fmt.Errorf("factor %d: marginal is NaN", a)
			}
		}
	}
	return nil
}

// step moves θ against the gradient of the mean NLL (up holds the gradient of
// the log-likelihood) and refreshes the model's tables.
func (l *Learner) step() {
	for k := range l.up {
		l.up[k] = -l.up[k]
	}
	if l.adam != nil {
		l.adam.Step()
	} else {
		for k, g := range l.up {
			l.theta[k] -= l.lr * g
		}
	}
	l.param.Set(l.model, l.theta)
}

// Report is what Fit did.
type Report struct {
	Epochs []EpochStats
	// Stopped is "plateau" when the plateau rule ended the run, "epochs"
	// when the epoch cap did.
	Stopped string
}

// Fit runs epochs until the plateau rule or the epoch cap stops it. After
// every epoch it computes the exact test NLL (when test is not nil) and
// calls report (when not nil); an error from report stops the run.
func (l *Learner) Fit(ctx context.Context, test *Data, report func(EpochStats) error) (*Report, error) {
	if test != nil {
		if err := sameLayout(l.model, test); err != nil {
			return nil, fmt.Errorf("learn: test data: %w", err)
		}
	}
	rep := &Report{Stopped: "epochs"}
	calm := 0 // consecutive epochs whose training NLL moved less than Tol
	for e := 0; e < l.opts.Epochs; e++ {
		st, err := l.Epoch(ctx)
		if err != nil {
			return rep, err
		}
		if test != nil && test.Len() > 0 {
			st.TestNLL, st.TestLogZ, err = ExactNLL(l.model, test, l.opts.Exact)
			if err != nil {
				return rep, fmt.Errorf("epoch %d: test NLL: %w", st.Epoch, err)
			}
		}
		if n := len(rep.Epochs); n > 0 && math.Abs(st.TrainNLL-rep.Epochs[n-1].TrainNLL) < l.opts.Tol {
			calm++
		} else {
			calm = 0
		}
		rep.Epochs = append(rep.Epochs, st)
		if report != nil {
			if err := report(st); err != nil {
				return rep, err
			}
		}
		if l.opts.Tol > 0 && calm >= l.opts.Patience {
			rep.Stopped = "plateau"
			break
		}
	}
	return rep, nil
}
