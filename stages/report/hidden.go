package report

// The "Beyond the paper: hidden variables" section (paper appendix F):
// learning models with hidden variables from their visible part, every
// method against exact learning and the true model, read from the
// learn-mrf stages named hidden_* of the config (readLearning, as the
// paper's learning tables).

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

// HiddenPrefix begins the name of every stage of the hidden-variables
// section; the section reads the learn-mrf stages among them.
const HiddenPrefix = "hidden_"

// HiddenAnchor is the Markdown anchor of the section.
const HiddenAnchor = "beyond-the-paper-hidden-variables"

// HiddenCurvesPlot is the figure file of the section's learning curves.
const HiddenCurvesPlot = "hidden_learning_curves.png"

// HiddenLongCurvesPlot is the figure file of the learning curves of the
// longer budget.
const HiddenLongCurvesPlot = "hidden_long_learning_curves.png"

// LongSuffix ends the names of the section's learn-mrf stages of the
// longer budget, in which every method learns with the exact clamped phase
// (learn-mrf --clamped-exact): the subsection "Longer budget, exact clamped
// phase" reads them apart from the others, whose exact run has another
// budget.
const LongSuffix = "_long"

// clampedExactSuffix ends the method name of a run with the exact clamped
// phase (learnmrf.ClampedExactSuffix; exact keeps its name).
const clampedExactSuffix = "-exact-clamped"

// tailEpochs is how many last epochs the longer budget's tables and claim
// also average over: single epochs jump on the RBMs.
const tailEpochs = 10

// hiddenData is what the section shows.
type hiddenData struct {
	stages []string   // the learn-mrf stages but the longer budget's, in plan order
	learn  *learnData // nil when there are none
	// longStages are the learn-mrf stages of the longer budget (names
	// ending in LongSuffix), long their curves (nil when there are none).
	longStages []string
	long       *learnData
	// hidden counts the hidden variables of each setting's models (the
	// first model read).
	hidden    map[setting]int
	rt        RunTime
	statusErr error
}

// readHidden reads the hidden_* learn-mrf stages of plan (which holds
// only the section's instances); binDir, when set, is used to say which
// outputs are stale.
func readHidden(plan *pipeline.Plan, binDir string) (*hiddenData, error) {
	d := &hiddenData{hidden: map[setting]int{}}
	for _, inst := range plan.Instances {
		st := inst.Stage
		if len(st.Run) == 0 || st.Run[0] != "learn-mrf" {
			continue
		}
		list := &d.stages
		if strings.HasSuffix(st.Name, LongSuffix) {
			list = &d.longStages
		}
		if !slices.Contains(*list, st.Name) {
			*list = append(*list, st.Name)
		}
	}
	var err error
	if d.rt, err = ReadRunTime(plan); err != nil {
		return nil, err
	}
	if binDir != "" {
		d.statusErr = d.rt.addStatus(plan, binDir)
	}
	if len(d.stages) > 0 {
		if d.learn, err = readLearning(plan, d.stages); err != nil {
			return nil, err
		}
	}
	if len(d.longStages) > 0 {
		if d.long, err = readLearning(plan, d.longStages); err != nil {
			return nil, err
		}
	}
	for _, inst := range plan.Instances {
		learned := slices.Contains(d.stages, inst.Stage.Name) || slices.Contains(d.longStages, inst.Stage.Name)
		for _, in := range inst.Inputs {
			if in.Flag == "models" && learned {
				if err := d.countHidden(in.From.OutDir); err != nil {
					return nil, err
				}
			}
		}
	}
	return d, nil
}

// countHidden records the hidden variables of the settings of a models
// directory that has run.
func (d *hiddenData) countHidden(dir string) error {
	path := filepath.Join(dir, formats.ModelInfoFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	infos, _, err := formats.ReadModelInfo(path)
	if err != nil {
		return err
	}
	for _, in := range infos {
		s := setting{graph: in.Graph, size: len(in.Cards), gamma: in.Gamma}
		if _, ok := d.hidden[s]; !ok {
			d.hidden[s] = len(in.Hidden)
		}
	}
	return nil
}

// settings are the settings with curves, in the report's order.
func (d *hiddenData) settings() []setting { return learnSettings(d.learn) }

// learnSettings are the settings with curves in l (nil: none), in the
// report's order.
func learnSettings(l *learnData) []setting {
	if l == nil {
		return nil
	}
	var out []setting
	for s := range l.curves {
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].less(out[b]) })
	return out
}

