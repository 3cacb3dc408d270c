package outputs

import (
	"math"
	"slices"

	"github.com/renn-go/renn/core/metrics"
)

// Aggregates are what a report can make of a fact over facts (Aggregate).
func Aggregates() []string {
	return []string{"mean", "std", "max", "min", "sum", "count", "n", "rms", "wmean"}
}

// Aggregate is an aggregate of fact over facts: mean, std (population; of a
// summary cell, its own), max (NaN if any is),
// min, sum, count, n (models: a summary cell's count), rms (root mean
// square; of a summary cell, from its mean and std), wmean (of summary
// cells: their means weighted by their counts); ok is false when no obs
// has the fact.
func Aggregate(obs []*Fact, fact, agg string) (float64, bool) {
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
	case agg == "max" && slices.ContainsFunc(xs, math.IsNaN):
		return math.NaN(), true
	case agg == "max":
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
		return Aggregate(obs, fact+"_n", "sum")
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

// FirstText is the first fact's text fact.
func FirstText(obs []*Fact, fact string) (string, bool) {
	for _, o := range obs {
		if t, ok := o.Text[fact]; ok {
			return t, true
		}
	}
	return "", false
}
