package score

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/renn-go/renn/core/methods"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
)

// Plot files written beside the summary with Params.Plots: the mean of a
// metric against the number of variables, one panel per graph and gamma,
// one line per method.
const (
	L1Plot      = "l1_vs_size.png"
	LogZPlot    = "logz_err_vs_size.png"
	SecondsPlot = "seconds_vs_size.png"
)

// SizePlot is one plot of Params.Plots: file name, metric, and whether the
// y axis is logarithmic.
type SizePlot struct {
	File   string
	Metric string
	LogY   bool
}

// SizePlots returns the plots of Params.Plots. log Z errors and seconds
// span orders of magnitude across methods, so they are drawn on log axes.
func SizePlots() []SizePlot {
	return []SizePlot{
		{L1Plot, metrics.L1, false},
		{LogZPlot, metrics.LogZErr, true},
		{SecondsPlot, Seconds, true},
	}
}

// Series is one line of a panel: a method's values against x.
type Series struct {
	Name   string
	X, Y   []float64
	Dashed bool // a reference line rather than a method
}

// Panel is one plot of a figure.
type Panel struct {
	Title          string
	XLabel, YLabel string
	LogY           bool // points with y <= 0 cannot be drawn and are left out
	ZeroY          bool // a linear y axis starts at 0 (errors); otherwise it fits the data
	Series         []Series
}

// Figure is a set of panels tiled in rows of Cols (<= 0: up to 3), with one
// legend for all of them on the right. A series name keeps its colour and
// marker in every panel, and the paper's methods keep theirs in every
// figure; a dashed series is drawn in grey.
type Figure struct {
	Panels []Panel
	Cols   int
}

// SizePanels returns the panels of one metric from summary rows: the mean
// of the metric against the number of variables, a panel per value of the
// other group columns (graph, gamma) and a line per method. groupCols are
// the group columns of the rows and must include "size". Settings whose
// mean is not finite are left out.
func SizePanels(groupCols []string, rows []formats.SummaryRow, metric string, logY bool) ([]Panel, error) {
	sizeCol := slices.Index(groupCols, "size")
	if sizeCol < 0 {
		return nil, fmt.Errorf("plots against size need the size group column (have %s)", strings.Join(groupCols, ", "))
	}
	type key struct{ panel, method string }
	type point struct{ x, y float64 }
	points := map[key][]point{}
	var panels []string
	panelVals := map[string][]string{}
	for _, r := range rows {
		if r.Metric != metric {
			continue
		}
		if len(r.Group) != len(groupCols) {
			return nil, fmt.Errorf("summary row of %s %s has %d group values for %d group columns", r.Method, r.Metric, len(r.Group), len(groupCols))
		}
		x, err := strconv.ParseFloat(r.Group[sizeCol], 64)
		if err != nil {
			return nil, fmt.Errorf("summary row of %s %s: size %q is not a number", r.Method, r.Metric, r.Group[sizeCol])
		}
		var rest []string
		for k, v := range r.Group {
			if k != sizeCol {
				rest = append(rest, v)
			}
		}
		pk := strings.Join(rest, "\x00")
		if _, ok := panelVals[pk]; !ok {
			panelVals[pk] = rest
			panels = append(panels, pk)
		}
		if math.IsNaN(r.Mean) || math.IsInf(r.Mean, 0) {
			continue
		}
		k := key{pk, r.Method}
		points[k] = append(points[k], point{x, r.Mean})
	}
	var otherCols []string
	for k, c := range groupCols {
		if k != sizeCol {
			otherCols = append(otherCols, c)
		}
	}
	sort.Slice(panels, func(a, b int) bool { return groupLess(otherCols, panelVals[panels[a]], panelVals[panels[b]]) })
	var methods []string
	for k := range points {
		if !slices.Contains(methods, k.method) {
			methods = append(methods, k.method)
		}
	}
	sort.Slice(methods, func(a, b int) bool { return methodLess(methods[a], methods[b]) })
	out := make([]Panel, 0, len(panels))
	for _, pk := range panels {
		p := Panel{Title: panelTitle(otherCols, panelVals[pk]), XLabel: "variables n", YLabel: metricLabel(metric), LogY: logY, ZeroY: true}
		for _, m := range methods {
			pts := points[key{pk, m}]
			if len(pts) == 0 {
				continue
			}
			sort.Slice(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
			s := Series{Name: m}
			for _, q := range pts {
				s.X, s.Y = append(s.X, q.x), append(s.Y, q.y)
			}
			p.Series = append(p.Series, s)
		}
		out = append(out, p)
	}
	return out, nil
}

// groupLess orders panels as the summary orders settings: graph by name,
// gamma numerically.
func groupLess(cols, a, b []string) bool {
	for k, c := range cols {
		if a[k] == b[k] {
			continue
		}
		if c == "gamma" || c == "size" {
			x, errx := strconv.ParseFloat(a[k], 64)
			y, erry := strconv.ParseFloat(b[k], 64)
			if errx == nil && erry == nil {
				return x < y
			}
		}
		return a[k] < b[k]
	}
	return false
}

func panelTitle(cols, vals []string) string {
	var parts []string
	for k, c := range cols {
		switch c {
		case "graph":
			parts = append(parts, vals[k])
		case "gamma":
			if vals[k] != "" { // imported models have no gamma
				parts = append(parts, "γ = "+vals[k])
			}
		default:
			parts = append(parts, c+" = "+vals[k])
		}
	}
	if len(parts) == 0 {
		return "all models"
	}
	return strings.Join(parts, ", ")
}

// metricLabel is the y label of a metric. Labels are kept short: gonum/plot
// reserves the unrotated width of the rotated y label above the plot.
func metricLabel(metric string) string {
	switch metric {
	case metrics.L1:
		return "l1 error"
	case metrics.Corr:
		return "correlation"
	case metrics.LogZErr:
		return "log Z error"
	case Seconds:
		return "seconds"
	}
	return metric
}

// palette is the Okabe-Ito set: distinguishable with the common colour
// vision deficiencies.
// Registered methods take them in registry order, so RENN is black.
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{230, 159, 0, 255},   // orange
	{0, 158, 115, 255},   // green
	{204, 121, 167, 255}, // purple
	{213, 94, 0, 255},    // vermillion
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
	{240, 228, 66, 255},  // yellow
}

