package formats

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
)

var testProv = Provenance{
	Stage:   "exact-infer",
	Version: "v0.1.0-test",
	Params:  `{"max_table":1048576,"order":"min-fill"}`,
	Seed:    -42,
	Inputs: map[string]string{
		"data/models/models.parquet":     strings.Repeat("ab", 32),
		"data/models/model_info.parquet": strings.Repeat("0f", 32),
	},
}

// same compares values through their Go syntax, which tells NaN, -Inf and
// -0 apart where == and reflect.DeepEqual would not.
func same(a, b any) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }

// genFloats returns n values with the awkward ones mixed in.
func genFloats(rng *rand.Rand, n int) []float64 {
	special := []float64{math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	out := make([]float64, n)
	for i := range out {
		if rng.IntN(5) == 0 {
			out[i] = special[rng.IntN(len(special))]
		} else {
			out[i] = rng.NormFloat64()
		}
	}
	return out
}

// genInts returns n values, lengths 0 included.
func genInts(rng *rand.Rand, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = rng.Int32() - math.MaxInt32/2
	}
	return out
}

func genString(rng *rand.Rand) string {
	words := []string{"", "bp", "exact", "renn", "grid 5×5", `quote"comma,`, "train"}
	return words[rng.IntN(len(words))]
}

// roundTrip writes rows with write, reads them back with read and checks
// rows and provenance survive unchanged.
func roundTrip[R any](t *testing.T, rows []R,
	write func(string, []R, Provenance) error, read func(string) ([]R, Provenance, error)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "dir", "table.parquet")
	if err := write(path, rows, testProv); err != nil {
		t.Fatalf("write: %v", err)
	}
	got, prov, err := read(path)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
	}
	for i := range rows {
		if !same(got[i], rows[i]) {
			t.Fatalf("row %d:\n got %#v\nwant %#v", i, got[i], rows[i])
		}
	}
	if !same(prov, testProv) {
		t.Errorf("provenance:\n got %#v\nwant %#v", prov, testProv)
	}
}

func genFactors(rng *rand.Rand, n int) []FactorRow {
	rows := make([]FactorRow, n)
	for i := range rows {
		k := rng.IntN(4) // 0: an empty scope, a constant factor
		rows[i] = FactorRow{ModelID: int32(i % 3), FactorID: int32(i), Vars: genInts(rng, k), LogTable: genFloats(rng, 1<<k)}
	}
	return rows
}

func genModelInfo(rng *rand.Rand, n int) []ModelInfoRow {
	rows := make([]ModelInfoRow, n)
	for i := range rows {
		rows[i] = ModelInfoRow{ModelID: int32(i), Name: genString(rng), Cards: genInts(rng, rng.IntN(5)),
			Graph: genString(rng), Gamma: genFloats(rng, 1)[0], Seed: rng.Int64() - math.MaxInt64/2, Source: genString(rng)}
	}
	return rows
}

func genRegions(rng *rand.Rand, n int) []RegionRow {
	rows := make([]RegionRow, n)
	for i := range rows {
		rows[i] = RegionRow{ModelID: int32(i % 2), RegionID: int32(i), Level: int32(rng.IntN(3)),
			Vars: genInts(rng, rng.IntN(5)), Factors: genInts(rng, rng.IntN(5)), Counting: float64(rng.IntN(13) - 6),
			Parents: genInts(rng, rng.IntN(3)), Scheme: genString(rng)}
	}
	return rows
}

func genMarginals(rng *rand.Rand, n int) []MarginalRow {
	rows := make([]MarginalRow, n)
	for i := range rows {
		k := rng.IntN(3)
		rows[i] = MarginalRow{ModelID: int32(i / 10), Method: genString(rng), Kind: genString(rng), Index: int32(i),
			Vars: genInts(rng, k), Probs: genFloats(rng, 1<<k)}
	}
	return rows
}

func genStderrs(rng *rand.Rand, n int) []StderrRow {
	rows := make([]StderrRow, n)
	for i := range rows {
		kind := StderrVar
		if rng.IntN(4) == 0 {
			kind = StderrLogZ
		}
		rows[i] = StderrRow{ModelID: int32(i / 10), Method: genString(rng), Kind: kind, Index: int32(i), Stderr: genFloats(rng, 1+rng.IntN(3))}
	}
	return rows
}

func genEstimates(rng *rand.Rand, n int) []EstimateRow {
	rows := make([]EstimateRow, n)
	for i := range rows {
		f := genFloats(rng, 3)
		rows[i] = EstimateRow{ModelID: int32(i), Method: genString(rng), LogZ: f[0], FreeEnergy: f[1],
			Iterations: rng.Int32(), Converged: rng.IntN(2) == 1, Seconds: f[2], Params: `{"damping":0.5}`}
	}
	return rows
}

