// Command compare-outputs compares the results of two runs of a stage: two
// output directories, or two files. Parquet files are compared value by
// value (floats to the bit) but for the timing and options columns and the
// provenance metadata, other files byte for byte. pipeline verify runs it
// (with --json) to decide whether a rebuilt binary still gives the cached
// results. Run 'compare-outputs --help' for the flags.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/compare"
	"github.com/renn-go/renn/stages/pipeline/verify"
)

type root struct {
	Cached string  `arg:"" type:"path" help:"The earlier outputs: a stage's output directory, or one file."`
	New    string  `arg:"" type:"path" help:"The new outputs, of the same kind."`
	JSON   bool    `name:"json" help:"Write the first difference as a JSON object (null when there is none) and exit 0 either way."`
	Tol    float64 `name:"tol" default:"0" help:"Parquet floats are the same when they differ by at most tol relative to the larger magnitude (absolutely below magnitude 1); 0: bit for bit."`
}

// Validate makes a negative or non-finite --tol a usage error (exit 2).
func (r *root) Validate() error {
	if !(r.Tol >= 0) || math.IsInf(r.Tol, 1) {
		return fmt.Errorf("--tol %v, want a finite number >= 0 (0: bit for bit)", r.Tol)
	}
	return nil
}

func main() {
	cli.Main("compare-outputs", "Compare two stage output directories (or two files): Parquet tables value by value, other files byte for byte. Exit 0 when they hold the same results, 1 when they differ.", &root{})
}

func (r *root) Run(ctx context.Context, stdio cli.IO) error {
	d, err := r.compare(ctx)
	if err != nil {
		return err
	}
	if r.JSON {
		return json.NewEncoder(stdio.Out).Encode(d)
	}
	if d != nil {
		return fmt.Errorf("%s and %s differ: %s", r.Cached, r.New, d)
	}
	fmt.Fprintf(stdio.Out, "%s and %s hold the same results\n", r.Cached, r.New)
	return nil
}

// compare compares two directories, or two files.
func (r *root) compare(ctx context.Context) (*verify.Difference, error) {
	a, err := os.Stat(r.Cached)
	if err != nil {
		return nil, err
	}
	b, err := os.Stat(r.New)
	if err != nil {
		return nil, err
	}
	switch {
	case a.IsDir() && b.IsDir():
		return verify.CompareOutputs(ctx, r.Cached, r.New, r.parquet)
	case a.IsDir() || b.IsDir():
		return nil, fmt.Errorf("%s and %s: give two directories or two files", r.Cached, r.New)
	}
	return verify.CompareFiles(ctx, r.Cached, r.New, r.parquet)
}

// parquet is compare.ParquetWithin at --tol as a verify.ParquetComparer.
func (r *root) parquet(_ context.Context, cached, fresh string) (*verify.Difference, error) {
	d, err := compare.ParquetWithin(cached, fresh, r.Tol)
	if d == nil || err != nil {
		return nil, err
	}
	return &verify.Difference{Column: d.Column, Row: d.Row, Element: d.Element, Cached: d.Cached, New: d.New, Note: d.Note}, nil
}
