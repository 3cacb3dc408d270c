// Command fakeparquet stands in for a stage binary that writes Parquet, in
// the tests of pipeline verify.
//
// It takes any --name=value flags. Special ones: --out=DIR (required),
// --in=DIR (inputs, repeatable: their notes.txt seed the results), --log=DIR
// (a file per run is created there holding the --out value), --rows=N
// (default 4). It writes DIR/table.parquet, with the columns model_id,
// method, value, probs (a list), seconds and params, and DIR/notes.txt.
// Everything is derived from its arguments and its inputs but seconds
// (the time it ran), params (a JSON object naming its process) and the
// Parquet metadata (when it ran), which differ from run to run.
//
// The environment variable FAKEPARQUET changes what it writes, to stand
// for a binary whose code changed: a comma-separated list of value (a
// value changes in the last bits), probs (a list element changes), nan
// (values become NaN: every NaN is equal), negzero (a value becomes -0),
// rows (one more row), type (model_id becomes int64), extra (another
// file), notes (notes.txt changes), reshape (params becomes a different
// JSON object), sleep (it sleeps a minute first), fail (exit 3 after 25
// lines on stderr). FAKEPARQUET_MATCH=name=value applies them only to runs
// with that flag.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

func main() {
	start := time.Now()
	var out, logDir string
	var inputs, params []string
	rows := 4
	for _, a := range os.Args[1:] {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch name {
		case "out":
			out = value
		case "log":
			logDir = value
		case "in":
			inputs = append(inputs, value)
		case "rows":
			n, err := strconv.Atoi(value)
			check(err)
			rows = n
		}
		if name != "out" && name != "log" {
			params = append(params, a)
		}
	}
	if out == "" {
		fmt.Fprintln(os.Stderr, "fakeparquet: --out is required")
		os.Exit(2)
	}
	if logDir != "" {
		f, err := os.CreateTemp(logDir, "run-*")
		check(err)
		_, err = f.WriteString(out)
		check(err)
		check(f.Close())
	}
	modes := changes()
	if modes["sleep"] {
		time.Sleep(time.Minute)
	}
	if modes["fail"] {
		for i := 1; i <= 25; i++ {
			fmt.Fprintf(os.Stderr, "fake error line %d\n", i)
		}
		os.Exit(3)
	}
	seed := sha256.New()
	for _, p := range params {
		fmt.Fprintln(seed, p)
	}
	for _, in := range inputs {
		// Not table.parquet, whose bytes vary from run to run.
		b, err := os.ReadFile(filepath.Join(in, "notes.txt"))
		check(err)
		seed.Write(b)
	}
	sum := seed.Sum(nil)
	check(writeTable(filepath.Join(out, "table.parquet"), sum, rows, modes, start))
	notes := fmt.Sprintf("fakeparquet %x\n", sum[:8])
	if modes["notes"] {
		notes += "changed\n"
	}
	check(os.WriteFile(filepath.Join(out, "notes.txt"), []byte(notes), 0o644))
	if modes["extra"] {
		check(os.WriteFile(filepath.Join(out, "extra.txt"), nil, 0o644))
	}
}

// changes reads FAKEPARQUET, if FAKEPARQUET_MATCH matches an argument.
func changes() map[string]bool {
	m := map[string]bool{}
	if match := os.Getenv("FAKEPARQUET_MATCH"); match != "" && !slices.Contains(os.Args[1:], "--"+match) {
		return m
	}
	for _, c := range strings.Split(os.Getenv("FAKEPARQUET"), ",") {
		m[c] = c != ""
	}
	return m
}

func writeTable(path string, sum []byte, rows int, modes map[string]bool, start time.Time) error {
	idType := arrow.DataType(arrow.PrimitiveTypes.Int32)
	if modes["type"] {
		idType = arrow.PrimitiveTypes.Int64
	}
	md := arrow.NewMetadata([]string{"fake.ran"}, []string{time.Now().String()})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "model_id", Type: idType},
		{Name: "method", Type: arrow.BinaryTypes.String},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64},
		{Name: "probs", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "seconds", Type: arrow.PrimitiveTypes.Float64},
		{Name: "params", Type: arrow.BinaryTypes.String},
	}, &md)
	if modes["rows"] {
		rows++
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	base := float64(binary.LittleEndian.Uint32(sum)) / (1 << 32)
	params, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "rows": rows})
	if modes["reshape"] {
		params, _ = json.Marshal(map[string]any{"options": map[string]int{"rows": rows}, "diagnostics": []int{1, 2}})
	}
	for i := range rows {
		if modes["type"] {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
		} else {
			b.Field(0).(*array.Int32Builder).Append(int32(i))
		}
		b.Field(1).(*array.StringBuilder).Append("fake")
		v := base + float64(i)
		switch {
		case modes["nan"]:
			v = math.NaN()
		case modes["value"] && i == 2:
			v = math.Nextafter(v, 10)
		case modes["negzero"] && i == 0:
			v = math.Copysign(0, -1)
		case i == 0:
			v = 0
		}
		b.Field(2).(*array.Float64Builder).Append(v)
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		p := 0.25 * float64(i%3)
		if modes["probs"] && i == 1 {
			p += 1e-9
		}
		lb.ValueBuilder().(*array.Float64Builder).AppendValues([]float64{1 - p, p}, nil)
		b.Field(4).(*array.Float64Builder).Append(time.Since(start).Seconds())
		b.Field(5).(*array.StringBuilder).Append(string(params))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close() // closes f
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeparquet:", err)
		os.Exit(1)
	}
}
