package compare

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/renn-go/renn/formats"
)

// estimates writes an estimates.parquet whose model 1 has log Z z, run
// time secs and params p, and returns its path.
func estimates(t *testing.T, z, secs float64, p string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), formats.EstimatesFile)
	rows := []formats.EstimateRow{{ModelID: 0, Method: "bp", LogZ: 1}, {ModelID: 1, Method: "bp", LogZ: z, Seconds: secs, Params: p}}
	if err := formats.WriteEstimates(path, rows, formats.Provenance{Stage: "test", Version: p, Params: "{}"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParquet(t *testing.T) {
	a := estimates(t, 2, 1, "{}")
	for _, tt := range []struct {
		name string
		b    string
		want string // "" for no difference
	}{
		{"timing, params and metadata differ", estimates(t, 2, 9, `{"x":1}`), ""},
		{"a value in its last bit", estimates(t, math.Nextafter(2, 3), 1, "{}"), "column log_z, row 1: cached 2, new 2.0000000000000004"},
		{"negative zero", estimates(t, math.Copysign(0, -1), 1, "{}"), "column log_z, row 1: cached 2, new -0"},
		{"NaN", estimates(t, math.NaN(), 1, "{}"), "column log_z, row 1: cached 2, new NaN"},
	} {
		d, err := Parquet(a, tt.b)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.want == "" && d != nil:
			t.Errorf("%s: difference %q, want none", tt.name, d)
		case tt.want != "" && (d == nil || d.String() != tt.want):
			t.Errorf("%s: difference %v, want %q", tt.name, d, tt.want)
		}
	}
	if d, err := Parquet(estimates(t, math.NaN(), 1, "{}"), estimates(t, math.NaN(), 2, "{}")); d != nil || err != nil {
		t.Errorf("NaN against NaN: %v, %v; want equal", d, err)
	}
}

// A cached estimates.parquet written before the status column matches the
// same results with it (status is an added column); the reverse is a
// difference, as is any change to a column both hold.
func TestParquetAddedColumn(t *testing.T) {
	old := filepath.Join("..", "..", "formats", "testdata", "estimates-before-status.parquet")
	rows, prov, err := formats.ReadEstimates(old)
	if err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(t.TempDir(), formats.EstimatesFile)
	if err := formats.WriteEstimates(same, rows, prov); err != nil {
		t.Fatal(err)
	}
	if d, err := Parquet(old, same); err != nil || d != nil {
		t.Errorf("old file against the same rows with status: %v, %v", d, err)
	}
	if d, err := Parquet(same, old); err != nil || d == nil {
		t.Errorf("a new file lacking the status column of its cached one: %v, %v", d, err)
	}
	rows[0].Converged = !rows[0].Converged
	rows[0].Status = formats.EstimateStatus(rows[0].Converged, rows[0].Params)
	changed := filepath.Join(t.TempDir(), formats.EstimatesFile)
	if err := formats.WriteEstimates(changed, rows, prov); err != nil {
		t.Fatal(err)
	}
	if d, err := Parquet(old, changed); err != nil || d == nil || d.Column != "converged" {
		t.Errorf("converged changed: %v, %v", d, err)
	}
}

func TestParquetWithin(t *testing.T) {
	const tol = 1e-12
	for _, tt := range []struct {
		name   string
		cached float64
		fresh  float64
		same   bool
	}{
		{"relative difference within tol", 300, 300 * (1 + 0.5e-12), true},
		{"relative difference beyond tol", 300, 300 * (1 + 3e-12), false},
		{"absolute difference within tol below 1", 1e-3, 1e-3 + 0.5e-12, true},
		{"absolute difference beyond tol below 1", 0, 2e-12, false},
		{"signed zeros", 0, math.Copysign(0, -1), true},
		{"infinities of one sign", math.Inf(-1), math.Inf(-1), true},
		{"an infinity against a number", math.Inf(1), math.MaxFloat64, false},
		{"NaN against a number", math.NaN(), 0, false},
	} {
		d, err := ParquetWithin(estimates(t, tt.cached, 1, "{}"), estimates(t, tt.fresh, 1, "{}"), tol)
		if err != nil {
			t.Fatal(err)
		}
		if (d == nil) != tt.same {
			t.Errorf("%s: difference %v, want same %v", tt.name, d, tt.same)
		}
	}
	a := estimates(t, 1, 1, "{}")
	for _, bad := range []float64{-1e-12, math.NaN(), math.Inf(1)} {
		if _, err := ParquetWithin(a, a, bad); err == nil {
			t.Errorf("tolerance %v accepted", bad)
		}
	}
}

// TestParquetAddedKind: stderrs.parquet's kind column, absent from files
// written before it (variable rows only), is accepted when every new row
// is a variable's, and reported when one is not.
func TestParquetAddedKind(t *testing.T) {
	old := filepath.Join("testdata", "stderrs-before-kind.parquet")
	rows, prov, err := formats.ReadStderrs(old)
	if err != nil || len(rows) == 0 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	same := filepath.Join(t.TempDir(), formats.StderrsFile)
	if err := formats.WriteStderrs(same, rows, prov); err != nil {
		t.Fatal(err)
	}
	if d, err := Parquet(old, same); err != nil || d != nil {
		t.Errorf("old file against the same rows with kind var: %v, %v", d, err)
	}
	rows[1].Kind = formats.StderrLogZ
	other := filepath.Join(t.TempDir(), formats.StderrsFile)
	if err := formats.WriteStderrs(other, rows, prov); err != nil {
		t.Fatal(err)
	}
	if d, err := Parquet(old, other); err != nil || d == nil || d.Column != "kind" || d.Row != 1 {
		t.Errorf("a row of kind log_z: %v, %v", d, err)
	}
}

// writeColumns writes a Parquet file of string columns named by cols, one
// row per value of each, and returns its path.
func writeColumns(t *testing.T, cols map[string][]string, order []string) string {
	t.Helper()
	fields := make([]arrow.Field, len(order))
	arrs := make([]arrow.Array, len(order))
	for i, name := range order {
		fields[i] = arrow.Field{Name: name, Type: arrow.BinaryTypes.String}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues(cols[name], nil)
		arrs[i] = b.NewArray()
		defer arrs[i].Release()
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), arrs, int64(len(cols[order[0]])))
	defer rec.Release()
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.Record{rec})
	defer tbl.Release()
	path := filepath.Join(t.TempDir(), "future.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pqarrow.WriteTable(tbl, f, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParquetDerivableDeclared: a column that a table's declaration (as
// formats declares its tables) makes derivable for older files is accepted
// in a new file beside an older one without it, with its value checked
// when older files read as one value; undeclared, it is a difference.
func TestParquetDerivableDeclared(t *testing.T) {
	methods := []string{"bp", "gbp"}
	old := writeColumns(t, map[string][]string{"method": methods}, []string{"method"})
	withUnit := func(units ...string) string {
		return writeColumns(t, map[string][]string{"method": methods, "unit": units}, []string{"method", "unit"})
	}
	future := func(d formats.Derivable) []formats.Schema {
		return append(formats.Schemas(), formats.Schema{File: "future.parquet", Columns: []string{"method", "unit"},
			Derivable: []formats.Derivable{d}})
	}
	nat := formats.Derivable{Column: "unit", Value: "nat"}
	perRow := formats.Derivable{Column: "unit", From: []string{"method"}}
	for _, tc := range []struct {
		name    string
		new     string
		schemas []formats.Schema
		want    string // the difference's column, "-" for a note, "" for none
	}{
		{"undeclared", withUnit("nat", "nat"), formats.Schemas(), "-"},
		{"declared, its value", withUnit("nat", "nat"), future(nat), ""},
		{"declared, another value", withUnit("nat", "bit"), future(nat), "unit"},
		{"declared, derived per row", withUnit("nat", "bit"), future(perRow), ""},
	} {
		d, err := parquetWithin(old, tc.new, 0, tc.schemas)
		switch {
		case err != nil:
			t.Fatalf("%s: %v", tc.name, err)
		case tc.want == "" && d != nil, tc.want != "" && d == nil:
			t.Errorf("%s: difference %v, want %q", tc.name, d, tc.want)
		case d != nil && tc.want == "-" && d.Column != "", d != nil && tc.want != "-" && (d.Column != tc.want || d.Row != 1):
			t.Errorf("%s: difference %v, want in %q", tc.name, d, tc.want)
		}
	}
}
