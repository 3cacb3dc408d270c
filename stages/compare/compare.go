// Package compare compares two Parquet files value by value: the test by
// which pipeline verify decides that a rebuilt binary gives the results it
// gave before. It is the compare-outputs tool's library, kept out of the
// pipeline runner so that the runner (and go run ./cmd/pipeline) compiles
// without Arrow.
package compare

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/renn-go/renn/formats"
)

// IgnoredColumns returns the Parquet columns whose values Parquet does not
// compare: seconds is timing, which no two runs share, and params is a JSON
// description of a run's options and diagnostics, which a refactor may
// legitimately reshape without changing a number of the results.
func IgnoredColumns() []string { return []string{"seconds", "params"} }

// Difference is the first difference between two Parquet files. Its JSON
// form is what compare-outputs --json writes.
type Difference struct {
	// Column is the column whose values differ; "" when the difference is
	// elsewhere (Note says where).
	Column  string `json:"column,omitempty"`
	Row     int    `json:"row"`     // the first differing row of Column, from 0
	Element int    `json:"element"` // for a list column, the first differing element of the row; -1 otherwise
	Cached  string `json:"cached,omitempty"`
	New     string `json:"new,omitempty"`
	Note    string `json:"note,omitempty"` // what differs, when it is not a column's value
}

func (d *Difference) String() string {
	if d.Column == "" {
		return d.Note
	}
	at := fmt.Sprintf("row %d", d.Row)
	if d.Element >= 0 {
		at += fmt.Sprintf(", element %d", d.Element)
	}
	return fmt.Sprintf("column %s, %s: cached %s, new %s", d.Column, at, d.Cached, d.New)
}

// readParquet reads a whole Parquet file into an Arrow table.
func readParquet(path string) (arrow.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	defer f.Close()
	t, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("compare: read %s: %w", path, err)
	}
	return t, nil
}

// Parquet compares the Parquet files a (cached) and b (new) and returns
// their first difference, or nil if they hold the same results: the same
// column names and types and the same rows, compared exactly (floats by bit
// pattern, any NaN equal to any NaN), but for the values of
// IgnoredColumns. b may hold columns a lacks where the table of both
// declares them derivable for older files (formats.Schemas): a column that
// older files read as one value must hold it in every row of b; one derived
// row by row from other columns is compared through those of them that are
// compared. Their key/value metadata is not compared, since it
// records provenance such as the binary's version.
func Parquet(a, b string) (*Difference, error) { return ParquetWithin(a, b, 0) }

// ParquetWithin is Parquet with floats equal when they differ by at most
// tol relative to the larger magnitude, or tol absolutely below magnitude
// 1 (marginals are compared absolutely, ln Z relatively); infinities must
// match. tol 0 is Parquet's bit-for-bit test. A tolerance lets a change of
// summation order, which moves results in their last digits, keep the
// cached outputs of a stage.
func ParquetWithin(a, b string, tol float64) (*Difference, error) {
	return parquetWithin(a, b, tol, formats.Schemas())
}

// parquetWithin is ParquetWithin with the tables declared in schemas.
func parquetWithin(a, b string, tol float64, schemas []formats.Schema) (*Difference, error) {
	if !(tol >= 0) || math.IsInf(tol, 1) {
		return nil, fmt.Errorf("compare: tolerance %v, want a finite number >= 0", tol)
	}
	ta, err := readParquet(a)
	if err != nil {
		return nil, err
	}
	defer ta.Release()
	tb, err := readParquet(b)
	if err != nil {
		return nil, err
	}
	defer tb.Release()
	na, nb := fieldNames(ta.Schema()), fieldNames(tb.Schema())
	derived := derivable(schemas, na, nb)
	added := func(name string) bool { return derived[name] != nil }
	if shared := slices.DeleteFunc(slices.Clone(nb), added); !slices.Equal(na, shared) {
		return &Difference{Note: fmt.Sprintf("columns: cached %v, new %v", na, nb)}, nil
	}
	for i, name := range nb {
		if added(name) {
			if d := checkAdded(tb.Column(i).Data(), derived[name]); d != nil {
				return d, nil
			}
		}
	}
	for _, f := range ta.Schema().Fields() {
		if g := tb.Schema().Field(slices.Index(nb, f.Name)); !arrow.TypeEqual(f.Type, g.Type) {
			return &Difference{Note: fmt.Sprintf("column %s: type: cached %s, new %s", f.Name, f.Type, g.Type)}, nil
		}
	}
	if ta.NumRows() != tb.NumRows() {
		return &Difference{Note: fmt.Sprintf("rows: cached %d, new %d", ta.NumRows(), tb.NumRows())}, nil
	}
	for i, name := range na {
		if slices.Contains(IgnoredColumns(), name) {
			continue
		}
		d, err := compareColumn(ta.Column(i).Data(), tb.Column(slices.Index(nb, name)).Data(), tol)
		if err != nil {
			return nil, fmt.Errorf("compare: %s: column %s: %w", a, name, err)
		}
		if d != nil {
			d.Column = name
			return d, nil
		}
	}
	return nil, nil
}

