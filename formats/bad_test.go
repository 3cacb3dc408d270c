package formats

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// rawFile describes a Parquet file as another tool might write it: any
// columns, nullable, rows given as JSON objects.
type rawFile struct {
	fields      []arrow.Field
	rows        string // JSON array of objects
	meta        map[string]string
	storeSchema bool // keep the Arrow schema, so large types survive
	chunk       int64
	rename      map[string]string // renames after building: JSON rows cannot hold duplicate names
}

func (rf rawFile) write(t *testing.T, path string) {
	t.Helper()
	var keys, vals []string
	for k, v := range rf.meta {
		keys, vals = append(keys, k), append(vals, v)
	}
	md := arrow.NewMetadata(keys, vals)
	sc := arrow.NewSchema(rf.fields, &md)
	mem := memory.NewGoAllocator()
	rec, _, err := array.RecordFromJSON(mem, sc, strings.NewReader(rf.rows))
	if err != nil {
		t.Fatalf("test rows: %v", err)
	}
	defer rec.Release()
	if rf.rename != nil {
		fields := slices.Clone(rf.fields)
		for i, f := range fields {
			if to, ok := rf.rename[f.Name]; ok {
				fields[i].Name = to
			}
		}
		sc = arrow.NewSchema(fields, &md)
		rec = array.NewRecord(sc, rec.Columns(), rec.NumRows())
		defer rec.Release()
	}
	tbl := array.NewTableFromRecords(sc, []arrow.Record{rec})
	defer tbl.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var opts []pqarrow.WriterOption
	if rf.storeSchema {
		opts = append(opts, pqarrow.WithStoreSchema())
	}
	chunk := rf.chunk
	if chunk == 0 {
		chunk = 1024
	}
	if err := pqarrow.WriteTable(tbl, f, chunk, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(opts...)); err != nil {
		t.Fatal(err)
	}
}

func field(name string, typ arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: typ, Nullable: true}
}

var (
	i32   = arrow.PrimitiveTypes.Int32
	i64   = arrow.PrimitiveTypes.Int64
	f32   = arrow.PrimitiveTypes.Float32
	f64   = arrow.PrimitiveTypes.Float64
	str   = arrow.BinaryTypes.String
	li32  = arrow.ListOf(arrow.PrimitiveTypes.Int32)
	lf64  = arrow.ListOf(arrow.PrimitiveTypes.Float64)
	lf32  = arrow.ListOf(arrow.PrimitiveTypes.Float32)
	goodM = []arrow.Field{field("model_id", i32), field("factor_id", i32), field("vars", li32), field("log_table", lf64)}
)

