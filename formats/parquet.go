package formats

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// writeOptions bound the row groups a writer produces and say where its
// buffers come from.
type writeOptions struct {
	maxRows  int // rows per row group
	maxBytes int // approximate uncompressed bytes per row group
	// alloc is the Arrow allocator (nil: memory.DefaultAllocator); tests
	// pass a checked one to prove every buffer is released.
	alloc memory.Allocator
}

// allocator returns o.alloc, or the default allocator if it is nil.
func (o writeOptions) allocator() memory.Allocator {
	if o.alloc == nil {
		return memory.DefaultAllocator
	}
	return o.alloc
}

// defaultWrite keeps a row group around 64 MiB of values: big enough for
// zstd and column statistics, small enough to bound the writer's memory.
var defaultWrite = writeOptions{maxRows: 1 << 20, maxBytes: 64 << 20}

// readBatch is the number of rows decoded at a time.
const readBatch = 1 << 16

// writeTable writes rows as the Parquet table t at path, atomically.
func writeTable[R any](path string, t table[R], rows []R, prov Provenance, o writeOptions) error {
	meta, err := prov.metadata()
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = writeAtomic(path, func(w io.Writer) error {
		return encodeTable(w, t, rows, meta, o)
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// encodeTable writes rows to w as a zstd-compressed Parquet file, one row
// group per batch of rows cut by o. The Arrow writer panics on some write
// errors; those come back as errors, with the error of w as the cause.
func encodeTable[R any](w io.Writer, t table[R], rows []R, meta arrow.Metadata, o writeOptions) error {
	sink := &errWriter{w: w}
	err := guard("Parquet writer failed", func() error { return encodeRows(sink, t, rows, meta, o) })
	if sink.err != nil {
		return sink.err
	}
	return err
}

// errWriter remembers the first error of w.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

func encodeRows[R any](w io.Writer, t table[R], rows []R, meta arrow.Metadata, o writeOptions) (err error) {
	sc := t.schema(meta)
	alloc := o.allocator()
	// Dictionary encoding pays off on the repetitive string columns
	// (method, metric, split, ...) only; on floats it costs time and
	// memory for nothing, and zstd takes care of repeated integers.
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithAllocator(alloc),
		parquet.WithDictionaryDefault(false),
		// Version-2 data pages: arrow v15 re-encodes the levels of a version-1
		// page quadratically, which made 60k samples with list columns take
		// 30 s to write; v2 takes 0.1 s, and every current reader reads v2.
		parquet.WithDataPageVersion(parquet.DataPageV2),
	}
	for _, c := range t.cols {
		if c.typ.ID() == arrow.STRING {
			opts = append(opts, parquet.WithDictionaryFor(c.name, true))
		}
	}
	props := parquet.NewWriterProperties(opts...)
	fw, err := pqarrow.NewFileWriter(sc, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(alloc)))
	if err != nil {
		return fmt.Errorf("parquet writer: %w", err)
	}
	defer func() {
		// Close writes the footer; on failure it still frees the writer's
		// buffers, and the caller discards the partial output.
		if cerr := fw.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("parquet footer: %w", cerr)
		}
	}()
	rb := array.NewRecordBuilder(alloc, sc)
	defer rb.Release()
	for start := 0; start < len(rows); {
		end, size := start, 0
		for end < len(rows) && end-start < o.maxRows && (end == start || size < o.maxBytes) {
			size += t.rowBytes(&rows[end])
			end++
		}
		for c, col := range t.cols {
			if err := col.put(rb.Field(c), rows[start:end]); err != nil {
				return err
			}
		}
		rec := rb.NewRecord()
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("rows %d to %d: %w", start, end-1, err)
		}
		start = end
	}
	return nil
}

