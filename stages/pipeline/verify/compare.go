package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// CompareTool is the binary, built with the stage binaries, that compares
// two Parquet files for CompareOutputs. It lives outside the runner so that
// the runner, and go run ./cmd/pipeline, compile without Arrow.
const CompareTool = "compare-outputs"

// Difference is the first difference CompareOutputs found between the
// cached outputs of an instance and those of a new run. Its JSON form
// (but File) is what compare-outputs --json writes for two files.
type Difference struct {
	File string `json:"file,omitempty"` // the file's name in the output directory
	// Column is the Parquet column whose values differ; "" when the
	// difference is elsewhere (Note says where).
	Column  string `json:"column,omitempty"`
	Row     int    `json:"row"`     // the first differing row of Column, from 0
	Element int    `json:"element"` // for a list column, the first differing element of the row; -1 otherwise
	Cached  string `json:"cached,omitempty"`
	New     string `json:"new,omitempty"`
	Note    string `json:"note,omitempty"` // what differs, when it is not a column's value
}

func (d *Difference) String() string {
	if d.Column == "" {
		return d.File + ": " + d.Note
	}
	at := fmt.Sprintf("row %d", d.Row)
	if d.Element >= 0 {
		at += fmt.Sprintf(", element %d", d.Element)
	}
	return fmt.Sprintf("%s: column %s, %s: cached %s, new %s", d.File, d.Column, at, d.Cached, d.New)
}

// ParquetComparer compares two Parquet files, cached and fresh, and
// returns their first difference (File unset), or nil if they hold the
// same results.
type ParquetComparer func(ctx context.Context, cached, fresh string) (*Difference, error)

// CompareWith returns the ParquetComparer that runs the compare-outputs
// binary of binDir (see package stages/compare for what it compares), with
// floats the same within tol (its --tol; 0: bit for bit).
func CompareWith(binDir string, tol float64) ParquetComparer {
	tool := filepath.Join(binDir, CompareTool)
	return func(ctx context.Context, cached, fresh string) (*Difference, error) {
		if _, err := os.Stat(tool); err != nil {
			return nil, fmt.Errorf("compare %s: %w (pipeline run builds %s with the stage binaries; or go build -trimpath -buildvcs=false -o bin/ ./cmd/...)",
				filepath.Base(cached), err, CompareTool)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, tool, "--json", "--tol", strconv.FormatFloat(tol, 'g', -1, 64), cached, fresh)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("compare %s: %s: %w: %s", filepath.Base(cached), tool, err, strings.TrimSpace(stderr.String()))
		}
		var d *Difference
		if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("compare %s: %s wrote %q: %w", filepath.Base(cached), tool, stdout.String(), err)
		}
		return d, nil
	}
}

// CompareOutputs compares the output files of two directories, cached and
// fresh, and returns their first difference, or nil if they hold the same
// results. Outputs are the regular files whose names do not begin with "."
// (as for stamps). Files must be byte-equal, but for Parquet files
// (*.parquet), which parquet compares when their bytes differ: Parquet
// files record when and by what they were written, and their timing
// columns differ from run to run.
func CompareOutputs(ctx context.Context, cached, fresh string, parquet ParquetComparer) (*Difference, error) {
	a, err := outputNames(cached)
	if err != nil {
		return nil, err
	}
	b, err := outputNames(fresh)
	if err != nil {
		return nil, err
	}
	for _, n := range a {
		if !slices.Contains(b, n) {
			return &Difference{File: n, Note: "only in the cached outputs"}, nil
		}
	}
	for _, n := range b {
		if !slices.Contains(a, n) {
			return &Difference{File: n, Note: "only in the new outputs"}, nil
		}
	}
	for _, n := range a {
		d, err := CompareFiles(ctx, filepath.Join(cached, n), filepath.Join(fresh, n), parquet)
		if d != nil || err != nil {
			return d, err
		}
	}
	return nil, nil
}

// CompareFiles compares two files as CompareOutputs compares two outputs
// of the same name: byte for byte, and if their bytes differ and cached is
// a Parquet file (*.parquet), with parquet. The difference names the file
// by cached's base name.
func CompareFiles(ctx context.Context, cached, fresh string, parquet ParquetComparer) (*Difference, error) {
	d, err := compareBytes(cached, fresh)
	if err == nil && d != nil && strings.HasSuffix(cached, ".parquet") {
		d, err = parquet(ctx, cached, fresh)
	}
	if d != nil {
		d.File = filepath.Base(cached)
	}
	return d, err
}

// outputNames lists the output files of dir, sorted.
func outputNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("compare outputs: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// compareBytes says where two files first differ.
func compareBytes(a, b string) (*Difference, error) {
	ba, err := os.ReadFile(a)
	if err != nil {
		return nil, fmt.Errorf("compare outputs: %w", err)
	}
	bb, err := os.ReadFile(b)
	if err != nil {
		return nil, fmt.Errorf("compare outputs: %w", err)
	}
	if bytes.Equal(ba, bb) {
		return nil, nil
	}
	i := 0
	for i < len(ba) && i < len(bb) && ba[i] == bb[i] {
		i++
	}
	line := bytes.Count(ba[:i], []byte("\n")) + 1
	return &Difference{Note: fmt.Sprintf("bytes differ from offset %d (line %d; cached %d bytes, new %d)", i, line, len(ba), len(bb))}, nil
}
