package formats

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tableFuzz reads the file at path with one table reader. On success it
// returns what was read (rows, provenance and, for the summary, the group
// columns) and a function writing it back with the matching writer.
type tableFuzz func(path string) (got any, rewrite func(path string) error, err error)

// fixedTableFuzz adapts a reader and writer pair of a fixed-schema table.
func fixedTableFuzz[R any](read func(string) ([]R, Provenance, error), write func(string, []R, Provenance) error) tableFuzz {
	return func(path string) (any, func(string) error, error) {
		rows, prov, err := read(path)
		type result struct {
			Rows []R
			Prov Provenance
		}
		return result{rows, prov}, func(p string) error { return write(p, rows, prov) }, err
	}
}

func summaryTableFuzz(path string) (any, func(string) error, error) {
	cols, rows, prov, err := ReadSummary(path)
	type result struct {
		Cols []string
		Rows []SummaryRow
		Prov Provenance
	}
	return result{cols, rows, prov}, func(p string) error { return WriteSummary(p, cols, rows, prov) }, err
}

// parquetFuzzSeeds adds to f's corpus the small valid files that write
// makes in dir, each with some damaged copies: cut short in the header, the
// middle and the footer, and with bytes flipped in the footer, where the
// schema and metadata lie.
func parquetFuzzSeeds(f *testing.F, write func(path string, rng *rand.Rand, n int) error) {
	dir := f.TempDir()
	for _, n := range []int{0, 1, 3} {
		path := filepath.Join(dir, "seed.parquet")
		if err := write(path, rand.New(rand.NewPCG(7, uint64(n))), n); err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		if n != 1 {
			continue
		}
		for _, cut := range []int{4, len(data) / 2, len(data) - 8, len(data) - 1} {
			f.Add(data[:cut])
		}
		for _, back := range []int{9, 30, 100} {
			if back < len(data) {
				bad := append([]byte{}, data...)
				bad[len(bad)-back] ^= 0x5a
				f.Add(bad)
			}
		}
	}
	f.Add([]byte("PAR1PAR1"))
}

// fuzzTable checks that read never panics, that it rejects bad input with
// an error naming the file, and that whatever it accepts survives being
// written back and read again unchanged.
func fuzzTable(f *testing.F, read tableFuzz) {
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fuzz.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, rewrite, err := read(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "read "+path+": ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		again := filepath.Join(dir, "again.parquet")
		if err := rewrite(again); err != nil {
			t.Fatalf("writing back what was read: %v", err)
		}
		back, _, err := read(again)
		if err != nil {
			t.Fatalf("reading back what was written: %v", err)
		}
		if !same(back, got) {
			t.Fatalf("read back\n%#v\nfirst read\n%#v", back, got)
		}
	})
}

func FuzzReadModels(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error { return WriteModels(p, genFactors(rng, n), testProv) })
	fuzzTable(f, fixedTableFuzz(ReadModels, WriteModels))
}

func FuzzReadModelInfo(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error {
		return WriteModelInfo(p, genModelInfo(rng, n), testProv)
	})
	fuzzTable(f, fixedTableFuzz(ReadModelInfo, WriteModelInfo))
}

func FuzzReadRegions(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error { return WriteRegions(p, genRegions(rng, n), testProv) })
	fuzzTable(f, fixedTableFuzz(ReadRegions, WriteRegions))
}

func FuzzReadMarginals(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error {
		return WriteMarginals(p, genMarginals(rng, n), testProv)
	})
	fuzzTable(f, fixedTableFuzz(ReadMarginals, WriteMarginals))
}

func FuzzReadEstimates(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error {
		return WriteEstimates(p, genEstimates(rng, n), testProv)
	})
	fuzzTable(f, fixedTableFuzz(ReadEstimates, WriteEstimates))
}

func FuzzReadSamples(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error { return WriteSamples(p, genSamples(rng, n), testProv) })
	fuzzTable(f, fixedTableFuzz(ReadSamples, WriteSamples))
}

func FuzzReadScores(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error { return WriteScores(p, genScores(rng, n), testProv) })
	fuzzTable(f, fixedTableFuzz(ReadScores, WriteScores))
}

func FuzzReadCurves(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error { return WriteCurves(p, genCurves(rng, n), testProv) })
	fuzzTable(f, fixedTableFuzz(ReadCurves, WriteCurves))
}

func FuzzReadSummary(f *testing.F) {
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error {
		return WriteSummary(p, []string{"graph", "size"}, genSummary(rng, n, 2), testProv)
	})
	parquetFuzzSeeds(f, func(p string, rng *rand.Rand, n int) error {
		return WriteSummary(p, nil, genSummary(rng, n, 0), testProv)
	})
	fuzzTable(f, summaryTableFuzz)
}
