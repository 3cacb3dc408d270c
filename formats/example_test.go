package formats_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/renn-go/renn/formats"
)

func ExampleWriteModels() {
	dir, err := os.MkdirTemp("", "formats-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, formats.ModelsFile)

	// One binary model with a unary factor and a pairwise factor that
	// forbids x0 = x1 = 1 (-Inf is a zero potential).
	rows := []formats.FactorRow{
		{ModelID: 0, FactorID: 0, Vars: []int32{0}, LogTable: []float64{0, 0.5}},
		{ModelID: 0, FactorID: 1, Vars: []int32{0, 1}, LogTable: []float64{0, 0, 0, math.Inf(-1)}},
	}
	prov := formats.Provenance{Stage: "sample-model", Version: "dev", Params: `{"graph":"custom"}`, Seed: 1}
	if err := formats.WriteModels(path, rows, prov); err != nil {
		log.Fatal(err)
	}

	got, gotProv, err := formats.ReadModels(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range got {
		fmt.Println(r.FactorID, r.Vars, r.LogTable)
	}
	fmt.Println(gotProv.Stage, gotProv.Params)
	// Output:
	// 0 [0] [0 0.5]
	// 1 [0 1] [0 0 0 -Inf]
	// sample-model {"graph":"custom"}
}

func ExampleWriteSummary() {
	dir, err := os.MkdirTemp("", "formats-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, formats.SummaryFile)

	rows := []formats.SummaryRow{
		{Group: []string{"grid", "25"}, Method: "bp", Metric: "l1", Mean: 0.03, Std: 0.01, N: 30},
		{Group: []string{"grid", "25"}, Method: "renn", Metric: "l1", Mean: 0.01, Std: 0.004, N: 30},
	}
	if err := formats.WriteSummary(path, []string{"graph", "size"}, rows, formats.Provenance{Stage: "score"}); err != nil {
		log.Fatal(err)
	}
	cols, got, _, err := formats.ReadSummary(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cols)
	for _, r := range got {
		fmt.Println(r.Group, r.Method, r.Metric, r.Mean, r.N)
	}
	// Output:
	// [graph size]
	// [grid 25] bp l1 0.03 30
	// [grid 25] renn l1 0.01 30
}
