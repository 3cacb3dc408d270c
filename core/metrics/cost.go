package metrics

import (
	"fmt"
	"math"
	"slices"
)

// Cost is one method's cost on one setting: its runs summed over the
// models, and the processes (stage instances) that ran them.
type Cost struct {
	Models, Converged   int
	Seconds, Iterations float64 // summed over the models
	Wall, CPU           float64 // summed over the processes
	Processes           int
	RSSKiB              int64 // the largest peak memory of a process
	NoUsage             bool  // some process did not record its CPU time and memory
}

// PerIteration is x per iteration; NaN without iterations.
func PerIteration(x, iterations float64) float64 {
	if iterations <= 0 {
		return math.NaN()
	}
	return x / iterations
}

// MeanCPU is the CPU seconds per model; NaN when some process did not
// record them.
func (c Cost) MeanCPU() float64 {
	if c.NoUsage {
		return math.NaN()
	}
	return c.CPU / float64(c.Models)
}

// PerProcess is the wall and CPU seconds per process; CPU NaN when some
// process did not record it.
func (c Cost) PerProcess() (wall, cpu float64) {
	cpu = c.CPU / float64(c.Processes)
	if c.NoUsage {
		cpu = math.NaN()
	}
	return c.Wall / float64(c.Processes), cpu
}

// CPUPerStep is the CPU seconds per step between the end of a short run
// of the same method (stopped after a few steps) and the end of c's; NaN
// unless the short run took fewer steps and the difference is at least
// minShare of c's CPU seconds (less is the noise between two runs).
func (c Cost) CPUPerStep(short Cost, minShare float64) float64 {
	cpu, iters := c.CPU/float64(c.Models), c.Iterations/float64(c.Models)
	if c.NoUsage {
		cpu = math.NaN()
	}
	shortIters := short.Iterations / float64(short.Models)
	diff := cpu - short.MeanCPU()
	if iters <= shortIters || diff < minShare*cpu {
		return math.NaN()
	}
	return diff / (iters - shortIters)
}

// MarginalDelta is the mean and the largest |p - q| over every entry of
// the marginals of a against b, keyed alike (model, variable), over the
// keys both have; NaN when they share none.
func MarginalDelta(a, b map[[2]int32][]float64) (mean, largest float64, err error) {
	sum, n := 0.0, 0
	for k, p := range a {
		q, ok := b[k]
		if !ok {
			continue
		}
		if len(p) != len(q) {
			return 0, 0, fmt.Errorf("model %d variable %d: %d states against %d", k[0], k[1], len(p), len(q))
		}
		for i := range p {
			v := math.Abs(p[i] - q[i])
			sum, largest, n = sum+v, math.Max(largest, v), n+1
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), nil
	}
	return sum / float64(n), largest, nil
}

// Answers are one method's answers on a set of models: variable marginals
// by (model, variable), ln Z and seconds by model.
type Answers struct {
	Vars          map[[2]int32][]float64
	LogZ, Seconds map[int32]float64
}

// Against compares a with the reference's answers over the models both
// answered: the mean over the models of each one's mean |ΔP| of the
// variable marginals, the RMS of ln Z minus the reference's, and a's mean
// seconds; n is the number of models.
func (a *Answers) Against(ref *Answers) (meanAbs, logzRMS, seconds float64, n int, err error) {
	var dps, dlz, secs []float64
	ids := make([]int32, 0, len(a.LogZ))
	for id := range a.LogZ {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		refLZ, ok := ref.LogZ[id]
		if !ok {
			continue
		}
		var p, q []float64
		for v := int32(0); ; v++ {
			x, ok := a.Vars[[2]int32{id, v}]
			if !ok {
				break
			}
			y := ref.Vars[[2]int32{id, v}]
			if len(x) != len(y) {
				return 0, 0, 0, 0, fmt.Errorf("model %d variable %d has %d states, the reference's %d", id, v, len(x), len(y))
			}
			p, q = append(p, x...), append(q, y...)
		}
		dp := 0.0
		if len(p) > 0 {
			dp, _ = MeanAbsDiff(p, q)
		}
		dps, dlz, secs = append(dps, dp), append(dlz, a.LogZ[id]-refLZ), append(secs, a.Seconds[id])
	}
	return Mean(dps), RootMeanSquare(dlz), Mean(secs), len(secs), nil
}
