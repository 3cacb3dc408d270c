// Package report writes REPORT.md: every table of the RENN paper rerun by
// the pipeline of pipeline.paper.toml, our numbers next to the paper's,
// with plots, the machine and run time, and a discussion whose numbers are
// computed from the tables.
//
// The paper's numbers are transcribed in paper.toml (embedded), with, for
// each table, the pipeline stages our numbers come from: score stages for
// the inference tables (summary.parquet, grouped by graph, size and gamma),
// learn-mrf stages for the learning tables (curves.parquet, with the
// samples of their input for the true model's NLL). Stages that have not
// run yet show as "not run", so a report can be written at any point of a
// long run.
package report

import (
	"errors"
	"fmt"
	"github.com/renn-go/renn/core/methods"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/score"
)

// Params are the report parameters.
type Params struct {
	Config string // the pipeline config that ran the paper's experiments
	Out    string // the Markdown file to write
	// Assets is the directory the figures are written to; a relative path
	// is relative to the directory of Out, and the Markdown links to them
	// relative to Out.
	Assets string
	// BinDir holds the stage binaries, to say which outputs are stale;
	// empty skips the check.
	BinDir string
	// Command is how the report was made, printed at its top.
	Command string
	// Amortized, when set, is the pipeline config of the family networks
	// (pipeline.amortize.toml): the report then has the section "Beyond
	// the paper: amortized inference" from its amortized_* score stages.
	Amortized string
	// AnyModel, when set, is the pipeline config of auto against the
	// single methods (pipeline.anymodel.toml): the report then has the
	// section "Any model, within a budget" from its score_budget* stages.
	AnyModel string
}

// extraSections are the sections the report includes from other configs,
// in Markdown; empty when not asked for.
type extraSections struct {
	amortized, anyModel string
}

// Figure files written into the assets directory.
const LearningCurvesPlot = "learning_curves.png"

// Run reads the pipeline's outputs and writes the report and its figures.
func Run(p Params) error {
	if p.Config == "" || p.Out == "" {
		return errors.New("need a pipeline config and an output file")
	}
	paper, err := PaperTables()
	if err != nil {
		return err
	}
	plan, err := pipeline.Load(p.Config)
	if err != nil {
		return err
	}
	// Optional learning stages count where the config has them.
	for i := range paper.Tables {
		t := &paper.Tables[i]
		for _, s := range t.OptionalSources {
			if len(instancesOf(plan, s)) > 0 {
				t.Sources = append(t.Sources, s)
			}
		}
	}
	// Score stages in order of first use, so errors come out the same way
	// every run.
	var scoreStages, learnStages []string
	for _, t := range paper.Tables {
		for _, c := range t.Columns {
			if s := t.columnSource(c); t.Kind == KindInference && !slices.Contains(scoreStages, s) {
				scoreStages = append(scoreStages, s)
			}
		}
		for _, s := range t.Sources {
			if !slices.Contains(learnStages, s) {
				learnStages = append(learnStages, s)
			}
		}
	}
	for _, s := range paper.PlotSources {
		if !slices.Contains(scoreStages, s) {
			scoreStages = append(scoreStages, s)
		}
	}
	sums := map[string]*summaryData{}
	for _, stage := range scoreStages {
		if sums[stage], err = readSummary(plan, stage); err != nil {
			return err
		}
	}
	var learn *learnData
	if len(learnStages) > 0 {
		if learn, err = readLearning(plan, learnStages); err != nil {
			return err
		}
	}
	// The hard-models and UAI-models stages are not the paper's: their run
	// time is reported in their own sections.
	paperPlan, hardPlan := splitHard(plan)
	hard, err := readHard(hardPlan, p.BinDir)
	if err != nil {
		return err
	}
	paperPlan, uaiPlan := splitPrefix(paperPlan, UAIPrefix)
	uai, err := readUAI(uaiPlan, p.BinDir)
	if err != nil {
		return err
	}
	paperPlan, hiddenPlan := splitPrefix(paperPlan, HiddenPrefix)
	hidden, err := readHidden(hiddenPlan, p.BinDir)
	if err != nil {
		return err
	}
	paperPlan, boundsPlan := splitPrefix(paperPlan, BoundsPrefix)
	if hard.bounds, err = readBounds(boundsPlan, p.BinDir); err != nil {
		return err
	}
	rt, err := ReadRunTime(paperPlan)
	if err != nil {
		return err
	}
	var extra extraSections
	if p.Amortized != "" {
		if extra.amortized, err = AmortizedSection(AmortizedParams{Config: p.Amortized,
			Command: "go run ./cmd/report --amortized " + p.Amortized, Committed: true}); err != nil {
			return err
		}
	}
	if p.AnyModel != "" {
		if extra.anyModel, err = AnyModelSection(AnyModelParams{Config: p.AnyModel,
			Command: "go run ./cmd/report --anymodel " + p.AnyModel}); err != nil {
			return err
		}
	}
	var statusErr error
	if p.BinDir != "" {
		statusErr = rt.addStatus(paperPlan, p.BinDir)
	}

	rs := results{}
	for i := range paper.Tables {
		t := &paper.Tables[i]
		rs[t.Number] = fill(t, sums, learn)
	}

	outDir := filepath.Dir(p.Out)
	assets := p.Assets
	if assets == "" {
		assets = "report"
	}
	if !filepath.IsAbs(assets) {
		assets = filepath.Join(outDir, assets)
	}
	figs, err := figures(paper, sums, learn)
	if err != nil {
		return err
	}
	figs = append(figs, hidden.figures()...)
	var written []figureFile
	if len(figs) > 0 {
		if err := os.MkdirAll(assets, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", assets, err)
		}
	}
	for _, f := range figs {
		path := filepath.Join(assets, f.file)
		if err := f.fig.WritePNG(path); err != nil {
			return err
		}
		rel, err := filepath.Rel(outDir, path)
		if err != nil {
			rel = path
		}
		f.link = filepath.ToSlash(rel)
		written = append(written, f)
	}

	doc := document(p, paper, rs, sums, hard, uai, extra, hidden, rt, statusErr, ThisMachine(), written)
	return writeFile(p.Out, doc)
}

