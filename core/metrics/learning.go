package metrics

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Learning runs compared seed by seed. A learning run may start from one of
// several seeds (the starting model and the sample order); a method's gap to
// a reference method (exact learning) is then taken seed by seed, to the
// reference's run of the same seed, and averaged over the seeds.

// LearningRun is one model's learning run: its test NLL and seconds per
// epoch, and the seed it learned from ("" for a single seed).
type LearningRun struct {
	Model, Seed  string
	NLL, Seconds []float64
}

// RunNLL is a test NLL at the last epoch, over the last epochs (tail) and
// at the best epoch.
type RunNLL struct{ Last, Tail, Best float64 }

// Minus is a - b, measure by measure.
func (a RunNLL) Minus(b RunNLL) RunNLL {
	return RunNLL{Last: a.Last - b.Last, Tail: a.Tail - b.Tail, Best: a.Best - b.Best}
}

// MeanNLL is the mean over runs of each run's RunNLL: its last epoch, its
// TailMean over tail epochs and its Lowest (runs without one skipped).
func MeanNLL(runs []LearningRun, tail int) RunNLL {
	var lasts, tails, bests []float64
	for _, r := range runs {
		lasts = append(lasts, r.NLL[len(r.NLL)-1])
		if v := TailMean(r.NLL, tail); !math.IsNaN(v) {
			tails = append(tails, v)
		}
		if v := Lowest(r.NLL); !math.IsNaN(v) {
			bests = append(bests, v)
		}
	}
	return RunNLL{Last: Mean(lasts), Tail: Mean(tails), Best: Mean(bests)}
}

// Mean is the mean of xs; NaN when xs is empty or holds a NaN.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return mean(xs)
}

// BySeed groups runs by seed, the seeds in order (numerically where they
// are numbers).
func BySeed(runs []LearningRun) (map[string][]LearningRun, []string) {
	out := map[string][]LearningRun{}
	var seeds []string
	for _, r := range runs {
		if _, ok := out[r.Seed]; !ok {
			seeds = append(seeds, r.Seed)
		}
		out[r.Seed] = append(out[r.Seed], r)
	}
	slices.SortFunc(seeds, func(a, b string) int {
		x, errA := strconv.Atoi(a)
		y, errB := strconv.Atoi(b)
		if errA == nil && errB == nil {
			return cmp.Compare(x, y)
		}
		return strings.Compare(a, b)
	})
	return out, seeds
}

// Paired is a method's test NLL and its gap to the reference of the same
// seed, per seed both ran.
type Paired struct {
	Seeds    []string
	NLL, Gap []RunNLL
}

// PairBySeed pairs runs with the reference's runs seed by seed, over the
// seeds of only (nil: all).
func PairBySeed(runs, ref []LearningRun, tail int, only []string) Paired {
	var p Paired
	mine, seeds := BySeed(runs)
	theirs, _ := BySeed(ref)
	for _, seed := range seeds {
		e, ok := theirs[seed]
		if !ok || only != nil && !slices.Contains(only, seed) {
			continue
		}
		v := MeanNLL(mine[seed], tail)
		p.Seeds, p.NLL, p.Gap = append(p.Seeds, seed), append(p.NLL, v), append(p.Gap, v.Minus(MeanNLL(e, tail)))
	}
	return p
}

// Field picks one measure of each RunNLL.
func Field(xs []RunNLL, f func(RunNLL) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// Measures of a RunNLL, for Field.
func LastOf(x RunNLL) float64 { return x.Last }
func TailOf(x RunNLL) float64 { return x.Tail }
func BestOf(x RunNLL) float64 { return x.Best }

// CommonSeeds are the reference's seeds that every one of the others that
// has runs also ran.
func CommonSeeds(ref []LearningRun, others ...[]LearningRun) []string {
	_, common := BySeed(ref)
	for _, runs := range others {
		by, _ := BySeed(runs)
		if len(by) > 0 {
			common = slices.DeleteFunc(common, func(seed string) bool { _, ok := by[seed]; return !ok })
		}
	}
	return common
}

// WallPoint is a fast method (one run per model) at a slower method's wall
// time: for every run of the slower method (model and seed) with a run of
// the fast one on the model, the fast one's test NLL at its last epoch
// whose cumulative seconds are at most the slow run's whole run's.
type WallPoint struct {
	Seconds    float64   // mean over the slow runs of their summed epoch seconds
	SeedSecs   []float64 // per seed of the slow method, the mean over its models
	NLL        float64   // mean test NLL over the runs where the fast one had finished an epoch by then
	Epochs     []int     // per such run, the epochs the fast one had finished
	Whole      int       // of them, runs whose whole fast run ended within the time
	Models     int       // slow runs (model, seed) with a fast run of the model
	Unfinished int       // of them, those where the fast one had not finished an epoch
	// Gap and SlowGap are the fast and the slow method's gaps to the
	// reference (last epoch), SlowTailGap the slow one's over its tail, each
	// to the reference's run of the same seed and averaged over the
	// GapSeeds seeds with its run and a finished fast epoch.
	Gap, SlowGap, SlowTailGap float64
	GapSeeds                  int
}

// AtWallTime compares the fast runs with the slow ones at the slow ones'
// wall time; the gaps are to ref's runs. ok is false unless both ran.
func AtWallTime(slow, fast, ref []LearningRun, tail int) (WallPoint, bool) {
	p := WallPoint{Gap: math.NaN(), SlowGap: math.NaN(), SlowTailGap: math.NaN()}
	slows, seeds := BySeed(slow)
	refs, _ := BySeed(ref)
	var nlls, secs, gaps, slowGaps, slowTailGaps []float64
	for _, seed := range seeds {
		seedNLLs, seedSecs := p.atSeed(slows[seed], fast)
		if len(seedSecs) == 0 {
			continue
		}
		p.SeedSecs = append(p.SeedSecs, Mean(seedSecs))
		secs, nlls = append(secs, seedSecs...), append(nlls, seedNLLs...)
		if e, ok := refs[seed]; ok && len(seedNLLs) > 0 {
			en, sn := MeanNLL(e, tail), MeanNLL(slows[seed], tail)
			gaps, slowGaps, slowTailGaps = append(gaps, Mean(seedNLLs)-en.Last), append(slowGaps, sn.Last-en.Last), append(slowTailGaps, sn.Tail-en.Tail)
		}
	}
	if p.Models == 0 {
		return p, false
	}
	p.Seconds, p.NLL = Mean(secs), Mean(nlls)
	if p.GapSeeds = len(gaps); p.GapSeeds > 0 {
		p.Gap, p.SlowGap, p.SlowTailGap = Mean(gaps), Mean(slowGaps), Mean(slowTailGaps)
	}
	return p, true
}

// atSeed adds the slow runs of one seed to p: the fast runs' test NLL at
// each slow run's wall time, and the slow runs' seconds.
func (p *WallPoint) atSeed(slows, fast []LearningRun) (nlls, secs []float64) {
	for _, r := range slows {
		budget := 0.0
		for _, v := range r.Seconds {
			budget += v
		}
		for _, f := range fast {
			if f.Model != r.Model {
				continue
			}
			p.Models++
			secs = append(secs, budget)
			at := LastWithin(f.Seconds, budget)
			if at < 0 {
				p.Unfinished++
				continue
			}
			nlls, p.Epochs = append(nlls, f.NLL[at]), append(p.Epochs, at+1)
			if at == len(f.Seconds)-1 {
				p.Whole++
			}
		}
	}
	return nlls, secs
}
