package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "sample-model", main) }

// Every malformed or conflicting ising flag is a usage error (exit 2) whose
// message names the flag, and nothing is written.
func TestIsingUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args, want string
	}{
		{"--size 3 --couplings uniform", "--couplings"},
		{"--size 3 --couplings uniform:x", "--couplings"},
		{"--size 3 --couplings cauchy:1", "--couplings"},
		{"--size 3 --couplings normal:-1", "--couplings"},
		{"--size 3 --fields normal:NaN", "--fields"},
		{"--size 3 --fields uniform:Inf", "--fields"},
		{"--size 3 --fields uniform:1 --gamma 1", "--gamma"},
		{"--size 3 --fields uniform:1 --gamma 0", "--gamma"},
		{"--graph bipartite --size 3 --left 2 --right 2", "--size"},
		{"--graph bipartite --left 2", "--right"},
		{"--graph grid --size 3 --left 2", "--left"},
		{"--graph torus", "--size"},
		{"--graph regular --size 10", "--degree"},
		{"--graph regular --size 5 --degree 3", "even"},
		{"--graph complete --size 3 --degree 2", "--degree"},
		{"--graph complete --size 100000", "too large"},
		{"--size 10000", "too large"},
		{"--size 3 --count 2000000000", "--count"},
		{"--graph grid --size 0", "--graph grid"},
		{"--graph ring --size 3", "--graph"},
		{"--size 3 --hide right", "--hide right"},
		{"--graph bipartite --left 2 --right 2 --hide 4", "out of range"},
		{"--graph grid --size 2 --hide 0,1,2,3", "every one"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, stderr := clitest.Run(t, append(append([]string{"ising"}, strings.Fields(tt.args)...), "--out", out)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %q", tt.args, code, stderr, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", tt.args)
		}
	}
}

// The old invocations mean what they meant: no --gamma is --gamma 1, and
// --couplings normal:1 --fields normal:G is --gamma G, down to the bytes.
func TestIsingGammaIsNormalFields(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		if code, stderr := clitest.Run(t, append(append([]string{"ising", "--size", "3", "--count", "2", "--seed", "5"}, args...), "--out", out)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var sums []string
		for _, f := range []string{formats.ModelsFile, formats.ModelInfoFile} {
			s, err := formats.FileSHA256(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			sums = append(sums, s)
		}
		return strings.Join(sums, " ")
	}
	if a, b := run("g01", "--gamma", "0.1"), run("f01", "--couplings", "normal:1", "--fields", "normal:0.1"); a != b {
		t.Errorf("--gamma 0.1 and --fields normal:0.1 differ: %s vs %s", a, b)
	}
	if a, b := run("default"), run("g1", "--gamma", "1"); a != b {
		t.Errorf("no --gamma and --gamma 1 differ")
	}
}

// The UAI 2014 grid family is one command.
func TestIsingUAIGrids(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stderr := clitest.Run(t, "ising", "--graph", "grid", "--size", "10", "--couplings", "uniform:10", "--fields", "uniform:1",
		"--count", "10", "--seed", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	infos, prov, err := formats.ReadModelInfo(filepath.Join(out, formats.ModelInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 10 || infos[3].Name != "grid10-Ju10-hu1-3" || infos[3].Gamma != 0 ||
		infos[3].Source != "sample-model ising couplings=uniform:10 fields=uniform:1" ||
		prov.Params != `{"graph":"grid","size":10,"gamma":0,"count":10,"seed":1,"couplings":"uniform:10","fields":"uniform:1"}` {
		t.Errorf("%d models, model 3 %+v, params %s", len(infos), infos[3], prov.Params)
	}
}

// Sample counts beyond the bound are refused before sampling: from the flags
// alone a usage error (exit 2), with the models' sizes a runtime error (1).
// A UAI cardinality beyond the bound names the file, line and value.
func TestSizeBounds(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if code, stderr := clitest.Run(t, "ising", "--size", "3", "--count", "1", "--out", models); code != 0 {
		t.Fatalf("ising: exit %d: %s", code, stderr)
	}
	big := filepath.Join(dir, "big.uai")
	if err := os.WriteFile(big, []byte("MARKOV\n2\n2 4294967298\n1\n1 0\n2 1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"data", "--models", models, "--train", "2000000000"}, 2, "--train 2000000000"},
		{[]string{"data", "--models", models, "--train", "1", "--test", "2147483647"}, 2, "--test 2147483647"},
		{[]string{"data", "--models", models, "--train", "100000000", "--test", "0"}, 1, "--train 100000000"},
		{[]string{"uai", "--in", big}, 1, "big.uai:3: token 2: cardinality of variable 1 is 4294967298, above the bound"},
	} {
		out := filepath.Join(dir, "out")
		code, stderr := clitest.Run(t, append(tt.args, "--out", out)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", tt.args, code, stderr, tt.code, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: output written", tt.args)
		}
	}
}

// Usage errors of the other commands exit 2 before anything is read or
// written; an evidence file with unused cases is warned about.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "a.uai")
	evid := filepath.Join(dir, "two.evid")
	if err := os.WriteFile(model, []byte("MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 2 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evid, []byte("2\n1 0 1\n1 1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tt := range []struct {
		args string
		code int
		want string
	}{
		{"data --models " + dir + " --train 0 --test 0", 2, "not both 0"},
		{"data --models " + dir + " --max-table 0", 2, "--max-table"},
		{"uai --in " + model + " --case 1", 2, "--case 1 without --evid"},
		{"uai --in " + model + " --evid " + evid + " --case=-1", 2, "--case -1"},
		{"uai --in " + dir + " --case 1", 1, "no model in " + dir + " has an evidence file"},
		{"uai --in " + model + " --evid " + evid + " --case 3", 1, "evidence case 3 requested, file has 2"},
		{"uai --in " + model + " --out " + model, 2, "is the --in input"},
	} {
		args := strings.Fields(tt.args)
		if !strings.Contains(tt.args, "--out") {
			args = append(args, "--out", out)
		}
		code, stderr := clitest.Run(t, args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming %q", tt.args, code, stderr, tt.code, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", tt.args)
		}
	}
	code, stderr := clitest.Run(t, "uai", "--in", model, "--evid", evid, "--case", "1", "--out", out)
	if code != 0 || !strings.Contains(stderr, "holds 2 evidence cases: case 1 applied, the other 1 ignored") {
		t.Errorf("two cases: exit %d, stderr %q; want 0 and a warning", code, stderr)
	}
}
