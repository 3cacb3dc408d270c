package formats

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
)

// The statuses of estimates.parquet's status column: why a method's call
// ended, as infer.Status names them.
const (
	StatusConverged      = "converged"
	StatusNotConverged   = "not_converged"
	StatusIterationLimit = "iteration_limit"
	StatusTimeLimit      = "time_limit"
	StatusDiverged       = "diverged"
	StatusCheckFailed    = "check_failed"
)

// Statuses lists every status of the status column.
func Statuses() []string {
	return []string{StatusNotConverged, StatusConverged, StatusIterationLimit, StatusTimeLimit, StatusDiverged, StatusCheckFailed}
}

// estimatesFor reads estimates.parquet with the columns the file has: its
// status column, absent from a file written before it, and the optional
// certificate column.
func estimatesFor(sc *arrow.Schema) (table[EstimateRow], error) {
	t := estimatesTable.lacking(sc)
	if sc.HasField(certificateColumn.name) {
		t.cols = append(t.cols, certificateColumn)
	}
	return t, nil
}

// EstimateStatus is the status of an estimate that has none (a file written
// before the status column), from what such files recorded: converged, else
// the reason of a failed shared check in params ("check"), else the
// diagnostics "time_limit" or "diverged" (1) in params, else
// not_converged (the iteration cap, or a reason of the method's own: the
// old files did not say which).
func EstimateStatus(converged bool, params string) string {
	if converged {
		return StatusConverged
	}
	var p struct {
		Check       string             `json:"check"`
		Diagnostics map[string]float64 `json:"diagnostics"`
	}
	if json.Unmarshal([]byte(params), &p) != nil {
		return StatusNotConverged
	}
	switch {
	case p.Check != "":
		return StatusCheckFailed
	case p.Diagnostics["time_limit"] == 1:
		return StatusTimeLimit
	case p.Diagnostics["diverged"] == 1:
		return StatusDiverged
	}
	return StatusNotConverged
}

// withStatus returns rows with every empty Status derived
// (EstimateStatus), copying rows only if one is, and checks every status:
// a known one, converged exactly when the row is.
func withStatus(rows []EstimateRow) ([]EstimateRow, error) {
	copied := false
	for i := range rows {
		if rows[i].Status == "" {
			if !copied {
				rows, copied = slices.Clone(rows), true
			}
			rows[i].Status = EstimateStatus(rows[i].Converged, rows[i].Params)
		}
		r := rows[i]
		switch {
		case !slices.Contains(Statuses(), r.Status):
			return nil, fmt.Errorf("estimate of model %d by %s: status %q, want one of %v", r.ModelID, r.Method, r.Status, Statuses())
		case (r.Status == StatusConverged) != r.Converged:
			return nil, fmt.Errorf("estimate of model %d by %s: status %s with converged %v", r.ModelID, r.Method, r.Status, r.Converged)
		}
	}
	return rows, nil
}
