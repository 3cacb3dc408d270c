package formats

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// table describes the Parquet schema of a table whose rows have type R: its
// columns, in file order.
type table[R any] struct {
	cols []column[R]
	// prepare, if set, readies freshly allocated rows before the columns
	// fill them (the summary table allocates its group slices here).
	prepare func(rows []R)
	// derivable lists the columns added after files of the table were
	// written, which its reader derives for those files (Schemas).
	derivable []Derivable
}

// schema returns the Arrow schema written for t, with meta as its metadata.
// Columns are non-nullable: the tables have no missing values.
func (t table[R]) schema(meta arrow.Metadata) *arrow.Schema {
	fields := make([]arrow.Field, len(t.cols))
	for i, c := range t.cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ}
	}
	return arrow.NewSchema(fields, &meta)
}

// rowBytes estimates the encoded size of a row, to cut row groups.
func (t table[R]) rowBytes(r *R) int {
	n := 0
	for _, c := range t.cols {
		n += c.bytes(r)
	}
	return n
}

// column moves one field of R between rows and Arrow arrays.
type column[R any] struct {
	name string
	typ  arrow.DataType
	// put appends the field of every row to b, a builder of typ.
	put func(b array.Builder, rows []R) error
	// get sets the field of every row from a, whose type matches typ (see
	// sameType); first is the file row number of rows[0], for errors.
	get func(a arrow.Array, rows []R, first int) error
	// bytes estimates the encoded size of the field of r.
	bytes func(r *R) int
}

// valueArray is an Arrow array of T: *array.Int32, *array.String, ...
type valueArray[T any] interface {
	arrow.Array
	Value(int) T
}

// valueBuilder is an Arrow builder of T: *array.Int32Builder, ...
type valueBuilder[T any] interface {
	array.Builder
	Append(T)
	AppendValues([]T, []bool)
}

func int32Column[R any](name string, field func(*R) *int32) column[R] {
	return scalarColumn(name, arrow.PrimitiveTypes.Int32, field, 4)
}

func int64Column[R any](name string, field func(*R) *int64) column[R] {
	return scalarColumn(name, arrow.PrimitiveTypes.Int64, field, 8)
}

func float64Column[R any](name string, field func(*R) *float64) column[R] {
	return scalarColumn(name, arrow.PrimitiveTypes.Float64, field, 8)
}

func boolColumn[R any](name string, field func(*R) *bool) column[R] {
	return scalarColumn(name, arrow.FixedWidthTypes.Boolean, field, 1)
}

func int32ListColumn[R any](name string, field func(*R) *[]int32) column[R] {
	return listColumn(name, arrow.PrimitiveTypes.Int32, field, 4)
}

func float64ListColumn[R any](name string, field func(*R) *[]float64) column[R] {
	return listColumn(name, arrow.PrimitiveTypes.Float64, field, 8)
}

// scalarColumn is a column of fixed-width values of type T, width bytes each.
func scalarColumn[R, T any](name string, typ arrow.DataType, field func(*R) *T, width int) column[R] {
	return column[R]{
		name: name,
		typ:  typ,
		put: func(b array.Builder, rows []R) error {
			vb, ok := b.(valueBuilder[T])
			if !ok {
				return fmt.Errorf("column %q: internal error: builder %T for %s", name, b, typ)
			}
			vb.Reserve(len(rows))
			for i := range rows {
				vb.Append(*field(&rows[i]))
			}
			return nil
		},
		get: func(a arrow.Array, rows []R, first int) error {
			va, ok := a.(valueArray[T])
			if !ok {
				return fmt.Errorf("want %s, found array %T", typeName(typ), a)
			}
			if err := checkNulls(a, first); err != nil {
				return err
			}
			for i := range rows {
				*field(&rows[i]) = va.Value(i)
			}
			return nil
		},
		bytes: func(*R) int { return width },
	}
}

// stringColumn is a column of strings. Values are copied out of Arrow
// buffers, which may be reused after release; runs of equal values (the
// usual case: method, metric, split) share one copy.
func stringColumn[R any](name string, field func(*R) *string) column[R] {
	return column[R]{
		name: name,
		typ:  arrow.BinaryTypes.String,
		put: func(b array.Builder, rows []R) error {
			sb, ok := b.(*array.StringBuilder)
			if !ok {
				return fmt.Errorf("column %q: internal error: builder %T for string", name, b)
			}
			sb.Reserve(len(rows))
			for i := range rows {
				sb.Append(*field(&rows[i]))
			}
			return nil
		},
		get: func(a arrow.Array, rows []R, first int) error {
			va, ok := a.(valueArray[string])
			if !ok {
				return fmt.Errorf("want string, found array %T", a)
			}
			if err := checkNulls(a, first); err != nil {
				return err
			}
			var last string
			for i := range rows {
				v := va.Value(i)
				if i == 0 || v != last {
					last = strings.Clone(v)
				}
				*field(&rows[i]) = last
			}
			return nil
		},
		bytes: func(r *R) int { return 4 + len(*field(r)) },
	}
}