// writeAtomic creates path's directory if needed, lets write fill a
// temporary file in that directory, syncs it and renames it to path. On any
// error the temporary file is removed and an existing file at path is left
// as it was.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory: %w", unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, "."+base+"-*.tmp")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", unwrapPath(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// The Parquet writer closes a sink that is an io.Closer; bufio.Writer
	// hides Close so the file stays open for Sync.
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write temporary file: %w", unwrapPath(err))
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes 0600
		return fmt.Errorf("chmod temporary file: %w", unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync temporary file: %w", unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temporary file: %w", unwrapPath(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	// Make the rename durable. Some file systems refuse to sync a
	// directory; the file itself is complete either way, so that is not an
	// error.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// parquetFile is an open Parquet file: its reader, the file under it for
// checkLayout, and the allocator its buffers come from.
type parquetFile struct {
	*file.Reader
	src   io.ReaderAt
	size  int64
	alloc memory.Allocator
}

// checkLayout checks what the file's footer and page headers claim against
// the file (see the function checkLayout); the Arrow reader allocates by
// those claims, so this comes before any data is read.
func (p parquetFile) checkLayout() error { return checkLayout(p.Reader, p.src, p.size) }

// withParquet opens path as a Parquet file whose buffers come from alloc and
// calls fn with it. Errors do not name path: the caller does.
func withParquet(path string, alloc memory.Allocator, fn func(parquetFile) error) error {
	f, err := os.Open(path)
	if err != nil {
		return unwrapPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return unwrapPath(err)
	}
	if st.IsDir() {
		return errors.New("is a directory, not a Parquet file")
	}
	if st.Size() == 0 {
		return errors.New("empty file, not a Parquet file")
	}
	if err := checkFooter(f, st.Size()); err != nil {
		return err
	}
	var r *file.Reader
	err = guard("corrupt Parquet file", func() error {
		var err error
		r, err = file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(alloc)))
		return err
	})
	if err != nil {
		return fmt.Errorf("not a Parquet file: %w", err)
	}
	// r.Close would close f, which the deferred f.Close already does.
	return guard("corrupt Parquet file", func() error { return fn(parquetFile{r, f, st.Size(), alloc}) })
}

// guard turns a panic inside the Arrow library (seen on corrupt files and
// failed writes) into an error starting with what.
func guard(what string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: %v", what, p)
		}
	}()
	return fn()
}

// readTable reads the Parquet table at path. tableFor builds the table
// description from the file's Arrow schema (the summary's group columns
// depend on it); fixed tables ignore the schema.
func readTable[R any](path string, tableFor func(*arrow.Schema) (table[R], error)) ([]R, Provenance, error) {
	return readTableWith(path, memory.DefaultAllocator, tableFor)
}

