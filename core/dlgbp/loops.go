package dlgbp

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/region"
)

// run is the outer loop: outer steps until one changes no belief entry by
// Tol or more (Converged) or the budget ends the run. It sets res.Iterations
// (the outer steps completed) and res.Converged, notes a time stop in
// res.Diagnostics and returns the last complete step's largest change
// (+Inf if none).
func (d *DLGBP) run(stop *infer.Stop, res *infer.Result) (float64, error) {
	delta := math.Inf(1)
	for {
		more, err := stop.Next()
		if err != nil {
			return delta, fmt.Errorf("dlgbp: stopped after %d sweeps: %w", res.Iterations, err)
		}
		if !more {
			break
		}
		step, done := d.outer(stop)
		if !done {
			break // the time budget ran out inside the step, which is undone
		}
		delta = step
		res.Iterations++
		if delta < d.opts.Tol {
			res.Converged = true
			break
		}
	}
	stop.Note(res.Diagnostics)
	return delta, nil
}

// outer runs one outer step: the bound is taken at lin and minimised by the
// inner loop, belief ← T(lin), and the next linearisation point is chosen by
// the SQUAREM cycle (see squarem). It returns the largest belief change of
// the step, |T(lin) - lin|, which is 0 exactly at a stationary point of F,
// and true; or, when the time budget ends the inner loop, false, with the
// step undone: beliefs part-way through an inner loop are neither the
// minimiser of the bound nor consistent.
//
// The inner loop's tolerance follows the last step, or after a stall the
// smallest (see innerRel and tolDelta). A step that may end the run (some
// earlier step moved no entry by Tol or more) minimises its bound to
// InnerTol; while that inner loop has not reached InnerTol (it stops at
// InnerIter sweeps) the step reports Tol, so that the outer loop goes on,
// every step continuing the inner minimisation from where the last stopped:
// a run converges only on a bound minimised to InnerTol.
func (d *DLGBP) outer(stop *infer.Stop) (float64, bool) {
	tol := max(d.opts.InnerTol, innerRel*d.tolDelta())
	if d.minDelta < d.opts.Tol {
		tol = d.opts.InnerTol
	}
	timed := d.opts.MaxSeconds > 0
	if timed {
		copy(d.undoBelief, d.belief)
		copy(d.undoTheta, d.theta)
	}
	degenerate := d.degenerateBeliefs
	d.relinearise()
	sw0 := d.innerSweeps
	if !d.inner(tol, stop) {
		copy(d.belief, d.undoBelief)
		copy(d.theta, d.undoTheta)
		d.degenerateBeliefs = degenerate
		return 0, false
	}
	delta := 0.0
	for x, p := range d.belief {
		delta = max(delta, math.Abs(p-d.lin[x]))
	}
	d.track(delta)
	d.squarem()
	if d.trace != nil {
		*d.trace = append(*d.trace, d.fIterate)
	}
	if d.stepHook != nil {
		d.stepHook(delta, tol, d.innerSweeps-sw0)
	}
	if delta < d.opts.Tol && !(d.lastInnerViol < d.opts.InnerTol) {
		return d.opts.Tol, true
	}
	return delta, true
}

// stallWindow is how many outer steps may pass without a new smallest
// step before the outer loop counts as stalled (see tolDelta); DLGBP's
// stallWindow field, a test hook, starts at it.
const stallWindow = 200

// tolDelta returns the step δ the inner tolerance innerRel·δ follows: the
// last step's change, or once the outer loop has stalled the smallest so
// far, so that the tolerance never loosens again.
func (d *DLGBP) tolDelta() float64 {
	if d.stalled {
		return d.minDelta
	}
	return d.lastDelta
}

// track records the step's largest change and declares a stall when
// stallWindow steps have passed without a new smallest one.
func (d *DLGBP) track(delta float64) {
	d.lastDelta = delta
	d.sinceMin++
	if delta < d.minDelta {
		d.minDelta, d.sinceMin = delta, 0
	}
	if d.sinceMin >= d.stallWindow && !d.stalled {
		d.stalled = true
		d.stalls++
	}
}

