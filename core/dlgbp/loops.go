package dlgbp

import (
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/region"
)

// outer runs one outer step: the bound is re-taken at the current beliefs and
// minimised by the inner loop. It returns the largest belief change.
func (d *DLGBP) outer() float64 {
	copy(d.prev, d.belief)
	d.relinearise()
	d.inner(max(d.opts.InnerTol, innerRel*d.lastDelta))
	delta := 0.0
	for x, p := range d.belief {
		delta = max(delta, math.Abs(p-d.prev[x]))
	}
	d.lastDelta = delta
	if d.trace != nil {
		*d.trace = append(*d.trace, d.rb.FreeEnergy(d.energy, d.views(d.belief)))
	}
	return delta
}

// relinearise computes θ of the bound at the current beliefs and moves the
// beliefs to it, keeping the multipliers: b_R ← b_R · exp(θ_new - θ_old),
// normalised.
func (d *DLGBP) relinearise() {
	d.degenerateBeliefs = 0
	for r := range d.g.Regions {
		c, w := d.g.Regions[r].Counting, d.w[r]
		b, th, lp := d.region(d.belief, r), d.region(d.theta, r), d.region(d.logPsi, r)
		l := d.logb[:len(b)]
		for x, p := range b {
			l[x] = math.Inf(-1)
			if p == 0 {
				// Excluded, or underflowed: the product form keeps it 0.
				th[x] = math.Inf(-1)
				continue
			}
			lb := math.Log(p)
			tn := lp[x]
			if w != c {
				tn = (c*lp[x] + (w-c)*lb) / w
			}
			if !math.IsInf(tn, -1) {
				l[x] = lb + tn - th[x]
			}
			th[x] = tn
		}
		if math.IsInf(infer.NormalizeLogTo(b, l), -1) {
			d.degenerateBeliefs++
		}
	}
}

// inner runs block sweeps until every parent marginal is within InnerTol of
// its child, or InnerIter sweeps.
func (d *DLGBP) inner(tol float64) {
	for range d.opts.InnerIter {
		viol := 0.0
		for k := range d.blocks {
			viol = max(viol, d.update(&d.blocks[k]))
		}
		d.innerSweeps++
		d.lastInnerViol = viol
		if viol < tol {
			return
		}
	}
	d.innerUnconverged++
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
	for _, k := range bl.edges {
		e := &d.edges[k]
		mu := d.mu[d.muOff[k]-base : d.muOff[k+1]-base]
		region.Marginalize(d.region(d.belief, e.Parent), e.Map, mu)
		wp := d.w[e.Parent]
		W += wp
		for y, v := range mu {
			viol = max(viol, math.Abs(v-bc[y]))
			acc[y] += wp * math.Log(v)
		}
	}
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