type figureFile struct {
	file, title, caption string
	fig                  score.Figure
	link                 string
}

// figures draws the plots of the report: the inference metrics against
// graph size from the plot sources, and the learning curves.
func figures(paper *Paper, sums map[string]*summaryData, learn *learnData) ([]figureFile, error) {
	var cols []string
	var rows []formats.SummaryRow
	for _, s := range paper.PlotSources {
		d := sums[s]
		if d == nil || !d.present {
			continue
		}
		if cols != nil && !slices.Equal(cols, d.groupCols) {
			return nil, fmt.Errorf("%s: group columns %v differ from the other plotted summaries' %v", d.path, d.groupCols, cols)
		}
		cols = d.groupCols
		rows = append(rows, d.rows...)
	}
	var out []figureFile
	if len(rows) > 0 {
		captions := map[string]string{
			score.L1Plot:      "ℓ1 error of the marginals against the number of variables (mean over the models of each setting).",
			score.LogZPlot:    "|log Z error| against the number of variables (log scale).",
			score.SecondsPlot: "Seconds per model against the number of variables (log scale; one core each).",
		}
		for _, sp := range score.SizePlots {
			panels, err := score.SizePanels(cols, rows, sp.Metric, sp.LogY)
			if err != nil {
				return nil, err
			}
			if len(panels) == 0 {
				continue
			}
			out = append(out, figureFile{file: sp.File, title: sp.Metric, caption: captions[sp.File], fig: score.Figure{Panels: panels}})
		}
	}
	if learn != nil && len(learn.curves) > 0 {
		out = append(out, figureFile{file: LearningCurvesPlot, title: "learning curves",
			caption: "Test NLL per sample after each learning epoch, mean over the models of each setting (a model that stopped early keeps its last value); the dashed reference is the true model's.",
			fig:     learningFigure(learn)})
	}
	return out, nil
}

// methodLess orders the methods of the learning curves as the registry does.
func methodLess(a, b string) bool { return methods.Compare(a, b) < 0 }

