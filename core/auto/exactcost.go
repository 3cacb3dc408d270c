package auto

import (
	"errors"
	"math"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
)

// exactPlan is exact inference's plan of a model: its estimated run time
// in seconds (exact.Cost.Seconds: one core, planning excluded), and the
// plan ready to run when it fits opts' bounds (nil otherwise).
type exactPlan struct {
	seconds float64
	plan    *exact.Prepared
}

// planExact plans exact inference of m with opts. A plan over
// opts.MaxPlannedSeconds is not an error here: its estimate is returned,
// and the caller compares it with the time left. An error when no plan
// fits opts' memory bounds.
func planExact(m *mrf.Model, opts exact.Options) (exactPlan, error) {
	pr, err := exact.Prepare(m, opts)
	var slow *exact.TooSlowError
	if errors.As(err, &slow) {
		return exactPlan{seconds: slow.Plan.Seconds}, nil
	}
	if err != nil {
		return exactPlan{seconds: math.NaN()}, err
	}
	return exactPlan{seconds: pr.Plan.Seconds, plan: pr}, nil
}
