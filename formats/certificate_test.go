package formats

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// TestEstimatesCertificateColumn checks estimates' optional certificate
// column: written only when some row has a certificate, read back as
// written, and "" for every row of a file without it (as every file written
// before the column is).
func TestEstimatesCertificateColumn(t *testing.T) {
	dir := t.TempDir()
	plain := []EstimateRow{{ModelID: 0, Method: "bp", LogZ: 1.5, FreeEnergy: -1.5, Iterations: 3, Converged: true, Status: StatusConverged, Seconds: 0.1, Params: "{}"}}
	withCert := []EstimateRow{
		{ModelID: 0, Method: "auto", LogZ: 2, FreeEnergy: -2, Iterations: 1, Converged: true, Status: StatusConverged, Seconds: 1, Params: "{}", Certificate: "exact"},
		{ModelID: 0, Method: "bp", LogZ: 1.5, FreeEnergy: -1.5, Iterations: 3, Status: StatusNotConverged, Seconds: 0.1, Params: "{}"},
	}
	for _, tc := range []struct {
		name      string
		rows      []EstimateRow
		hasColumn bool
	}{{"plain", plain, false}, {"certificate", withCert, true}} {
		path := filepath.Join(dir, tc.name+".parquet")
		if err := WriteEstimates(path, tc.rows, testProv); err != nil {
			t.Fatal(err)
		}
		var found bool
		if _, _, err := readTable(path, func(sc *arrow.Schema) (table[EstimateRow], error) {
			found = sc.HasField("certificate")
			return estimatesTable, nil
		}); err != nil {
			t.Fatal(err)
		}
		if found != tc.hasColumn {
			t.Errorf("%s: certificate column present %v, want %v", tc.name, found, tc.hasColumn)
		}
		got, _, err := ReadEstimates(path)
		if err != nil {
			t.Fatal(err)
		}
		if !same(got, tc.rows) {
			t.Errorf("%s: read\n%#v\nwant\n%#v", tc.name, got, tc.rows)
		}
	}
}