// TestReadBadSchema checks that schema and null problems name the file, the
// column and what was expected.
func TestReadBadSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		file rawFile
		want string // the error after "read <path>: "
	}{
		{"missing column",
			rawFile{fields: []arrow.Field{field("model_id", i32), field("factor_id", i32), field("log_table", lf64)},
				rows: `[{"model_id":0,"factor_id":0,"log_table":[0]}]`},
			`missing column "vars"`},
		{"wrong list element",
			rawFile{fields: []arrow.Field{field("model_id", i32), field("factor_id", i32), field("vars", li32), field("log_table", lf32)},
				rows: `[{"model_id":0,"factor_id":0,"vars":[0],"log_table":[0,1]}]`},
			`column "log_table": want list<float64>, found list<float32>`},
		{"wide integer",
			rawFile{fields: []arrow.Field{field("model_id", i64), field("factor_id", i32), field("vars", li32), field("log_table", lf64)},
				rows: `[{"model_id":0,"factor_id":0,"vars":[],"log_table":[0]}]`},
			`column "model_id": want int32, found int64`},
		{"scalar for list",
			rawFile{fields: []arrow.Field{field("model_id", i32), field("factor_id", i32), field("vars", i32), field("log_table", lf64)},
				rows: `[{"model_id":0,"factor_id":0,"vars":3,"log_table":[0]}]`},
			`column "vars": want list<int32>, found int32`},
		{"string for number",
			rawFile{fields: []arrow.Field{field("model_id", str), field("factor_id", i32), field("vars", li32), field("log_table", lf64)},
				rows: `[{"model_id":"a","factor_id":0,"vars":[],"log_table":[0]}]`},
			`column "model_id": want int32, found string`},
		{"duplicate column",
			rawFile{fields: append(slices.Clone(goodM), field("vars2", li32)), rename: map[string]string{"vars2": "vars"},
				rows: `[{"model_id":0,"factor_id":0,"vars":[1],"vars2":[1],"log_table":[0,0]}]`},
			`column "vars" appears 2 times`},
		{"null scalar",
			rawFile{fields: goodM, rows: `[{"model_id":0,"factor_id":0,"vars":[],"log_table":[0]},
				{"model_id":0,"factor_id":1,"vars":[],"log_table":[0]},
				{"model_id":null,"factor_id":2,"vars":[],"log_table":[0]}]`},
			`column "model_id": null at row 2`},
		{"null list",
			rawFile{fields: goodM, rows: `[{"model_id":0,"factor_id":0,"vars":[],"log_table":[0]},
				{"model_id":0,"factor_id":1,"vars":null,"log_table":[0]}]`},
			`column "vars": null at row 1`},
		{"null element",
			rawFile{fields: goodM, rows: `[{"model_id":0,"factor_id":0,"vars":[4],"log_table":[0,null]}]`},
			`column "log_table": null element 1 at row 0`},
		{"null in a later row group",
			rawFile{fields: goodM, chunk: 1, rows: `[{"model_id":0,"factor_id":0,"vars":[],"log_table":[0]},
				{"model_id":0,"factor_id":1,"vars":[],"log_table":[0]},
				{"model_id":0,"factor_id":null,"vars":[],"log_table":[0]}]`},
			`column "factor_id": null at row 2`},
		{"malformed seed",
			rawFile{fields: goodM, rows: `[]`, meta: map[string]string{keySeed: "forty-two"}},
			`metadata renn.seed: want an integer, found "forty-two"`},
		{"malformed inputs",
			rawFile{fields: goodM, rows: `[]`, meta: map[string]string{keyInputs: `["a"]`}},
			`metadata renn.inputs: want a JSON object of strings`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ModelsFile)
			tc.file.write(t, path)
			rows, _, err := ReadModels(path)
			if err == nil {
				t.Fatalf("read succeeded with %d rows, want error %q", len(rows), tc.want)
			}
			if want := "read " + path + ": " + tc.want; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n%v\nwant\n%s", err, want)
			}
		})
	}
}

