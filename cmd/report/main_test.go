package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the report command, so the exit
// codes of the real main can be checked.
func TestMain(m *testing.M) {
	if os.Getenv("REPORT_RUN_MAIN") == "1" {
		os.Args = append([]string{"report"}, strings.Fields(os.Getenv("REPORT_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	// A valid pipeline config without the paper's stages.
	cfg := filepath.Join(dir, "pipeline.toml")
	if err := os.WriteFile(cfg, []byte("data = \"data\"\n[stage.models]\nrun = [\"sample-model\", \"ising\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "REPORT.md")
	tests := []struct {
		name string
		args string
		code int
		want string // in stderr
	}{
		{"help", "--help", 0, ""},
		{"missing config", "--config " + filepath.Join(dir, "nope.toml") + " --out " + out, 2, "not a file"},
		{"not the paper pipeline", "--config " + cfg + " --out " + out + " --bin=", 1, `no stage "grid_score"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "REPORT_RUN_MAIN=1", "REPORT_ARGS="+tc.args)
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
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s", out)
	}
}
