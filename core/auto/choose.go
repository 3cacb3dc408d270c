package auto

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
)

// kind is what a run is, for the choice.
type kind int

const (
	kindExact  kind = iota
	kindRegion      // GBP or double-loop GBP on a region graph, loopy BP (the Bethe graph)
	kindMC          // parallel tempering, Gibbs sampling
	kindMF          // mean field: the lower bound
	kindTRW         // TRW: the upper bound
)

// candidate is one run's outcome.
type candidate struct {
	name string
	kind kind
	// rank orders region runs by their region graph: a larger graph has a
	// larger rank (loopy BP, on the Bethe graph, the smallest).
	rank   int
	pooled bool // the pool of two Monte Carlo runs (see pool)
	gibbs  bool // a pool with Gibbs sampling in it
	// spread is a pool's two runs' excess over each other left after its
	// standard errors were scaled up (at most 1; see withPool): how far
	// they overstate its noise.
	spread  float64
	res     *infer.Result // nil if the run failed or was skipped
	se      [][]float64   // standard errors of the variable marginals (kindMC)
	check   string        // why the answer failed the shared check, "" if it passed
	err     error         // why the run failed, or was skipped
	limit   float64       // its time limit, seconds
	seconds float64       // how long it ran
}

// converged reports whether c met its convergence test and passed the
// shared check.
func (c *candidate) converged() bool { return c.res != nil && c.res.Converged() && c.check == "" }

// usable reports whether c's marginals are an answer at all
// (infer.VerifyWellFormed): of the model's shape, finite, normalised, and
// with no mass on an excluded state. Consistency may fail, as it does for a
// run stopped before convergence.
func (c *candidate) usable(m *mrf.Model) bool {
	return c.res != nil && infer.VerifyWellFormed(m, c.res) == ""
}

// Thresholds of the choice (see the package comment).
const (
	// credibleRhat: parallel tempering whose chains agree this well (split
	// R-hat over every variable) is credible even when its ladder did not
	// mix by its own test.
	credibleRhat = 1.1
	// excessLow and excessHigh: the sampler (see sampler) overrules a converged
	// variational answer when their squared differences exceed excessHigh
	// times its squared standard errors (summed over the unobserved
	// variables' states; for a pool scaled by noiseScale), and keeps it
	// below excessLow. In between the
	// standard errors cannot tell (they run up to several times too large
	// on lattices, close on noisy-OR networks), and the variational answer
	// is kept only when corroborated: a second converged region run, on
	// another region graph, within corroboration of it.
	excessLow  = 1.0
	excessHigh = 3.0
	// corroboration is the mean Hellinger distance within which two
	// converged region runs agree: on noisy-OR networks GBP and loopy BP
	// agree to 1e-8 and are both exact to 1e-8; where loops matter they
	// differ by 1e-3 and more.
	corroboration = 1e-4
)

// choice is the outcome of choose.
type choice struct {
	pick   int    // index of the chosen candidate
	cert   string // infer.Cert*
	reason string
	// excess is the ratio of the squared differences between the best
	// converged variational answer and the sampler's to the sampler's
	// squared standard errors (see excess); NaN when they
	// were not compared.
	excess float64
	bounds *Bounds
}

// choose picks the answer auto returns from the candidates, by the rule of
// the package comment, and says what backs it. It fails when no candidate
// has an answer at all, listing why each failed.
func choose(m *mrf.Model, cands []candidate) (choice, error) {
	ch := choice{pick: -1, excess: math.NaN(), bounds: bounds(cands)}
	if i := find(cands, func(c *candidate) bool { return c.kind == kindExact && c.converged() }); i >= 0 {
		ch.pick, ch.cert, ch.reason = i, infer.CertExact, "exact inference fitted the budget"
		return ch, nil
	}
	v := bestRegion(cands, func(c *candidate) bool { return c.converged() })
	p := sampler(m, cands)
	credible := p >= 0 && isCredible(&cands[p])
	switch {
	case v >= 0 && credible:
		ch.excess = excess(m, cands[v].res.Marginals, cands[p].res.Marginals, cands[p].se) / noiseScale(&cands[p])
		ch.pick, ch.reason = overrule(m, cands, v, p, ch.excess)
	case v >= 0:
		ch.pick = v
		ch.reason = fmt.Sprintf("%s converged on the largest region graph that converged; the sampler %s", cands[v].name, mcState(cands, p))
	case credible:
		ch.pick = p
		ch.reason = fmt.Sprintf("no variational method converged; %s is credible (%s)", cands[p].name, mcState(cands, p))
	default:
		ch.pick = fallback(m, cands, p)
		if ch.pick < 0 {
			return ch, failure(m, cands)
		}
		ch.reason = fmt.Sprintf("nothing converged and the sampler %s: %s is the best left (consistent region runs by graph, the sampler, the other region runs, mean field, TRW)",
			mcState(cands, p), cands[ch.pick].name)
	}
	ch.cert = certificate(&cands[ch.pick], ch.bounds)
	return ch, nil
}

