package formats

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every status goes through estimates.parquet and back, beside converged.
func TestEstimateStatusRoundTrip(t *testing.T) {
	var rows []EstimateRow
	for i, s := range Statuses() {
		rows = append(rows, EstimateRow{ModelID: int32(i), Method: "m", Iterations: 3, Converged: s == StatusConverged, Status: s, Params: "{}"})
	}
	path := filepath.Join(t.TempDir(), EstimatesFile)
	if err := WriteEstimates(path, rows, testProv); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadEstimates(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, rows) {
		t.Errorf("read back %+v, wrote %+v", got, rows)
	}
}

// A row's status must be known and agree with converged; an empty one is
// derived as for a file written before the column.
func TestEstimateStatusChecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), EstimatesFile)
	for _, tc := range []struct {
		row  EstimateRow
		want string
	}{
		{EstimateRow{Method: "m", Status: "done"}, `status "done"`},
		{EstimateRow{Method: "m", Status: StatusConverged}, "status converged with converged false"},
		{EstimateRow{Method: "m", Status: StatusTimeLimit, Converged: true}, "status time_limit with converged true"},
	} {
		if err := WriteEstimates(path, []EstimateRow{tc.row}, testProv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.row, err, tc.want)
		}
	}
	rows := []EstimateRow{{Method: "m", Converged: true}, {Method: "m", Params: `{"check":"ln Z is NaN"}`}}
	if err := WriteEstimates(path, rows, testProv); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadEstimates(path)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Status != StatusConverged || got[1].Status != StatusCheckFailed || rows[0].Status != "" {
		t.Errorf("derived statuses %q, %q (rows given changed: %q)", got[0].Status, got[1].Status, rows[0].Status)
	}
}

// A file written before the status column reads with every row's status
// derived from converged and params: a failed check, a time budget or a
// divergence recorded there, else not_converged.
func TestEstimatesBeforeStatus(t *testing.T) {
	legacy := table[EstimateRow]{cols: slices.DeleteFunc(slices.Clone(estimatesTable.cols), func(c column[EstimateRow]) bool { return c.name == "status" })}
	rows := []EstimateRow{
		{ModelID: 0, Method: "bp", Converged: true, Params: `{"diagnostics":{}}`},
		{ModelID: 1, Method: "bp", Params: `{"diagnostics":{"max_delta":0.1}}`},
		{ModelID: 2, Method: "gbp", Params: `{"diagnostics":{"time_limit":1,"max_seconds":2}}`},
		{ModelID: 3, Method: "trw", Params: `{"diagnostics":{"diverged":1}}`},
		{ModelID: 4, Method: "renn", Params: `{"check":"ln Z is NaN","diagnostics":{"time_limit":1}}`},
		{ModelID: 5, Method: "x", Params: `not json`},
	}
	path := filepath.Join(t.TempDir(), EstimatesFile)
	if err := writeTable(path, legacy, rows, testProv, defaultWrite); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadEstimates(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{StatusConverged, StatusNotConverged, StatusTimeLimit, StatusDiverged, StatusCheckFailed, StatusNotConverged}
	for i, r := range got {
		if r.Status != want[i] {
			t.Errorf("row %d (%s): status %q, want %q", i, r.Params, r.Status, want[i])
		}
	}
	// A file of the paper run, written before the column.
	got, _, err = ReadEstimates(filepath.Join("testdata", "estimates-before-status.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range got {
		n[r.Status]++
		if (r.Status == StatusCheckFailed) != strings.Contains(r.Params, `"check":`) || (r.Status == StatusConverged) != r.Converged {
			t.Errorf("model %d: status %s, converged %v, params %s", r.ModelID, r.Status, r.Converged, r.Params)
		}
	}
	if n[StatusConverged] != 3 || n[StatusCheckFailed] != 5 || n[StatusNotConverged] != 2 {
		t.Errorf("statuses %v, want 3 converged, 5 check_failed, 2 not_converged", n)
	}
}
