package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "score", main) }

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	dirs := "--models " + empty + " --truth " + empty + " --pred " + empty + " --out " + out
	tests := []struct {
		name string
		args string
		code int
		want string // in stderr
	}{
		{"help", "--help", 0, ""},
		{"missing flags", "--out " + out, 2, "missing flags"},
		{"not a directory", "--models " + filepath.Join(dir, "nope") + " --truth " + empty + " --pred " + empty + " --out " + out, 2, "--models wants a folder written by sample-model (models.parquet and model_info.parquet); " + filepath.Join(dir, "nope") + " does not exist"},
		{"bad group", dirs + " --group graph,colour", 2, `unknown group column "colour"`},
		{"bad table", dirs + " --table html", 2, "--table"},
		{"plots without size", dirs + " --plots --group graph,gamma", 2, "group by size"},
		{"out is the pred directory", "--models " + empty + " --truth " + empty + " --pred " + dir + " --out " + dir, 2, "--out " + dir + " is the --pred input"},
		{"no models file", dirs, 2, "--models wants a folder written by sample-model (models.parquet and model_info.parquet); " + empty + " is empty"},
		{"ungrouped", dirs + " --group none", 2, empty + " is empty"},
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