// methodsOf are the methods learned on s in l, in registry order.
func methodsOf(l *learnData, s setting) []string {
	var out []string
	for m := range l.curves[s] {
		out = append(out, m)
	}
	sort.Slice(out, func(a, b int) bool { return methodLess(out[a], out[b]) })
	return out
}

// tailNLL is the mean over the models of each model's mean test NLL over
// its last k epochs (metrics.TailMean); NaN when no model has one.
func tailNLL(curves [][]float64, k int) float64 {
	return meanDefined(curves, func(c []float64) float64 { return metrics.TailMean(c, k) })
}

// bestNLL is the mean over the models of each model's lowest test NLL
// (metrics.Lowest).
func bestNLL(curves [][]float64) float64 { return meanDefined(curves, metrics.Lowest) }

// meanDefined is the mean of f over the curves where it is not NaN.
func meanDefined(curves [][]float64, f func([]float64) float64) float64 {
	var xs []float64
	for _, c := range curves {
		if v := f(c); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return statOf(xs).mean
}

func (d *hiddenData) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("<a id=\"%s\"></a>\n\n## Beyond the paper: hidden variables\n\n", HiddenAnchor)
	if d == nil || (len(d.stages) == 0 && len(d.longStages) == 0) {
		w("Not run: the config has no %s* learn-mrf stages.\n\n", HiddenPrefix)
		return b.String()
	}
	if len(d.stages) > 0 {
		w("%s", d.budgetPart())
	} else {
		w("%s\n", sectionRunTime(d.rt, d.statusErr, HiddenPrefix))
	}
	w("%s", d.longPart())
	return b.String()
}

// budgetPart is the comparison at the small budget: every method
// computing the clamped phase itself, and pcd at wallRef's wall time.
func (d *hiddenData) budgetPart() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("The paper's appendix F: learning a model p(x, z) from samples of its visible variables x alone, by ascending log Z(x) − log Z, ")
	w("each method supplying both terms (the clamped phase exact and factorised where no factor holds two hidden variables, as in an RBM). ")
	w("From stages %s: each setting's true model is learned back by every method from the same random start; ", quoteJoin(d.stages))
	w("the test NLL is the exact −log p(x_v) of the visible test samples per sample, and the gap is a method's NLL minus exact learning's (lower is better; 0: as good as exact learning). ")
	w("Every run has the same small budget of epochs (the stages' flags), which can stop learning short of its optimum: then the gap mixes a method's bias with how far its updates got, and a negative gap means a run got further than exact learning's in that budget (compare the true model's NLL and the curves).\n\n")
	w("%s\n", sectionRunTime(d.rt, d.statusErr, HiddenPrefix))
	if len(d.learn.missing) > 0 {
		w("Not run yet: %s.\n\n", strings.Join(truncate(d.learn.missing, 12), ", "))
	}
	if len(d.learn.curves) == 0 {
		w("No learning run has finished yet.\n\n")
		return b.String()
	}
	if d.hasPCD() {
		w("pcd is persistent contrastive divergence (persistent Gibbs chains for the free phase; the clamped phase exact and factorised on the RBMs), the method practitioners use on RBMs. Its updates are cheap, so it runs more epochs than the others (its stage's flags), and the line under a table gives its test NLL at %s's wall time: at its last epoch whose cumulative seconds (the curves' seconds, test evaluation excluded, as for every method) are at most %s's whole run's.\n\n", wallRef, wallRef)
	}
	w("%s\n", d.claim())
	for _, s := range d.settings() {
		w("%s\n", d.table(s))
	}
	w("The learning curves are in the plot \"hidden-variable learning curves\" under [Plots](#plots).\n\n")
	return b.String()
}

// longRef is the RENN method of the longer budget: renn-mp with the exact
// clamped phase, whose whole run also sets the wall time at which pcd is
// compared there; longRivals are the methods its gap is held against.
var (
	longRef    = "renn-mp" + clampedExactSuffix
	longRivals = []string{"bp" + clampedExactSuffix, "gbp" + clampedExactSuffix}
)

