package report

// The rules of a learning section: its methods' test NLL and gaps to the
// reference, seed by seed (metrics.PairBySeed), and its claims.

import (
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/metrics"
)

// learningSpec declares how a learning section compares methods.
type learningSpec struct {
	Reference string   // the method every gap is to (exact learning)
	Tol       float64  // how much larger a gap may be and count as at most another
	Tail      int      // epochs the longer part's tail means are over
	Long      string   // the part of the longer budget
	PCD       string   // the method compared at another's wall time
	WallRef   string   `toml:"wall_ref"` // whose wall time it is compared at
	LongRef   string   `toml:"long_ref"` // the longer budget's subject
	Subjects  []string // the methods the small budget's claim checks
	Rivals    []string // ... against the better of these
	LongRival []string `toml:"long_rivals"` // the longer budget's rivals
}

// runs are the learning runs of part of method on g.
func (s *section) runs(part string, g *group, method string) []metrics.LearningRun {
	var out []metrics.LearningRun
	for _, o := range s.data.find(g, "", method) {
		if o.part == part && o.curve != nil {
			out = append(out, metrics.LearningRun{Model: o.model, Seed: o.seed, NLL: o.curve, Seconds: o.secs})
		}
	}
	return out
}

func (s *section) paired(part string, g *group, method string, tail int, only []string) metrics.Paired {
	return metrics.PairBySeed(s.runs(part, g, method), s.runs(part, g, s.spec.Learning.Reference), tail, only)
}

// summarise adds, for every setting and method of part, the facts of its
// table row: the test NLL at the last epoch, over the last tail epochs and
// at the best (nll_last, nll_tail, nll_best) and the gaps to the reference
// (gap_last, ..., text), each a mean over the seeds paired with the
// reference's (else over its own seeds, without gaps), the seeds, the
// epochs and the mean seconds per epoch; and the true model's test NLL
// (method "true model").
func (s *section) summarise(part string, tail int) {
	measures := map[string]func(metrics.RunNLL) float64{"last": metrics.LastOf, "tail": metrics.TailOf, "best": metrics.BestOf}
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{part}}) {
		if t, ok := aggregate(s.partObs(part, g, trueMethod), "nll", "mean"); ok {
			s.data.add(newObs(part, "", g, "", "true model")).num["nll_last"] = t
		}
		for _, m := range s.methodsOf(nil, "", []string{part}) {
			runs := s.runs(part, g, m)
			if len(runs) == 0 {
				continue
			}
			o := newObs(part, "", g, "", m)
			p := s.paired(part, g, m, tail, nil)
			nlls := p.NLL
			if len(p.Seeds) == 0 {
				own, seeds := metrics.BySeed(runs)
				for _, seed := range seeds {
					nlls = append(nlls, metrics.MeanNLL(own[seed], tail))
				}
			}
			for name, f := range measures {
				o.num["nll_"+name], o.text["gap_"+name] = metrics.Mean(metrics.Field(nlls, f)), "—"
				if len(p.Gap) > 0 {
					o.text["gap_"+name] = spread(metrics.Field(p.Gap, f))
				}
			}
			for _, r := range runs {
				o.num["epochs"] = max(o.num["epochs"], float64(len(r.NLL)))
			}
			o.num["seeds"] = float64(len(nlls))
			o.num["s_epoch"], _ = aggregate(s.partObs(part, g, m), "epoch_seconds", "mean")
			s.data.add(o)
		}
	}
}

// partObs are the obs of part of method on g.
func (s *section) partObs(part string, g *group, method string) []*obs {
	return slices.DeleteFunc(slices.Clone(s.data.find(g, "", method)), func(o *obs) bool { return o.part != part })
}

// spread is the mean of gaps over seeds, with their range when there are
// several that differ at the tables' precision.
func spread(gaps []float64) string {
	out := fmtGap(metrics.Mean(gaps))
	if lo, hi := fmtGap(slices.Min(gaps)), fmtGap(slices.Max(gaps)); len(gaps) > 1 && lo != hi {
		out += fmt.Sprintf(" (%s to %s)", lo, hi)
	}
	return out
}

// WallPoint is PCD at another method's wall time on one setting.
type WallPoint struct {
	metrics.WallPoint
	PCD, Ref string
}

func (s *section) wallPoint(refPart, pcdPart string, g *group, ref string, tail int) *WallPoint {
	l := s.spec.Learning
	p, ok := metrics.AtWallTime(s.runs(refPart, g, ref), s.runs(pcdPart, g, l.PCD), s.runs(refPart, g, l.Reference), tail)
	if !ok {
		return nil
	}
	return &WallPoint{WallPoint: p, PCD: l.PCD, Ref: ref}
}

