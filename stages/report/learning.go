package report

// Learning runs compared seed by seed. A learn-mrf stage may shard over
// learn-mrf --seed (the starting model and the sample order); a method's
// gap to the reference (exact learning) is then taken seed by seed, to the
// reference's run of the same seed, and averaged over the seeds. A stage
// without the seed key has one seed, named "".

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/metrics"
)

// learningSpec declares how a learning section compares methods.
type learningSpec struct {
	Reference string   // the method every gap is to (exact learning)
	Tol       float64  // how much larger a gap may be and count as at most another
	Tail      int      // epochs the longer part's tail means are over
	Long      string   // the part of the longer budget
	PCD       string   // the method compared at another's wall time
	WallRef   string   `toml:"wall_ref"` // whose wall time pcd is compared at
	LongRef   string   `toml:"long_ref"` // the longer budget's subject
	Subjects  []string // the methods the small budget's claim checks
	Rivals    []string // ... against the better of these
	LongRival []string `toml:"long_rivals"` // the longer budget's rivals
}

// seedNLL is a method's test NLL on one seed, the mean over its models: at
// the last epoch, over the last tail epochs and at the best epoch.
type seedNLL struct{ last, tail, best float64 }

func (a seedNLL) minus(b seedNLL) seedNLL {
	return seedNLL{last: a.last - b.last, tail: a.tail - b.tail, best: a.best - b.best}
}

// nllOf is the seedNLL of runs.
func nllOf(runs []*obs, tail int) seedNLL {
	var lasts, tails, bests []float64
	for _, r := range runs {
		lasts = append(lasts, r.curve[len(r.curve)-1])
		if v := metrics.TailMean(r.curve, tail); !math.IsNaN(v) {
			tails = append(tails, v)
		}
		if v := metrics.Lowest(r.curve); !math.IsNaN(v) {
			bests = append(bests, v)
		}
	}
	return seedNLL{last: meanOf(lasts), tail: meanOf(tails), best: meanOf(bests)}
}

// runs are the learning runs of part of method on g.
func (s *section) runs(part string, g *group, method string) []*obs {
	var out []*obs
	for _, o := range s.data.find(g, "", method) {
		if o.part == part && o.curve != nil {
			out = append(out, o)
		}
	}
	return out
}

// bySeed groups runs by seed, seeds in order (numerically where they are
// numbers).
func bySeed(runs []*obs) (map[string][]*obs, []string) {
	out := map[string][]*obs{}
	var seeds []string
	for _, r := range runs {
		if _, ok := out[r.seed]; !ok {
			seeds = append(seeds, r.seed)
		}
		out[r.seed] = append(out[r.seed], r)
	}
	slices.SortFunc(seeds, seedCompare)
	return out, seeds
}

func seedCompare(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

// paired is a method's seedNLL and gap to the reference, per seed both
// ran (of only, unless nil).
type paired struct {
	seeds    []string
	nll, gap []seedNLL
}

func (s *section) paired(part string, g *group, method string, tail int, only []string) paired {
	var p paired
	mine, seeds := bySeed(s.runs(part, g, method))
	ref, _ := bySeed(s.runs(part, g, s.spec.Learning.Reference))
	for _, seed := range seeds {
		e, ok := ref[seed]
		if !ok || only != nil && !slices.Contains(only, seed) {
			continue
		}
		v := nllOf(mine[seed], tail)
		p.seeds, p.nll, p.gap = append(p.seeds, seed), append(p.nll, v), append(p.gap, v.minus(nllOf(e, tail)))
	}
	return p
}

func field(xs []seedNLL, f func(seedNLL) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func lastOf(x seedNLL) float64 { return x.last }
func tailOf(x seedNLL) float64 { return x.tail }
func bestOf(x seedNLL) float64 { return x.best }

// meanOf is the mean of xs; NaN when xs is empty or holds a NaN.
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return metrics.Summarize(xs).Mean
}

// fmtGap writes a gap in nats; no sign on one that rounds to zero.
func fmtGap(g float64) string {
	if math.IsNaN(g) {
		return "—"
	}
	if math.Abs(g) >= 0.0005 {
		return fmt.Sprintf("%+.3f", g)
	}
	return "0.000"
}

// spread is the mean of gaps over seeds, with their range when there are
// several that differ at the tables' precision.
func spread(gaps []float64) string {
	out := fmtGap(meanOf(gaps))
	if len(gaps) > 1 {
		if lo, hi := fmtGap(slices.Min(gaps)), fmtGap(slices.Max(gaps)); lo != hi {
			out += fmt.Sprintf(" (%s to %s)", lo, hi)
		}
	}
	return out
}

// summarise adds, for every setting and method of part, the facts of its
// table row: the test NLL at the last epoch, over the last tail epochs and
// at the best (nll_last, nll_tail, nll_best) and the gaps to the reference
// (gap_last, ... as text), each a mean over the seeds paired with the
// reference's, the seeds, the epochs and the mean seconds per epoch; and
// the true model's test NLL (method "true model").
func (s *section) summarise(part string, tail int) {
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{part}}) {
		if t, ok := aggregate(s.runsTrue(part, g), "nll", "mean"); ok {
			s.data.add(newObs(part, "", g, "", "true model")).num["nll_last"] = t
		}
		for _, m := range s.methodsOf(nil, "", []string{part}) {
			runs := s.runs(part, g, m)
			if len(runs) == 0 {
				continue
			}
			o := newObs(part, "", g, "", m)
			p := s.paired(part, g, m, tail, nil)
			nlls := p.nll
			if len(p.seeds) == 0 { // the reference has not run: the method's own seeds, no gaps
				own, seeds := bySeed(runs)
				for _, seed := range seeds {
					nlls = append(nlls, nllOf(own[seed], tail))
				}
			}
			for name, f := range map[string]func(seedNLL) float64{"last": lastOf, "tail": tailOf, "best": bestOf} {
				o.num["nll_"+name] = meanOf(field(nlls, f))
				o.text["gap_"+name] = "—"
				if len(p.gap) > 0 {
					o.text["gap_"+name] = spread(field(p.gap, f))
				}
			}
			epochs := 0
			for _, r := range runs {
				epochs = max(epochs, len(r.curve))
			}
			o.num["seeds"], o.num["epochs"] = float64(len(nlls)), float64(epochs)
			o.num["s_epoch"], _ = aggregate(runs, "epoch_seconds", "mean")
			s.data.add(o)
		}
	}
}

