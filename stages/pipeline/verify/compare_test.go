package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/pipeline"
)

// fakeOutputs runs fakeparquet into a new directory, with FAKEPARQUET set
// to change, and returns the directory.
func fakeOutputs(t *testing.T, change string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(trimmed(), "fakeparquet"), "gen", "--size=3", "--out="+dir)
	cmd.Env = append(os.Environ(), "FAKEPARQUET="+change, "FAKEPARQUET_MATCH=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fakeparquet: %v\n%s", err, out)
	}
	return dir
}

func TestCompareOutputs(t *testing.T) {
	tests := []struct {
		name          string
		cached, fresh string // FAKEPARQUET of each run
		want          string // the difference; "" for none
	}{
		{"run twice", "", "", ""},
		{"params reshaped", "", "reshape", ""},
		{"NaN equals NaN", "nan", "nan", ""},
		{"a value in its last bit", "", "value", "table.parquet: column value, row 2: cached 2."},
		{"negative zero", "", "negzero", "table.parquet: column value, row 0: cached 0, new -0"},
		{"NaN for a number", "", "nan", "table.parquet: column value, row 0: cached 0, new NaN"},
		{"a list element", "", "probs", "table.parquet: column probs, row 1, element 0: cached 0.75, new 0.74999999"},
		{"one more row", "", "rows", "table.parquet: rows: cached 4, new 5"},
		{"a column's type", "", "type", "table.parquet: column model_id: type: cached int32, new int64"},
		{"a file fewer", "extra", "", "extra.txt: only in the cached outputs"},
		{"a file more", "", "extra", "extra.txt: only in the new outputs"},
		{"a text file", "", "notes", "notes.txt: bytes differ from offset 29 (line 2; cached 29 bytes, new 37)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cached, fresh := fakeOutputs(t, tt.cached), fakeOutputs(t, tt.fresh)
			// Dot files (stamps, logs) and subdirectories are not outputs.
			if err := os.WriteFile(filepath.Join(cached, pipeline.StampName), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(fresh, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			d, err := CompareOutputs(context.Background(), cached, fresh, CompareWith(trimmed(), 0))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && d != nil:
				t.Errorf("difference %q, want none", d)
			case tt.want != "" && (d == nil || !strings.HasPrefix(d.String(), tt.want)):
				t.Errorf("difference %v, want %q", d, tt.want)
			}
		})
	}
}

// TestCompareWithoutTool: Parquet files that differ in their bytes need
// compare-outputs; without it the error says where it comes from.
func TestCompareWithoutTool(t *testing.T) {
	cached, fresh := fakeOutputs(t, ""), fakeOutputs(t, "")
	_, err := CompareOutputs(context.Background(), cached, fresh, CompareWith(t.TempDir(), 0))
	if err == nil || !strings.Contains(err.Error(), "compare table.parquet") || !strings.Contains(err.Error(), "pipeline run builds compare-outputs") {
		t.Errorf("error %v, want one naming the file and saying how compare-outputs is built", err)
	}
}
