package metrics

import (
	"math"
	"strings"
	"testing"
)

func TestCPUPerStep(t *testing.T) {
	full := Cost{Models: 1, Iterations: 300, CPU: 10}
	short := func(cpu, iters float64) Cost { return Cost{Models: 1, Iterations: iters, CPU: cpu} }
	// A full run of 300 steps in 10 CPU s, a short one of 50 in 5.
	if got := full.CPUPerStep(short(5, 50), 0.1); math.Abs(got-0.02) > 1e-12 {
		t.Errorf("CPUPerStep %g, want 0.02", got)
	}
	if got := full.CPUPerStep(short(9.5, 50), 0.1); !math.IsNaN(got) { // 5% of the run: noise
		t.Errorf("a difference of 5%%: %g, want NaN", got)
	}
	if got := full.CPUPerStep(short(5, 300), 0.1); !math.IsNaN(got) { // stopped no earlier than the full run
		t.Errorf("no fewer steps: %g, want NaN", got)
	}
	noUsage := short(5, 50)
	noUsage.NoUsage = true
	if got := full.CPUPerStep(noUsage, 0.1); !math.IsNaN(got) {
		t.Errorf("a short run without usage: %g, want NaN", got)
	}
	if wall, cpu := (Cost{Processes: 2, Wall: 3, CPU: 2, NoUsage: true}).PerProcess(); wall != 1.5 || !math.IsNaN(cpu) {
		t.Errorf("PerProcess without usage: %g, %g; want 1.5, NaN", wall, cpu)
	}
	if got := PerIteration(3, 0); !math.IsNaN(got) {
		t.Errorf("PerIteration without iterations: %g", got)
	}
}

func TestMarginalDelta(t *testing.T) {
	a := map[[2]int32][]float64{{0, 0}: {0.5, 0.5}, {0, 1}: {0.2, 0.8}, {1, 0}: {1, 0}}
	b := map[[2]int32][]float64{{0, 0}: {0.4, 0.6}, {0, 1}: {0.2, 0.8}}
	mean, largest, err := MarginalDelta(a, b)
	if err != nil || math.Abs(mean-0.05) > 1e-12 || math.Abs(largest-0.1) > 1e-12 {
		t.Errorf("MarginalDelta = %g, %g, %v; want 0.05, 0.1 over the shared variables", mean, largest, err)
	}
	if m, _, _ := MarginalDelta(a, nil); !math.IsNaN(m) {
		t.Errorf("no shared variable: %g, want NaN", m)
	}
	b[[2]int32{0, 0}] = []float64{1}
	if _, _, err := MarginalDelta(a, b); err == nil || !strings.Contains(err.Error(), "states") {
		t.Errorf("err = %v, want a state-count mismatch", err)
	}
}