// squarem advances the outer loop's SQUAREM cycle (Varadhan and Roland
// 2008, "Simple and globally convergent methods for accelerating the
// convergence of any EM algorithm"), which the plain CCCP step T needs where
// F is flat near its minimum and T converges linearly with a rate near 1.
// A cycle starts at an iterate x0 and takes x1 = T(x0), x2 = T(x1), then the
// extrapolated point x' = x0 - 2α r + α² v (r = x1 - x0, v = x2 - 2 x1 + x0,
// α = -|r|/|v|, at most -1) and x3 = T(x'). x' is an affine combination of
// consistent normalised beliefs, hence consistent and normalised; α is
// moved towards -1 (where x' = x2) until x' is positive wherever x2 is. x3
// is the next cycle's x0 if F(x3) <= F(x2); otherwise the cycle restarts
// at x2. Every iterate therefore has a free energy no higher than the one
// before (the plain step never raises F), and the outer loop stops at a
// fixed point of T wherever the cycle is.
//
// A cycle in which the inner loop of x1 or x2 stopped at InnerIter does not
// extrapolate: those are not T's values but partial minimisations, and r
// and v then extrapolate the inner loop's progress rather than the outer
// one's. Where the inner problem is ill-conditioned near the fixed point
// (model 6 of the 20x20 grids with couplings U(-15,15) of the hard models,
// whose inner loops there converge by a factor 0.9997 per sweep, so that
// every inner loop stopped at the cap) the run took 8889 outer steps and
// 1490 s with such extrapolations, 3846 and 205 s without.
func (d *DLGBP) squarem() {
	f := d.rb.FreeEnergy(d.energy, d.beliefViews)
	switch d.phase {
	case 0: // belief = x1 = T(x0), lin = x0
		copy(d.sq0, d.lin)
		copy(d.sq1, d.belief)
		copy(d.lin, d.belief)
		d.fIterate = f
		d.phase = 1
	case 1: // belief = x2 = T(x1)
		d.fIterate, d.f2 = f, f
		if !d.capped && d.extrapolatePoint() {
			d.phase = 2
		} else {
			copy(d.lin, d.belief)
			d.phase = 0
		}
	case 2: // belief = x3 = T(x')
		if f <= d.f2 {
			d.extrapolated++
			d.fIterate = f
			copy(d.lin, d.belief)
		} else {
			copy(d.lin, d.sq1) // x2, kept there by extrapolatePoint
		}
		d.phase = 0
	}
	if d.phase != 1 { // the next step starts a cycle (x1) or is x3
		d.capped = false
	}
}

// extrapolatePoint sets lin to SQUAREM's x' from x0 (sq0), x1 (sq1) and x2
// (belief), keeping x2 in sq1; it reports false when x' would be x2.
func (d *DLGBP) extrapolatePoint() bool {
	rr, vv := 0.0, 0.0
	for x, p2 := range d.belief {
		r := d.sq1[x] - d.sq0[x]
		v := p2 - 2*d.sq1[x] + d.sq0[x]
		rr += r * r
		vv += v * v
	}
	if !(vv > 0) {
		return false
	}
	alpha := min(-math.Sqrt(rr/vv), -1)
	for range 30 {
		if alpha > -1-1e-3 {
			return false
		}
		if d.squaremPoint(alpha) {
			for x, p2 := range d.belief {
				d.sq1[x] = p2
			}
			return true
		}
		alpha = (alpha - 1) / 2
	}
	return false
}

// maxRatio bounds how far SQUAREM's extrapolated point x' may move an entry
// from x2, as a ratio either way: the next bound's θ moves by (w-c)/w times
// the log of it (5 times for c = -1), and an x' with entries much closer to
// 0 than x2's made the bound so stiff that inner loops hit their cap (on an
// 8x8 torus with couplings U(-10,10); with 2 the extrapolation kept most of
// its gain).
const maxRatio = 2

// squaremPoint writes x0 - 2α r + α² v into lin and reports whether it is
// positive wherever x2 is (and 0 where x2 is).
func (d *DLGBP) squaremPoint(alpha float64) bool {
	a0 := 1 + 2*alpha + alpha*alpha
	a1 := -2*alpha - 2*alpha*alpha
	a2 := alpha * alpha
	for x, p2 := range d.belief {
		if p2 == 0 {
			d.lin[x] = 0
			continue
		}
		q := a0*d.sq0[x] + a1*d.sq1[x] + a2*p2
		if !(q >= p2/maxRatio && q <= p2*maxRatio) {
			return false
		}
		d.lin[x] = q
	}
	return true
}

// relinearise computes θ of the bound at lin and moves the beliefs to it,
// keeping the multipliers: b_R ← b_R · exp(θ_new - θ_old), normalised.
func (d *DLGBP) relinearise() {
	d.degenerateBeliefs = 0
	for r := range d.g.Regions {
		c, w := d.g.Regions[r].Counting, d.w[r]
		b, th, lp := d.region(d.belief, r), d.region(d.theta, r), d.region(d.logPsi, r)
		at := d.region(d.lin, r)
		l := d.logb[:len(b)]
		for x, p := range b {
			l[x] = math.Inf(-1)
			if p == 0 || at[x] == 0 {
				// Excluded, or underflowed: the product form keeps it 0.
				th[x] = math.Inf(-1)
				continue
			}
			tn := lp[x]
			if w != c {
				tn = (c*lp[x] + (w-c)*math.Log(at[x])) / w
			}
			if !math.IsInf(tn, -1) {
				l[x] = math.Log(p) + tn - th[x]
			}
			th[x] = tn
		}
		if math.IsInf(infer.NormalizeLogTo(b, l), -1) {
			d.degenerateBeliefs++
		}
	}
}