// gibbsName names Gibbs sampling's run; any other Monte Carlo run is
// parallel tempering.
const gibbsName = "gibbs"

// isCredible reports whether Monte Carlo run c may be chosen over the
// fallbacks: it converged by its own test, or, for parallel tempering, its
// split R-hat is at most credibleRhat (its ladder's own tests are the
// stricter part of its convergence; Gibbs sampling has only R-hat). A pool
// is made of credible runs only.
func isCredible(c *candidate) bool {
	return c.pooled || c.converged() || c.name != gibbsName && c.res.Diagnostics["rhat_max"] <= credibleRhat
}

// sampler returns the Monte Carlo answer auto weighs against the
// variational answers (P of the package comment), or -1 when none is
// usable: the pool of the two samplers when there is one (withPool);
// else parallel tempering (of two runs, the credible one, then the one with
// the smaller Σ se²), unless Gibbs sampling converged with smaller squared
// standard errors (summed over the unobserved variables' states) and agrees
// with credible parallel tempering within their joint noise (see agree).
// Gibbs chains that all sit in one mode pass R-hat and show small errors;
// only parallel tempering's ladder sees the other modes. Without a usable
// parallel tempering answer, a usable Gibbs answer is P.
func sampler(m *mrf.Model, cands []candidate) int {
	if i := find(cands, func(c *candidate) bool { return c.pooled && c.usable(m) }); i >= 0 {
		return i
	}
	p := bestPT(m, cands)
	g := find(cands, func(c *candidate) bool { return c.kind == kindMC && c.name == gibbsName && c.usable(m) })
	switch {
	case p < 0:
		return g
	case g < 0 || !cands[g].converged() || !isCredible(&cands[p]):
		return p
	case seSquared(m, cands[g].se) < seSquared(m, cands[p].se) && agree(m, &cands[g], &cands[p]):
		return g
	}
	return p
}

