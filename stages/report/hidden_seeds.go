package report

// Seeds of the hidden-variables section's learning runs: a learn-mrf stage
// may shard over learn-mrf --seed (the starting model and the sample
// order), and a method's gap to exact learning is then taken seed by seed,
// to exact learning's run of the same seed, and averaged over the seeds.
// A stage without the seed key has one seed, named "".

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/stages/pipeline"
)

// seedKey is the shard key (and learn-mrf flag) of the learning seed.
const seedKey = "seed"

// shardValue is the value of shard parameter name of inst, "" if it has
// none.
func shardValue(inst *pipeline.Instance, name string) string {
	for _, p := range inst.Shard {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// seedRuns groups method m's runs on s by seed.
func seedRuns(l *learnData, s setting, m string) map[string][]learnRun {
	out := map[string][]learnRun{}
	if l == nil {
		return out
	}
	for _, r := range l.runs[cellKey{setting: s, method: m}] {
		out[r.seed] = append(out[r.seed], r)
	}
	return out
}

// sortedSeeds are the seeds of a seedRuns map, in order (numerically where
// they are numbers).
func sortedSeeds(by map[string][]learnRun) []string {
	var out []string
	for k := range by {
		out = append(out, k)
	}
	slices.SortFunc(out, seedCompare)
	return out
}

func seedCompare(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

// seedNLL is a method's test NLL on one seed, the mean over its models:
// at the last epoch, over the last tail epochs (tailNLL) and at the best
// epoch (bestNLL).
type seedNLL struct{ last, tail, best float64 }

func nllOfRuns(runs []learnRun, tail int) seedNLL {
	var lasts []float64
	curves := make([][]float64, len(runs))
	for i, r := range runs {
		curves[i] = r.nll
		lasts = append(lasts, r.nll[len(r.nll)-1])
	}
	return seedNLL{last: meanOf(lasts), tail: tailNLL(curves, tail), best: bestNLL(curves)}
}

func (a seedNLL) minus(b seedNLL) seedNLL {
	return seedNLL{last: a.last - b.last, tail: a.tail - b.tail, best: a.best - b.best}
}

// seedGaps are a method's test NLL and its gap to exact learning of the
// same seed, per seed that both ran.
type seedGaps struct {
	seeds    []string
	nll, gap []seedNLL
}

// pairedGaps are method m's seedGaps on s over the seeds it and exact
// learning both ran, restricted to only (nil: no restriction).
func pairedGaps(l *learnData, s setting, m string, tail int, only []string) seedGaps {
	var g seedGaps
	mine, exact := seedRuns(l, s, m), seedRuns(l, s, exactMethod)
	for _, seed := range sortedSeeds(mine) {
		e, ok := exact[seed]
		if !ok || only != nil && !slices.Contains(only, seed) {
			continue
		}
		v := nllOfRuns(mine[seed], tail)
		g.seeds = append(g.seeds, seed)
		g.nll = append(g.nll, v)
		g.gap = append(g.gap, v.minus(nllOfRuns(e, tail)))
	}
	return g
}

// field picks one measure of each seedNLL.
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
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// fmtGap writes a gap in nats; no sign on one that rounds to zero.
func fmtGap(g float64) string {
	if math.IsNaN(g) {
		return "—"
	}
	if math.Abs(g) >= gapTol/2 {
		return fmt.Sprintf("%+.3f", g)
	}
	return "0.000"
}

// spreadText is the mean of gaps over seeds, with their range when there
// are several that differ at the tables' precision.
func spreadText(gaps []float64) string {
	out := fmtGap(meanOf(gaps))
	if len(gaps) > 1 {
		if lo, hi := fmtGap(slices.Min(gaps)), fmtGap(slices.Max(gaps)); lo != hi {
			out += fmt.Sprintf(" (%s to %s)", lo, hi)
		}
	}
	return out
}

// commonSeeds are the seeds on s that every method of ms that ran on s
// ran, exact learning's among them.
func commonSeeds(l *learnData, s setting, ms []string) []string {
	common := sortedSeeds(seedRuns(l, s, exactMethod))
	for _, m := range ms {
		by := seedRuns(l, s, m)
		if len(by) == 0 {
			continue
		}
		common = slices.DeleteFunc(common, func(seed string) bool { _, ok := by[seed]; return !ok })
	}
	return common
}
