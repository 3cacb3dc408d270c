package score

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
)

// decodePNG decodes a PNG file and checks it is a real picture: the size the
// figure asks for and more than one colour.
func decodePNG(t *testing.T, data []byte) image.Image {
	t.Helper()
	if len(data) == 0 {
		t.Fatal("empty PNG")
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 200 || b.Dy() < 200 {
		t.Fatalf("PNG is %dx%d, too small to read", b.Dx(), b.Dy())
	}
	return img
}

// hasColour reports whether some pixel of img is close to c: the lines of
// a series are drawn in its palette colour.
func hasColour(img image.Image, c color.RGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absDiff(r>>8, uint32(c.R)) < 8 && absDiff(g>>8, uint32(c.G)) < 8 && absDiff(bl>>8, uint32(c.B)) < 8 {
				return true
			}
		}
	}
	return false
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

func summaryFixture() (cols []string, rows []formats.SummaryRow) {
	cols = []string{"graph", "size", "gamma"}
	add := func(graph, size, gamma, method, metric string, mean float64) {
		rows = append(rows, formats.SummaryRow{Group: []string{graph, size, gamma}, Method: method, Metric: metric, Mean: mean, Std: 0.1, N: 20})
	}
	for _, size := range []string{"100", "25"} { // out of order on purpose
		for _, gamma := range []string{"1", "0.1"} {
			add("grid", size, gamma, "gbp", metrics.L1, 0.05)
			add("grid", size, gamma, "bp", metrics.L1, 0.08)
			add("grid", size, gamma, "bp", Seconds, 0.5)
			add("grid", size, gamma, "gbp", Seconds, 0) // cannot be drawn on a log axis
		}
	}
	add("complete", "9", "1", "renn", metrics.L1, math.NaN())
	add("complete", "9", "1", "bp", metrics.L1, 0.2)
	return cols, rows
}

func TestSizePanels(t *testing.T) {
	cols, rows := summaryFixture()
	panels, err := SizePanels(cols, rows, metrics.L1, false)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range panels {
		titles = append(titles, p.Title)
	}
	if got, want := strings.Join(titles, "; "), "complete, γ = 1; grid, γ = 0.1; grid, γ = 1"; got != want {
		t.Errorf("panels %q, want %q", got, want)
	}
	grid := panels[1]
	if len(grid.Series) != 2 || grid.Series[0].Name != "bp" || grid.Series[1].Name != "gbp" {
		t.Fatalf("grid panel series %+v, want bp then gbp", grid.Series)
	}
	if s := grid.Series[0]; len(s.X) != 2 || s.X[0] != 25 || s.X[1] != 100 || s.Y[0] != 0.08 {
		t.Errorf("bp series %+v, want x 25, 100 and y 0.08", s)
	}
	// renn's NaN mean is left out: the complete panel has bp only.
	if c := panels[0]; len(c.Series) != 1 || c.Series[0].Name != "bp" {
		t.Errorf("complete panel series %+v, want bp only", c.Series)
	}
	if _, err := SizePanels([]string{"graph", "gamma"}, nil, metrics.L1, false); err == nil {
		t.Error("no error without the size column")
	}
	bad := []formats.SummaryRow{{Group: []string{"grid", "big", "1"}, Method: "bp", Metric: metrics.L1}}
	if _, err := SizePanels(cols, bad, metrics.L1, false); err == nil {
		t.Error("no error for a non-numeric size")
	}
}

func TestFigurePNG(t *testing.T) {
	cols, rows := summaryFixture()
	for _, logY := range []bool{false, true} {
		panels, err := SizePanels(cols, rows, Seconds, logY)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := (Figure{Panels: panels}).EncodePNG(&b); err != nil {
			t.Fatalf("logY %v: %v", logY, err)
		}
		img := decodePNG(t, b.Bytes())
		// Every method keeps the colour of its rank.
		if !hasColour(img, palette[2]) { // bp, third in the registry
			t.Errorf("logY %v: no pixel in bp's colour", logY)
		}
	}
	if err := (Figure{}).EncodePNG(&bytes.Buffer{}); err == nil {
		t.Error("no error for a figure without panels")
	}
	uneven := Figure{Panels: []Panel{{Title: "p", Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}}}}
	if err := uneven.EncodePNG(&bytes.Buffer{}); err == nil {
		t.Error("no error for a series with more x than y values")
	}
	// Nothing drawable on a log axis: an empty panel, not a panic.
	zeros := Figure{Panels: []Panel{{Title: "zeros", LogY: true, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{0, -1}}}}}}
	var b bytes.Buffer
	if err := zeros.EncodePNG(&b); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, b.Bytes())
}

func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0.3, 25, "0.5 1 2 5 10 20"},              // two decades: 1, 2, 5
		{0.3, 0.9, "0.3 0.4 0.5 0.6 0.7 0.8 0.9"}, // within one: every multiple
		{2e-4, 3, "0.001 0.01 0.1 1"},             // many: powers of ten
	} {
		ticks := logTicks{}.Ticks(c.lo, c.hi)
		var labels []string
		for _, tk := range ticks {
			if tk.Value < c.lo || tk.Value > c.hi {
				t.Errorf("[%g, %g]: tick %g outside", c.lo, c.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("[%g, %g]: labels %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	if len(logTicks{}.Ticks(0, 1)) != 0 {
		t.Error("ticks for a range reaching 0")
	}
}

func TestRunPlots(t *testing.T) {
	root := t.TempDir()
	ma, ta, pa := shardA(t, root)
	mb, tb, pb, _ := shardB(t, root)
	out := filepath.Join(root, "score")
	p := Params{Models: []string{ma, mb}, Truth: []string{ta, tb}, Pred: []string{pa, pb}, Group: []string{"graph", "size", "gamma"}, Table: "text", Plots: true, Partial: true}
	if err := Run(p, out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, sp := range SizePlots() {
		data, err := os.ReadFile(filepath.Join(out, sp.File))
		if err != nil {
			t.Fatal(err)
		}
		decodePNG(t, data)
	}
	p.Group = []string{"graph", "gamma"}
	if err := Run(p, filepath.Join(root, "score2"), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("plots without the size group: error %v, want one naming size", err)
	}
}
