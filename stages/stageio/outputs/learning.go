package outputs

// A learning section's table rows, derived from the learn-mrf runs read
// (ReadLearning): per setting and method, the test NLL and its gap to a
// reference method's, seed by seed (metrics.PairBySeed).

import (
	"slices"

	"github.com/renn-go/renn/core/metrics"
)

// TrueModel is the row of the true model's test NLL in a learning
// section's tables and plots (from the runs of TrueMethod).
const TrueModel = "true model"

// InParts reports whether one of facts is of parts (nil: any).
func InParts(facts []*Fact, parts []string) bool {
	return slices.ContainsFunc(facts, func(o *Fact) bool { return len(parts) == 0 || slices.Contains(parts, o.Part) })
}

// MethodsIn are the methods with facts of parts (nil: any), in order.
func (d *Store) MethodsIn(parts []string) []string {
	return slices.DeleteFunc(slices.Clone(d.Methods), func(m string) bool { return !InParts(d.Find(nil, "", m), parts) })
}

// SettingsIn are the settings with facts of parts (nil: any), in order.
func (d *Store) SettingsIn(parts []string) []*Setting {
	return slices.DeleteFunc(slices.Clone(d.Settings), func(g *Setting) bool { return !InParts(d.BySet[g], parts) })
}

// Runs are the learning runs of part of method on g.
func (d *Store) Runs(part string, g *Setting, method string) []metrics.LearningRun {
	var out []metrics.LearningRun
	for _, o := range d.FindIn([]string{part}, g, "", method) {
		if o.Run != nil {
			out = append(out, *o.Run)
		}
	}
	return out
}

// SummariseLearning adds, for every setting and method of part, the facts
// of its table row: the test NLL at the last epoch, over the last tail
// epochs and at the best (nll_last, nll_tail, nll_best) and the gaps to
// the reference (gap_last, ..., text written by gapText), each a mean over
// the seeds paired with the reference's (else over its own seeds, without
// gaps), the seeds, the epochs and the mean seconds per epoch; and the
// true model's test NLL (method TrueModel).
func (d *Store) SummariseLearning(part, reference string, tail int, gapText func([]float64) string) {
	measures := map[string]func(metrics.RunNLL) float64{"last": metrics.LastOf, "tail": metrics.TailOf, "best": metrics.BestOf}
	for _, g := range d.SettingsIn([]string{part}) {
		if t, ok := Aggregate(d.FindIn([]string{part}, g, "", TrueMethod), "nll", "mean"); ok {
			d.Add(NewFact(part, "", g, "", TrueModel)).Num["nll_last"] = t
		}
		for _, m := range d.MethodsIn([]string{part}) {
			runs := d.Runs(part, g, m)
			if len(runs) == 0 {
				continue
			}
			o := NewFact(part, "", g, "", m)
			p := metrics.PairBySeed(runs, d.Runs(part, g, reference), tail, nil)
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
					o.Text["gap_"+name] = gapText(metrics.Field(p.Gap, f))
				}
			}
			for _, r := range runs {
				o.Num["epochs"] = max(o.Num["epochs"], float64(len(r.NLL)))
			}
			o.Num["seeds"] = float64(len(nlls))
			o.Num["s_epoch"], _ = Aggregate(d.FindIn([]string{part}, g, "", m), "epoch_seconds", "mean")
			d.Add(o)
		}
	}
}
