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

// hiddenData is what the section shows.
type hiddenData struct {
	stages []string   // the learn-mrf stages, in plan order
	learn  *learnData // nil when there are none
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
		if len(st.Run) > 0 && st.Run[0] == "learn-mrf" && !slices.Contains(d.stages, st.Name) {
			d.stages = append(d.stages, st.Name)
		}
	}
	var err error
	if d.rt, err = ReadRunTime(plan); err != nil {
		return nil, err
	}
	if binDir != "" {
		d.statusErr = d.rt.addStatus(plan, binDir)
	}
	if len(d.stages) == 0 {
		return d, nil
	}
	if d.learn, err = readLearning(plan, d.stages); err != nil {
		return nil, err
	}
	for _, inst := range plan.Instances {
		for _, in := range inst.Inputs {
			if in.Flag == "models" && slices.Contains(d.stages, inst.Stage.Name) {
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
func (d *hiddenData) settings() []setting {
	var out []setting
	for s := range d.learn.curves {
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].less(out[b]) })
	return out
}

// methodsOf are the methods learned on s, in registry order.
func (d *hiddenData) methodsOf(s setting) []string {
	var out []string
	for m := range d.learn.curves[s] {
		out = append(out, m)
	}
	sort.Slice(out, func(a, b int) bool { return methodLess(out[a], out[b]) })
	return out
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
	if d == nil || len(d.stages) == 0 {
		w("Not run: the config has no %s* learn-mrf stages.\n\n", HiddenPrefix)
		return b.String()
	}
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

// table is the table of one setting.
func (d *hiddenData) table(s setting) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("### %s, %d hidden\n\n", s, d.hidden[s])
	exactLast, exactBest := math.NaN(), math.NaN()
	if c := d.learn.curves[s][exactMethod]; len(c) > 0 {
		exactLast, exactBest = d.learn.nll[cellKey{setting: s, method: exactMethod}].mean, bestNLL(c)
	}
	w("| method | test NLL (last epoch) | gap to exact | test NLL (best epoch) | gap to exact | epochs | s / epoch |\n")
	w("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	if t := d.learn.nll[cellKey{setting: s, method: TrueMethod}]; t.ok {
		w("| true model | %s | | | | | |\n", significant(t.mean, 5))
	}
	for _, m := range d.methodsOf(s) {
		curves := d.learn.curves[s][m]
		last, best := d.learn.nll[cellKey{setting: s, method: m}].mean, bestNLL(curves)
		epochs := 0
		for _, c := range curves {
			epochs = max(epochs, len(c))
		}
		w("| %s | %s | %s | %s | %s | %d | %s |\n", m, significant(last, 5), gapText(last, exactLast), significant(best, 5), gapText(best, exactBest),
			epochs, significant(d.learn.epochSeconds[cellKey{setting: s, method: m}].mean, 3))
	}
	if p, ok := d.atWallTime(s); ok {
		w("\n%s", p.text(exactLast))
	}
	return b.String()
}

// pcdMethod is persistent contrastive divergence, the method practitioners
// use on RBMs; wallRef is the method whose whole run sets the wall time
// at which PCD is compared.
const (
	pcdMethod = "pcd"
	wallRef   = "renn-mp"
)

// hasPCD reports whether pcd has a finished run on some setting.
func (d *hiddenData) hasPCD() bool {
	for k := range d.learn.runs {
		if k.method == pcdMethod {
			return true
		}
	}
	return false
}

// wallPoint is PCD at wallRef's wall time on one setting.
type wallPoint struct {
	refSeconds float64 // mean over the models of wallRef's summed epoch seconds
	nll        float64 // mean test NLL over the models where PCD had finished an epoch by then
	epochs     []int   // per such model, the epochs PCD had finished
	whole      int     // of them, models whose whole PCD run ended within the time
	models     int     // models with both runs
	unfinished int     // of them, those where PCD had not finished an epoch by then
}

// atWallTime compares PCD with wallRef at wallRef's wall time on s: for
// every model with both runs, PCD's test NLL at its last epoch whose
// cumulative seconds are at most wallRef's whole run's. ok is false unless
// both methods ran on s.
func (d *hiddenData) atWallTime(s setting) (wallPoint, bool) {
	var p wallPoint
	refs := d.learn.runs[cellKey{setting: s, method: wallRef}]
	pcds := d.learn.runs[cellKey{setting: s, method: pcdMethod}]
	var nlls, secs []float64
	for _, ref := range refs {
		for _, run := range pcds {
			if run.model != ref.model {
				continue
			}
			budget := 0.0
			for _, v := range ref.seconds {
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
	head := fmt.Sprintf("**%s at %s's wall time** (%s s, %s's whole run", pcdMethod, wallRef, significant(p.refSeconds, 3), wallRef)
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
	return out + d.wallClaim() + "\n"
}

// wallClaim checks wallRef's gap (last epoch) against PCD's at wallRef's
// wall time on every setting with both; "" when none has.
func (d *hiddenData) wallClaim() string {
	var held, checked int
	var notes, unfinished []string
	for _, s := range d.settings() {
		p, ok := d.atWallTime(s)
		e := d.learn.nll[cellKey{setting: s, method: exactMethod}]
		r := d.learn.nll[cellKey{setting: s, method: wallRef}]
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
		} else {
			notes = append(notes, fmt.Sprintf("%s: %s against %s (%.3f nats worse)", s, gapText(r.mean, e.mean), gapText(p.nll, e.mean), rg-pg))
		}
	}
	out := ""
	if checked > 0 {
		out = fmt.Sprintf(" At equal wall time, %s's gap (last epoch) is at most %s's at %s's wall time (within %g nats) on **%d of %d** settings.", wallRef, pcdMethod, wallRef, gapTol, held, checked)
		if len(notes) > 0 {
			out += " Where it is not: " + strings.Join(notes, "; ") + "."
		}
	}
	if len(unfinished) > 0 {
		out += fmt.Sprintf(" On %s, %s had not finished an epoch within %s's wall time.", strings.Join(unfinished, ", "), pcdMethod, wallRef)
	}
	return out
}

// figure is the section's learning-curve figure, if any run has finished.
func (d *hiddenData) figure() (figureFile, bool) {
	if d == nil || d.learn == nil || len(d.learn.curves) == 0 {
		return figureFile{}, false
	}
	return figureFile{file: HiddenCurvesPlot, title: "hidden-variable learning curves",
		caption: "Hidden variables (section \"Beyond the paper: hidden variables\"): test NLL per sample of the visible test data after each epoch; the dashed reference is the true model's.",
		fig:     learningFigure(d.learn)}, true
}
