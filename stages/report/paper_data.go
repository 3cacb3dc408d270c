package report

// What the paper's tables read: the summaries of their score stages and
// the curves of their learn-mrf stages, into a section's data.

import (
	_ "embed"
	"fmt"
	"slices"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// discussionTOML is the discussion: its text, whose counts are claims
// over the paper's tables filled with our numbers (rules.go).
//
//go:embed discussion.toml
var discussionTOML []byte

// paperData is the paper's stages' outputs: a part per score stage (its
// summary), part learnPart (the learn-mrf stages' runs), and a part per
// paper table (the paper's numbers, a run per column).
type paperData struct {
	s     *section
	fams  map[string]*family // the score stages' summaries, by stage
	learn *part              // the learn-mrf stages
}

// learnPart is the part of the paper's learning runs.
const learnPart = "learn"

// readPaper reads the score stages and learn-mrf stages the tables of
// paper name (optional learning stages where the config has them).
func readPaper(paper *Paper, p *plan) (*paperData, error) {
	spec := &sectionSpec{Title: "paper", Order: "paper"}
	if err := decode("discussion.toml", discussionTOML, spec); err != nil {
		return nil, err
	}
	if err := checkRules(spec.Claims); err != nil {
		return nil, fmt.Errorf("discussion.toml: %w", err)
	}
	for i := range paper.Tables {
		spec.Tables = append(spec.Tables, paper.Tables[i].spec())
	}
	s, err := prepare(spec, &dataset{})
	if err != nil {
		return nil, err
	}
	s.plan = p
	d := &paperData{s: s, fams: map[string]*family{}, learn: newPart(learnPart)}
	for i := range paper.Tables {
		t := &paper.Tables[i]
		for _, st := range t.OptionalSources {
			if len(p.of(st)) > 0 {
				t.Sources = append(t.Sources, st)
			}
		}
	}
	scoreStages, learnStages := paper.stages()
	for _, stage := range scoreStages {
		insts := p.of(stage)
		if len(insts) == 0 {
			return nil, fmt.Errorf("the pipeline config has no stage %q", stage)
		}
		fam := &family{Name: stage, Stage: stage}
		for _, inst := range insts {
			ok, err := d.s.reader().ReadSummary(&newPart(stage).Progress, fam, inst, "")
			if err != nil {
				return nil, err
			}
			fam.Present = fam.Present || ok
		}
		d.fams[stage] = fam
	}
	if len(learnStages) > 0 {
		if err := d.s.reader().ReadLearning(&d.learn.Progress, learnStages); err != nil {
			return nil, err
		}
	}
	d.addPaper(paper)
	d.s.data.SortMethods()
	return d, nil
}

// addPaper adds the paper's numbers: a run per column of each table, its
// text a fact named by the row's metric.
func (d *paperData) addPaper(paper *Paper) {
	for _, t := range paper.Tables {
		for _, r := range t.Rows {
			g := d.s.data.Setting(r.setting(), func() *group { return outputs.SettingOf(r.Graph, r.Size, r.Gamma) })
			for j, c := range t.Columns {
				if r.values[j].OK {
					d.s.data.Add(outputs.NewFact(paperPart(t.Number), "", g, "", c.Name)).Text[t.factOf(r)] = r.values[j].Text
				}
			}
		}
	}
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
		if cols != nil && !slices.Equal(cols, f.Cols) {
			return nil, fmt.Errorf("%s: group columns %v differ from the other plotted summaries' %v", f.Path, f.Cols, cols)
		}
		cols, rows = f.Cols, append(rows, f.Rows...)
	}
	d.s.spec.Order = "paper"
	d.s.sortSettings()
	var out []figureFile
	for _, fs := range paper.Figures {
		var fig score.Figure
		if fs.Plot == "" {
			fig = d.s.learningFigure(d.learn.Prefix)
		}
		for _, sp := range score.SizePlots() {
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
