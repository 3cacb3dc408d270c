package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the score command, so the exit codes
// of the real main can be checked.
func TestMain(m *testing.M) {
	if os.Getenv("SCORE_RUN_MAIN") == "1" {
		os.Args = append([]string{"score"}, strings.Fields(os.Getenv("SCORE_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

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
		{"not a directory", "--models " + filepath.Join(dir, "nope") + " --truth " + empty + " --pred " + empty + " --out " + out, 2, "is not a directory"},
		{"bad group", dirs + " --group graph,colour", 2, `unknown group column "colour"`},
		{"bad table", dirs + " --table html", 2, "--table"},
		{"plots without size", dirs + " --plots --group graph,gamma", 2, "group by size"},
		{"no models file", dirs, 1, filepath.Join(empty, "model_info.parquet")},
		{"ungrouped", dirs + " --group none", 1, filepath.Join(empty, "model_info.parquet")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "SCORE_RUN_MAIN=1", "SCORE_ARGS="+tc.args)
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