// longPart is the subsection "Longer budget, exact clamped phase": the
// stages named with LongSuffix, every method with the exact clamped phase.
func (d *hiddenData) longPart() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("### Longer budget, exact clamped phase\n\n")
	if len(d.longStages) == 0 {
		w("Not run: the config has no %s*%s learn-mrf stages (every method with learn-mrf --clamped-exact at a longer budget).\n\n", HiddenPrefix, LongSuffix)
		return b.String()
	}
	w("A second comparison, from stages %s: every method learns with the exact clamped phase (learn-mrf --clamped-exact: exact and factorised where no factor holds two hidden variables, else by the junction tree per distinct visible vector), ", quoteJoin(d.longStages))
	w("so that it supplies the free phase (−log Z and its gradient) alone and its gap measures that phase; such runs are named <method>%s (exact keeps its name). ", clampedExactSuffix)
	w("The budget is longer (the stages' flags; the epochs column), the gap is to exact learning's run at this budget, and the tables add the mean test NLL over the last %d epochs, since single epochs jump on the RBMs. ", tailEpochs)
	w("Learning there is chaotic, so a stage may learn from several seeds (its shard key %s: learn-mrf --%s, the starting model and the sample order): a method's gap is then taken seed by seed, to exact learning's run of the same seed, and the tables give its mean over the seeds both ran (the seeds column) with their range in parentheses, the test NLL its mean over the same seeds. Their run time is in the section's table above.", seedKey, seedKey)
	if d.hasPCD() {
		w(" pcd (its own stages, above; one run per model) is compared with %s at the latter's wall time (pcd's last epoch within the latter's whole run, as above, for each of the latter's seeds), its gap taken to this budget's exact run of that seed.", longRef)
	}
	w("\n\n")
	if len(d.long.missing) > 0 {
		w("Not run yet: %s.\n\n", strings.Join(truncate(d.long.missing, 12), ", "))
	}
	if len(d.long.curves) == 0 {
		w("No run of these stages has finished yet.\n\n")
		return b.String()
	}
	w("%s%s\n\n", d.longClaim(), wallClaim(d.long, d.learn, longRef, tailEpochs))
	for _, s := range learnSettings(d.long) {
		w("#### %s, %d hidden, longer budget\n\n%s", s, d.hidden[s], learnTable(d.long, s, tailEpochs))
		if p, ok := atWallTime(d.long, d.learn, s, longRef, tailEpochs); ok {
			w("\n%s", p.text())
		}
		w("\n")
	}
	w("Their learning curves are in the plot \"hidden-variable learning curves, longer budget\" under [Plots](#plots).\n\n")
	return b.String()
}

// table is the table of one setting.
func (d *hiddenData) table(s setting) string {
	out := fmt.Sprintf("### %s, %d hidden\n\n", s, d.hidden[s]) + learnTable(d.learn, s, 0)
	if p, ok := atWallTime(d.learn, d.learn, s, wallRef, 0); ok {
		out += "\n" + p.text()
	}
	return out
}

// learnTable is the table of setting s of l: the true model's test NLL,
// then a row per method with its test NLL at the last epoch, over the last
// tail epochs (tail > 0) and at its best epoch, each with its gap to exact
// learning's, its epochs and seconds per epoch. A method's gaps are taken
// seed by seed to exact learning's run of the same seed and averaged over
// the seeds both ran (with their range when there are several), its test
// NLL over the same seeds; the longer budget's table (tail > 0) counts them
// in a seeds column.
func learnTable(l *learnData, s setting, tail int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	tailHead, tailAlign, tailBlank, seedHead, seedAlign, seedBlank := "", "", "", "", "", ""
	if tail > 0 {
		tailHead = fmt.Sprintf(" test NLL (mean of last %d epochs) | gap to exact |", tail)
		tailAlign, tailBlank = " ---: | ---: |", " | |"
		seedHead, seedAlign, seedBlank = " seeds |", " ---: |", " |"
	}
	w("| method | test NLL (last epoch) | gap to exact |%s test NLL (best epoch) | gap to exact |%s epochs | s / epoch |\n", tailHead, seedHead)
	w("| --- | ---: | ---: |%s ---: | ---: |%s ---: | ---: |\n", tailAlign, seedAlign)
	if t := l.nll[cellKey{setting: s, method: TrueMethod}]; t.ok {
		w("| true model | %s |%s | | |%s | |\n", significant(t.mean, 5), tailBlank, seedBlank)
	}
	for _, m := range methodsOf(l, s) {
		g := pairedGaps(l, s, m, tail, nil)
		nlls, gaps := g.nll, g.gap
		if len(g.seeds) == 0 { // exact learning has not run: the method's own seeds, no gaps
			own := seedRuns(l, s, m)
			for _, seed := range sortedSeeds(own) {
				nlls = append(nlls, nllOfRuns(own[seed], tail))
			}
		}
		cell := func(f func(seedNLL) float64) string {
			if len(gaps) == 0 {
				return significant(meanOf(field(nlls, f)), 5) + " | —"
			}
			return significant(meanOf(field(nlls, f)), 5) + " | " + spreadText(field(gaps, f))
		}
		epochs := 0
		for _, c := range l.curves[s][m] {
			epochs = max(epochs, len(c))
		}
		tailCells, seedCells := "", ""
		if tail > 0 {
			tailCells = " " + cell(tailOf) + " |"
			seedCells = fmt.Sprintf(" %d |", len(nlls))
		}
		w("| %s | %s |%s %s |%s %d | %s |\n", m, cell(lastOf), tailCells, cell(bestOf), seedCells,
			epochs, significant(l.epochSeconds[cellKey{setting: s, method: m}].mean, 3))
	}
	return b.String()
}