func genSamples(rng *rand.Rand, n int) []SampleRow {
	rows := make([]SampleRow, n)
	for i := range rows {
		rows[i] = SampleRow{ModelID: int32(i % 4), Split: genString(rng), X: genInts(rng, rng.IntN(30)), LogP: genFloats(rng, 1)[0]}
	}
	return rows
}

func genScores(rng *rand.Rand, n int) []ScoreRow {
	rows := make([]ScoreRow, n)
	for i := range rows {
		rows[i] = ScoreRow{ModelID: int32(i), Method: genString(rng), Metric: genString(rng), Value: genFloats(rng, 1)[0]}
	}
	return rows
}

func genCurves(rng *rand.Rand, n int) []CurveRow {
	rows := make([]CurveRow, n)
	for i := range rows {
		f := genFloats(rng, 3)
		rows[i] = CurveRow{ModelID: 1, Method: genString(rng), Iteration: int32(i), TrainNLL: f[0], TestNLL: f[1], Seconds: f[2]}
	}
	return rows
}

func genSummary(rng *rand.Rand, n, groups int) []SummaryRow {
	rows := make([]SummaryRow, n)
	for i := range rows {
		g := make([]string, groups)
		for k := range g {
			g[k] = genString(rng)
		}
		f := genFloats(rng, 2)
		rows[i] = SummaryRow{Group: g, Method: genString(rng), Metric: genString(rng), Mean: f[0], Std: f[1], N: rng.Int32()}
	}
	return rows
}

// summaryWith and summaryRead adapt the summary pair to roundTrip.
func summaryWith(groupCols []string) (func(string, []SummaryRow, Provenance) error, func(string) ([]SummaryRow, Provenance, error)) {
	write := func(path string, rows []SummaryRow, prov Provenance) error {
		return WriteSummary(path, groupCols, rows, prov)
	}
	read := func(path string) ([]SummaryRow, Provenance, error) {
		cols, rows, prov, err := ReadSummary(path)
		if err == nil && !same(cols, groupCols) && !(len(cols) == 0 && len(groupCols) == 0) {
			err = fmt.Errorf("group columns %q, want %q", cols, groupCols)
		}
		return rows, prov, err
	}
	return write, read
}

// TestRoundTrip writes and reads every table at several sizes; the default
// writer makes one row group, so the several-row-group path is covered by
// TestRowGroups.
func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 57} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		t.Run(fmt.Sprint("models/", n), func(t *testing.T) { roundTrip(t, genFactors(rng, n), WriteModels, ReadModels) })
		t.Run(fmt.Sprint("model_info/", n), func(t *testing.T) { roundTrip(t, genModelInfo(rng, n), WriteModelInfo, ReadModelInfo) })
		t.Run(fmt.Sprint("regions/", n), func(t *testing.T) { roundTrip(t, genRegions(rng, n), WriteRegions, ReadRegions) })
		t.Run(fmt.Sprint("marginals/", n), func(t *testing.T) { roundTrip(t, genMarginals(rng, n), WriteMarginals, ReadMarginals) })
		t.Run(fmt.Sprint("stderrs/", n), func(t *testing.T) { roundTrip(t, genStderrs(rng, n), WriteStderrs, ReadStderrs) })
		t.Run(fmt.Sprint("estimates/", n), func(t *testing.T) { roundTrip(t, genEstimates(rng, n), WriteEstimates, ReadEstimates) })
		t.Run(fmt.Sprint("samples/", n), func(t *testing.T) { roundTrip(t, genSamples(rng, n), WriteSamples, ReadSamples) })
		t.Run(fmt.Sprint("scores/", n), func(t *testing.T) { roundTrip(t, genScores(rng, n), WriteScores, ReadScores) })
		t.Run(fmt.Sprint("curves/", n), func(t *testing.T) { roundTrip(t, genCurves(rng, n), WriteCurves, ReadCurves) })
		for _, groups := range [][]string{{"graph", "size", "gamma"}, {"setting"}, {}} {
			w, r := summaryWith(groups)
			t.Run(fmt.Sprint("summary/", len(groups), "/", n), func(t *testing.T) { roundTrip(t, genSummary(rng, n, len(groups)), w, r) })
		}
	}
}

// TestRowGroups writes with small row groups, cut by rows and by bytes, and
// checks the file really has several and reads back in order.
func TestRowGroups(t *testing.T) {
	// Each row group costs the Arrow writer some milliseconds (a zstd
	// encoder per page), so the files stay small.
	rows := genMarginals(rand.New(rand.NewPCG(2, 2)), 40)
	for _, o := range []writeOptions{
		{maxRows: 7, maxBytes: 1 << 30},
		{maxRows: 1 << 20, maxBytes: 300},
		{maxRows: 2, maxBytes: 1},
	} {
		t.Run(fmt.Sprint(o.maxRows, "x", o.maxBytes), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), MarginalsFile)
			if err := writeTable(path, marginalsTable, rows, testProv, o); err != nil {
				t.Fatal(err)
			}
			r, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			groups := r.NumRowGroups()
			r.Close()
			if groups < 2 {
				t.Fatalf("%d row groups, want several", groups)
			}
			got, _, err := ReadMarginals(path)
			if err != nil {
				t.Fatal(err)
			}
			if !same(got, rows) {
				t.Fatalf("rows differ after reading %d row groups", groups)
			}
		})
	}
}

