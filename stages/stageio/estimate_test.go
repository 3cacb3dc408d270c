package stageio

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/renn-go/renn/core/infer"
)

// TestEstimateRowRecord checks that a method's record and certificate reach
// the estimate row, and that a record JSON cannot hold (a NaN) is replaced
// by its error without losing the rest of the params.
func TestEstimateRowRecord(t *testing.T) {
	res := &infer.Result{LogZ: 1, Status: infer.Converged, Diagnostics: map[string]float64{"x": 2},
		Certificate: infer.CertConverged, Record: map[string]any{"chosen": "gbp"}}
	row := EstimateRow(3, "auto", res, 1.5, nil, "")
	if row.Certificate != infer.CertConverged {
		t.Errorf("certificate %q, want %q", row.Certificate, infer.CertConverged)
	}
	var p struct {
		Diagnostics map[string]any `json:"diagnostics"`
		Record      map[string]any `json:"record"`
	}
	if err := json.Unmarshal([]byte(row.Params), &p); err != nil {
		t.Fatalf("params %q: %v", row.Params, err)
	}
	if p.Record["chosen"] != "gbp" || p.Diagnostics["x"] != 2.0 {
		t.Errorf("params %s: want record chosen gbp and diagnostics x 2", row.Params)
	}
	res.Record = map[string]float64{"bad": math.NaN()}
	row = EstimateRow(3, "auto", res, 1.5, nil, "")
	if err := json.Unmarshal([]byte(row.Params), &p); err != nil {
		t.Fatalf("params %q: %v", row.Params, err)
	}
	if p.Record["error"] == nil || p.Diagnostics["x"] != 2.0 {
		t.Errorf("params %s: want the record's error and the diagnostics", row.Params)
	}
}
