package methods

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
)

// The shared options embedded in a method's options (infer.Iteration,
// infer.TimeBudget) are options like the method's own: listed in --help
// with their defaults, set by name, and rejected with a clear message.
func TestEmbeddedOptions(t *testing.T) {
	iterative := []string{"mf", "bp", "dbp", "trw", "gbp", "dlgbp", "infnet", "renn", "renn-mp", "renn-direct"}
	for _, name := range iterative {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		usage := Usage(false, name)
		for _, opt := range []string{"tol", "max_iter", "max_seconds"} {
			if !strings.Contains(usage, "  "+opt+"=") {
				t.Errorf("%s: --help lists no %s:\n%s", name, opt, usage)
			}
		}
		opts, err := Resolve([]string{name}, []string{"tol=0.25", "max_iter=17", "max_seconds=3.5"}, false)
		if err != nil {
			t.Fatal(err)
		}
		it := iterationOf(t, opts[name])
		switch v := opts[name].Value().(type) { // the struct fields themselves
		case bp.Options:
			it = v.Iteration
		case renn.Options:
			it = v.Iteration
		}
		if it != (infer.Iteration{Tol: 0.25, MaxIter: 17, TimeBudget: infer.TimeBudget{MaxSeconds: 3.5}}) {
			t.Errorf("%s: --set gave %+v", name, it)
		}
		if _, err := e.New(opts[name], nil); err != nil && !strings.Contains(err.Error(), "region graph") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"gibbs", "pcd", "pt"} {
		if !strings.Contains(Usage(false, name), "  max_seconds=60 ") {
			t.Errorf("%s: --help lists no max_seconds=60:\n%s", name, Usage(false, name))
		}
		opts, err := Resolve([]string{name}, []string{"max_seconds=2"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if o, err := opts[name].MarshalJSON(); err != nil || !strings.Contains(string(o), `"max_seconds":2`) {
			t.Errorf("%s: max_seconds not set: %s %v", name, o, err)
		}
	}
}

// iterationOf reads the shared options of any options struct as Describe
// lists them.
func iterationOf(t *testing.T, o *Options) infer.Iteration {
	t.Helper()
	var it infer.Iteration
	for _, d := range o.Describe() {
		var err error
		switch d.Name {
		case "tol":
			it.Tol, err = strconv.ParseFloat(d.Default, 64)
		case "max_iter":
			it.MaxIter, err = strconv.Atoi(d.Default)
		case "max_seconds":
			it.MaxSeconds, err = strconv.ParseFloat(d.Default, 64)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return it
}

// A bad shared value is rejected once, where options enter, with one
// message that names the method and the option the way --set does.
func TestEmbeddedOptionsRejected(t *testing.T) {
	for _, tc := range []struct {
		method, set, want string
	}{
		{"bp", "tol=0", "bp: tol 0, want a positive number"},
		{"gbp", "max_iter=0", "gbp: max_iter 0, want >= 1"},
		{"renn", "max_iter=-3", "renn: max_iter -3, want >= 1"},
		{"trw", "max_seconds=-1", "trw: max_seconds -1, want a finite number of seconds >= 0 (0: no limit)"},
		{"gibbs", "max_seconds=+Inf", "gibbs: max_seconds +Inf, want a finite number of seconds >= 0 (0: no limit)"},
		{"renn-mp", "max_seconds=-2", "renn-mp: max_seconds -2, want a finite number of seconds >= 0 (0: no limit)"},
		{"mf", "tol=x", `mf option tol: "x" is not a number`},
		{"dbp", "max_iter=1.5", `dbp option max_iter: "1.5" is not an integer of 64 bits`},
	} {
		_, err := Resolve([]string{tc.method}, []string{tc.set}, false)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s --set %s: error %v, want %q", tc.method, tc.set, err, tc.want)
		}
	}
	if _, err := Resolve([]string{"exact"}, []string{"tol=1"}, false); err == nil || !strings.Contains(err.Error(), "option tol: none of the selected methods (exact) has it") {
		t.Errorf("exact took tol: %v", err)
	}
}

// The options are checked once where they enter (Resolve), not again for
// every model a method is built for.
func TestOptionsCheckedOnce(t *testing.T) {
	calls := 0
	e := define("count", "Count", "counts its checks", NoRegions,
		func() countOptions {
			return countOptions{Iteration: infer.Iteration{Tol: 1, MaxIter: 1}, calls: &calls}
		}, nil,
		func(o countOptions, _ *region.Graph) (infer.Method, error) { return countMethod{}, nil })
	o := e.Options(false)
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := e.New(o, nil); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("options checked %d times, want once", calls)
	}
	if err := o.Set("max_iter", "0"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.New(o, nil); err == nil || err.Error() != "count: max_iter 0, want >= 1" {
		t.Errorf("options set after the check were not checked: %v", err)
	}
	if calls != 1 {
		t.Errorf("the method's own check ran after the shared one failed (%d calls)", calls)
	}
}

type countOptions struct {
	infer.Iteration
	calls *int
}

func (o countOptions) Check() error {
	*o.calls++
	return nil
}

type countMethod struct{}

func (countMethod) Name() string { return "count" }

func (countMethod) Infer(context.Context, *mrf.Model) (*infer.Result, error) {
	return nil, errors.New("not run")
}
