package mcmc

import (
	"context"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// inferPT runs parallel tempering with options o on m and returns the
// sampler (for its standard errors) and the result; an error fails the
// test.
func inferPT(t *testing.T, o PTOptions, m *mrf.Model) (*Sampler, *infer.Result) {
	t.Helper()
	s, err := NewPT(o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Infer(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}
