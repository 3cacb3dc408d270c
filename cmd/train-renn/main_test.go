package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/renn-go/renn/core/renn"
)

// TestMain lets the test binary act as the train-renn command, so the exit
// codes of the real main can be checked.
func TestMain(m *testing.M) {
	if os.Getenv("TRAIN_RENN_RUN_MAIN") == "1" {
		os.Args = append([]string{"train-renn"}, strings.Fields(os.Getenv("TRAIN_RENN_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// The flag defaults are written out in the struct tags for --help; they must
// be renn's documented defaults.
func TestDefaultsMatchRENN(t *testing.T) {
	dir := t.TempDir()
	var r root
	parser, err := kong.New(&r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse([]string{"--models", dir, "--out", filepath.Join(dir, "out")}); err != nil {
		t.Fatal(err)
	}
	p, err := r.params()
	if err != nil {
		t.Fatal(err)
	}
	d := renn.DefaultOptions()
	got := renn.Options{Name: d.Name, Net: p.Net, Dim: p.Dim, Heads: p.Heads, Scale: p.Scale, BlockDepth: p.BlockDepth,
		Lambda: p.Lambda, Constraint: p.Constraint, MultiplierEvery: p.MultiplierEvery, LR: p.LR, MaxSteps: p.MaxSteps,
		Window: p.Window, Tol: p.Tol, ConsTol: p.ConsTol, WarmSteps: d.WarmSteps, Seed: p.Seed}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("flag defaults %+v\nrenn defaults %+v", got, d)
	}
	if p.Method != "renn" || p.Scheme != "auto" || p.Regions != "" || p.Name != "" {
		t.Errorf("method %q scheme %q regions %q name %q", p.Method, p.Scheme, p.Regions, p.Name)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		args string
		code int
		want string // in stderr
	}{
		{"help", "--help", 0, ""},
		{"missing flags", "--out " + out, 2, "missing flags"},
		{"bad method", "--models " + dir + " --out " + out + " --method gbp", 2, "--method"},
		{"bad net", "--models " + dir + " --out " + out + " --net cnn", 2, "--net"},
		{"bad lambda", "--models " + dir + " --out " + out + " --lambda=-1", 2, "lambda"},
		{"bad heads", "--models " + dir + " --out " + out + " --dim 32 --heads 3", 2, "divisible"},
		{"no models file", "--models " + dir + " --out " + out, 1, "model_info.parquet"},
		{"infnet with regions", "--models " + dir + " --regions " + dir + " --method infnet --out " + out, 1, "takes no --regions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "TRAIN_RENN_RUN_MAIN=1", "TRAIN_RENN_ARGS="+tc.args)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}
