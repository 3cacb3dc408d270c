package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/pipeline/verify"
)

// outputs writes a stage's output directory: estimates.parquet with the
// given log Z of model 1 and run time, and a notes.txt.
func outputs(t *testing.T, logZ, secs float64, notes string) string {
	t.Helper()
	dir := t.TempDir()
	rows := []formats.EstimateRow{
		{ModelID: 0, Method: "bp", LogZ: 1.5, Converged: true, Seconds: secs, Params: `{"run":` + formatFloat(secs) + `}`},
		{ModelID: 1, Method: "bp", LogZ: logZ, Converged: true, Seconds: secs},
	}
	prov := formats.Provenance{Stage: "test", Version: formatFloat(secs), Params: "{}"}
	if err := formats.WriteEstimates(filepath.Join(dir, formats.EstimatesFile), rows, prov); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func formatFloat(x float64) string { b, _ := json.Marshal(x); return string(b) }

func invoke(args ...string) (code int, stdout, stderr string) {
	var out, errb strings.Builder
	code = cli.Run(context.Background(), "compare-outputs", "test", &root{}, args, cli.IO{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestCompareOutputs(t *testing.T) {
	a := outputs(t, 2.25, 1, "n\n")
	same := outputs(t, 2.25, 7, "n\n") // other run time, params and metadata
	value := outputs(t, math.Nextafter(2.25, 3), 1, "n\n")
	notes := outputs(t, 2.25, 1, "m\n")
	est := func(dir string) string { return filepath.Join(dir, formats.EstimatesFile) }
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string // prefix
		stderr string // prefix
	}{
		{[]string{a, same}, 0, a + " and " + same + " hold the same results\n", ""},
		{[]string{a, value}, 1, "", "compare-outputs: " + a + " and " + value + " differ: estimates.parquet: column log_z, row 1: cached 2.25, new 2.2500000000000004\n"},
		{[]string{a, notes}, 1, "", "compare-outputs: " + a + " and " + notes + " differ: notes.txt: bytes differ from offset 0"},
		{[]string{est(a), est(same)}, 0, "", ""},
		{[]string{"--json", a, same}, 0, "null\n", ""},
		{[]string{a, est(a)}, 1, "", "compare-outputs: " + a + " and " + est(a) + ": give two directories or two files\n"},
		{[]string{a}, 2, "", "compare-outputs: expected \"<new>\""},
		{[]string{"--tol", "1e-15", a, value}, 0, a + " and " + value + " hold the same results\n", ""},
		{[]string{"--tol", "1e-17", a, value}, 1, "", "compare-outputs: " + a + " and " + value + " differ: estimates.parquet: column log_z"},
		{[]string{"--tol=-1", a, value}, 2, "", "compare-outputs: --tol -1, want a finite number >= 0"},
		{[]string{"--tol", "NaN", a, value}, 2, "", "compare-outputs: --tol NaN, want a finite number >= 0"},
	} {
		code, stdout, stderr := invoke(tt.args...)
		if code != tt.code || !strings.HasPrefix(stdout, tt.stdout) || !strings.HasPrefix(stderr, tt.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}

// TestJSONIsPipelineDifference: the JSON of two files is what the pipeline
// reads back (verify.CompareWith).
func TestJSONIsPipelineDifference(t *testing.T) {
	a, b := outputs(t, 2.25, 1, ""), outputs(t, -2.25, 1, "")
	code, stdout, stderr := invoke("--json", filepath.Join(a, formats.EstimatesFile), filepath.Join(b, formats.EstimatesFile))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d *verify.Difference
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatal(err)
	}
	want := verify.Difference{File: formats.EstimatesFile, Column: "log_z", Row: 1, Element: -1, Cached: "2.25", New: "-2.25"}
	if d == nil || *d != want {
		t.Errorf("JSON %s decodes to %+v, want %+v", stdout, d, want)
	}
}
