// Package cli runs a stage binary's kong command line with the project's exit
// codes: 0 on success, 1 on a runtime error, 2 on a usage error.
package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/alecthomas/kong"
)

// Main parses os.Args into grammar (a kong struct whose commands have
// Run() error methods, or which has one itself) and runs it. A flag without a
// default tag takes the value its field holds in grammar as its default, so
// a command can embed a method's options struct filled with its
// DefaultOptions: the options and their defaults are written once.
func Main(name, description string, grammar any) {
	os.Exit(run(name, description, grammar, os.Args[1:]))
}

func run(name, description string, grammar any, args []string) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	parser, err := kong.New(grammar, kong.Name(name), kong.Description(description),
		kong.UsageOnError(), kong.ConfigureHelp(kong.HelpOptions{Compact: true}), kong.PostBuild(defaultsFromValues),
		kong.NamedMapper("path", kong.MapperFunc(pathMapper)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	if err := utf8Args(args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		fmt.Fprintf(os.Stderr, "run '%s --help' for usage\n", name)
		return 2
	}
	if err := checkOutputs(ctx.Flags()); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	if err := ctx.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return runExit(err)
	}
	return 0
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
