package report

// The rules of a learning section: its methods' test NLL and gaps to the
// reference, seed by seed (metrics.PairBySeed), and its claims.

import (
	"fmt"
	"slices"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// trueModel is the row of the true model's test NLL in a learning
// section's tables and plots (from the runs of outputs.TrueMethod).
const trueModel = "true model"

// learningSpec declares how a learning section compares methods.
type learningSpec struct {
	Reference string   // the method every gap is to (exact learning)
	Tol       float64  // how much larger a gap may be and count as at most another
	Tail      int      // epochs the longer part's tail means are over
	Long      string   // the part of the longer budget
	PCD       string   // the method compared at another's wall time
	WallRef   string   `toml:"wall_ref"`    // whose wall time it is compared at
	LongRef   string   `toml:"long_ref"`    // the longer budget's subject
	LongRival []string `toml:"long_rivals"` // the longer budget's rivals
	// Subjects and Rivals are a gap claim's methods and rivals where it
	// names none.
	Subjects, Rivals []string
}

// runs are the learning runs of part of method on g.
func (s *section) runs(part string, g *group, method string) []metrics.LearningRun {
	var out []metrics.LearningRun
	for _, o := range s.data.FindIn([]string{part}, g, "", method) {
		if o.Curve != nil {
			out = append(out, metrics.LearningRun{Model: o.Model, Seed: o.Seed, NLL: o.Curve, Seconds: o.Secs})
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
// (method trueModel).
func (s *section) summarise(part string, tail int) {
	measures := map[string]func(metrics.RunNLL) float64{"last": metrics.LastOf, "tail": metrics.TailOf, "best": metrics.BestOf}
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{part}}) {
		if t, ok := outputs.Aggregate(s.data.FindIn([]string{part}, g, "", outputs.TrueMethod), "nll", "mean"); ok {
			s.data.Add(outputs.NewFact(part, "", g, "", trueModel)).Num["nll_last"] = t
		}
		for _, m := range s.methodsOf(nil, "", []string{part}) {
			runs := s.runs(part, g, m)
			if len(runs) == 0 {
				continue
			}
			o := outputs.NewFact(part, "", g, "", m)
			p := s.paired(part, g, m, tail, nil)
			nlls := p.NLL
			if len(p.Seeds) == 0 {
				own, seeds := metrics.BySeed(runs)
				for _, seed := range seeds {
					nlls = append(nlls, metrics.MeanNLL(own[seed], tail))
				}
			}
			for name, f := range measures {
				o.Num["nll_"+name], o.Text["gap_"+name] = metrics.Mean(metrics.Field(nlls, f)), "—"
				if len(p.Gap) > 0 {
					o.Text["gap_"+name] = spread(metrics.Field(p.Gap, f))
				}
			}
			for _, r := range runs {
				o.Num["epochs"] = max(o.Num["epochs"], float64(len(r.NLL)))
			}
			o.Num["seeds"] = float64(len(nlls))
			o.Num["s_epoch"], _ = outputs.Aggregate(s.data.FindIn([]string{part}, g, "", m), "epoch_seconds", "mean")
			s.data.Add(o)
		}
	}
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

// MinSecs and MaxSecs are the least and most of the seeds' wall times.
func (p *WallPoint) MinSecs() float64 { return slices.Min(p.SeedSecs) }
func (p *WallPoint) MaxSecs() float64 { return slices.Max(p.SeedSecs) }

// The learning rules, for a section's text.

func (c scope) Learning() learningSpec { return c.s.spec.Learning }

// HasRuns reports whether some learning run of part (of the method, if
// given) has finished.
func (c scope) HasRuns(part string, method ...string) bool {
	return slices.ContainsFunc(c.s.data.Obs, func(o *obs) bool {
		return o.Part == part && o.Curve != nil && (len(method) == 0 || o.Method == method[0])
	})
}

// WallPoint is PCD at ref's wall time on the scope's setting, or nil.
func (c scope) WallPoint(refPart, pcdPart, ref string, tail int) *WallPoint {
	return c.s.wallPoint(refPart, pcdPart, c.b.set, ref, tail)
}