func (s *section) runsTrue(part string, g *group) []*obs {
	return slices.DeleteFunc(slices.Clone(s.data.find(g, "", trueMethod)), func(o *obs) bool { return o.part != part })
}

// WallPoint is PCD at a reference method's wall time on one setting, over
// the reference's seeds (PCD has one run per model).
type WallPoint struct {
	PCD, Ref   string
	RefSeconds float64   // mean over the runs of ref's summed epoch seconds
	SeedSecs   []float64 // per seed of ref, the mean over its models
	NLL        float64   // mean test NLL over the runs where PCD had finished an epoch by then
	Epochs     []int     // per such run, the epochs PCD had finished
	Whole      int       // of them, runs whose whole PCD run ended within the time
	Models     int       // runs of ref (model, seed) with a PCD run of the model
	Unfinished int       // of them, those where PCD had not finished an epoch by then
	// Gap and RefGap are PCD's and ref's gaps to the reference (last
	// epoch), RefTailGap ref's over the last tail epochs, each taken to the
	// reference's run of the same seed and averaged over the GapSeeds seeds
	// with its run and a finished PCD epoch.
	Gap, RefGap, RefTailGap float64
	GapSeeds                int
}

// wallPoint compares PCD (its runs in pcdPart) with method ref (its runs
// in refPart) at ref's wall time on g: for every run of ref (model and
// seed) with a PCD run of the model, PCD's test NLL at its last epoch
// whose cumulative seconds are at most ref's whole run's; nil unless both
// ran on g.
func (s *section) wallPoint(refPart, pcdPart string, g *group, ref string, tail int) *WallPoint {
	l := s.spec.Learning
	p := &WallPoint{PCD: l.PCD, Ref: ref, Gap: math.NaN(), RefGap: math.NaN(), RefTailGap: math.NaN()}
	pcds := s.runs(pcdPart, g, l.PCD)
	refs, seeds := bySeed(s.runs(refPart, g, ref))
	exact, _ := bySeed(s.runs(refPart, g, l.Reference))
	var nlls, secs, pcdGaps, refGaps, refTailGaps []float64
	for _, seed := range seeds {
		var seedNLLs, seedSecs []float64
		for _, r := range refs[seed] {
			budget := 0.0
			for _, v := range r.secs {
				budget += v
			}
			for _, run := range pcds {
				if run.model != r.model {
					continue
				}
				p.Models++
				seedSecs = append(seedSecs, budget)
				at := metrics.LastWithin(run.secs, budget)
				if at < 0 {
					p.Unfinished++
					continue
				}
				seedNLLs, p.Epochs = append(seedNLLs, run.curve[at]), append(p.Epochs, at+1)
				if at == len(run.secs)-1 {
					p.Whole++
				}
			}
		}
		if len(seedSecs) == 0 {
			continue
		}
		p.SeedSecs = append(p.SeedSecs, meanOf(seedSecs))
		secs, nlls = append(secs, seedSecs...), append(nlls, seedNLLs...)
		if e, ok := exact[seed]; ok && len(seedNLLs) > 0 {
			en, rn := nllOf(e, tail), nllOf(refs[seed], tail)
			pcdGaps = append(pcdGaps, meanOf(seedNLLs)-en.last)
			refGaps, refTailGaps = append(refGaps, rn.last-en.last), append(refTailGaps, rn.tail-en.tail)
		}
	}
	if p.Models == 0 {
		return nil
	}
	p.RefSeconds, p.NLL = meanOf(secs), meanOf(nlls)
	if p.GapSeeds = len(pcdGaps); p.GapSeeds > 0 {
		p.Gap, p.RefGap, p.RefTailGap = meanOf(pcdGaps), meanOf(refGaps), meanOf(refTailGaps)
	}
	return p
}

