package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/stages/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "train-renn", main) }

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
		{"bad ids", "--models " + dir + " --out " + out + " --ids 4-2", 2, "range ends before it starts"},
		{"no models file", "--models " + dir + " --out " + out, 1, "model_info.parquet"},
		{"infnet with regions", "--models " + dir + " --regions " + dir + " --method infnet --out " + out, 1, "takes no --regions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := clitest.Run(t, strings.Fields(tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