// bestPT returns the usable parallel tempering run, of two the credible
// one, then the one with the smaller Σ se² (the first of equals); -1 if
// none.
func bestPT(m *mrf.Model, cands []candidate) int {
	best := -1
	for i := range cands {
		c := &cands[i]
		if c.kind != kindMC || c.pooled || c.name == gibbsName || !c.usable(m) {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := &cands[best]
		if cb, cc := isCredible(b), isCredible(c); cc != cb {
			if cc {
				best = i
			}
			continue
		}
		if seSquared(m, c.se) < seSquared(m, b.se) {
			best = i
		}
	}
	return best
}

// minNoiseScale bounds noiseScale from below: two runs that happen to
// agree closely do not make their standard errors more than about three
// times too large.
const minNoiseScale = 0.1

// noiseScale is the factor by which the squared standard errors of sampler
// c overstate its squared error: for a pool of two runs of parallel
// tempering that both mixed by their own tests, the spread left after
// withPool scaled their errors up (independent runs differ by their noise
// alone, so Σ (A - B)² estimates Σ (varA + varB)), at least minNoiseScale;
// 1 otherwise. Runs that did not mix may sit in the same modes and agree
// closely, far from the truth (on spin-glass grids, both runs of parallel
// tempering within a tenth of their standard errors and 0.016 from exact),
// so their spread says nothing of their error. Beside Gibbs sampling the
// spread measures the two methods' errors together, mostly parallel
// tempering's larger ones, while the pool leans on Gibbs sampling's: on
// noisy-OR networks and pedigrees (spread 2e-5 to 0.13) it scaled the
// pool's noise far below its error and overruled loopy answers exact to
// 1e-5. It corrects the excess of a variational answer over the pool,
// whose standard errors run several times too large on lattices and RBMs.
func noiseScale(c *candidate) float64 {
	if !c.pooled || !c.converged() || c.gibbs || !(c.spread >= 0) || math.IsInf(c.spread, 1) {
		return 1
	}
	return math.Max(c.spread, minNoiseScale)
}

// agree reports whether samplers a and b differ by at most excessHigh times
// their joint squared standard errors over the unobserved variables' states.
func agree(m *mrf.Model, a, b *candidate) bool {
	return excess(m, a.res.Marginals, b.res.Marginals, a.se, b.se) <= excessHigh
}

// seSquared returns Σ se² over the states of m's unobserved variables (all
// of them if every one is observed): the estimated squared error of a Monte
// Carlo answer. It is +Inf when a state's standard error is missing or not
// finite, so that such a run loses to one whose errors are all known.
func seSquared(m *mrf.Model, se [][]float64) float64 {
	obs := metrics.Observed(m)
	all := !slices.Contains(obs, false)
	var s2 float64
	for i, c := range m.Cards {
		if obs[i] && !all {
			continue
		}
		if i >= len(se) || len(se[i]) < c {
			return math.Inf(1)
		}
		for _, e := range se[i][:c] {
			if !finite(e) {
				return math.Inf(1)
			}
			s2 += e * e
		}
	}
	return s2
}

// overrule decides between V, the best converged region run (index v), and
// the credible sampler P (index p) by their excess (see excessLow).
func overrule(m *mrf.Model, cands []candidate, v, p int, ex float64) (int, string) {
	cv, cp := cands[v].name, cands[p].name
	switch {
	case ex > excessHigh:
		return p, fmt.Sprintf("%s differs from %s (converged) by %.3g times its noise, above %g: the variational answer's bias shows beyond the Monte Carlo noise", cp, cv, ex, excessHigh)
	case !(ex > excessLow):
		return v, fmt.Sprintf("%s converged on the largest region graph that converged, and %s differs from it by %.3g times its noise, at most %g", cv, cp, ex, excessLow)
	}
	if w := corroborate(m, cands, v); w >= 0 {
		return v, fmt.Sprintf("%s converged on the largest region graph that converged; %s differs from it by %.3g times its noise, which cannot tell, and %s agrees with it within mean Hellinger %g",
			cv, cp, ex, cands[w].name, corroboration)
	}
	return p, fmt.Sprintf("%s differs from %s (converged) by %.3g times its noise, between %g and %g, and no other region run corroborates %s", cp, cv, ex, excessLow, excessHigh, cv)
}

// corroborate returns a converged region run on another region graph than
// run v whose answer is within corroboration of v's, or -1.
func corroborate(m *mrf.Model, cands []candidate, v int) int {
	for i := range cands {
		c := &cands[i]
		if i == v || c.kind != kindRegion || c.rank == cands[v].rank || !c.converged() {
			continue
		}
		if h, _, err := metrics.MeanHellinger(m, cands[v].res.Marginals, c.res.Marginals); err == nil && h <= corroboration {
			return i
		}
	}
	return -1
}

// certificate is what backs candidate c: converged for a variational
// answer that converged and passed the check, monte-carlo for parallel
// tempering that mixed by its own test, else bounds when both bounds are
// there, else none.
func certificate(c *candidate, b *Bounds) string {
	switch {
	case c.kind == kindExact && c.converged():
		return infer.CertExact
	case c.kind == kindRegion && c.converged():
		return infer.CertConverged
	case c.kind == kindMC && c.converged():
		return infer.CertMonteCarlo
	case b != nil:
		return infer.CertBounds
	}
	return infer.CertNone
}

// bestRegion returns the region run of the largest rank that ok accepts
// (the first of equal rank), or -1.
func bestRegion(cands []candidate, ok func(*candidate) bool) int {
	best := -1
	for i := range cands {
		c := &cands[i]
		if c.kind == kindRegion && ok(c) && (best < 0 || c.rank > cands[best].rank) {
			best = i
		}
	}
	return best
}

// fallback returns the best usable answer when nothing converged and the
// sampler p (see sampler; -1 if none) is not credible: region runs that
// passed the shared check (consistent, stopped before their convergence
// test) by rank, then the sampler, then the other usable region runs
// by rank, then mean field, then TRW; -1 if none is usable.
func fallback(m *mrf.Model, cands []candidate, p int) int {
	if r := bestRegion(cands, func(c *candidate) bool { return c.res != nil && c.check == "" }); r >= 0 {
		return r
	}
	if p >= 0 {
		return p
	}
	if r := bestRegion(cands, func(c *candidate) bool { return c.usable(m) }); r >= 0 {
		return r
	}
	for _, k := range []kind{kindMF, kindTRW} {
		if i := find(cands, func(c *candidate) bool { return c.kind == k && c.usable(m) }); i >= 0 {
			return i
		}
	}
	return -1
}

// mcState says what became of the sampler p (-1: none gave an answer).
func mcState(cands []candidate, p int) string {
	switch {
	case p < 0:
		return "gave no answer"
	case cands[p].converged():
		return cands[p].name + " mixed"
	}
	return fmt.Sprintf("%s did not mix (split R-hat %.3g)", cands[p].name, cands[p].res.Diagnostics["rhat_max"])
}

func find(cands []candidate, ok func(*candidate) bool) int {
	for i := range cands {
		if ok(&cands[i]) {
			return i
		}
	}
	return -1
}

// bounds returns mean field's lower and TRW's upper bound on ln Z when both
// runs gave one: mean field's ln Z bounds ln Z from below for an answer
// that passed the shared check, TRW's from above whenever it is finite
// (core/trw: the bound holds at any messages).
func bounds(cands []candidate) *Bounds {
	lo, hi := math.NaN(), math.NaN()
	for i := range cands {
		c := &cands[i]
		if c.res == nil || math.IsNaN(c.res.LogZ) || math.IsInf(c.res.LogZ, 0) {
			continue
		}
		switch {
		case c.kind == kindMF && c.check == "":
			lo = c.res.LogZ
		case c.kind == kindTRW:
			hi = c.res.LogZ
		}
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return nil
	}
	return &Bounds{Lower: Float(lo), Upper: Float(hi), Width: Float(hi - lo)}
}

// excess returns Σ (v - p)² / Σ se² over the states of m's unobserved
// variables (all of them if every one is observed) where every standard
// error given (ses: p's, or both answers' when both are Monte Carlo; se² is
// their sum) is finite: how far apart the answers are, in units of the
// Monte Carlo noise. If v were exact, and se honest, it would be about 1.
// It is NaN when no state has finite standard errors, 0 when the answers
// are equal there, and +Inf when they differ where every standard error is
// 0.
func excess(m *mrf.Model, v, p mrf.Marginals, ses ...[][]float64) float64 {
	obs := metrics.Observed(m)
	all := !slices.Contains(obs, false)
	var d2, s2 float64
	n := 0
	for i := range m.Cards {
		if obs[i] && !all {
			continue
		}
		for x := range v.Vars[i] {
			e2, ok := sumSquares(ses, i, x)
			if !ok {
				continue
			}
			d := v.Vars[i][x] - p.Vars[i][x]
			d2 += d * d
			s2 += e2
			n++
		}
	}
	switch {
	case n == 0:
		return math.NaN()
	case d2 == 0:
		return 0
	}
	return d2 / s2
}

// sumSquares returns Σ se[i][x]² over ses, and false when one is missing or
// not finite.
func sumSquares(ses [][][]float64, i, x int) (float64, bool) {
	var s float64
	for _, se := range ses {
		if i >= len(se) || x >= len(se[i]) || !finite(se[i][x]) {
			return 0, false
		}
		s += se[i][x] * se[i][x]
	}
	return s, true
}

// failure is the error of a call where no run gave an answer.
func failure(m *mrf.Model, cands []candidate) error {
	var why []string
	for i := range cands {
		c := &cands[i]
		switch {
		case c.err != nil:
			// Methods name themselves in their errors ("pt: ...").
			msg := strings.TrimPrefix(c.err.Error(), c.name+": ")
			why = append(why, fmt.Sprintf("%s: %s", c.name, msg))
		case c.res == nil:
			why = append(why, fmt.Sprintf("%s: no answer", c.name))
		default:
			why = append(why, fmt.Sprintf("%s: %s", c.name, infer.VerifyWellFormed(m, c.res)))
		}
	}
	if len(why) == 0 {
		return errors.New("auto: no method ran")
	}
	return fmt.Errorf("auto: every method failed on this model (%s)", strings.Join(why, "; "))
}
