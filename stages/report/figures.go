package report

import (
	"fmt"
	"slices"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/score"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// figureSpec declares a figure: the learning curves of a part's runs, a
// panel per setting; or (Plot) a metric of the summaries of the section's
// plot sources against graph size.
type figureSpec struct {
	File, Title, Caption string
	Part, Plot           string
}

// figureFile is a figure to write, and where the report links it.
type figureFile struct {
	figureSpec
	fig  score.Figure
	Link string
}

// figures are the section's figures that have something to draw.
func (s *section) figures() ([]figureFile, error) {
	var out []figureFile
	for _, f := range s.spec.Figures {
		var fig score.Figure
		var err error
		if f.Plot != "" {
			fig, err = s.sizeFigure(f.Plot)
		} else {
			fig = s.learningFigure(f.Part)
		}
		if err != nil {
			return nil, err
		}
		if len(fig.Panels) > 0 {
			out = append(out, figureFile{figureSpec: f, fig: fig})
		}
	}
	return out, nil
}

// sizeFigure plots metric against graph size from the summaries of the
// plot sources that have run (score.SizePanels).
func (s *section) sizeFigure(metric string) (score.Figure, error) {
	var cols []string
	var rows []formats.SummaryRow
	for _, st := range s.spec.PlotSources {
		f := s.family(st)
		if f == nil || !f.Present {
			continue
		}
		if cols != nil && !slices.Equal(cols, f.Cols) {
			return score.Figure{}, fmt.Errorf("%s: group columns %v differ from the other plotted summaries' %v", f.Path, f.Cols, cols)
		}
		cols, rows = f.Cols, append(rows, f.Rows...)
	}
	i := slices.IndexFunc(score.SizePlots(), func(sp score.SizePlot) bool { return sp.Metric == metric })
	if i < 0 || len(rows) == 0 {
		return score.Figure{}, nil
	}
	panels, err := score.SizePanels(cols, rows, metric, score.SizePlots()[i].LogY)
	return score.Figure{Panels: panels}, err
}

// learningFigure draws the mean test NLL per epoch of every method of
// part, a panel per setting, with the true model's as a dashed line.
func (s *section) learningFigure(part string) score.Figure {
	var fig score.Figure
	for _, g := range s.settingsOf(&tableSpec{Parts: []string{part}}) {
		panel := score.Panel{Title: g.Label, XLabel: "epoch", YLabel: "test NLL"}
		epochs := 0
		for _, m := range s.methodsOf(nil, "", []string{part}) {
			runs := s.data.Runs(part, g, m)
			if len(runs) == 0 {
				continue
			}
			var curves [][]float64
			for _, r := range runs {
				curves = append(curves, r.NLL)
			}
			curve := metrics.MeanCurve(curves)
			epochs = max(epochs, len(curve))
			ser := score.Series{Name: m}
			for e, v := range curve {
				ser.X, ser.Y = append(ser.X, float64(e+1)), append(ser.Y, v)
			}
			panel.Series = append(panel.Series, ser)
		}
		if t, ok := outputs.Aggregate(s.data.FindIn([]string{part}, g, "", outputs.TrueMethod), "nll", "mean"); ok && epochs > 0 {
			panel.Series = append(panel.Series, score.Series{Name: outputs.TrueModel, Dashed: true, X: []float64{1, float64(epochs)}, Y: []float64{t, t}})
		}
		fig.Panels = append(fig.Panels, panel)
	}
	return fig
}