// EpochsText is the epochs PCD finished: one number, or one per run.
func (p *WallPoint) EpochsText() string {
	if len(p.Epochs) == 1 {
		return fmt.Sprint(p.Epochs[0])
	}
	return fmt.Sprint(p.Epochs)
}

// RunsNoun names what Models counts.
func (p *WallPoint) RunsNoun() string {
	if len(p.SeedSecs) > 1 {
		return "runs (model, seed)"
	}
	return "models"
}

func (p *WallPoint) MinSecs() float64 { return slices.Min(p.SeedSecs) }
func (p *WallPoint) MaxSecs() float64 { return slices.Max(p.SeedSecs) }

// claimTally counts where a claim held, naming where it did not.
type claimTally struct {
	Ref, PCD      string // a wall-time claim's methods and tolerance
	Tol           float64
	Checked, Held int
	Multi         bool     // some setting has several seeds
	Notes         []string // where the claim does not hold
	Unfinished    []string // settings where PCD had not finished an epoch
}

// gapClaim checks, on every setting, each subject's gap to the reference
// (last epoch, mean over the models) against the better of the rivals'.
func (s *section) gapClaim(part string) claimTally {
	l := s.spec.Learning
	var c claimTally
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{part}}) {
		gap := func(m string) (float64, bool) {
			e, okE := aggregate(s.partObs(part, g, l.Reference), "nll", "mean")
			v, okV := aggregate(s.partObs(part, g, m), "nll", "mean")
			return v - e, okE && okV
		}
		ref, refOK := math.Inf(1), false
		for _, m := range l.Rivals {
			if v, ok := gap(m); ok {
				ref, refOK = min(ref, v), true
			}
		}
		for _, m := range l.Subjects {
			if v, ok := gap(m); ok && refOK {
				c.Checked++
				c.count(v <= ref+l.Tol, fmt.Sprintf("%s on %s: %+.3f against %+.3f", m, g.label, v, ref))
			}
		}
	}
	return c
}

func (c *claimTally) count(held bool, note string) {
	if held {
		c.Held++
	} else {
		c.Notes = append(c.Notes, note)
	}
}

// wallClaim checks, on every setting, ref's gap (last epoch) against
// PCD's at ref's wall time, each to the reference of the same seed.
func (s *section) wallClaim(refPart, pcdPart, ref string, tail int) claimTally {
	c := claimTally{Ref: ref, PCD: s.spec.Learning.PCD, Tol: s.spec.Learning.Tol}
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{refPart}}) {
		p := s.wallPoint(refPart, pcdPart, g, ref, tail)
		switch {
		case p == nil || len(s.runs(refPart, g, s.spec.Learning.Reference)) == 0:
			continue
		case len(p.Epochs) == 0:
			c.Unfinished = append(c.Unfinished, g.label)
			continue
		case p.GapSeeds == 0:
			continue
		}
		c.Checked++
		c.Multi = c.Multi || p.GapSeeds > 1
		name := g.label + seedsText(p.GapSeeds)
		note := fmt.Sprintf("%s: %s against %s (%.3f nats worse", name, fmtGap(p.SlowGap), fmtGap(p.Gap), p.SlowGap-p.Gap)
		if tail > 0 {
			note += fmt.Sprintf("; %s's gap over its last %d epochs %s", ref, tail, fmtGap(p.SlowTailGap))
		}
		c.count(p.SlowGap <= p.Gap+s.spec.Learning.Tol, note+")")
	}
	return c
}

func seedsText(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (%d seeds)", n)
	}
	return ""
}

// LongClaim is the longer budget's claim: LongRef's gap to the reference
// at most the better of the rivals', at the last epoch and over the tail,
// over the seeds the reference, LongRef and every rival that ran all ran;
// and seed by seed.
type LongClaim struct {
	Checked, HeldLast, HeldTail int
	Multi                       bool
	SeedCounts                  []string // seeds compared per setting
	Notes                       []LongNote
	SeedPairs                   int
	SeedHeldLast, SeedHeldTail  int
}

// LongNote is a setting where the longer budget's claim does not hold.
type LongNote struct {
	Name       string
	Last, Tail Versus
}

// Versus is a gap against the better rival's, of a measure (What).
type Versus struct {
	What        string
	V, Ref, Tol float64
	Rival       string
}

func (v Versus) Comparable() bool { return !math.IsNaN(v.V) && v.Rival != "" }
func (v Versus) Holds() bool      { return v.V <= v.Ref+v.Tol }
func (v Versus) Worse() float64   { return v.V - v.Ref }