// MinSecs and MaxSecs are the range of the per-seed seconds.
func (p *WallPoint) MinSecs() float64 { return slices.Min(p.SeedSecs) }
func (p *WallPoint) MaxSecs() float64 { return slices.Max(p.SeedSecs) }

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

// GapClaim is the small budget's claim: each subject's gap to the
// reference (last epoch, mean over the models) at most the better of the
// rivals', within the tolerance, on every setting.
type GapClaim struct {
	Checked, Held int
	Notes         []string
}

func (s *section) gapClaim(part string) GapClaim {
	l := s.spec.Learning
	var c GapClaim
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{part}}) {
		gap := func(m string) (float64, bool) {
			e, okE := aggregate(s.runs(part, g, l.Reference), "nll", "mean")
			v, okV := aggregate(s.runs(part, g, m), "nll", "mean")
			return v - e, okE && okV
		}
		ref, refOK := math.Inf(1), false
		for _, m := range l.Rivals {
			if v, ok := gap(m); ok {
				ref, refOK = min(ref, v), true
			}
		}
		for _, m := range l.Subjects {
			v, ok := gap(m)
			if !ok || !refOK {
				continue
			}
			c.Checked++
			if v <= ref+l.Tol {
				c.Held++
			} else {
				c.Notes = append(c.Notes, fmt.Sprintf("%s on %s: %+.3f against %+.3f", m, g.label, v, ref))
			}
		}
	}
	return c
}

// WallClaim is ref's gap (last epoch) against PCD's at ref's wall time on
// every setting with both, the gaps to the reference of the same seed
// averaged over the seeds.
type WallClaim struct {
	Ref, PCD      string
	Tol           float64
	Tail          int
	Checked, Held int
	Multi         bool     // some setting has several seeds
	Notes         []string // where the claim does not hold
	Unfinished    []string // settings where PCD had not finished an epoch
}

func (s *section) wallClaim(refPart, pcdPart, ref string, tail int) WallClaim {
	l := s.spec.Learning
	c := WallClaim{Ref: ref, PCD: l.PCD, Tol: l.Tol, Tail: tail}
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{refPart}}) {
		p := s.wallPoint(refPart, pcdPart, g, ref, tail)
		if p == nil || len(s.runs(refPart, g, l.Reference)) == 0 {
			continue
		}
		if len(p.Epochs) == 0 {
			c.Unfinished = append(c.Unfinished, g.label)
			continue
		}
		if p.GapSeeds == 0 {
			continue
		}
		c.Checked++
		c.Multi = c.Multi || p.GapSeeds > 1
		if p.RefGap <= p.Gap+l.Tol {
			c.Held++
			continue
		}
		name := g.label
		if p.GapSeeds > 1 {
			name += fmt.Sprintf(" (%d seeds)", p.GapSeeds)
		}
		note := fmt.Sprintf("%s: %s against %s (%.3f nats worse", name, fmtGap(p.RefGap), fmtGap(p.Gap), p.RefGap-p.Gap)
		if tail > 0 {
			note += fmt.Sprintf("; %s's gap over its last %d epochs %s", ref, tail, fmtGap(p.RefTailGap))
		}
		c.Notes = append(c.Notes, note+")")
	}
	return c
}

// LongClaim is the longer budget's claim: LongRef's gap to the reference
// at most the better of the rivals', at the last epoch and over the last
// tail epochs, each gap taken to the reference's run of the same seed and
// averaged over the seeds that the reference, LongRef and every rival that
// ran on the setting all ran; seed by seed too.
type LongClaim struct {
	Checked, HeldLast, HeldTail int
	Multi                       bool
	SeedCounts                  []string // seeds compared per setting
	Notes                       []LongNote
	SeedPairs, SeedHeldLast     int
	SeedHeldTail                int
}

