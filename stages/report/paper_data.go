package report

// What the paper's tables read: the summaries of their score stages and
// the curves of their learn-mrf stages, into a section's data.

import (
	"fmt"
	"math"
	"slices"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
)

// paperData is the paper's stages' outputs.
type paperData struct {
	s     *section
	fams  map[string]*family // the score stages' summaries, by stage
	learn *part              // the learn-mrf stages
}

// readPaper reads the score stages and learn-mrf stages the tables of
// paper name (optional learning stages where the config has them).
func readPaper(paper *Paper, p *plan) (*paperData, error) {
	d := &paperData{s: &section{spec: &sectionSpec{}, data: &dataset{}, plan: p}, fams: map[string]*family{}, learn: &part{prefix: "learn"}}
	for i := range paper.Tables {
		t := &paper.Tables[i]
		for _, st := range t.OptionalSources {
			if len(p.of(st)) > 0 {
				t.Sources = append(t.Sources, st)
			}
		}
	}
	scoreStages, learnStages := paper.stages()
	pt := &part{prefix: "paper"}
	for _, stage := range scoreStages {
		insts := p.of(stage)
		if len(insts) == 0 {
			return nil, fmt.Errorf("the pipeline config has no stage %q", stage)
		}
		fam := &family{Name: stage, Stage: stage}
		for _, inst := range insts {
			ok, err := d.s.readSummary(pt, fam, inst)
			if err != nil {
				return nil, err
			}
			fam.Present = fam.Present || ok
		}
		d.fams[stage] = fam
	}
	if len(learnStages) > 0 {
		r := &learnReader{d: d.s.data, plan: p}
		if err := r.read(d.learn, learnStages); err != nil {
			return nil, err
		}
	}
	d.s.data.sortMethods()
	return d, nil
}

// stages are the score and learn-mrf stages of the tables, in order of
// first use (so errors come out the same way every run), the plotted
// score stages last.
func (paper *Paper) stages() (score, learn []string) {
	add := func(list *[]string, s string) {
		if !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	for _, t := range paper.Tables {
		for _, c := range t.Columns {
			if t.Kind == KindInference {
				add(&score, t.columnSource(c))
			}
		}
		for _, s := range t.Sources {
			add(&learn, s)
		}
	}
	for _, s := range paper.PlotSources {
		add(&score, s)
	}
	return score, learn
}

// stat is one of our numbers: mean ± population std over n models.
type stat struct {
	ok        bool
	mean, std float64
	n         int
}

func statOf(xs []float64) stat {
	if len(xs) == 0 {
		return stat{}
	}
	s := metrics.Summarize(xs)
	return stat{ok: true, mean: s.Mean, std: s.Std, n: s.N}
}

// summary is our number of metric of method on a setting, from the
// summary of a score stage.
func (d *paperData) summary(stage string, r Row, method, metric string) stat {
	g := d.s.data.byKey[stage+"|"+paperSetting(r.Graph, r.Size, r.Gamma).key]
	if g == nil || d.fams[stage] == nil {
		return stat{}
	}
	for _, o := range d.s.data.find(g, "", method) {
		if v, ok := o.num[metric]; ok {
			return stat{ok: !math.IsNaN(v), mean: v, std: o.num[metric+"_std"], n: int(o.num[metric+"_n"])}
		}
	}
	return stat{}
}

// learned is a fact (nll, epoch_seconds) of method's learning runs on a
// setting, over its models.
func (d *paperData) learned(r Row, method, fact string) stat {
	g := d.s.data.byKey[paperSetting(r.Graph, r.Size, r.Gamma).key]
	if g == nil {
		return stat{}
	}
	var xs []float64
	for _, o := range d.s.data.find(g, "", method) {
		if v, ok := o.num[fact]; ok && o.part == d.learn.prefix {
			xs = append(xs, v)
		}
	}
	return statOf(xs)
}

// figures draws the figures of paper: plots against graph size of the plot
// sources' summaries (score.SizePanels), and the learning curves.
func (d *paperData) figures(paper *Paper) ([]figureFile, error) {
	var cols []string
	var rows []formats.SummaryRow
	for _, st := range paper.PlotSources {
		f := d.fams[st]
		if f == nil || !f.Present {
			continue
		}
		if cols != nil && !slices.Equal(cols, f.cols) {
			return nil, fmt.Errorf("%s: group columns %v differ from the other plotted summaries' %v", f.path, f.cols, cols)
		}
		cols, rows = f.cols, append(rows, f.rows...)
	}
	d.s.spec.Order = "paper"
	d.s.sortSettings()
	var out []figureFile
	for _, fs := range paper.Figures {
		var fig score.Figure
		if fs.Plot == "" {
			fig = d.s.learningFigure(d.learn.prefix)
		}
		for _, sp := range score.SizePlots {
			if fs.Plot != "" && sp.Metric == fs.Plot && len(rows) > 0 {
				panels, err := score.SizePanels(cols, rows, fs.Plot, sp.LogY)
				if err != nil {
					return nil, err
				}
				fig.Panels = panels
			}
		}
		if len(fig.Panels) > 0 {
			out = append(out, figureFile{file: fs.File, title: fs.Title, caption: fs.Caption, fig: fig})
		}
	}
	return out, nil
}