// learningFigure draws the mean test NLL per epoch of every method, a
// panel per setting.
func learningFigure(d *learnData) score.Figure {
	var settings []setting
	for s := range d.curves {
		settings = append(settings, s)
	}
	sort.Slice(settings, func(a, b int) bool { return settings[a].less(settings[b]) })
	var fig score.Figure
	for _, s := range settings {
		panel := score.Panel{Title: s.String(), XLabel: "epoch", YLabel: "test NLL"}
		var methods []string
		for m := range d.curves[s] {
			methods = append(methods, m)
		}
		sort.Slice(methods, func(a, b int) bool { return methodLess(methods[a], methods[b]) })
		epochs := 0
		for _, m := range methods {
			curve := meanCurve(d.curves[s][m])
			epochs = max(epochs, len(curve))
			ser := score.Series{Name: m}
			for e, v := range curve {
				ser.X = append(ser.X, float64(e+1))
				ser.Y = append(ser.Y, v)
			}
			panel.Series = append(panel.Series, ser)
		}
		if xs := d.trueNLL[s]; len(xs) > 0 && epochs > 0 {
			t := statOf(xs).mean
			panel.Series = append(panel.Series, score.Series{Name: "true model", Dashed: true, X: []float64{1, float64(epochs)}, Y: []float64{t, t}})
		}
		fig.Panels = append(fig.Panels, panel)
	}
	return fig
}

// meanCurve averages curves of different lengths, carrying each curve's
// last value forward; NaN entries are skipped.
func meanCurve(curves [][]float64) []float64 {
	n := 0
	for _, c := range curves {
		n = max(n, len(c))
	}
	out := make([]float64, n)
	for e := range out {
		sum, k := 0.0, 0
		for _, c := range curves {
			if len(c) == 0 {
				continue
			}
			v := c[min(e, len(c)-1)]
			if !math.IsNaN(v) {
				sum += v
				k++
			}
		}
		out[e] = math.NaN()
		if k > 0 {
			out[e] = sum / float64(k)
		}
	}
	return out
}

// anchor is the Markdown heading anchor of a table.
func anchor(t *Table) string { return fmt.Sprintf("table-%d", t.Number) }

