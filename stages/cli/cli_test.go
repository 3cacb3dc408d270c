package cli

import (
	"errors"
	"testing"
)

type cmd struct {
	N    int  `required:"" help:"A number."`
	Fail bool `help:"Fail at run time."`
}

func (c *cmd) Run() error {
	if c.Fail {
		return errors.New("runtime failure")
	}
	return nil
}

func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"--n=3"}, 0},
		{[]string{"--n=3", "--fail"}, 1},
		{[]string{}, 2},
		{[]string{"--n=x"}, 2},
		{[]string{"--n=3", "--bogus"}, 2},
	} {
		if got := run("t", "test", &cmd{}, tt.args); got != tt.want {
			t.Errorf("%v: exit %d, want %d", tt.args, got, tt.want)
		}
	}
}
