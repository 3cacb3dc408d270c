package auto

import (
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// exactEntriesPerSecond converts an elimination plan's total cost (the sum
// of its clique table sizes) into seconds. Measured with exact.Solve on
// spin-glass grids (couplings U(-5,5)) on one core of the project's 2-core
// machine: 15x15 (2^21.7) at 9e7 entries a second, 20x20 (2^27.2) at
// 1.8e7, 25x25 (2^32.5) at 1.2e7: large plans spill out of the caches, so
// the rate is that of the largest plans, rounded down.
const exactEntriesPerSecond = 1e7

// exactSeconds plans exact inference of m with opts and returns the plan's
// estimated run time in seconds; an error when no plan fits opts' bounds.
func exactSeconds(m *mrf.Model, opts exact.Options) (float64, error) {
	plan, err := exact.MakePlan(m, opts)
	if err != nil {
		return 0, err
	}
	return plan.TotalCost / exactEntriesPerSecond, nil
}
