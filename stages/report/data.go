package report

import (
	"math"
	"slices"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// The facts the readers of stage outputs (stageio/outputs) give: a run's
// (obs), a setting of models (group), and the store of a section's.
type (
	obs    = outputs.Fact
	group  = outputs.Setting
	family = outputs.Family
)

// dataset is what a section read: the facts, and the parts they came from.
type dataset struct {
	outputs.Store
	parts []*part
}

// part is what a section read from the stages of one pattern, with their
// run time.
type part struct {
	outputs.Progress
	RT        runTime // of every instance of the pattern's stages
	StatusErr error
}

// findIn are the facts of (set, model, method), as Find, read from the
// stages of parts (nil: any).
func (d *dataset) findIn(parts []string, set *group, model, method string) []*obs {
	found := d.Find(set, model, method)
	if parts == nil {
		return found
	}
	return slices.DeleteFunc(slices.Clone(found), func(o *obs) bool { return !slices.Contains(parts, o.Part) })
}

func newPart(prefix string) *part { return &part{Progress: outputs.Progress{Prefix: prefix}} }

// aggregates are what a cell can make of a fact over runs.
var aggregates = []string{"mean", "std", "max", "min", "sum", "count", "n", "rms", "wmean"}

// aggregate is an aggregate of fact over obs: mean, std (population; of a
// summary cell, its own), max (NaN if any is),
// min, sum, count, n (models: a summary cell's count), rms (root mean
// square; of a summary cell, from its mean and std), wmean (of summary
// cells: their means weighted by their counts); ok is false when no obs
// has the fact.
func aggregate(obs []*obs, fact, agg string) (float64, bool) {
	var xs []float64
	summary := false
	for _, o := range obs {
		if v, ok := o.Num[fact]; ok {
			xs = append(xs, v)
			_, n := o.Num[fact+"_n"]
			summary = summary || n
		}
	}
	switch {
	case len(xs) == 0:
		return 0, false
	case agg == "mean":
		return metrics.Summarize(xs).Mean, true
	case agg == "std" && summary && len(obs) == 1:
		return obs[0].Num[fact+"_std"], true
	case agg == "std":
		return metrics.Summarize(xs).Std, true
	case agg == "max":
		if slices.ContainsFunc(xs, math.IsNaN) {
			return math.NaN(), true
		}
		return slices.Max(xs), true
	case agg == "min":
		return slices.Min(xs), true
	case agg == "sum":
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum, true
	case agg == "n" && summary:
		return aggregate(obs, fact+"_n", "sum")
	case agg == "count" || agg == "n":
		return float64(len(xs)), true
	case agg == "rms" && summary && len(obs) == 1:
		return math.Hypot(xs[0], obs[0].Num[fact+"_std"]), true
	case agg == "wmean":
		total, n := 0.0, 0.0
		for _, o := range obs {
			if v, ok := o.Num[fact]; ok && !math.IsNaN(v) {
				total, n = total+v*o.Num[fact+"_n"], n+o.Num[fact+"_n"]
			}
		}
		return total / n, n > 0
	}
	return metrics.RootMeanSquare(xs), true
}

// firstText is the first obs's text fact.
func firstText(obs []*obs, fact string) (string, bool) {
	for _, o := range obs {
		if t, ok := o.Text[fact]; ok {
			return t, true
		}
	}
	return "", false
}
