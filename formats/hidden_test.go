package formats

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// TestModelInfoHiddenColumn checks the optional hidden column: written only
// when some model has hidden variables, read back as written, and absent
// (nil for every row) in files without it.
func TestModelInfoHiddenColumn(t *testing.T) {
	dir := t.TempDir()
	plain := []ModelInfoRow{{ModelID: 0, Name: "a", Cards: []int32{2, 2}, Graph: "grid", Source: "s"}}
	withHidden := []ModelInfoRow{
		{ModelID: 0, Name: "rbm", Cards: []int32{2, 2, 2}, Graph: "bipartite", Source: "s", Hidden: []int32{2}},
		{ModelID: 1, Name: "vis", Cards: []int32{2}, Graph: "grid", Source: "s"},
	}
	for _, tc := range []struct {
		name      string
		rows      []ModelInfoRow
		hasColumn bool
	}{{"plain", plain, false}, {"hidden", withHidden, true}} {
		path := filepath.Join(dir, tc.name+".parquet")
		if err := WriteModelInfo(path, tc.rows, testProv); err != nil {
			t.Fatal(err)
		}
		var found bool
		if _, _, err := readTable(path, func(sc *arrow.Schema) (table[ModelInfoRow], error) {
			found = sc.HasField("hidden")
			return modelInfoTable, nil
		}); err != nil {
			t.Fatal(err)
		}
		if found != tc.hasColumn {
			t.Errorf("%s: hidden column present %v, want %v", tc.name, found, tc.hasColumn)
		}
		got, _, err := ReadModelInfo(path)
		if err != nil {
			t.Fatal(err)
		}
		if !same(got, tc.rows) {
			t.Errorf("%s: read\n%#v\nwant\n%#v", tc.name, got, tc.rows)
		}
	}
}

// A stderrs.parquet written before the kind column reads as variable rows.
func TestStderrsWithoutKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), StderrsFile)
	old, err := stderrsFor(arrow.NewSchema(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	rows := []StderrRow{{ModelID: 1, Method: "gibbs", Index: 3, Stderr: []float64{0.1, 0.2}}}
	if err := writeTable(path, old, rows, testProv, defaultWrite); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadStderrs(path)
	if err != nil {
		t.Fatal(err)
	}
	rows[0].Kind = StderrVar
	if !same(got, rows) {
		t.Errorf("read %#v, want %#v", got, rows)
	}
}