// derivable returns, by name, the columns of nb (a new file's) that na (its
// cached file's) lacks and that a table of schemas holding both declares
// derivable for older files.
func derivable(schemas []formats.Schema, na, nb []string) map[string]*formats.Derivable {
	out := map[string]*formats.Derivable{}
	for _, s := range schemas {
		if !s.Holds(na) || !s.Holds(nb) {
			continue
		}
		for i, d := range s.Derivable {
			if slices.Contains(nb, d.Column) && !slices.Contains(na, d.Column) {
				out[d.Column] = &s.Derivable[i]
			}
		}
	}
	return out
}

// checkAdded returns the first value of a new file's added column that is
// not the value a file without the column reads as; nil if none.
func checkAdded(col *arrow.Chunked, c *formats.Derivable) *Difference {
	if c.Value == "" {
		return nil
	}
	row := 0
	for _, chunk := range col.Chunks() {
		for i := 0; i < chunk.Len(); i, row = i+1, row+1 {
			if v := chunk.ValueStr(i); v != c.Value {
				return &Difference{Column: c.Column, Row: row, Element: -1, Cached: strconv.Quote(c.Value) + " (no column)", New: strconv.Quote(v)}
			}
		}
	}
	return nil
}

func fieldNames(s *arrow.Schema) []string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return names
}

// compareColumn compares two columns of the same type and length, which
// the two files may have cut into chunks (row groups) differently.
func compareColumn(a, b *arrow.Chunked, tol float64) (*Difference, error) {
	ca, err := concat(a)
	if err != nil || ca == nil {
		return nil, err
	}
	defer ca.Release()
	cb, err := concat(b)
	if err != nil || cb == nil {
		return nil, err
	}
	defer cb.Release()
	for i := 0; i < ca.Len(); i++ {
		if !sameValue(ca, cb, i, i, tol) {
			d := &Difference{Row: i, Element: -1}
			d.Element, d.Cached, d.New = showDifference(ca, cb, i, i, tol)
			return d, nil
		}
	}
	return nil, nil
}

// concat joins the chunks of c into one array; nil if c has none.
func concat(c *arrow.Chunked) (arrow.Array, error) {
	switch chunks := c.Chunks(); len(chunks) {
	case 0:
		return nil, nil
	case 1:
		chunks[0].Retain()
		return chunks[0], nil
	default:
		return array.Concatenate(chunks, memory.DefaultAllocator)
	}
}

// sameValue reports whether a[i] equals b[j]: floats by bit pattern (or
// within tol, see ParquetWithin), any NaN equal to any NaN (so at tol 0,
// -0 and 0 differ: a refactor that keeps every number keeps its sign);
// lists element by element; other types as Arrow compares them. a and b
// have the same type.
func sameValue(a, b arrow.Array, i, j int, tol float64) bool {
	if an, bn := a.IsNull(i), b.IsNull(j); an || bn {
		return an == bn
	}
	switch a := a.(type) {
	case *array.Float64:
		return sameFloat(a.Value(i), b.(*array.Float64).Value(j), tol)
	case *array.Float32:
		return sameFloat(float64(a.Value(i)), float64(b.(*array.Float32).Value(j)), tol)
	case array.ListLike:
		bl := b.(array.ListLike)
		as, ae := a.ValueOffsets(i)
		bs, be := bl.ValueOffsets(j)
		if ae-as != be-bs {
			return false
		}
		for k := int64(0); k < ae-as; k++ {
			if !sameValue(a.ListValues(), bl.ListValues(), int(as+k), int(bs+k), tol) {
				return false
			}
		}
		return true
	}
	return array.SliceEqual(a, int64(i), int64(i+1), b, int64(j), int64(j+1))
}

// sameFloat is sameValue's test of two floats.
func sameFloat(x, y, tol float64) bool {
	switch {
	case math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y):
		return true
	case tol == 0 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0):
		return false
	}
	return math.Abs(x-y) <= tol*max(1, math.Abs(x), math.Abs(y))
}

// showDifference writes the differing values a[i] and b[j]; for lists of
// equal length, the first differing element and its index (else -1).
func showDifference(a, b arrow.Array, i, j int, tol float64) (elem int, cached, fresh string) {
	al, ok := a.(array.ListLike)
	if !ok || a.IsNull(i) || b.IsNull(j) {
		return -1, showValue(a, i), showValue(b, j)
	}
	bl := b.(array.ListLike)
	as, ae := al.ValueOffsets(i)
	bs, be := bl.ValueOffsets(j)
	if ae-as != be-bs {
		return -1, fmt.Sprintf("%d elements", ae-as), fmt.Sprintf("%d elements", be-bs)
	}
	for k := int64(0); k < ae-as; k++ {
		va, vb := al.ListValues(), bl.ListValues()
		if !sameValue(va, vb, int(as+k), int(bs+k), tol) {
			return int(k), showValue(va, int(as+k)), showValue(vb, int(bs+k))
		}
	}
	return -1, showValue(a, i), showValue(b, j)
}

// showValue writes a[i], floats with every digit, cut to 80 characters.
func showValue(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	var s string
	switch a := a.(type) {
	case *array.Float64:
		s = strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Float32:
		s = strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.String:
		s = strconv.Quote(a.Value(i))
	default:
		s = a.ValueStr(i)
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}