// TestReadForeign reads files another tool could have written: nullable
// columns without nulls, columns in another order, unknown extra columns
// (nested ones too), a large string type, no provenance. (pqarrow cannot
// write large lists, so that variant is not tried.)
func TestReadForeign(t *testing.T) {
	t.Parallel()
	extra := arrow.StructOf(arrow.Field{Name: "a", Type: f32}, arrow.Field{Name: "b", Type: arrow.ListOf(str)})
	rf := rawFile{
		fields: []arrow.Field{
			field("note", extra), field("method", arrow.BinaryTypes.LargeString), field("model_id", i32),
			field("probs", lf64), field("kind", str), field("vars", li32), field("index", i32),
			field("weight", f32),
		},
		rows: `[
			{"note":{"a":1,"b":["x"]},"method":"bp","model_id":7,"probs":[0.25,0.75],"kind":"var","vars":[3],"index":3,"weight":1},
			{"note":null,"method":"bp","model_id":7,"probs":[1],"kind":"factor","vars":[],"index":0,"weight":null}]`,
		storeSchema: true,
	}
	path := filepath.Join(t.TempDir(), MarginalsFile)
	rf.write(t, path)
	rows, prov, err := ReadMarginals(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []MarginalRow{
		{ModelID: 7, Method: "bp", Kind: "var", Index: 3, Vars: []int32{3}, Probs: []float64{0.25, 0.75}},
		{ModelID: 7, Method: "bp", Kind: "factor", Index: 0, Vars: []int32{}, Probs: []float64{1}},
	}
	if !same(rows, want) {
		t.Errorf("rows\n%#v\nwant\n%#v", rows, want)
	}
	if !same(prov, Provenance{}) {
		t.Errorf("provenance %#v of a file without one, want zero", prov)
	}
}

// TestReadSummaryBad checks the summary's own schema rules.
func TestReadSummaryBad(t *testing.T) {
	t.Parallel()
	tail := []arrow.Field{field("metric", str), field("mean", f64), field("std", f64), field("n", i32)}
	for _, tc := range []struct {
		name   string
		fields []arrow.Field
		want   string
	}{
		{"no method", append([]arrow.Field{field("graph", str)}, tail...), `missing column "method"`},
		{"numeric group", append([]arrow.Field{field("graph", str), field("size", i32), field("method", str)}, tail...),
			`column "size": want string, found int32`},
		{"wide n", append([]arrow.Field{field("graph", str), field("method", str)}, append(tail[:3:3], field("n", i64))...),
			`column "n": want int32, found int64`},
		{"unnamed group", append([]arrow.Field{field("", str), field("method", str)}, tail...),
			`group column 0 has no name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), SummaryFile)
			rawFile{fields: tc.fields, rows: `[]`}.write(t, path)
			_, _, _, err := ReadSummary(path)
			if want := "read " + path + ": " + tc.want; err == nil || err.Error() != want {
				t.Errorf("error %v, want %s", err, want)
			}
		})
	}
}

// TestReadNotParquet checks files that are not Parquet at all, or no longer:
// every reader gives an error that names the file, and never panics.
func TestReadNotParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	if err := WriteMarginals(good, genMarginals(rand.New(rand.NewPCG(7, 7)), 40), testProv); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	cases := map[string][]byte{
		"empty":          {},
		"magic only":     []byte("PAR1"),
		"two magics":     []byte("PAR1PAR1"),
		"text":           []byte("model_id,factor_id\n0,0\n"),
		"random":         noise,
		"footer only":    full[len(full)-8:],
		"body only":      full[:len(full)-8],
		"bad footer len": append(append([]byte{}, full[:len(full)-8]...), 0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1'),
	}
	readers := map[string]func(string) error{
		"ReadMarginals":  func(p string) error { _, _, err := ReadMarginals(p); return err },
		"ReadModels":     func(p string) error { _, _, err := ReadModels(p); return err },
		"ReadSummary":    func(p string) error { _, _, _, err := ReadSummary(p); return err },
		"ReadProvenance": func(p string) error { _, err := ReadProvenance(p); return err },
	}
	for name, data := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for rname, read := range readers {
			err := read(path)
			if err == nil || !strings.HasPrefix(err.Error(), "read "+path+": ") {
				t.Errorf("%s on %s: error %v, want one naming the file", rname, name, err)
			}
		}
	}
	if _, _, err := ReadMarginals(filepath.Join(dir, "empty.parquet")); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("empty file: error %v, want one saying the file is empty", err)
	}

	missing := filepath.Join(dir, "no", "such.parquet")
	for rname, read := range readers {
		err := read(missing)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "read "+missing+": ") {
			t.Errorf("%s on a missing file: error %v, want fs.ErrNotExist naming the file", rname, err)
		}
	}
	if _, _, err := ReadMarginals(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: error %v, want one saying it is a directory", err)
	}
	if _, err := FileSHA256(missing); err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("FileSHA256 on a missing file: error %v", err)
	}
}

// TestReadTruncated cuts a valid file short: each prefix must fail with an
// error naming the file (a killed writer of another program leaves such
// files). Every cut in the first and last 100 bytes (magic, footer) is
// tried, and every 13th in between.
func TestReadTruncated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	if err := WriteModels(good, genFactors(rand.New(rand.NewPCG(9, 9)), 30), testProv); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cut.parquet")
	for n := 0; n < len(full); n++ {
		if n > 100 && n < len(full)-100 && n%13 != 0 {
			continue
		}
		if err := os.WriteFile(path, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if rows, _, err := ReadModels(path); err == nil || !strings.HasPrefix(err.Error(), "read "+path+": ") {
			t.Fatalf("cut at %d of %d bytes: %d rows, error %v", n, len(full), len(rows), err)
		}
	}
}

// TestReadCorrupt flips bytes all over a valid file (every byte of the last
// 300, where the footer lies, and every 11th before). The reader may or may
// not notice a flipped data byte, but it must return rather than crash.
func TestReadCorrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	if err := WriteMarginals(good, genMarginals(rand.New(rand.NewPCG(10, 10)), 30), testProv); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bad.parquet")
	failed := 0
	tried := 0
	for i := range full {
		if i < len(full)-300 && i%11 != 0 {
			continue
		}
		tried++
		bad := append([]byte{}, full...)
		bad[i] ^= 0x5a
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadMarginals(path); err != nil {
			failed++
			if !strings.HasPrefix(err.Error(), "read "+path+": ") {
				t.Fatalf("flip at %d: error %v does not name the file", i, err)
			}
		}
	}
	if failed == 0 {
		t.Error("no flipped byte was noticed")
	}
	t.Logf("%d of %d flipped bytes gave an error", failed, tried)
}

// TestReadBadParams checks that provenance params which are not JSON, which
// the writers refuse, are refused on reading too.
func TestReadBadParams(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ModelsFile)
	rawFile{fields: goodM, rows: `[]`, meta: map[string]string{keyParams: `{"damping":`}}.write(t, path)
	_, _, err := ReadModels(path)
	if want := "read " + path + `: metadata renn.params: not valid JSON: "{\"damping\":"`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