// dashedColour is the colour of reference lines.
var dashedColour = color.RGBA{110, 110, 110, 255}

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
	draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

// Sizes of one panel and of the legend column.
const (
	panelWidth  = 4.2 * vg.Inch
	panelHeight = 3.2 * vg.Inch
	legendWidth = 1.7 * vg.Inch
	dpi         = 110
)

// EncodePNG draws f and writes it to w as a PNG.
func (f Figure) EncodePNG(w io.Writer) error {
	if err := f.check(); err != nil {
		return err
	}
	cols := f.Cols
	if cols <= 0 {
		cols = min(3, len(f.Panels))
	}
	cols = min(cols, len(f.Panels))
	rows := (len(f.Panels) + cols - 1) / cols
	plots, legend, err := f.panels(rows, cols)
	if err != nil {
		return err
	}
	width := vg.Length(cols)*panelWidth + legendWidth
	height := vg.Length(rows) * panelHeight
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	grid := draw.Crop(dc, 0, -legendWidth, 0, 0)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	if err := drawSafely(func() {
		canvases := plot.Align(plots, tiles, grid)
		for r := range plots {
			for c := range plots[r] {
				if plots[r][c] != nil {
					plots[r][c].Draw(canvases[r][c])
				}
			}
		}
		side := draw.Crop(dc, vg.Length(cols)*panelWidth+vg.Millimeter*3, 0, 0, -vg.Millimeter*8)
		legend.Draw(side)
	}); err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// check reports a figure without panels or with a series of unequal x and
// y lengths.
func (f Figure) check() error {
	if len(f.Panels) == 0 {
		return errors.New("figure has no panels")
	}
	for _, p := range f.Panels {
		for _, s := range p.Series {
			if len(s.X) != len(s.Y) {
				return fmt.Errorf("panel %q: series %q has %d x and %d y values", p.Title, s.Name, len(s.X), len(s.Y))
			}
		}
	}
	return nil
}

// panels builds the plots of f's panels on a rows x cols grid, in reading
// order, and one legend of every series name.
func (f Figure) panels(rows, cols int) ([][]*plot.Plot, *plot.Legend, error) {
	style := f.styles()
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(11)
	inLegend := map[string]bool{}
	for k, p := range f.Panels {
		pl, err := p.plot(style)
		if err != nil {
			return nil, nil, err
		}
		plots[k/cols][k%cols] = pl.plot
		for _, e := range pl.entries {
			if !inLegend[e.name] {
				inLegend[e.name] = true
				legend.Add(e.name, e.line, e.points)
			}
		}
	}
	return plots, &legend, nil
}

// styles returns one colour and marker per series name: the paper's
// methods by their rank, other names after them in order of first
// appearance.
func (f Figure) styles() func(name string) (color.Color, draw.GlyphDrawer) {
	var others []string
	for _, p := range f.Panels {
		for _, s := range p.Series {
			if _, known := methods.Rank(s.Name); !known && !slices.Contains(others, s.Name) {
				others = append(others, s.Name)
			}
		}
	}
	return func(name string) (color.Color, draw.GlyphDrawer) {
		k, known := methods.Rank(name)
		if !known {
			k = len(methods.Names()) + slices.Index(others, name)
		}
		return palette[k%len(palette)], glyphs[k%len(glyphs)]
	}
}

// drawSafely turns a panic of the plotting library into an error. The
// inputs are checked before drawing (finite values, positive values on log
// axes), so this is a second line of defence, not the error path.
func drawSafely(draw func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the figure failed: %v", r)
		}
	}()
	draw()
	return nil
}