// inner runs block sweeps until every parent marginal is within tol of its
// child, or InnerIter sweeps; it reports false, at once, when the time
// budget is spent before a sweep.
func (d *DLGBP) inner(tol float64, stop *infer.Stop) bool {
	for range d.opts.InnerIter {
		if stop.Expired() {
			return false
		}
		viol := 0.0
		for k := range d.blocks {
			viol = max(viol, d.update(&d.blocks[k]))
		}
		d.innerSweeps++
		d.lastInnerViol = viol
		if viol < tol {
			return true
		}
	}
	d.innerUnconverged++
	d.capped = true
	return true
}

// update maximises the dual over the multipliers of every edge into the
// block's child: the child becomes the weighted geometric mean of its own
// belief and its parents' marginals, and every parent is rescaled to agree
// with it. It returns the largest |μ_P - b_C| before the update.
func (d *DLGBP) update(bl *block) float64 {
	bc := d.region(d.belief, bl.child)
	acc := d.acc[:len(bc)]
	wc := d.w[bl.child]
	W := wc
	for y, p := range bc {
		acc[y] = wc * math.Log(p)
	}
	base := d.muOff[bl.edges[0]]
	viol := 0.0
	// Parents of equal weight are multiplied before one logarithm (the
	// logarithms were half of the inner loop's time); a product nearing
	// underflow is taken into acc early.
	prod := d.prod[:len(bc)]
	pw := 0.0 // weight of the product in prod; 0: empty
	for _, k := range bl.edges {
		e := &d.edges[k]
		mu := d.mu[d.muOff[k]-base : d.muOff[k+1]-base]
		region.Marginalize(d.region(d.belief, e.Parent), e.Map, mu)
		wp := d.w[e.Parent]
		W += wp
		if wp != pw {
			flushProduct(acc, prod, pw)
			pw = wp
		}
		for y, v := range mu {
			viol = max(viol, math.Abs(v-bc[y]))
			q := prod[y] * v
			if q < tinyProduct && q > 0 {
				acc[y] += pw * math.Log(prod[y])
				q = v
			}
			prod[y] = q
		}
	}
	flushProduct(acc, prod, pw)
	mx := math.Inf(-1)
	for y := range acc {
		acc[y] /= W
		mx = max(mx, acc[y])
	}
	if math.IsInf(mx, -1) || math.IsNaN(mx) {
		return viol // no mass anywhere: nothing to agree on
	}
	s := 0.0
	for y, a := range acc {
		acc[y] = math.Exp(a - mx)
		s += acc[y]
	}
	for y := range acc {
		bc[y] = acc[y] / s
	}
	for _, k := range bl.edges {
		e := &d.edges[k]
		mu := d.mu[d.muOff[k]-base : d.muOff[k+1]-base]
		for y, v := range mu {
			if v > 0 {
				mu[y] = bc[y] / v
			} // 0/0 := 0: the parent's states there are already 0
		}
		bp := d.region(d.belief, e.Parent)
		for x, y := range e.Map {
			bp[x] *= mu[y]
		}
	}
	return viol
}

// tinyProduct is where update stops multiplying parent marginals before
// taking the logarithm, far above the smallest normal float64.
const tinyProduct = 1e-250

// flushProduct adds w·ln(prod) to acc and empties prod (all 1); w = 0 means
// prod is already empty.
func flushProduct(acc, prod []float64, w float64) {
	for y, q := range prod {
		if w != 0 {
			acc[y] += w * math.Log(q)
		}
		prod[y] = 1
	}
}

// finish fills in res's marginals, free energy and consistency.
func (d *DLGBP) finish(res *infer.Result, E [][]float64) {
	b := d.views(d.belief)
	res.Marginals.Vars = d.rb.VarMarginals(b)
	res.Marginals.Factors = d.rb.FactorMarginals(b)
	F := d.rb.FreeEnergy(E, b)
	if math.IsNaN(F) {
		F = math.Inf(1)
	}
	res.FreeEnergy = F
	res.LogZ = -F
	res.Diagnostics["max_consistency"] = region.MaxInconsistency(d.edges, b)
}

// normalize scales p to sum 1 (left alone if it sums to 0).
func normalize(p []float64) {
	s := 0.0
	for _, v := range p {
		s += v
	}
	if s > 0 {
		for i := range p {
			p[i] /= s
		}
	}
}
