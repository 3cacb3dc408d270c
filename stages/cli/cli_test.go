package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

type cmd struct {
	N        int  `required:"" help:"A number."`
	Fail     bool `help:"Fail at run time."`
	Conflict bool `help:"Fail at run time with a usage error."`
}

func (c *cmd) Run() error {
	if c.Fail {
		return errors.New("runtime failure")
	}
	if c.Conflict {
		return fmt.Errorf("wrapped: %w", conflict{})
	}
	return nil
}

// conflict is a run-time error of the command line (as the refusal to
// replace another run's files).
type conflict struct{}

func (conflict) Error() string    { return "files of another run" }
func (conflict) UsageError() bool { return true }

func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"--n=3"}, 0},
		{[]string{"--n=3", "--fail"}, 1},
		{[]string{"--n=3", "--conflict"}, 2},
		{[]string{}, 2},
		{[]string{"--n=x"}, 2},
		{[]string{"--n=3", "--bogus"}, 2},
	} {
		if got := run("t", "test", &cmd{}, tt.args); got != tt.want {
			t.Errorf("%v: exit %d, want %d", tt.args, got, tt.want)
		}
	}
}

type stage struct {
	Graph  string   `enum:"grid,models" default:"grid"`
	Models string   `required:"" type:"existingdir"`
	Extra  []string `sep:"none"`
	Out    string   `required:"" type:"path"`
	UAIOut string   `name:"uai-out" type:"path"`
}

func (s *stage) Run() error { return nil }

// TestOutputNotInput: an output that is (or resolves to) an input, or is
// empty, is a usage error before the command runs.
func TestOutputNotInput(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	other := filepath.Join(dir, "other")
	for _, d := range []string{models, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(models, link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"--models", models, "--out", filepath.Join(dir, "new")}, 0},
		{[]string{"--models", models, "--out", other}, 0},
		{[]string{"--models", other, "--graph", "models", "--out", "models"}, 0}, // in dir, where ./models exists
		{[]string{"--models", models, "--out", models}, 2},
		{[]string{"--models", models, "--out", filepath.Join(other, "..", "models")}, 2},
		{[]string{"--models", models, "--out", link}, 2},
		{[]string{"--models", models, "--out", other, "--uai-out", models}, 2},
		{[]string{"--models", models, "--extra", other, "--out", other}, 2},
		{[]string{"--models", models, "--out", ""}, 2},
		{[]string{"--models", models, "--out", other, "--uai-out="}, 2},
		// kong would turn the byte 0xff into U+FFFD: refused, not rewritten.
		{[]string{"--models", models, "--out", filepath.Join(dir, "new\xff")}, 2},
	} {
		if got := run("t", "test", &stage{}, tt.args); got != tt.want {
			t.Errorf("%v: exit %d, want %d", tt.args, got, tt.want)
		}
	}
}