// document assembles REPORT.md.
func document(p Params, paper *Paper, rs results, sums map[string]*summaryData, hard *hardData, uai *uaiData, extra extraSections, hidden *hiddenData, rt RunTime, statusErr error, m Machine, figs []figureFile) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cmd := p.Command
	if cmd == "" {
		cmd = fmt.Sprintf("go run ./cmd/report --config %s --out %s", p.Config, p.Out)
	}
	w("# The RENN paper, rerun\n\n")
	w("Every table of the paper (Liu, Thobaben, Rasmussen, *Region-based Energy Neural Network for Approximate Inference*) with this project's numbers next to the paper's. ")
	w("Our numbers are read from the outputs of the pipeline `%s`; the paper's are transcribed from its LaTeX source into `stages/report/paper.toml`. Nothing below is typed by hand: the file is regenerated by\n\n", p.Config)
	w("```sh\ngo run ./cmd/pipeline run --config %s   # long: see Run time; resumable\n%s\n```\n\n", p.Config, cmd)
	if rt.Done < rt.Instances {
		w("**This report is partial:** %d of %d stage instances of the pipeline have completed. Cells of stages that have not run say \"not run\".\n\n", rt.Done, rt.Instances)
	}
	switch {
	case statusErr != nil:
		w("(Could not check whether the outputs are current: %v.)\n\n", statusErr)
	case rt.States != nil && len(rt.Stale) > 0:
		w("**Some outputs are stale** (their binary, flags or inputs changed since they ran): %s. Rerun the pipeline to refresh them.\n\n", strings.Join(truncate(rt.Stale, 8), ", "))
	}

	w("## Contents\n\n")
	w("- [Machine and run time](#machine-and-run-time)\n- [Discussion](#discussion)\n")
	for _, t := range paper.Tables {
		w("- [Table %d: %s](#%s)\n", t.Number, captionText(t.Caption), anchor(&t))
	}
	w("- [Beyond the paper: hard models](#%s)\n", HardAnchor)
	w("- [Beyond the paper: UAI models](#%s)\n", UAIAnchor)
	if extra.amortized != "" {
		w("- [Beyond the paper: amortized inference](#%s)\n", AmortizedAnchor)
	}
	if extra.anyModel != "" {
		w("- [Any model, within a budget](#%s)\n", AnyModelAnchor)
	}
	w("- [Beyond the paper: hidden variables](#%s)\n", HiddenAnchor)
	if len(figs) > 0 {
		w("- [Plots](#plots)\n")
	}
	w("\n")

	w("## Machine and run time\n\n")
	w("| | |\n|---|---|\n")
	w("| CPU | %s |\n| logical CPUs | %d |\n| memory | %.1f GB |\n| Go | %s (%s/%s) |\n", orUnknown(m.CPU), m.CPUs, m.MemoryGB, m.Go, m.OS, m.Arch)
	w("\nThis is the machine the report was written on; the pipeline's stamps do not record the machine, so run both on the same one.\n\n")
	if rt.Done > 0 {
		w("Completed instances: %d of %d. Summed run time of the completed stage instances: **%s** (each on one core). Wall time while the pipeline was running: **%s** (`pipeline run` runs up to one instance per CPU at once).\n\n",
			rt.Done, rt.Instances, formatDuration(rt.Seconds), formatDuration(rt.Busy()))
		if len(rt.Parts) > 1 {
			w("The run was done in %d parts (stretches of time in which some instance ran; the pauses between them are not counted above, nor is the time of instances interrupted before they finished):\n\n", len(rt.Parts))
			w("| part | from (UTC) | to (UTC) | wall time | instances | summed time |\n|---|---|---|---:|---:|---:|\n")
			for i, pt := range rt.Parts {
				w("| %d | %s | %s | %s | %d | %s |\n", i+1, pt.Start.UTC().Format(time.DateTime), pt.End.UTC().Format(time.DateTime),
					formatDuration(pt.Wall()), pt.Instances, formatDuration(pt.Seconds))
			}
			w("\n")
		} else {
			w("It ran from %s to %s (UTC).\n\n", rt.First.UTC().Format(time.DateTime), rt.Last.UTC().Format(time.DateTime))
		}
	} else {
		w("No stage instance has completed yet.\n\n")
	}
	if rt.States != nil {
		w("Pipeline status: %d up to date, %d stale, %d missing.\n\n", rt.States["up to date"], rt.States["stale"], rt.States["missing"])
	}
	w("| stage | instances done | summed time | longest instance |\n|---|---:|---:|---:|\n")
	for _, st := range rt.Stages {
		w("| %s | %d / %d | %s | %s |\n", st.Stage, st.Done, st.Instances, formatDuration(st.Seconds), formatDuration(st.Max))
	}
	w("\n")

	w("## Discussion\n\n")
	w("The prose is fixed; every count and number in it is computed from the tables below. \"k of n settings\" counts the rows (metric x setting) where the claim holds among those where every method compared has a number.\n\n")
	w("%s\n", discussion(rs, sums))

	for i := range paper.Tables {
		t := &paper.Tables[i]
		res := rs[t.Number]
		w("<a id=\"%s\"></a>\n\n## Table %d: %s\n\n", anchor(t), t.Number, captionText(t.Caption))
		w("Paper label `%s`. ", t.Label)
		switch t.Kind {
		case KindInference:
			var stages []string
			for _, c := range t.Columns {
				if s := t.columnSource(c); !slices.Contains(stages, s) {
					stages = append(stages, s)
				}
			}
			w("Ours from stage %s.\n\n", quoteJoin(stages))
		default:
			w("Ours from stages %s.\n\n", quoteJoin(t.Sources))
		}
		w("%s\n", res.markdown())
		for _, n := range res.notes() {
			w("%s\n\n", n)
		}
	}

	w("%s", hard.markdown())
	w("%s", uai.markdown())
	if extra.amortized != "" {
		w("<a id=\"%s\"></a>\n\n%s", AmortizedAnchor, extra.amortized)
	}
	if extra.anyModel != "" {
		w("<a id=\"%s\"></a>\n\n%s\n", AnyModelAnchor, extra.anyModel)
	}
	w("%s", hidden.markdown())

	if len(figs) > 0 {
		w("## Plots\n\n")
		for _, f := range figs {
			w("%s\n\n![%s](%s)\n\n", f.caption, f.title, f.link)
		}
	}
	return b.String()
}

func quoteJoin(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

func truncate(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(append([]string(nil), xs[:n]...), fmt.Sprintf("and %d more", len(xs)-n))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// writeFile writes text to path through a temporary file in the same
// directory, so a reader never sees half a report.
func writeFile(path, text string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.WriteString(text)
	if werr == nil {
		werr = f.Chmod(0o644)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}
