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
// its last k epochs (NaN epochs skipped; fewer if it ran fewer).
func tailNLL(curves [][]float64, k int) float64 {
	var xs []float64
	for _, c := range curves {
		sum, n := 0.0, 0
		for _, v := range c[max(0, len(c)-k):] {
			if !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n > 0 {
			xs = append(xs, sum/float64(n))
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return statOf(xs).mean
}

// bestNLL is the mean over the models of each model's lowest test NLL
// over its epochs (NaN epochs skipped).
func bestNLL(curves [][]float64) float64 {
	var xs []float64
	for _, c := range curves {
		b := math.Inf(1)
		for _, v := range c {
			if !math.IsNaN(v) {
				b = min(b, v)
			}
		}
		if !math.IsInf(b, 1) {
			xs = append(xs, b)
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
	w("The budget is longer (the stages' flags; the epochs column), the gap is to exact learning's run at this budget, and the tables add the mean test NLL over the last %d epochs, since single epochs jump on the RBMs. Their run time is in the section's table above.", tailEpochs)
	if d.hasPCD() {
		w(" pcd (its own stages, above) is compared with %s at the latter's wall time (pcd's last epoch within the latter's whole run, as above), its gap taken to this budget's exact run.", longRef)
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
		if p, ok := atWallTime(d.long, d.learn, s, longRef); ok {
			w("\n%s", p.text(d.long.nll[cellKey{setting: s, method: exactMethod}].mean))
		}
		w("\n")
	}
	w("Their learning curves are in the plot \"hidden-variable learning curves, longer budget\" under [Plots](#plots).\n\n")
	return b.String()
}

// table is the table of one setting.
func (d *hiddenData) table(s setting) string {
	out := fmt.Sprintf("### %s, %d hidden\n\n", s, d.hidden[s]) + learnTable(d.learn, s, 0)
	if p, ok := atWallTime(d.learn, d.learn, s, wallRef); ok {
		out += "\n" + p.text(d.learn.nll[cellKey{setting: s, method: exactMethod}].mean)
	}
	return out
}

// learnTable is the table of setting s of l: the true model's test NLL,
// then a row per method with its test NLL at the last epoch, over the last
// tail epochs (tail > 0) and at its best epoch, each with its gap to exact
// learning's, its epochs and seconds per epoch.
func learnTable(l *learnData, s setting, tail int) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	exactLast, exactTail, exactBest := math.NaN(), math.NaN(), math.NaN()
	if c := l.curves[s][exactMethod]; len(c) > 0 {
		exactLast, exactTail, exactBest = l.nll[cellKey{setting: s, method: exactMethod}].mean, tailNLL(c, tail), bestNLL(c)
	}
	tailHead, tailAlign, tailBlank := "", "", ""
	if tail > 0 {
		tailHead = fmt.Sprintf(" test NLL (mean of last %d epochs) | gap to exact |", tail)
		tailAlign, tailBlank = " ---: | ---: |", " | |"
	}
	w("| method | test NLL (last epoch) | gap to exact |%s test NLL (best epoch) | gap to exact | epochs | s / epoch |\n", tailHead)
	w("| --- | ---: | ---: |%s ---: | ---: | ---: | ---: |\n", tailAlign)
	if t := l.nll[cellKey{setting: s, method: TrueMethod}]; t.ok {
		w("| true model | %s |%s | | | | |\n", significant(t.mean, 5), tailBlank)
	}
	for _, m := range methodsOf(l, s) {
		curves := l.curves[s][m]
		last, best := l.nll[cellKey{setting: s, method: m}].mean, bestNLL(curves)
		epochs := 0
		for _, c := range curves {
			epochs = max(epochs, len(c))
		}
		tailCells := ""
		if tail > 0 {
			v := tailNLL(curves, tail)
			tailCells = fmt.Sprintf(" %s | %s |", significant(v, 5), gapText(v, exactTail))
		}
		w("| %s | %s | %s |%s %s | %s | %d | %s |\n", m, significant(last, 5), gapText(last, exactLast), tailCells, significant(best, 5), gapText(best, exactBest),
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

// wallPoint is PCD at a reference method's wall time on one setting.
type wallPoint struct {
	ref        string  // the reference method
	refSeconds float64 // mean over the models of ref's summed epoch seconds
	nll        float64 // mean test NLL over the models where PCD had finished an epoch by then
	epochs     []int   // per such model, the epochs PCD had finished
	whole      int     // of them, models whose whole PCD run ended within the time
	models     int     // models with both runs
	unfinished int     // of them, those where PCD had not finished an epoch by then
}

// atWallTime compares PCD (its runs in pcdData) with method ref (its runs
// in refData) at ref's wall time on s: for every model with both runs,
// PCD's test NLL at its last epoch whose cumulative seconds are at most
// ref's whole run's. ok is false unless both methods ran on s.
func atWallTime(refData, pcdData *learnData, s setting, ref string) (wallPoint, bool) {
	p := wallPoint{ref: ref}
	if refData == nil || pcdData == nil {
		return p, false
	}
	refs := refData.runs[cellKey{setting: s, method: ref}]
	pcds := pcdData.runs[cellKey{setting: s, method: pcdMethod}]
	var nlls, secs []float64
	for _, r := range refs {
		for _, run := range pcds {
			if run.model != r.model {
				continue
			}
			budget := 0.0
			for _, v := range r.seconds {
				budget += v
			}
			p.models++
			secs = append(secs, budget)
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
			nlls = append(nlls, run.nll[at])
			p.epochs = append(p.epochs, at+1)
			if at == len(run.seconds)-1 {
				p.whole++
			}
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
	return p, true
}

// text is the line under a setting's table.
func (p wallPoint) text(exactLast float64) string {
	head := fmt.Sprintf("**%s at %s's wall time** (%s s, %s's whole run", pcdMethod, p.ref, significant(p.refSeconds, 3), p.ref)
	if p.models > 1 {
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
	out := head + fmt.Sprintf("test NLL %s (gap to exact %s) after %s epochs, its last epoch within that time", significant(p.nll, 5), gapText(p.nll, exactLast), epochs)
	if p.whole > 0 {
		out += fmt.Sprintf(" (on %d of %d models its whole run ended within it: more epochs would have fit)", p.whole, p.models)
	}
	if p.unfinished > 0 {
		out += fmt.Sprintf("; on %d of %d models %s had not finished an epoch by then (left out of the mean)", p.unfinished, p.models, pcdMethod)
	}
	return out + ".\n"
}

// exactMethod is the method of exact learning.
const exactMethod = "exact"

// rennMethods are the RENN methods whose gap the section's claim checks.
var rennMethods = []string{"renn", "renn-mp", "renn-direct"}

func gapText(v, exact float64) string {
	if math.IsNaN(v) || math.IsNaN(exact) {
		return "—"
	}
	if g := v - exact; math.Abs(g) >= gapTol/2 {
		return fmt.Sprintf("%+.3f", g)
	}
	return "0.000" // no sign on a gap that rounds to zero
}

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

// longGap is a method's gap to exact learning on one setting of the longer
// budget: at the last epoch and over the last tailEpochs epochs.
type longGap struct {
	last, tail float64
	ok         bool
}

// longGapOf is method m's longGap on s.
func (d *hiddenData) longGapOf(s setting, m string) longGap {
	e := d.long.nll[cellKey{setting: s, method: exactMethod}]
	v := d.long.nll[cellKey{setting: s, method: m}]
	if !e.ok || !v.ok {
		return longGap{}
	}
	return longGap{ok: true, last: v.mean - e.mean,
		tail: tailNLL(d.long.curves[s][m], tailEpochs) - tailNLL(d.long.curves[s][exactMethod], tailEpochs)}
}

// longClaim checks on every setting of the longer budget that longRef's
// gap to exact learning is at most the better of longRivals', at the last
// epoch and over the last tailEpochs epochs, naming where it is not and by
// how much.
func (d *hiddenData) longClaim() string {
	var checked, heldLast, heldTail int
	var notes []string
	for _, s := range learnSettings(d.long) {
		r := d.longGapOf(s, longRef)
		if !r.ok {
			continue
		}
		last, tail := longGap{last: math.Inf(1), tail: math.Inf(1)}, longGap{last: math.Inf(1), tail: math.Inf(1)}
		var lastBy, tailBy string
		for _, m := range longRivals {
			g := d.longGapOf(s, m)
			if !g.ok {
				continue
			}
			if g.last < last.last {
				last.last, lastBy = g.last, m
			}
			if g.tail < tail.tail {
				tail.tail, tailBy = g.tail, m
			}
		}
		if lastBy == "" {
			continue
		}
		checked++
		var worse []string
		if r.last <= last.last+gapTol {
			heldLast++
		} else {
			worse = append(worse, fmt.Sprintf("last epoch %+.3f against %s's %+.3f (%.3f nats worse)", r.last, lastBy, last.last, r.last-last.last))
		}
		switch {
		case tailBy == "" || math.IsNaN(r.tail) || math.IsNaN(tail.tail):
			worse = append(worse, fmt.Sprintf("mean of the last %d epochs not comparable", tailEpochs))
		case r.tail <= tail.tail+gapTol:
			heldTail++
		default:
			worse = append(worse, fmt.Sprintf("mean of the last %d epochs %+.3f against %s's %+.3f (%.3f nats worse)", tailEpochs, r.tail, tailBy, tail.tail, r.tail-tail.tail))
		}
		if len(worse) > 0 {
			notes = append(notes, fmt.Sprintf("%s: %s", s, strings.Join(worse, ", ")))
		}
	}
	rivals := strings.Join(longRivals, "'s and ") + "'s"
	if checked == 0 {
		return fmt.Sprintf("**Longer budget:** %s against %s: no setting has both yet.", longRef, rivals)
	}
	out := fmt.Sprintf("**Longer budget:** %s's gap to exact learning is at most the better of %s (within %g nats, the tables' precision) on **%d of %d** settings at the last epoch and on **%d of %d** in the mean of the last %d epochs.",
		longRef, rivals, gapTol, heldLast, checked, heldTail, checked, tailEpochs)
	if len(notes) > 0 {
		out += " Where it is not: " + strings.Join(notes, "; ") + "."
	}
	return out
}

// wallClaim checks ref's gap (last epoch; its runs in refData) against
// PCD's at ref's wall time (its runs in pcdData) on every setting of
// refData with both, the gaps taken to exact learning in refData; "" when
// none has. tail > 0 adds, where ref's gap is the larger, its gap over its
// last tail epochs.
func wallClaim(refData, pcdData *learnData, ref string, tail int) string {
	var held, checked int
	var notes, unfinished []string
	for _, s := range learnSettings(refData) {
		p, ok := atWallTime(refData, pcdData, s, ref)
		e := refData.nll[cellKey{setting: s, method: exactMethod}]
		r := refData.nll[cellKey{setting: s, method: ref}]
		if !ok || !e.ok || !r.ok {
			continue
		}
		if len(p.epochs) == 0 {
			unfinished = append(unfinished, s.String())
			continue
		}
		checked++
		rg, pg := r.mean-e.mean, p.nll-e.mean
		if rg <= pg+gapTol {
			held++
			continue
		}
		note := fmt.Sprintf("%s: %s against %s (%.3f nats worse", s, gapText(r.mean, e.mean), gapText(p.nll, e.mean), rg-pg)
		if tail > 0 {
			curves := refData.curves[s]
			note += fmt.Sprintf("; %s's gap over its last %d epochs %s", ref, tail, gapText(tailNLL(curves[ref], tail), tailNLL(curves[exactMethod], tail)))
		}
		notes = append(notes, note+")")
	}
	out := ""
	if checked > 0 {
		out = fmt.Sprintf(" At equal wall time, %s's gap (last epoch) is at most %s's at %s's wall time (within %g nats) on **%d of %d** settings.", ref, pcdMethod, ref, gapTol, held, checked)
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
			caption: "Hidden variables, longer budget with the exact clamped phase (subsection \"Longer budget, exact clamped phase\"): test NLL per sample of the visible test data after each epoch; the dashed reference is the true model's.",
			fig:     learningFigure(d.long)})
	}
	return out
}
