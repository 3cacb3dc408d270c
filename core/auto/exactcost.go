package auto

import (
	"errors"
	"math"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// exactSeconds plans exact inference of m with opts and returns the plan's
// estimated run time in seconds (exact.Cost.Seconds: one core, planning
// excluded). A plan over opts.MaxPlannedSeconds is not an error here: its
// estimate is returned, and the caller compares it with the time left. An
// error when no plan fits opts' memory bounds.
func exactSeconds(m *mrf.Model, opts exact.Options) (float64, error) {
	plan, err := exact.Estimate(m, opts)
	var slow *exact.TooSlowError
	if errors.As(err, &slow) {
		return slow.Plan.Seconds, nil
	}
	if err != nil {
		return math.NaN(), err
	}
	return plan.Seconds, nil
}