// pcdMethod is persistent contrastive divergence, the method practitioners
// use on RBMs; wallRef is the method whose whole run sets the wall time
// at which PCD is compared at the small budget.
const (
	pcdMethod = "pcd"
	wallRef   = "renn-mp"
)

// hasPCD reports whether pcd has a finished run on some setting.
func (d *hiddenData) hasPCD() bool {
	if d.learn == nil {
		return false
	}
	for k := range d.learn.runs {
		if k.method == pcdMethod {
			return true
		}
	}
	return false
}

// wallPoint is PCD at a reference method's wall time on one setting, over
// the reference's seeds (pcd has one run per model).
type wallPoint struct {
	ref        string    // the reference method
	refSeconds float64   // mean over the runs of ref's summed epoch seconds
	seedSecs   []float64 // per seed of ref, the mean over its models
	nll        float64   // mean test NLL over the runs where PCD had finished an epoch by then
	epochs     []int     // per such run, the epochs PCD had finished
	whole      int       // of them, runs whose whole PCD run ended within the time
	models     int       // runs of ref (model, seed) with a PCD run of the model
	unfinished int       // of them, those where PCD had not finished an epoch by then
	// gap and refGap are PCD's and ref's gaps to exact learning (last
	// epoch), refTailGap ref's over the last tail epochs, each taken to
	// exact learning's run of the same seed and averaged over the
	// gapSeeds seeds with exact learning's run and a finished PCD epoch.
	gap, refGap, refTailGap float64
	gapSeeds                int
}

// atWallTime compares PCD (its runs in pcdData) with method ref (its runs
// in refData) at ref's wall time on s: for every run of ref (every model
// and seed) with a PCD run of the model, PCD's test NLL at its last epoch
// whose cumulative seconds are at most ref's whole run's. The gaps are to
// exact learning in refData (tail: epochs of refTailGap). ok is false
// unless both methods ran on s.
func atWallTime(refData, pcdData *learnData, s setting, ref string, tail int) (wallPoint, bool) {
	p := wallPoint{ref: ref, gap: math.NaN(), refGap: math.NaN(), refTailGap: math.NaN()}
	if refData == nil || pcdData == nil {
		return p, false
	}
	pcds := pcdData.runs[cellKey{setting: s, method: pcdMethod}]
	refs, exact := seedRuns(refData, s, ref), seedRuns(refData, s, exactMethod)
	var nlls, secs, pcdGaps, refGaps, refTailGaps []float64
	for _, seed := range sortedSeeds(refs) {
		var seedNLLs, seedSecs []float64
		for _, r := range refs[seed] {
			budget := 0.0
			for _, v := range r.seconds {
				budget += v
			}
			for _, run := range pcds {
				if run.model != r.model {
					continue
				}
				p.models++
				seedSecs = append(seedSecs, budget)
				used, at := 0.0, -1
				for e, v := range run.seconds {
					if used += v; used > budget {
						break
					}
					at = e
				}
				if at < 0 {
					p.unfinished++
					continue
				}
				seedNLLs = append(seedNLLs, run.nll[at])
				p.epochs = append(p.epochs, at+1)
				if at == len(run.seconds)-1 {
					p.whole++
				}
			}
		}
		if len(seedSecs) == 0 {
			continue
		}
		p.seedSecs = append(p.seedSecs, meanOf(seedSecs))
		secs, nlls = append(secs, seedSecs...), append(nlls, seedNLLs...)
		if e, ok := exact[seed]; ok && len(seedNLLs) > 0 {
			en, rn := nllOfRuns(e, tail), nllOfRuns(refs[seed], tail)
			pcdGaps = append(pcdGaps, meanOf(seedNLLs)-en.last)
			refGaps = append(refGaps, rn.last-en.last)
			refTailGaps = append(refTailGaps, rn.tail-en.tail)
		}
	}
	if p.models == 0 {
		return p, false
	}
	p.refSeconds = statOf(secs).mean
	p.nll = math.NaN()
	if len(nlls) > 0 {
		p.nll = statOf(nlls).mean
	}
	if p.gapSeeds = len(pcdGaps); p.gapSeeds > 0 {
		p.gap, p.refGap, p.refTailGap = meanOf(pcdGaps), meanOf(refGaps), meanOf(refTailGaps)
	}
	return p, true
}

