// Package cli runs a binary's kong command line with the project's exit
// codes: 0 on success, 1 on a runtime error, 2 on a usage error, 130 when
// interrupted (SIGINT, SIGTERM).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"reflect"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kong"
)

// Main parses os.Args into grammar (a kong struct whose commands have
// Run methods, or which has one itself) and runs it, with a context that
// SIGINT and SIGTERM cancel (see Run). A flag without a default tag takes
// the value its field holds in grammar as its default, so a command can
// embed a method's options struct filled with its DefaultOptions: the
// options and their defaults are written once.
func Main(name, description string, grammar any) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal kills at once
	}()
	os.Exit(Run(ctx, name, description, grammar, os.Args[1:], IO{Out: os.Stdout, Err: os.Stderr}))
}

// IO is where a command writes. A command's Run method may take it, the
// context, or both, as parameters: Run(ctx context.Context, io cli.IO) error.
type IO struct {
	Out, Err io.Writer
}

// ExitError ends a command with Code, writing Err (when not nil) as the
// command's one line of error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit code %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Usage marks err as a usage error: exit code 2.
func Usage(err error) error { return &ExitError{Code: 2, Err: err} }

// Interrupted is the exit code of a command stopped by SIGINT or SIGTERM,
// as a shell reports a process a signal killed.
const Interrupted = 130

// Run runs the command line args of grammar and returns the exit code: 0
// on success, 2 on a usage error (a bad flag, a Validate method's error, an
// output flag naming an input, a flag tagged folder:"PRODUCER: FILE..."
// not naming a folder that holds those files, or an error wrapped by
// Usage), 130 when ctx
// was cancelled before the command finished, 1 on any other error. An
// error is written to stdio.Err as one line, "name: error"; an interruption as
// "name: interrupted; " and what the error's Interruption method says (what
// was kept), or "no outputs written".
func Run(ctx context.Context, name, description string, grammar any, args []string, stdio IO) int {
	grace := InterruptGrace
	if g, ok := grammar.(interface{ InterruptGrace() time.Duration }); ok {
		grace = g.InterruptGrace()
	}
	return run(ctx, name, description, grammar, args, stdio, grace)
}

// InterruptGrace is how long a command may take to stop once interrupted:
// a stage checks its context between models and inside its iterations and
// then keeps what it finished, but a long computation that does not (an
// exact elimination) is left after this, as a kill would leave it (outputs
// are committed atomically). The pipeline kills a stage 5 seconds after
// stopping it. A grammar with an InterruptGrace() time.Duration method sets
// its own; 0 or less waits for the command to stop, however long.
const InterruptGrace = 4 * time.Second

func run(ctx context.Context, name, description string, grammar any, args []string, stdio IO, grace time.Duration) (code int) {
	slog.SetDefault(slog.New(slog.NewTextHandler(stdio.Err, &slog.HandlerOptions{Level: slog.LevelInfo})))
	// kong ends the process after --help; in-process callers (tests) get
	// the code back instead.
	type exit int
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(exit)
			if !ok {
				panic(r)
			}
			code = int(c)
		}
	}()
	parser, err := kong.New(grammar, kong.Name(name), kong.Description(description), kong.Writers(stdio.Out, stdio.Err),
		kong.Exit(func(c int) { panic(exit(c)) }),
		kong.UsageOnError(), kong.ConfigureHelp(kong.HelpOptions{Compact: true}), kong.PostBuild(defaultsFromValues),
		kong.NamedMapper("path", kong.MapperFunc(pathMapper)))
	if err != nil {
		fmt.Fprintf(stdio.Err, "%s: %v\n", name, err)
		return 2
	}
	if err := utf8Args(args); err != nil {
		fmt.Fprintf(stdio.Err, "%s: %v\n", name, err)
		return 2
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stdio.Err, "%s: %v\n", name, err)
		fmt.Fprintf(stdio.Err, "run '%s --help' for usage\n", name)
		return 2
	}
	if err := checkOutputs(kctx.Flags()); err != nil {
		fmt.Fprintf(stdio.Err, "%s: %v\n", name, err)
		return 2
	}
	if err := checkFolders(kctx.Flags()); err != nil {
		fmt.Fprintf(stdio.Err, "%s: %v\n", name, err)
		return 2
	}
	kctx.BindTo(ctx, (*context.Context)(nil))
	kctx.Bind(stdio)
	done := make(chan error, 1)
	go func() { done <- kctx.Run() }()
	select {
	case err := <-done:
		return report(ctx, name, err, stdio.Err)
	case <-ctx.Done():
	}
	var left <-chan time.Time // nil: wait for the command
	if grace > 0 {
		left = time.After(grace)
	}
	select {
	case err := <-done:
		return report(ctx, name, err, stdio.Err)
	case <-left:
		fmt.Fprintf(stdio.Err, "%s: interrupted; stopped before it finished, no outputs written\n", name)
		return Interrupted
	}
}

// report writes err, the error of a command's Run, and returns the exit
// code.
func report(ctx context.Context, name string, err error, w io.Writer) int {
	var ee *ExitError
	var kept interface{ Interruption() string }
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil && errors.As(err, &kept):
		fmt.Fprintf(w, "%s: interrupted; %s\n", name, kept.Interruption())
		return Interrupted
	case errors.As(err, &ee):
		if ee.Err != nil {
			fmt.Fprintf(w, "%s: %v\n", name, ee.Err)
		}
		return ee.Code
	case ctx.Err() != nil:
		fmt.Fprintf(w, "%s: interrupted; no outputs written\n", name)
		return Interrupted
	}
	fmt.Fprintf(w, "%s: %v\n", name, err)
	return runExit(err)
}

// runExit is the exit code of an error a command's Run returned: 2 if it is
// one of the command line (it has a UsageError method reporting true, such
// as the refusal to replace another run's files), else 1.
func runExit(err error) int {
	var u interface{ UsageError() bool }
	if errors.As(err, &u) && u.UsageError() {
		return 2
	}
	return 1
}

// utf8Args refuses an argument that is not valid UTF-8: kong decodes flag
// values through JSON, which replaces such bytes by U+FFFD, so a path like
// "m\xffx" would silently become another (missing) path.
func utf8Args(args []string) error {
	for _, a := range args {
		if !utf8.ValidString(a) {
			return fmt.Errorf("argument %q is not valid UTF-8, which the flag parser cannot keep byte for byte; rename the file or pass a symlink with a UTF-8 name", a)
		}
	}
	return nil
}

// defaultsFromValues gives every scalar flag without a default tag the value
// its field holds now (before parsing resets the fields) as its default.
func defaultsFromValues(k *kong.Kong) error {
	for _, group := range k.Model.AllFlags(true) {
		for _, f := range group {
			if f.HasDefault || f.Required || !f.Target.IsValid() {
				continue
			}
			v := f.Target
			switch v.Kind() {
			case reflect.Float64, reflect.Float32:
				f.Default = strconv.FormatFloat(v.Float(), 'g', -1, 64)
			case reflect.Int, reflect.Int64, reflect.Int32:
				f.Default = strconv.FormatInt(v.Int(), 10)
			case reflect.String:
				if v.String() == "" {
					continue
				}
				f.Default = v.String()
			default:
				continue
			}
			f.HasDefault = true
		}
	}
	return nil
}