// TestReleases checks that writing and reading return every Arrow buffer.
func TestReleases(t *testing.T) {
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	alloc = checked
	defer func() { alloc = memory.DefaultAllocator }()
	rows := genSamples(rand.New(rand.NewPCG(3, 3)), 500)
	path := filepath.Join(t.TempDir(), SamplesFile)
	if err := writeTable(path, samplesTable, rows, testProv, writeOptions{maxRows: 100, maxBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	checked.AssertSize(t, 0)
	// Reading: arrow v15's reader of version-2 pages keeps a few hundred
	// bytes of level buffers per page without releasing them; with the Go
	// allocator the collector reclaims them, so only bound them here.
	if _, _, err := ReadSamples(path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadModels(path); err == nil { // an error path too
		t.Fatal("reading samples as models succeeded")
	}
	if n := checked.CurrentAlloc(); n > 64<<10 {
		t.Errorf("%d bytes held after reading 500 rows", n)
	}
}

// TestFileLayout checks what a third-party reader relies on: Parquet magic
// at both ends, zstd on every column chunk, the documented column names and
// physical types, and the provenance keys in the footer.
func TestFileLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), ModelsFile)
	if err := WriteModels(path, genFactors(rand.New(rand.NewPCG(4, 4)), 20), testProv); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, []byte("PAR1")) || !bytes.HasSuffix(raw, []byte("PAR1")) {
		t.Fatal("no Parquet magic")
	}
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md := r.MetaData()
	wantLeaves := []struct{ path, phys string }{
		{"model_id", "INT32"}, {"factor_id", "INT32"}, {"vars.list.element", "INT32"}, {"log_table.list.element", "DOUBLE"},
	}
	if md.Schema.NumColumns() != len(wantLeaves) {
		t.Fatalf("%d leaf columns, want %d", md.Schema.NumColumns(), len(wantLeaves))
	}
	for i, w := range wantLeaves {
		c := md.Schema.Column(i)
		if c.ColumnPath().String() != w.path || c.PhysicalType().String() != w.phys {
			t.Errorf("leaf %d: %s %s, want %s %s", i, c.ColumnPath(), c.PhysicalType(), w.path, w.phys)
		}
	}
	for g := 0; g < r.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if cc.Compression() != compress.Codecs.Zstd {
				t.Errorf("row group %d column %d: compression %v, want zstd", g, c, cc.Compression())
			}
		}
	}
	for _, key := range []string{keyStage, keyVersion, keyParams, keySeed, keyInputs} {
		if md.KeyValueMetadata().FindValue(key) == nil {
			t.Errorf("no metadata key %s", key)
		}
	}
}

// TestDeterministic checks that the same rows give the same bytes.
func TestDeterministic(t *testing.T) {
	rows := genRegions(rand.New(rand.NewPCG(5, 5)), 200)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	for _, p := range []string{a, b} {
		if err := WriteRegions(p, rows, testProv); err != nil {
			t.Fatal(err)
		}
	}
	ha, err := FileSHA256(a)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := FileSHA256(b)
	if err != nil {
		t.Fatal(err)
	}
	if ha != hb {
		t.Errorf("same rows, different files: %s vs %s", ha, hb)
	}
}

// TestPyarrowReads reads a written file with pyarrow when it is installed.
func TestPyarrowReads(t *testing.T) {
	if _, err := findPyarrow(); err != nil {
		t.Skip("python3 with pyarrow not installed:", err)
	}
	path := filepath.Join(t.TempDir(), MarginalsFile)
	rows := genMarginals(rand.New(rand.NewPCG(6, 6)), 30)
	if err := WriteMarginals(path, rows, testProv); err != nil {
		t.Fatal(err)
	}
	out, err := runPython(`
import sys, json, pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
t = f.read()
md = f.metadata.metadata
print(t.num_rows, t.column_names, md[b"renn.stage"].decode(), json.loads(md[b"renn.inputs"]) != {})
print(sum(len(p) for p in t.column("probs").to_pylist()))
`, path)
	if err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	nprobs := 0
	for _, r := range rows {
		nprobs += len(r.Probs)
	}
	want := fmt.Sprintf("%d ['model_id', 'method', 'kind', 'index', 'vars', 'probs'] exact-infer True\n%d\n", len(rows), nprobs)
	if out != want {
		t.Errorf("pyarrow read:\n%s\nwant:\n%s", out, want)
	}
}