// text is the line under a setting's table.
func (p wallPoint) text() string {
	head := fmt.Sprintf("**%s at %s's wall time** (%s s, %s's whole run", pcdMethod, p.ref, significant(p.refSeconds, 3), p.ref)
	if n := len(p.seedSecs); n > 1 {
		head += fmt.Sprintf(", mean over its %d seeds: %s to %s s", n, significant(slices.Min(p.seedSecs), 3), significant(slices.Max(p.seedSecs), 3))
	}
	if p.models > len(p.seedSecs) {
		head += ", mean over the models"
	}
	head += "): "
	if len(p.epochs) == 0 {
		return head + fmt.Sprintf("%s had not finished an epoch by then.\n", pcdMethod)
	}
	epochs := fmt.Sprint(p.epochs[0])
	if len(p.epochs) > 1 {
		epochs = fmt.Sprint(p.epochs)
	}
	gap := fmtGap(p.gap)
	if p.gapSeeds > 1 {
		gap += fmt.Sprintf(", mean over %d seeds of the gap to exact learning of the same seed", p.gapSeeds)
	}
	out := head + fmt.Sprintf("test NLL %s (gap to exact %s) after %s epochs, its last epoch within that time", significant(p.nll, 5), gap, epochs)
	if p.whole > 0 {
		out += fmt.Sprintf(" (on %d of %d %s its whole run ended within it: more epochs would have fit)", p.whole, p.models, p.runsNoun())
	}
	if p.unfinished > 0 {
		out += fmt.Sprintf("; on %d of %d %s %s had not finished an epoch by then (left out of the mean)", p.unfinished, p.models, p.runsNoun(), pcdMethod)
	}
	return out + ".\n"
}

// runsNoun names what p.models counts.
func (p wallPoint) runsNoun() string {
	if len(p.seedSecs) > 1 {
		return "runs (model, seed)"
	}
	return "models"
}

// exactMethod is the method of exact learning.
const exactMethod = "exact"

// rennMethods are the RENN methods whose gap the section's claim checks.
var rennMethods = []string{"renn", "renn-mp", "renn-direct"}

// gapTol is how much larger than BP's and GBP's gap RENN's may be and
// still count as at most theirs: the tables' precision, in nats.
const gapTol = 1e-3

// claim checks the claim on every setting: RENN's gap to exact
// learning (last epoch) at most the better of BP's and GBP's.
func (d *hiddenData) claim() string {
	var held, checked int
	var notes []string
	for _, s := range d.settings() {
		gap := func(m string) (float64, bool) {
			e := d.learn.nll[cellKey{setting: s, method: exactMethod}]
			v := d.learn.nll[cellKey{setting: s, method: m}]
			return v.mean - e.mean, e.ok && v.ok
		}
		ref, refOK := math.Inf(1), false
		for _, m := range []string{"bp", "gbp"} {
			if g, ok := gap(m); ok {
				ref, refOK = min(ref, g), true
			}
		}
		for _, r := range rennMethods {
			g, ok := gap(r)
			if !ok || !refOK {
				continue
			}
			checked++
			if g <= ref+gapTol {
				held++
			} else {
				notes = append(notes, fmt.Sprintf("%s on %s: %+.3f against %+.3f", r, s, g, ref))
			}
		}
	}
	var out string
	if checked == 0 {
		out = "RENN against BP and GBP: no setting has both yet."
	} else {
		out = fmt.Sprintf("RENN's gap to exact learning (last epoch) is at most the better of BP's and GBP's (within %g nats, the tables' precision) on **%d of %d** (RENN method, setting) pairs.", gapTol, held, checked)
		if len(notes) > 0 {
			out += " Where it is not: " + strings.Join(notes, "; ") + "."
		}
	}
	return out + wallClaim(d.learn, d.learn, wallRef, 0) + "\n"
}

