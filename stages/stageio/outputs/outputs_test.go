package outputs

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
)

// Runs come out in the order they first appear, each in epoch order
// whatever the file's row order.
func TestReadLearningCurves(t *testing.T) {
	path := filepath.Join(t.TempDir(), formats.CurvesFile)
	rows := []formats.CurveRow{
		{ModelID: 1, Method: "bp", Iteration: 2, TestNLL: 4, Seconds: 0.2},
		{ModelID: 0, Method: "exact", Iteration: 1, TestNLL: 5, Seconds: 1},
		{ModelID: 1, Method: "bp", Iteration: 1, TestNLL: 6, Seconds: 0.1},
	}
	if err := formats.WriteCurves(path, rows, formats.Provenance{}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLearningCurves(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ModelID != 1 || got[0].Method != "bp" || !slices.Equal(got[0].NLL, []float64{6, 4}) ||
		!slices.Equal(got[0].Seconds, []float64{0.1, 0.2}) || got[1].Method != "exact" || !slices.Equal(got[1].NLL, []float64{5}) {
		t.Errorf("runs %+v", got)
	}
}

// The true model's test NLL is the mean of -log p over the test split
// alone.
func TestTestNLL(t *testing.T) {
	dir := t.TempDir()
	rows := []formats.SampleRow{
		{ModelID: 3, Split: "test", X: []int32{0}, LogP: -1},
		{ModelID: 3, Split: "train", X: []int32{0}, LogP: -100},
		{ModelID: 3, Split: "test", X: []int32{1}, LogP: -2},
		{ModelID: 1, Split: "test", X: []int32{1}, LogP: -4},
	}
	if err := formats.WriteSamples(filepath.Join(dir, formats.SamplesFile), rows, formats.Provenance{}); err != nil {
		t.Fatal(err)
	}
	nll, err := TestNLL(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(nll) != 2 || nll[1] != 4 || nll[3] != 1.5 {
		t.Errorf("NLL %v; want models 1 and 3 at 4 and 1.5", nll)
	}
}

// A summary gives each row its setting; one not grouped by graph, size
// and gamma, or with a size that is not a number, is refused.
func TestReadSettingSummary(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cols []string, rows []formats.SummaryRow) string {
		path := filepath.Join(dir, name)
		if err := formats.WriteSummary(path, cols, rows, formats.Provenance{}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cols := []string{"graph", "size", "gamma"}
	good := write("good.parquet", cols, []formats.SummaryRow{
		{Group: []string{"grid", "25", "0.1"}, Method: "bp", Metric: "l1", Mean: 0.2, N: 10},
		{Group: []string{"complete", "16", ""}, Method: "bp", Metric: "l1", Mean: 0.3, N: 10},
	})
	_, rows, err := ReadSettingSummary(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Set.Graph != "grid" || rows[0].Set.Size != 25 || rows[0].Set.Gamma != 0.1 || rows[1].Set.Gamma != 0 || rows[1].Mean != 0.3 {
		t.Errorf("rows %+v", rows)
	}
	for _, tc := range []struct {
		cols []string
		size string
		want string
	}{
		{[]string{"graph", "size"}, "25", "no gamma group column"},
		{cols, "big", `size "big" or gamma "0.1" is not a number`},
	} {
		group := []string{"grid", tc.size, "0.1"}[:len(tc.cols)]
		path := write("bad.parquet", tc.cols, []formats.SummaryRow{{Group: group, Method: "bp", Metric: "l1", N: 1}})
		if _, _, err := ReadSettingSummary(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.cols, err, tc.want)
		}
	}
}