func (s *section) longClaim() LongClaim {
	l := s.spec.Learning
	var c LongClaim
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{l.Long}}) {
		others := [][]metrics.LearningRun{s.runs(l.Long, g, l.LongRef)}
		for _, m := range l.LongRival {
			others = append(others, s.runs(l.Long, g, m))
		}
		seeds := metrics.CommonSeeds(s.runs(l.Long, g, l.Reference), others...)
		r := s.paired(l.Long, g, l.LongRef, l.Tail, seeds)
		if len(others[0]) == 0 || len(r.Seeds) == 0 {
			continue
		}
		last, tail, perSeed := s.bestRivals(g, seeds)
		if last.Rival == "" {
			continue
		}
		c.Checked++
		c.SeedCounts = append(c.SeedCounts, fmt.Sprintf("%d on %s", len(seeds), g.label))
		c.Multi = c.Multi || len(seeds) > 1
		for i, x := range r.Gap {
			c.SeedPairs++
			c.SeedHeldLast += int(b2f(x.Last <= perSeed[i].Last+l.Tol))
			c.SeedHeldTail += int(b2f(x.Tail <= perSeed[i].Tail+l.Tol))
		}
		last.V, tail.V = metrics.Mean(metrics.Field(r.Gap, metrics.LastOf)), metrics.Mean(metrics.Field(r.Gap, metrics.TailOf))
		okLast, okTail := last.Holds(), tail.Comparable() && tail.Holds()
		c.HeldLast, c.HeldTail = c.HeldLast+int(b2f(okLast)), c.HeldTail+int(b2f(okTail))
		if !okLast || !okTail {
			c.Notes = append(c.Notes, LongNote{Name: g.label + seedsText(len(seeds)), Last: last, Tail: tail})
		}
	}
	return c
}

// bestRivals are the better rival on g by its seed-averaged gap at the
// last epoch and over the tail, and seed by seed the least gap of any.
func (s *section) bestRivals(g *group, seeds []string) (last, tail Versus, perSeed []metrics.RunNLL) {
	l := s.spec.Learning
	last = Versus{What: "last epoch", Ref: math.Inf(1), Tol: l.Tol}
	tail = Versus{What: fmt.Sprintf("mean of the last %d epochs", l.Tail), Ref: math.Inf(1), Tol: l.Tol}
	perSeed = make([]metrics.RunNLL, len(seeds))
	for i := range perSeed {
		perSeed[i] = metrics.RunNLL{Last: math.Inf(1), Tail: math.Inf(1)}
	}
	for _, m := range l.LongRival {
		p := s.paired(l.Long, g, m, l.Tail, seeds)
		if len(p.Seeds) == 0 {
			continue
		}
		if v := metrics.Mean(metrics.Field(p.Gap, metrics.LastOf)); v < last.Ref {
			last.Ref, last.Rival = v, m
		}
		if v := metrics.Mean(metrics.Field(p.Gap, metrics.TailOf)); v < tail.Ref {
			tail.Ref, tail.Rival = v, m
		}
		for i, x := range p.Gap {
			perSeed[i].Last, perSeed[i].Tail = min(perSeed[i].Last, x.Last), min(perSeed[i].Tail, x.Tail)
		}
	}
	return last, tail, perSeed
}

// The learning rules, for a section's text.

func (c scope) Learning() learningSpec { return c.s.spec.Learning }

// HasRuns reports whether some learning run of part has finished.
func (c scope) HasRuns(part string) bool {
	return slices.ContainsFunc(c.s.data.obs, func(o *obs) bool { return o.part == part && o.curve != nil })
}

// HasPCD reports whether PCD has a finished run in the first part.
func (c scope) HasPCD() bool {
	return slices.ContainsFunc(c.s.data.obs, func(o *obs) bool {
		return o.part == c.s.spec.Parts[0] && o.method == c.s.spec.Learning.PCD && o.curve != nil
	})
}

func (c scope) GapClaim(part string) claimTally { return c.s.gapClaim(part) }
func (c scope) LongClaim() LongClaim            { return c.s.longClaim() }
func (c scope) WallClaim(refPart, pcdPart, ref string, tail int) claimTally {
	return c.s.wallClaim(refPart, pcdPart, ref, tail)
}

// WallPoint is PCD at ref's wall time on the scope's setting, or nil.
func (c scope) WallPoint(refPart, pcdPart, ref string, tail int) *WallPoint {
	return c.s.wallPoint(refPart, pcdPart, c.b.set, ref, tail)
}