// longClaim checks on every setting of the longer budget that longRef's
// gap to exact learning is at most the better of longRivals', at the last
// epoch and over the last tailEpochs epochs, each gap taken to exact
// learning's run of the same seed and averaged over the seeds that exact
// learning, longRef and every rival that ran on the setting all ran; it
// names where it is not and by how much (both measures), and counts the
// verdicts seed by seed where there are several seeds.
func (d *hiddenData) longClaim() string {
	var checked, heldLast, heldTail, seedPairs, seedHeldLast, seedHeldTail int
	var notes, seedCounts []string
	multi := false
	for _, s := range learnSettings(d.long) {
		if len(seedRuns(d.long, s, longRef)) == 0 {
			continue
		}
		seeds := commonSeeds(d.long, s, append([]string{longRef}, longRivals...))
		r := pairedGaps(d.long, s, longRef, tailEpochs, seeds)
		if len(r.seeds) == 0 {
			continue
		}
		// The better rival by its seed-averaged gap, and seed by seed.
		best := map[string]float64{"last": math.Inf(1), "tail": math.Inf(1)}
		by := map[string]string{}
		perSeed := make([]seedNLL, len(seeds))
		for i := range perSeed {
			perSeed[i] = seedNLL{last: math.Inf(1), tail: math.Inf(1)}
		}
		for _, m := range longRivals {
			g := pairedGaps(d.long, s, m, tailEpochs, seeds)
			if len(g.seeds) == 0 {
				continue
			}
			for _, k := range []struct {
				name string
				f    func(seedNLL) float64
			}{{"last", lastOf}, {"tail", tailOf}} {
				if v := meanOf(field(g.gap, k.f)); v < best[k.name] {
					best[k.name], by[k.name] = v, m
				}
			}
			for i, x := range g.gap {
				perSeed[i].last, perSeed[i].tail = min(perSeed[i].last, x.last), min(perSeed[i].tail, x.tail)
			}
		}
		if by["last"] == "" {
			continue
		}
		checked++
		seedCounts = append(seedCounts, fmt.Sprintf("%d on %s", len(seeds), s))
		multi = multi || len(seeds) > 1
		for i, x := range r.gap {
			seedPairs++
			if x.last <= perSeed[i].last+gapTol {
				seedHeldLast++
			}
			if x.tail <= perSeed[i].tail+gapTol {
				seedHeldTail++
			}
		}
		rl, rt := meanOf(field(r.gap, lastOf)), meanOf(field(r.gap, tailOf))
		okLast := rl <= best["last"]+gapTol
		okTail := !math.IsNaN(rt) && by["tail"] != "" && rt <= best["tail"]+gapTol
		if okLast {
			heldLast++
		}
		if okTail {
			heldTail++
		}
		if okLast && okTail {
			continue
		}
		versus := func(what string, v, ref float64, rival string) string {
			if math.IsNaN(v) || rival == "" {
				return what + " not comparable"
			}
			verdict := "holds"
			if v > ref+gapTol {
				verdict = fmt.Sprintf("%.3f nats worse", v-ref)
			}
			return fmt.Sprintf("%s %+.3f against %s's %+.3f (%s)", what, v, rival, ref, verdict)
		}
		name := s.String()
		if len(seeds) > 1 {
			name += fmt.Sprintf(" (%d seeds)", len(seeds))
		}
		notes = append(notes, fmt.Sprintf("%s: %s, %s", name, versus("last epoch", rl, best["last"], by["last"]),
			versus(fmt.Sprintf("mean of the last %d epochs", tailEpochs), rt, best["tail"], by["tail"])))
	}
	rivals := strings.Join(longRivals, "'s and ") + "'s"
	if checked == 0 {
		return fmt.Sprintf("**Longer budget:** %s against %s: no setting has both yet.", longRef, rivals)
	}
	out := fmt.Sprintf("**Longer budget:** %s's gap to exact learning is at most the better of %s (within %g nats, the tables' precision) on **%d of %d** settings at the last epoch and on **%d of %d** in the mean of the last %d epochs",
		longRef, rivals, gapTol, heldLast, checked, heldTail, checked, tailEpochs)
	if multi {
		out += fmt.Sprintf(" (each gap to exact learning of the same seed, averaged over the seeds all of them ran: %s)", strings.Join(seedCounts, ", "))
	}
	out += "."
	if len(notes) > 0 {
		out += " Where it is not: " + strings.Join(notes, "; ") + "."
	}
	if multi {
		out += fmt.Sprintf(" Seed by seed, against the better rival of the same seed, it holds on %d of %d (setting, seed) pairs at the last epoch and on %d of %d in the mean of the last %d epochs.",
			seedHeldLast, seedPairs, seedHeldTail, seedPairs, tailEpochs)
	}
	return out
}