// WritePNG writes f as a PNG to path, atomically.
func (f Figure) WritePNG(path string) error {
	var b bytes.Buffer
	if err := f.EncodePNG(&b); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return formats.WriteTextFile(path, b.String())
}

type legendEntry struct {
	name   string
	line   *plotter.Line
	points *plotter.Scatter
}

type builtPlot struct {
	plot    *plot.Plot
	entries []legendEntry
}

// plot builds the gonum plot of p, leaving out points it cannot draw.
func (p Panel) plot(style func(string) (color.Color, draw.GlyphDrawer)) (builtPlot, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Title.TextStyle.Font.Size = vg.Points(12)
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	pl.Add(plotter.NewGrid())
	out := builtPlot{plot: pl}
	ext := extent{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	for _, s := range p.Series {
		xys := p.drawable(s, &ext)
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return out, fmt.Errorf("panel %q, series %q: %w", p.Title, s.Name, err)
		}
		c, g := style(s.Name)
		if s.Dashed {
			c = dashedColour
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		points.Color = c
		points.Shape = g
		points.Radius = vg.Points(3)
		pl.Add(line, points)
		out.entries = append(out.entries, legendEntry{s.Name, line, points})
	}
	if len(out.entries) == 0 {
		pl.Title.Text += " (no data)"
		return out, nil
	}
	p.setAxes(pl, ext)
	return out, nil
}

// extent is the range of the points drawn, and their distinct x values.
type extent struct {
	xmin, xmax, ymin, ymax float64
	xs                     []float64
}

// drawable returns the points of s that the panel can draw (finite, and
// positive on a log y axis), widening ext to them.
func (p Panel) drawable(s Series, ext *extent) plotter.XYs {
	var xys plotter.XYs
	for k := range s.X {
		x, y := s.X[k], s.Y[k]
		if !finite(x) || !finite(y) || (p.LogY && y <= 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: x, Y: y})
		ext.xmin, ext.xmax = math.Min(ext.xmin, x), math.Max(ext.xmax, x)
		ext.ymin, ext.ymax = math.Min(ext.ymin, y), math.Max(ext.ymax, y)
		if !slices.Contains(ext.xs, x) {
			ext.xs = append(ext.xs, x)
		}
	}
	return xys
}

// setAxes sets the ticks and ranges of pl's axes to show ext with a margin.
func (p Panel) setAxes(pl *plot.Plot, ext extent) {
	// Ticks at the x values present: sizes are few and irregular.
	sort.Float64s(ext.xs)
	if len(ext.xs) <= 12 {
		var ticks plot.ConstantTicks
		for _, x := range ext.xs {
			ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 4, 64)})
		}
		pl.X.Tick.Marker = ticks
	}
	pad := (ext.xmax - ext.xmin) * 0.05
	if pad == 0 {
		pad = math.Max(math.Abs(ext.xmin)*0.1, 1)
	}
	pl.X.Min, pl.X.Max = ext.xmin-pad, ext.xmax+pad
	if p.LogY {
		lo, hi := ext.ymin, ext.ymax
		if lo == hi {
			lo, hi = lo/2, hi*2
		}
		span := math.Pow(hi/lo, 0.05)
		pl.Y.Min, pl.Y.Max = lo/span, hi*span
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
		return
	}
	lo, hi := ext.ymin, ext.ymax
	if p.ZeroY {
		lo = math.Min(lo, 0)
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	pad = (hi - lo) * 0.05
	if p.ZeroY && lo == 0 {
		pl.Y.Min, pl.Y.Max = 0, hi+pad
	} else {
		pl.Y.Min, pl.Y.Max = lo-pad, hi+pad
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// logTicks labels the powers of ten in range, and 2 and 5 times them when
// the range spans at most two decades, every multiple when less than one,
// with unlabelled minor ticks between: plot.LogTicks labels powers of ten
// only, which leaves a range within one decade without labels.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	decades := math.Log10(hi / lo)
	labelled := func(m int) bool {
		switch {
		case decades > 2:
			return m == 1
		case decades > 1:
			return m == 1 || m == 2 || m == 5
		}
		return true
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m) {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// sizeFigures returns the figures of SizePlots that the summary rows have
// data for, by file name.
func sizeFigures(groupCols []string, rows []formats.SummaryRow) (map[string]Figure, error) {
	figs := map[string]Figure{}
	for _, sp := range SizePlots() {
		panels, err := SizePanels(groupCols, rows, sp.Metric, sp.LogY)
		if err != nil {
			return nil, err
		}
		if len(panels) == 0 {
			continue
		}
		figs[sp.File] = Figure{Panels: panels}
	}
	return figs, nil
}
