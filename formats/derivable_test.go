package formats

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestSchemasDeclareDerivable: every derivable column is a column of its
// table, derived from columns of it; estimates declare status and stderrs
// kind, and their readers give files without those columns what the
// declarations say.
func TestSchemasDeclareDerivable(t *testing.T) {
	byFile := map[string]Schema{}
	for _, s := range Schemas() {
		byFile[s.File] = s
		for _, d := range s.Derivable {
			if !slices.Contains(s.Columns, d.Column) || !s.Holds(d.From) || (d.Value == "") == (len(d.From) == 0) {
				t.Errorf("%s: derivable %+v: not its column, from columns it lacks, or neither one value nor derived per row", s.File, d)
			}
		}
	}
	want := map[string]string{EstimatesFile: "status", StderrsFile: "kind"}
	for file, col := range want {
		s := byFile[file]
		if len(s.Derivable) != 1 || s.Derivable[0].Column != col {
			t.Errorf("%s: derivable %+v, want %s", file, s.Derivable, col)
		}
	}
	rows, _, err := ReadStderrs(filepath.Join("..", "stages", "compare", "testdata", "stderrs-before-kind.parquet"))
	if err != nil || len(rows) == 0 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Kind != byFile[StderrsFile].Derivable[0].Value {
			t.Errorf("a row of a file without kind reads as %q, declared %q", r.Kind, byFile[StderrsFile].Derivable[0].Value)
		}
	}
	est, _, err := ReadEstimates(filepath.Join("testdata", "estimates-before-status.parquet"))
	if err != nil || len(est) == 0 {
		t.Fatalf("%d rows, %v", len(est), err)
	}
	for _, r := range est {
		if r.Status != EstimateStatus(r.Converged, r.Params) {
			t.Errorf("a row of a file without status reads as %q, derived %q", r.Status, EstimateStatus(r.Converged, r.Params))
		}
	}
}
