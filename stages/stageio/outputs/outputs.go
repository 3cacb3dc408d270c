// Package outputs reads what stages wrote, for the report: a score
// instance's scores joined with the models, estimates and marginals it
// scored, learning curves, the true model's test NLL, a method stage's
// answers, and summaries by setting; and a Reader turns them into facts
// (a Store of Fact by setting, model and method): a model's shape and
// exact ln Z, a run's scores, estimate and cost, a method's answers
// against a reference's, a learning table's rows; the Store aggregates
// facts (Aggregate) as a report's cells and rules read them. The stage
// binaries do not link it.
package outputs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
)

// Answers are one method's answers on the models of a directory.
type Answers = metrics.Answers

// ReadAnswers adds the estimates and variable marginals of the method
// stage output dir to runs (by method; order lists the methods as first
// met); done is false when it has not run.
func ReadAnswers(dir string, runs map[string]*Answers, order *[]string) (done bool, err error) {
	erows, _, err := formats.ReadEstimates(filepath.Join(dir, formats.EstimatesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	mrows, _, err := formats.ReadMarginals(filepath.Join(dir, formats.MarginalsFile))
	if err != nil {
		return false, err
	}
	for _, e := range erows {
		r := runs[e.Method]
		if r == nil {
			r = &Answers{Vars: map[[2]int32][]float64{}, LogZ: map[int32]float64{}, Seconds: map[int32]float64{}}
			runs[e.Method] = r
			*order = append(*order, e.Method)
		}
		r.LogZ[e.ModelID], r.Seconds[e.ModelID] = e.LogZ, e.Seconds
	}
	for _, mr := range mrows {
		if r := runs[mr.Method]; r != nil && mr.Kind == "var" {
			r.Vars[[2]int32{mr.ModelID, mr.Index}] = mr.Probs
		}
	}
	return true, nil
}

// VarMarginals reads the variable marginals of method from the method
// stage outputs dirs, by (model, variable).
func VarMarginals(dirs []string, method string) (map[[2]int32][]float64, error) {
	runs, order := map[string]*Answers{}, []string{}
	for _, dir := range dirs {
		if _, err := ReadAnswers(dir, runs, &order); err != nil {
			return nil, err
		}
	}
	if runs[method] == nil {
		return nil, nil
	}
	return runs[method].Vars, nil
}

// SettingRow is a summary row with the setting it summarises (gamma 0 for
// imported models, which have none).
type SettingRow struct {
	formats.SummaryRow
	Set *Setting
}

// ReadSettingSummary reads a summary.parquet grouped by graph, size and
// gamma (score --group=graph,size,gamma), and its group columns.
func ReadSettingSummary(path string) (cols []string, rows []SettingRow, err error) {
	cols, srows, _, err := formats.ReadSummary(path)
	if err != nil {
		return nil, nil, err
	}
	idx := map[string]int{}
	for _, c := range []string{"graph", "size", "gamma"} {
		if idx[c] = slices.Index(cols, c); idx[c] < 0 {
			return nil, nil, fmt.Errorf("%s: no %s group column (have %v): score it with --group=graph,size,gamma", path, c, cols)
		}
	}
	for _, r := range srows {
		size, err1 := strconv.Atoi(r.Group[idx["size"]])
		gamma, err2 := 0.0, error(nil)
		if g := r.Group[idx["gamma"]]; g != "" {
			gamma, err2 = strconv.ParseFloat(g, 64)
		}
		if err1 != nil || err2 != nil {
			return nil, nil, fmt.Errorf("%s: row %s %s: size %q or gamma %q is not a number", path, r.Method, r.Metric, r.Group[idx["size"]], r.Group[idx["gamma"]])
		}
		rows = append(rows, SettingRow{SummaryRow: r, Set: SettingOf(r.Group[idx["graph"]], size, gamma)})
	}
	return cols, rows, nil
}
