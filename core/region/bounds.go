package region

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// Default region-size bounds of the cycles and auto schemes (DefaultBounds).
//
// Measured with GBP (TestMeasureBounds, bounds 4, 5, 6, 8 and 12
// variables): lattices, RBMs and the higher-order kinds do not reach the
// bound (plaquettes, 4-cycles, factor scopes); on diluted 6x6 spin-glass
// grids cycles of up to 6 variables gave 0.06x and 0.001x bethe's error in
// 14-17 sweeps, up to 8 variables 0.06x and 0.18x (791 sweeps), up to 12
// the same in 10x the time. 4096 joint states keeps a root's tables at 32
// KiB per float64 table, so hundreds of roots cost megabytes.
const (
	DefaultMaxVars   = 6
	DefaultMaxStates = 4096
)

// Bounds caps the size of root regions: at most MaxVars variables and at
// most MaxStates joint states (the product of the cardinalities). Zero
// means no limit for that field.
//
// The cycles scheme (and auto when it resolves to cycles) is shaped by the
// bounds: it admits only cycles that fit. Every other scheme but bethe,
// and any factor scope that cycles must keep as a root, is refused with a
// *BoundError if a root does not fit. Bethe is never refused: its roots are
// the factors themselves, which every method handles anyway.
type Bounds struct {
	MaxVars   int   `json:"max_region_vars" help:"Largest number of variables of a root region (0: no limit)."`
	MaxStates int64 `json:"max_region_states" help:"Largest number of joint states of a root region (0: no limit)."`
}

// DefaultBounds returns DefaultMaxVars and DefaultMaxStates.
func DefaultBounds() Bounds { return Bounds{MaxVars: DefaultMaxVars, MaxStates: DefaultMaxStates} }

// Unbounded returns the bounds with no limit.
func Unbounded() Bounds { return Bounds{} }

// Check reports whether b is valid; the error names the option.
func (b Bounds) Check() error {
	if b.MaxVars < 0 {
		return fmt.Errorf("max_region_vars %d: want >= 0 (0: no limit)", b.MaxVars)
	}
	if b.MaxStates < 0 {
		return fmt.Errorf("max_region_states %d: want >= 0 (0: no limit)", b.MaxStates)
	}
	return nil
}

// String describes b, e.g. "8 variables, 4096 joint states".
func (b Bounds) String() string {
	v, s := "any number of variables", "any number of joint states"
	if b.MaxVars > 0 {
		v = fmt.Sprintf("%d variables", b.MaxVars)
	}
	if b.MaxStates > 0 {
		s = fmt.Sprintf("%d joint states", b.MaxStates)
	}
	return v + ", " + s
}

// jointStates returns the product of cards over vars, saturating at
// math.MaxInt64.
func jointStates(cards, vars []int) int64 {
	n := int64(1)
	for _, v := range vars {
		c := int64(cards[v])
		if c > 0 && n > math.MaxInt64/c {
			return math.MaxInt64
		}
		n *= c
	}
	return n
}

// fits reports whether the root vars fits b.
func (b Bounds) fits(cards, vars []int) bool {
	if b.MaxVars > 0 && len(vars) > b.MaxVars {
		return false
	}
	return b.MaxStates <= 0 || jointStates(cards, vars) <= b.MaxStates
}

// BoundError reports a root region over the bounds. Callers that expose the
// bounds as flags can rephrase it with Option naming their flag.
type BoundError struct {
	Scheme string
	Root   []int  // sorted variables of the root
	Factor int    // the factor whose scope the root is, or -1
	States int64  // joint states of the root (saturated at math.MaxInt64)
	Bounds Bounds // the bounds it exceeds
}

// Option returns the option the root violates, "max_region_vars" or
// "max_region_states", and its value.
func (e *BoundError) Option() (string, int64) {
	if e.Bounds.MaxVars > 0 && len(e.Root) > e.Bounds.MaxVars {
		return "max_region_vars", int64(e.Bounds.MaxVars)
	}
	return "max_region_states", e.Bounds.MaxStates
}

// Describe formats the error with the option spelt by flag (for example
// func(o string) string { return "--" + strings.ReplaceAll(o, "_", "-") }).
func (e *BoundError) Describe(flag func(option string) string) string {
	opt, val := e.Option()
	states := fmt.Sprint(e.States)
	if e.States == math.MaxInt64 {
		states = "more than 9.2e18"
	}
	what := fmt.Sprintf("root %s", setString(e.Root))
	advice := "raise it or use scheme bethe"
	if flag != nil {
		advice = fmt.Sprintf("raise it or use %s bethe", flag("scheme"))
	}
	if e.Factor >= 0 {
		what = fmt.Sprintf("factor %d over %s", e.Factor, setString(e.Root))
		advice = "a factor cannot be split; " + advice
	}
	name := opt
	if flag != nil {
		name = flag(opt)
	}
	return fmt.Sprintf("%s region graph: %s has %d variables (%s joint states), over %s %d: %s",
		e.Scheme, what, len(e.Root), states, name, val, advice)
}

func (e *BoundError) Error() string { return e.Describe(nil) }

func setString(s []int) string {
	const show = 12
	parts := make([]string, 0, min(len(s), show)+1)
	for i, v := range s {
		if i == show {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprint(v))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// checkRoots returns a *BoundError for the first root over b, naming the
// factor whose scope it is if there is one.
func checkRoots(m *mrf.Model, scheme string, roots [][]int, b Bounds) error {
	for _, r := range roots {
		if b.fits(m.Cards, r) {
			continue
		}
		s := sortedSet(r)
		e := &BoundError{Scheme: scheme, Root: s, Factor: -1, States: jointStates(m.Cards, s), Bounds: b}
		for a, f := range m.Factors {
			if len(f.Vars) == len(s) && isSubset(s, sortedSet(f.Vars)) {
				e.Factor = a
				break
			}
		}
		return e
	}
	return nil
}

func sortedSet(s []int) []int {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
