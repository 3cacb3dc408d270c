package exact

import (
	"fmt"
	"math"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// Cost is what solving a model along a plan takes, by estimate.
type Cost struct {
	// Flops counts the multiply-adds of the whole solve: the forward and
	// backward contractions of every slice, recomputed forward
	// contractions included.
	Flops float64
	// Written counts the table entries the contractions write.
	Written float64
	// LargestTable is the number of entries of the largest table of one
	// slice (the model's own tables included).
	LargestTable int64
	// PeakMemory is the estimated peak in bytes of the tables alive at once
	// (one slice at a time, the model's tables and the marginals' included).
	PeakMemory int64
	// Slices is the number of slices: the joint states of the variables
	// fixed in turn (1 when nothing is sliced).
	Slices int64
	// Seconds estimates the run time of Solve on one core of the machine
	// the speeds below were measured on (SecondsPerFlop and the others),
	// planning excluded. Two cores took 0.24 to 0.59 of it (unsliced plans).
	Seconds float64
	// objective is the planner's measure of the same work (objFlop and
	// the others): it ranks trees and sizes the planning effort.
	objective float64
}

// The speeds behind Cost.Seconds: seconds per multiply-add of a
// contraction, per table entry written, and per contraction. Fitted to
// one-core solves (GOMAXPROCS 1) of seven models of the UAI-like families
// (tori of 13 and 15, a grid of 24, an RBM of 24+24, Potts models of 80
// variables of treewidth 6 and 8, a noisy-OR network of 100 findings;
// 0.34 to 30 s) on a shared 2-core Intel Xeon with Go 1.26: within 25% of
// the run time on each. Sliced plans whose tables reach 2^26 entries and
// more ran up to 4.5 times over it (an RBM of 28+28: 141 s by estimate,
// 402 s on two cores), the rest of the sliced ones within 1.5 times.
const (
	SecondsPerFlop        = 1.86e-10
	SecondsPerEntry       = 4.7e-9
	SecondsPerContraction = 2e-6
)

// The planner's weights of multiply-adds, entries written and
// contractions: the speeds of the kernels before the packed matrix
// products. They only rank trees and size the planning effort, so plans
// (and the last digits of the answers) do not change when the speeds
// above are measured again.
const (
	objFlop        = 1.0 / 1.0e9
	objEntry       = 1.0 / 2.5e8
	objContraction = 2e-6
)

// String prints the cost as the log line exact-infer writes.
func (c Cost) String() string {
	return fmt.Sprintf("flops 2^%.1f, largest table 2^%.1f entries, peak memory %s, %d slice(s), about %s",
		math.Log2(max(c.Flops, 1)), math.Log2(float64(max(c.LargestTable, 1))), gib(c.PeakMemory), c.Slices, seconds(c.Seconds))
}

func seconds(s float64) string {
	switch {
	case s < 1:
		return fmt.Sprintf("%.3f s", s)
	case s < 120:
		return fmt.Sprintf("%.1f s", s)
	case s < 7200:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

// Plan is how Solve contracts a model: a binary contraction tree over the
// model's tables (reduced by its zeros and evidence), the variables sliced,
// and the cost.
type Plan struct {
	Cost
	// Heuristic names the elimination order the tree was built from and
	// the refinement it had ("min-fill, annealed").
	Heuristic string
	// Sliced lists the model variables fixed in turn, one slice per joint
	// state; empty when the plan fits unsliced.
	Sliced []int
	// LargestVars lists the variables of the largest table of a slice.
	LargestVars []int
	// Contractions is the number of pairwise contractions of a slice.
	Contractions int
}

// Estimate plans the solve of m and returns the plan with its cost
// (Plan.Cost; Plan.Seconds is the estimated run time), without solving. It
// fails as Solve does before allocating: on an invalid model, a model whose
// zeros make Z = 0, or a plan that exceeds opt's bounds (a *TooSlowError or
// a *MemoryTooLargeError, returned with the plan). To solve the plan
// after deciding by its cost, without planning again, use Prepare.
func Estimate(m *mrf.Model, opt Options) (*Plan, error) {
	pr, err := prepare(m, opt)
	if pr == nil {
		return nil, err
	}
	return pr.Plan, err
}

// TooSlowError reports that the best plan found, sliced to fit MaxTable and
// MaxMemory, would take longer than MaxPlannedSeconds by estimate.
type TooSlowError struct {
	Plan              *Plan
	MaxPlannedSeconds float64
}

func (e *TooSlowError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exact inference would take about %s (%s), above --max-planned-seconds %g",
		seconds(e.Plan.Seconds), e.Plan.Cost, e.MaxPlannedSeconds)
	b.WriteString("; raise --max-planned-seconds to wait for it")
	if e.Plan.Slices > 1 {
		b.WriteString(", or --max-table and --max-memory if the machine has the memory for fewer slices")
	}
	b.WriteString(", or use an approximate method")
	return b.String()
}
