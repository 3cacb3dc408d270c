package auto

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
)

// Options are auto's options.
type Options struct {
	// MaxSeconds is the wall-time budget of one Infer call: planning,
	// every method run, and the choice. It must be positive and finite:
	// auto decides what to run from it, so it has no "no limit" (0 is
	// rejected). Default 20 (the UAI competitions' shortest track).
	infer.TimeBudget
	// Seed seeds every method auto runs that draws random numbers (exact
	// inference's order search, mean field's order, TRW's forests, parallel
	// tempering's chains).
	Seed int64 `json:"seed" help:"Seed of the methods auto runs (exact inference's order search, TRW's forests, parallel tempering's chains)."`
	// Exact lets auto run exact inference when its plan's estimated time
	// fits the budget. False measures the approximate answer on models
	// exact inference solves.
	Exact bool `json:"exact" help:"Run exact inference when its plan's estimated time fits the budget (false: never, to measure the approximate answer on models exact inference solves)."`
	// Parallel runs parallel tempering beside the variational methods, on
	// a second core, when GOMAXPROCS is above 1; otherwise (or false) the
	// variational methods run first, in at most half the time left, then
	// parallel tempering in the rest.
	Parallel bool `json:"parallel" help:"Run parallel tempering beside the variational methods on a second core when GOMAXPROCS > 1 (false: one after the other)."`
}

// DefaultOptions returns auto's defaults: 20 s, seed 1, exact inference
// allowed, parallel tempering beside the variational methods.
func DefaultOptions() Options {
	return Options{TimeBudget: infer.TimeBudget{MaxSeconds: 20}, Seed: 1, Exact: true, Parallel: true}
}

// LearningOptions are the defaults inside learning, where auto answers
// every parameter update: 5 s per call.
func LearningOptions() Options {
	o := DefaultOptions()
	o.MaxSeconds = 5
	return o
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	if !(o.MaxSeconds > 0) || math.IsInf(o.MaxSeconds, 1) {
		return fmt.Errorf("auto: max_seconds %v, want a finite number of seconds > 0 (auto has no unlimited budget)", o.MaxSeconds)
	}
	return nil
}
