// Package cli runs a stage binary's kong command line with the project's exit
// codes: 0 on success, 1 on a runtime error, 2 on a usage error.
package cli

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/alecthomas/kong"
)

// Main parses os.Args into grammar (a kong struct whose commands have
// Run() error methods, or which has one itself) and runs it.
func Main(name, description string, grammar any) {
	os.Exit(run(name, description, grammar, os.Args[1:]))
}

func run(name, description string, grammar any, args []string) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	parser, err := kong.New(grammar, kong.Name(name), kong.Description(description),
		kong.UsageOnError(), kong.ConfigureHelp(kong.HelpOptions{Compact: true}))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		fmt.Fprintf(os.Stderr, "run '%s --help' for usage\n", name)
		return 2
	}
	if err := ctx.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
