// Package methods is the registry of inference methods: one Entry per name,
// with its typed options, their documented defaults and its constructor.
// Every stage reaches methods through it (run-baselines, learn-mrf,
// train-renn, exact-infer), and score and report take their display order
// from it, so a new method is its own package plus one line in registry.go.
//
// Aliases are entries of their own: dbp is BP with damping 0.5, infnet is
// RENN on the Bethe region graph, renn-mp is RENN with the network that
// reads the model, renn-direct is RENN with free logits.
package methods

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/region"
)

// Regions says which region graph a method runs on.
type Regions int

const (
	// NoRegions: the method works on the model alone.
	NoRegions Regions = iota
	// AnyRegions: the method runs on the caller's region graph (from
	// build-regions, or built with a scheme).
	AnyRegions
	// BetheRegions: the method always runs on the Bethe region graph.
	BetheRegions
)

// LogZKind says what a method's ln Z is, so that score can check bounds.
type LogZKind int

const (
	// LogZEstimate: an approximation of ln Z without guarantee (bp, gbp,
	// renn, ...).
	LogZEstimate LogZKind = iota
	// LogZLowerBound: ln Z at most the true ln Z for every answer whose
	// marginals pass the shared check (mf).
	LogZLowerBound
	// LogZUpperBound: ln Z at least the true ln Z for every answer whose
	// marginals pass the shared check.
	LogZUpperBound
	// LogZNone: the method makes no claim on ln Z (a sampler without an
	// estimator); Result.LogZ is NaN and the shared check skips it.
	LogZNone
)

// String returns the kind as written in output files.
func (k LogZKind) String() string {
	switch k {
	case LogZLowerBound:
		return "lower"
	case LogZUpperBound:
		return "upper"
	case LogZNone:
		return "none"
	}
	return "estimate"
}

// Entry is one registered method.
type Entry struct {
	Name    string
	Title   string // the name in tables ("Loopy BP")
	Summary string // one line, for --help
	Regions Regions
	LogZ    LogZKind // what the method's ln Z is

	defaults func(learning bool) any // a pointer to fresh options
	check    func(opts any) error
	build    func(opts any, g *region.Graph) (infer.Method, error)
}

// checked is what every options type provides.
type checked interface{ Check() error }

// define makes an entry for options of type O. learning, if not nil, gives
// the defaults inside learning (warm-started calls), else defaults is used.
func define[O checked](name, title, summary string, regions Regions, defaults, learning func() O,
	build func(O, *region.Graph) (infer.Method, error)) *Entry {
	return &Entry{
		Name: name, Title: title, Summary: summary, Regions: regions,
		defaults: func(learn bool) any {
			o := defaults()
			if learn && learning != nil {
				o = learning()
			}
			return &o
		},
		check: func(opts any) error { return (*opts.(*O)).Check() },
		build: func(opts any, g *region.Graph) (infer.Method, error) { return build(*opts.(*O), g) },
	}
}

// Options returns the method's default options, for learning if learning is
// set (where some methods start from other defaults, e.g. RENN's short
// warm-started runs).
func (e *Entry) Options(learning bool) *Options {
	return &Options{entry: e, v: e.defaults(learning)}
}

// New returns the method with opts on region graph g (nil unless the entry
// needs regions), wrapped so that every answer passes the shared check
// (infer.Verify): one that fails it comes back with status CheckFailed and
// the reason in Result.Check. Options that passed Check are not checked
// again.
func (e *Entry) New(opts *Options, g *region.Graph) (infer.Method, error) {
	if opts.entry != e {
		return nil, fmt.Errorf("%s: options of method %s", e.Name, opts.entry.Name)
	}
	if !opts.checked { // options that Resolve checked are not checked again per model
		if err := opts.Check(); err != nil {
			return nil, err
		}
	}
	if e.Regions != NoRegions && g == nil {
		return nil, fmt.Errorf("%s needs a region graph", e.Name)
	}
	m, err := e.build(opts.v, g)
	if err != nil {
		return nil, err
	}
	return verified{Method: m, noLogZ: e.LogZ == LogZNone}, nil
}

// withLogZ sets what e's ln Z is (define makes every entry an estimate).
func withLogZ(e *Entry, k LogZKind) *Entry {
	e.LogZ = k
	return e
}

// All returns every entry in display order (the order of the paper's
// tables, then the methods beyond it).
func All() []*Entry { return slices.Clone(registry) }

// Names returns every method name in display order.
func Names() []string {
	names := make([]string, len(registry))
	for i, e := range registry {
		names[i] = e.Name
	}
	return names
}

// Lookup returns the entry of name, or an error listing the known names.
func Lookup(name string) (*Entry, error) {
	for _, e := range registry {
		if e.Name == name {
			return e, nil
		}
	}
	return nil, fmt.Errorf("unknown method %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Compare orders method names for display: registered methods in registry
// order, then any other name alphabetically.
func Compare(a, b string) int {
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return ra - rb
	}
	return cmp.Compare(a, b)
}

func rank(name string) int {
	if r, ok := Rank(name); ok {
		return r
	}
	return len(registry)
}

// Rank returns name's position in the display order, and whether it is
// registered.
func Rank(name string) (int, bool) {
	for i, e := range registry {
		if e.Name == name {
			return i, true
		}
	}
	return 0, false
}

// Title returns the table name of a method ("Loopy BP"), or name itself for
// an unregistered one.
func Title(name string) string {
	if e, err := Lookup(name); err == nil {
		return e.Title
	}
	return name
}

// Usage describes the methods' options and their defaults (for learning if
// learning is set), for a command's --help.
func Usage(learning bool, names ...string) string {
	var b strings.Builder
	for _, e := range registry {
		if len(names) > 0 && !slices.Contains(names, e.Name) {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", e.Name, e.Summary)
		for _, d := range e.Options(learning).Describe() {
			fmt.Fprintf(&b, "  %s=%s (%s) %s\n", d.Name, d.Default, d.Type, d.Help)
		}
	}
	return b.String()
}
