package cli

import (
	"slices"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/renn-go/renn/core/infer"
)

type aliasOptions struct {
	Lambda float64 `json:"lambda"`
	infer.Iteration
	Net    string `json:"net"`
	Hidden int    `json:"-" kong:"-"`
}

type aliasGrammar struct {
	Out          string
	aliasOptions `embed:""`
}

// The flags given that land in the options struct come back as
// NAME=VALUE settings under their json names, embedded options included,
// in command-line order; other flags and flags not given do not.
func TestAliases(t *testing.T) {
	g := &aliasGrammar{aliasOptions: aliasOptions{Lambda: 5, Iteration: infer.Iteration{Tol: 1e-9, MaxIter: 10}}}
	parser, err := kong.New(g)
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := parser.Parse([]string{"--max-seconds=2.5", "--out", "x", "--net", "message", "--lambda", "0.1", "--tol=1e-300"})
	if err != nil {
		t.Fatal(err)
	}
	got := Aliases(kctx, &g.aliasOptions)
	want := []string{"max_seconds=2.5", "net=message", "lambda=0.1", "tol=1e-300"}
	if !slices.Equal(got, want) {
		t.Errorf("aliases %q, want %q", got, want)
	}
}