// wallClaim checks ref's gap (last epoch; its runs in refData) against
// PCD's at ref's wall time (its runs in pcdData) on every setting of
// refData with both, the gaps taken to exact learning in refData of the
// same seed and averaged over the seeds; "" when none has. tail > 0 adds,
// where ref's gap is the larger, its gap over its last tail epochs.
func wallClaim(refData, pcdData *learnData, ref string, tail int) string {
	var held, checked int
	var notes, unfinished []string
	multi := false
	for _, s := range learnSettings(refData) {
		p, ok := atWallTime(refData, pcdData, s, ref, tail)
		if !ok || len(seedRuns(refData, s, exactMethod)) == 0 {
			continue
		}
		if len(p.epochs) == 0 {
			unfinished = append(unfinished, s.String())
			continue
		}
		if p.gapSeeds == 0 {
			continue
		}
		checked++
		multi = multi || p.gapSeeds > 1
		if p.refGap <= p.gap+gapTol {
			held++
			continue
		}
		name := s.String()
		if p.gapSeeds > 1 {
			name += fmt.Sprintf(" (%d seeds)", p.gapSeeds)
		}
		note := fmt.Sprintf("%s: %s against %s (%.3f nats worse", name, fmtGap(p.refGap), fmtGap(p.gap), p.refGap-p.gap)
		if tail > 0 {
			note += fmt.Sprintf("; %s's gap over its last %d epochs %s", ref, tail, fmtGap(p.refTailGap))
		}
		notes = append(notes, note+")")
	}
	out := ""
	if checked > 0 {
		what := "last epoch"
		if multi {
			what += ", each to exact learning of the same seed and pcd at that seed's wall time, averaged over the seeds"
		}
		out = fmt.Sprintf(" At equal wall time, %s's gap (%s) is at most %s's at %s's wall time (within %g nats) on **%d of %d** settings.", ref, what, pcdMethod, ref, gapTol, held, checked)
		if len(notes) > 0 {
			out += " Where it is not: " + strings.Join(notes, "; ") + "."
		}
	}
	if len(unfinished) > 0 {
		out += fmt.Sprintf(" On %s, %s had not finished an epoch within %s's wall time.", strings.Join(unfinished, ", "), pcdMethod, ref)
	}
	return out
}

// figures are the section's learning-curve figures: the small budget's and
// the longer budget's, each if a run of it has finished.
func (d *hiddenData) figures() []figureFile {
	if d == nil {
		return nil
	}
	var out []figureFile
	if d.learn != nil && len(d.learn.curves) > 0 {
		out = append(out, figureFile{file: HiddenCurvesPlot, title: "hidden-variable learning curves",
			caption: "Hidden variables (section \"Beyond the paper: hidden variables\"): test NLL per sample of the visible test data after each epoch; the dashed reference is the true model's.",
			fig:     learningFigure(d.learn)})
	}
	if d.long != nil && len(d.long.curves) > 0 {
		out = append(out, figureFile{file: HiddenLongCurvesPlot, title: "hidden-variable learning curves, longer budget",
			caption: "Hidden variables, longer budget with the exact clamped phase (subsection \"Longer budget, exact clamped phase\"): test NLL per sample of the visible test data after each epoch, mean over the seeds (and models) of each method; the dashed reference is the true model's.",
			fig:     learningFigure(d.long)})
	}
	return out
}