// readTableWith is readTable with the Arrow allocator alloc.
func readTableWith[R any](path string, alloc memory.Allocator, tableFor func(*arrow.Schema) (table[R], error)) ([]R, Provenance, error) {
	var (
		rows []R
		prov Provenance
	)
	err := withParquet(path, alloc, func(r parquetFile) error {
		var err error
		if prov, err = provenanceOf(r.Reader); err != nil {
			return err
		}
		rows, err = decodeRows(r, tableFor)
		return err
	})
	if err != nil {
		return nil, Provenance{}, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, prov, nil
}

// fixed adapts a table that does not depend on the file schema for readTable.
func fixed[R any](t table[R]) func(*arrow.Schema) (table[R], error) {
	return func(*arrow.Schema) (table[R], error) { return t, nil }
}

// decodeRows checks the schema of r against the table and decodes its rows
// in file order, readBatch rows at a time. Columns are read one after the
// other in this goroutine (not with pqarrow's parallel readers), so guard
// can turn a panic on a corrupt file into an error.
func decodeRows[R any](r parquetFile, tableFor func(*arrow.Schema) (table[R], error)) ([]R, error) {
	fr, err := pqarrow.NewFileReader(r.Reader, pqarrow.ArrowReadProperties{BatchSize: readBatch}, r.alloc)
	if err != nil {
		return nil, err
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	t, err := tableFor(sc)
	if err != nil {
		return nil, err
	}
	// Check every column before reading any data, and read only the
	// columns of t: unknown extra columns may have any type.
	fields, fieldIdx, leaves, err := tableColumns(fr, sc, t)
	if err != nil {
		return nil, err
	}
	if err := r.checkLayout(); err != nil {
		return nil, err
	}
	total := r.NumRows()
	rows := make([]R, 0, min(total, readBatch))
	if total == 0 {
		return rows, nil
	}
	readers, err := columnReaders(fr, t, fieldIdx, leaves, r.NumRowGroups())
	defer func() {
		for _, cr := range readers {
			if cr != nil {
				cr.Release()
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	for remaining := total; remaining > 0; {
		m := min(remaining, readBatch)
		if rows, err = appendBatch(rows, t, fields, readers, m); err != nil {
			return nil, err
		}
		remaining -= m
	}
	return rows, nil
}

// tableColumns finds the columns of t in the file schema sc and checks
// their types; it returns their fields, their indices in sc and the leaf
// columns they span.
func tableColumns[R any](fr *pqarrow.FileReader, sc *arrow.Schema, t table[R]) ([]arrow.Field, []int, map[int]bool, error) {
	fields := make([]arrow.Field, len(t.cols))
	fieldIdx := make([]int, len(t.cols))
	leaves := map[int]bool{}
	for i, c := range t.cols {
		idx := sc.FieldIndices(c.name)
		switch {
		case len(idx) == 0:
			return nil, nil, nil, fmt.Errorf("missing column %q", c.name)
		case len(idx) > 1:
			return nil, nil, nil, fmt.Errorf("column %q appears %d times", c.name, len(idx))
		}
		fields[i], fieldIdx[i] = sc.Field(idx[0]), idx[0]
		if !sameType(c.typ, fields[i].Type) {
			return nil, nil, nil, fmt.Errorf("column %q: want %s, found %s", c.name, typeName(c.typ), typeName(fields[i].Type))
		}
		for _, l := range appendLeaves(nil, &fr.Manifest.Fields[idx[0]]) {
			leaves[l] = true
		}
	}
	return fields, fieldIdx, leaves, nil
}

// columnReaders returns a reader over every row group of each column of t;
// the caller releases those not nil, on error too.
func columnReaders[R any](fr *pqarrow.FileReader, t table[R], fieldIdx []int, leaves map[int]bool, numGroups int) ([]*pqarrow.ColumnReader, error) {
	groups := make([]int, numGroups)
	for g := range groups {
		groups[g] = g
	}
	ctx := context.Background()
	readers := make([]*pqarrow.ColumnReader, len(t.cols))
	for i, c := range t.cols {
		cr, err := fr.GetFieldReader(ctx, fieldIdx[i], leaves, groups)
		if err != nil {
			return readers, fmt.Errorf("column %q: %w", c.name, err)
		}
		if cr == nil {
			return readers, fmt.Errorf("column %q: no reader", c.name)
		}
		readers[i] = cr
	}
	return readers, nil
}

// appendBatch reads the next m rows of every column and decodes them onto
// rows.
func appendBatch[R any](rows []R, t table[R], fields []arrow.Field, readers []*pqarrow.ColumnReader, m int64) ([]R, error) {
	batch := make([]arrow.Column, len(t.cols))
	for i, c := range t.cols {
		ch, err := readers[i].NextBatch(m)
		if err != nil {
			releaseColumns(batch[:i])
			return nil, fmt.Errorf("column %q: %w", c.name, err)
		}
		if int64(ch.Len()) != m {
			n := ch.Len()
			ch.Release()
			releaseColumns(batch[:i])
			return nil, fmt.Errorf("column %q: %d values at row %d, want %d: file damaged", c.name, n, int64(len(rows)), m)
		}
		batch[i] = *arrow.NewColumn(fields[i], ch)
		ch.Release()
	}
	tbl := array.NewTable(arrow.NewSchema(fields, nil), batch, m)
	releaseColumns(batch)
	rows, err := appendTableRows(rows, t, tbl)
	tbl.Release()
	return rows, err
}

func releaseColumns(cols []arrow.Column) {
	for i := range cols {
		cols[i].Release()
	}
}

// appendTableRows decodes tbl, whose columns are those of t in order, onto
// rows. The columns may be chunked differently; the table reader yields
// aligned records.
func appendTableRows[R any](rows []R, t table[R], tbl arrow.Table) ([]R, error) {
	tr := array.NewTableReader(tbl, readBatch)
	defer tr.Release()
	for tr.Next() {
		rec := tr.Record()
		first, n := len(rows), int(rec.NumRows())
		rows = slices.Grow(rows, n)[:first+n]
		batch := rows[first:]
		if t.prepare != nil {
			t.prepare(batch)
		}
		for i, c := range t.cols {
			if err := c.get(rec.Column(i), batch, first); err != nil {
				return nil, fmt.Errorf("column %q: %w", c.name, err)
			}
		}
	}
	return rows, nil
}

// appendLeaves appends the Parquet leaf column indices under f. A node with
// children is not a leaf whatever IsLeaf says: pqarrow leaves ColIndex at 0,
// not -1, on nested fields.
func appendLeaves(leaves []int, f *pqarrow.SchemaField) []int {
	if len(f.Children) == 0 {
		return append(leaves, f.ColIndex)
	}
	for i := range f.Children {
		leaves = appendLeaves(leaves, &f.Children[i])
	}
	return leaves
}
