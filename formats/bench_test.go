package formats

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// BenchmarkMarginals100k writes and reads 100k marginal rows: variable
// marginals of binary variables and pairwise factor marginals, as
// exact-infer writes for a batch of models.
func BenchmarkMarginals100k(b *testing.B) {
	rows := benchMarginals()
	path := filepath.Join(b.TempDir(), MarginalsFile)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := WriteMarginals(path, rows, testProv); err != nil {
			b.Fatal(err)
		}
		got, _, err := ReadMarginals(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(rows) {
			b.Fatalf("read %d rows", len(got))
		}
	}
}

// BenchmarkMarginals100kRead reads them only.
func BenchmarkMarginals100kRead(b *testing.B) {
	rows := benchMarginals()
	path := filepath.Join(b.TempDir(), MarginalsFile)
	if err := WriteMarginals(path, rows, testProv); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		got, _, err := ReadMarginals(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(rows) {
			b.Fatalf("read %d rows", len(got))
		}
	}
}

// benchMarginals returns 100k rows: half variable marginals of binary
// variables, half pairwise factor marginals.
func benchMarginals() []MarginalRow {
	const n = 100_000
	rng := rand.New(rand.NewPCG(1, 1))
	rows := make([]MarginalRow, n)
	for i := range rows {
		r := MarginalRow{ModelID: int32(i / 1000), Method: "bp", Kind: "var", Index: int32(i % 1000), Vars: []int32{int32(i % 1000)}}
		if i%2 == 1 {
			r.Kind, r.Vars = "factor", []int32{int32(i % 1000), int32(i%1000 + 1)}
		}
		r.Probs = make([]float64, 1<<len(r.Vars))
		for j := range r.Probs {
			r.Probs[j] = rng.Float64()
		}
		rows[i] = r
	}
	return rows
}