// listColumn is a column of lists of fixed-width values of type T.
func listColumn[R, T any](name string, elem arrow.DataType, field func(*R) *[]T, width int) column[R] {
	typ := arrow.ListOfNonNullable(elem)
	return column[R]{
		name:  name,
		typ:   typ,
		put:   putList(name, typ, field),
		get:   getList(typ, field),
		bytes: func(r *R) int { return 4 + width*len(*field(r)) },
	}
}

// putList returns the put function of a list column (see listColumn).
func putList[R, T any](name string, typ arrow.DataType, field func(*R) *[]T) func(array.Builder, []R) error {
	return func(b array.Builder, rows []R) error {
		lb, ok := b.(*array.ListBuilder)
		if !ok {
			return fmt.Errorf("column %q: internal error: builder %T for %s", name, b, typeName(typ))
		}
		vb, ok := lb.ValueBuilder().(valueBuilder[T])
		if !ok {
			return fmt.Errorf("column %q: internal error: value builder %T for %s", name, lb.ValueBuilder(), typeName(typ))
		}
		lb.Reserve(len(rows))
		for i := range rows {
			lb.Append(true)
			vb.AppendValues(*field(&rows[i]), nil)
		}
		return nil
	}
}

// getList returns the get function of a list column (see listColumn).
func getList[R, T any](typ arrow.DataType, field func(*R) *[]T) func(arrow.Array, []R, int) error {
	return func(a arrow.Array, rows []R, first int) error {
		la, ok := a.(array.ListLike)
		if !ok {
			return fmt.Errorf("want %s, found array %T", typeName(typ), a)
		}
		if err := checkNulls(a, first); err != nil {
			return err
		}
		vals := la.ListValues()
		va, ok := vals.(valueArray[T])
		if !ok {
			return fmt.Errorf("want %s, found values %T", typeName(typ), vals)
		}
		n := len(rows)
		if n == 0 {
			return nil
		}
		start, _ := la.ValueOffsets(0)
		_, end := la.ValueOffsets(n - 1)
		if start < 0 || end < start || end > int64(vals.Len()) {
			return fmt.Errorf("list offsets [%d, %d) outside %d values", start, end, vals.Len())
		}
		hasNulls := vals.NullN() > 0
		raw, isRaw := rawValues[T](vals)
		// One backing array per chunk rather than one allocation per
		// row; the three-index slices keep an append on one row from
		// overwriting the next.
		backing := make([]T, end-start)
		for i := range rows {
			s, e := la.ValueOffsets(i)
			if s < start || e < s || e > end {
				return fmt.Errorf("row %d: list offsets [%d, %d) outside [%d, %d)", first+i, s, e, start, end)
			}
			out := backing[s-start : e-start : e-start]
			if hasNulls {
				for j := s; j < e; j++ {
					if vals.IsNull(int(j)) {
						return fmt.Errorf("null element %d at row %d", j-s, first+i)
					}
				}
			}
			if isRaw {
				copy(out, raw[s:e])
			} else {
				for j := range out {
					out[j] = va.Value(int(s) + j)
				}
			}
			*field(&rows[i]) = out
		}
		return nil
	}
}

// rawValues returns the values of a as a Go slice when Arrow offers one, for
// a bulk copy.
func rawValues[T any](a arrow.Array) ([]T, bool) {
	var raw any
	switch v := a.(type) {
	case *array.Int32:
		raw = v.Int32Values()
	case *array.Int64:
		raw = v.Int64Values()
	case *array.Float64:
		raw = v.Float64Values()
	default:
		return nil, false
	}
	out, ok := raw.([]T)
	return out, ok
}

// checkNulls reports the first null of a, numbering rows from first.
func checkNulls(a arrow.Array, first int) error {
	if a.NullN() == 0 {
		return nil
	}
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			return fmt.Errorf("null at row %d", first+i)
		}
	}
	return nil
}

// sameType reports whether a column found with type found can be read as
// want. Large string and list variants are accepted: they read the same.
func sameType(want, found arrow.DataType) bool {
	switch want.ID() {
	case arrow.STRING:
		return found.ID() == arrow.STRING || found.ID() == arrow.LARGE_STRING
	case arrow.LIST:
		var elem arrow.DataType
		switch f := found.(type) {
		case *arrow.ListType:
			elem = f.Elem()
		case *arrow.LargeListType:
			elem = f.Elem()
		default:
			return false
		}
		return sameType(want.(*arrow.ListType).Elem(), elem)
	default:
		return want.ID() == found.ID()
	}
}

// typeName names an Arrow type for error messages in the words of the
// design: int32, string, list<float64>.
func typeName(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.LargeListType:
		return "large_list<" + typeName(t.Elem()) + ">"
	case *arrow.ListType:
		return "list<" + typeName(t.Elem()) + ">"
	case *arrow.StringType:
		return "string"
	case *arrow.LargeStringType:
		return "large_string"
	default:
		return t.String()
	}
}