// LongNote is a setting where the longer budget's claim does not hold:
// the subject's gap against the better rival's, at the last epoch and over
// the tail.
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
		if len(s.runs(l.Long, g, l.LongRef)) == 0 {
			continue
		}
		seeds := s.commonSeeds(l.Long, g, append([]string{l.LongRef}, l.LongRival...))
		r := s.paired(l.Long, g, l.LongRef, l.Tail, seeds)
		if len(r.seeds) == 0 {
			continue
		}
		last, tail, perSeed := s.bestRivals(g, seeds)
		if last.Rival == "" {
			continue
		}
		c.Checked++
		c.SeedCounts = append(c.SeedCounts, fmt.Sprintf("%d on %s", len(seeds), g.label))
		c.Multi = c.Multi || len(seeds) > 1
		for i, x := range r.gap {
			c.SeedPairs++
			if x.last <= perSeed[i].last+l.Tol {
				c.SeedHeldLast++
			}
			if x.tail <= perSeed[i].tail+l.Tol {
				c.SeedHeldTail++
			}
		}
		last.V, tail.V = meanOf(field(r.gap, lastOf)), meanOf(field(r.gap, tailOf))
		okLast, okTail := last.Holds(), tail.Comparable() && tail.Holds()
		if okLast {
			c.HeldLast++
		}
		if okTail {
			c.HeldTail++
		}
		if okLast && okTail {
			continue
		}
		name := g.label
		if len(seeds) > 1 {
			name += fmt.Sprintf(" (%d seeds)", len(seeds))
		}
		c.Notes = append(c.Notes, LongNote{Name: name, Last: last, Tail: tail})
	}
	return c
}

// bestRivals are the better rival on g by its seed-averaged gap at the
// last epoch and over the tail, and seed by seed the least gap of any.
func (s *section) bestRivals(g *group, seeds []string) (last, tail Versus, perSeed []seedNLL) {
	l := s.spec.Learning
	last = Versus{What: "last epoch", Ref: math.Inf(1), Tol: l.Tol}
	tail = Versus{What: fmt.Sprintf("mean of the last %d epochs", l.Tail), Ref: math.Inf(1), Tol: l.Tol}
	perSeed = make([]seedNLL, len(seeds))
	for i := range perSeed {
		perSeed[i] = seedNLL{last: math.Inf(1), tail: math.Inf(1)}
	}
	for _, m := range l.LongRival {
		p := s.paired(l.Long, g, m, l.Tail, seeds)
		if len(p.seeds) == 0 {
			continue
		}
		if v := meanOf(field(p.gap, lastOf)); v < last.Ref {
			last.Ref, last.Rival = v, m
		}
		if v := meanOf(field(p.gap, tailOf)); v < tail.Ref {
			tail.Ref, tail.Rival = v, m
		}
		for i, x := range p.gap {
			perSeed[i].last, perSeed[i].tail = min(perSeed[i].last, x.last), min(perSeed[i].tail, x.tail)
		}
	}
	return last, tail, perSeed
}

// commonSeeds are the seeds on g that every method of ms that ran there
// ran, the reference's among them.
func (s *section) commonSeeds(part string, g *group, ms []string) []string {
	_, common := bySeed(s.runs(part, g, s.spec.Learning.Reference))
	for _, m := range ms {
		by, _ := bySeed(s.runs(part, g, m))
		if len(by) == 0 {
			continue
		}
		common = slices.DeleteFunc(common, func(seed string) bool { _, ok := by[seed]; return !ok })
	}
	return common
}

// The learning rules, for a section's text.

// Learning is the section's learning parameters.
func (c scope) Learning() learningSpec { return c.s.spec.Learning }

// HasRuns reports whether some learning run of part has finished.
func (c scope) HasRuns(part string) bool {
	return slices.ContainsFunc(c.s.data.obs, func(o *obs) bool { return o.part == part && o.curve != nil })
}

// HasPCD reports whether PCD has a finished run in the section's first
// part.
func (c scope) HasPCD() bool {
	pt := c.s.spec.Parts[0]
	return slices.ContainsFunc(c.s.data.obs, func(o *obs) bool { return o.part == pt && o.method == c.s.spec.Learning.PCD && o.curve != nil })
}

func (c scope) GapClaim(part string) GapClaim { return c.s.gapClaim(part) }
func (c scope) LongClaim() LongClaim          { return c.s.longClaim() }
func (c scope) WallClaim(refPart, pcdPart, ref string, tail int) WallClaim {
	return c.s.wallClaim(refPart, pcdPart, ref, tail)
}

// WallPoint is PCD at ref's wall time on the scope's setting, or nil.
func (c scope) WallPoint(refPart, pcdPart, ref string, tail int) *WallPoint {
	return c.s.wallPoint(refPart, pcdPart, c.b.set, ref, tail)
}
