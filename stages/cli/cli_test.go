package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		if got := Run(context.Background(), "t", "test", &cmd{}, tt.args, IO{Out: io.Discard, Err: io.Discard}); got != tt.want {
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
		if got := Run(context.Background(), "t", "test", &stage{}, tt.args, IO{Out: io.Discard, Err: io.Discard}); got != tt.want {
			t.Errorf("%v: exit %d, want %d", tt.args, got, tt.want)
		}
	}
}

// waiter is a command that works until its context is cancelled, then
// returns what a stage returns.
type waiter struct {
	Keep bool `help:"Say what was kept."`
}

type keptError struct{ error }

func (keptError) Interruption() string { return "3 of 5 models kept in out/partial/" }

func (w *waiter) Run(ctx context.Context, stdio IO) error {
	fmt.Fprintln(stdio.Out, "working")
	<-ctx.Done()
	if w.Keep {
		return keptError{fmt.Errorf("model 3: %w", ctx.Err())}
	}
	return fmt.Errorf("renn: renn: %w", ctx.Err())
}

// TestInterrupted: a command stopped by its context exits 130 with one
// plain line, saying what it kept when it says so.
func TestInterrupted(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "t: interrupted; no outputs written\n"},
		{[]string{"--keep"}, "t: interrupted; 3 of 5 models kept in out/partial/\n"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb strings.Builder
		go func() {
			time.Sleep(10 * time.Millisecond)
			cancel()
		}()
		code := Run(ctx, "t", "test", &waiter{}, tt.args, IO{Out: &out, Err: &errb})
		if code != 130 || errb.String() != tt.want || out.String() != "working\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 130 and %q", tt.args, code, out.String(), errb.String(), tt.want)
		}
	}
}

type coded struct{}

func (coded) Run() error { return &ExitError{Code: 7, Err: errors.New("seven")} }

func TestExitErrorAndHelp(t *testing.T) {
	var out, errb strings.Builder
	if code := Run(context.Background(), "t", "test", &coded{}, nil, IO{Out: &out, Err: &errb}); code != 7 || errb.String() != "t: seven\n" {
		t.Errorf("ExitError: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if code := Run(context.Background(), "t", "test", &cmd{}, []string{"--help"}, IO{Out: &out, Err: &errb}); code != 0 || !strings.Contains(out.String(), "Usage: t") {
		t.Errorf("--help: exit %d, stdout %q", code, out.String())
	}
}

type reader struct {
	Models []string `sep:"none" folder:"sample-model: models.parquet model_info.parquet"`
}

func (*reader) Run() error { return nil }

// TestFolders: a flag that wants a stage's folder says which, and what it
// was given instead.
func TestFolders(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"models/models.parquet", "models/model_info.parquet", "exact/marginals.parquet",
		"exact/estimates.parquet", "exact/.pipeline-stamp.json", "half/models.parquet", "many/a", "many/b", "many/c", "many/d", "many/e"} {
		write(name)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	const wants = "t: --models wants a folder written by sample-model (models.parquet and model_info.parquet); "
	for _, tt := range []struct {
		args []string
		want string // stderr; "" for exit 0
	}{
		{[]string{"--models", "models"}, ""},
		{[]string{"--models", "models", "--models", "exact"}, wants + "exact holds estimates.parquet, marginals.parquet instead\n"},
		{[]string{"--models", "models/models.parquet"}, wants + "models/models.parquet is a file: give its folder, models\n"},
		{[]string{"--models", "exact/estimates.parquet"}, wants + "exact/estimates.parquet is a file\n"},
		{[]string{"--models", "half"}, wants + "half lacks model_info.parquet\n"},
		{[]string{"--models", "empty"}, wants + "empty is empty\n"},
		{[]string{"--models", "many"}, wants + "many holds a, b, c, d, and 1 more instead\n"},
		{[]string{"--models", "nosuch"}, wants + "nosuch does not exist\n"},
	} {
		var errb strings.Builder
		code := Run(context.Background(), "t", "test", &reader{}, tt.args, IO{Out: io.Discard, Err: &errb})
		if want := map[bool]int{true: 0, false: 2}[tt.want == ""]; code != want || errb.String() != tt.want {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.args, code, errb.String(), want, tt.want)
		}
	}
}

// deaf works on, whatever its context says.
type deaf struct{}

func (deaf) Run() error {
	time.Sleep(time.Minute)
	return nil
}

// TestInterruptGrace: a command that does not stop when interrupted is left
// after the grace, with the same one line and exit code.
func TestInterruptGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errb strings.Builder
	start := time.Now()
	code := run(ctx, "t", "test", &deaf{}, nil, IO{Out: io.Discard, Err: &errb}, 50*time.Millisecond)
	if code != 130 || errb.String() != "t: interrupted; stopped before it finished, no outputs written\n" || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d, stderr %q after %v", code, errb.String(), time.Since(start))
	}
}

// TestExitErrorWhenInterrupted: a command that ends interrupted with its
// own exit code and line (pipeline job) keeps them.
func TestExitErrorWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errb strings.Builder
	if code := Run(ctx, "t", "test", &coded{}, nil, IO{Out: io.Discard, Err: &errb}); code != 7 || errb.String() != "t: seven\n" {
		t.Errorf("exit %d, stderr %q; want 7, %q", code, errb.String(), "t: seven\n")
	}
}
