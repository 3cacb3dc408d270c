package exact

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestEstimateMemoryTracksAllocation compares the estimated peak with the
// bytes Solve and Sample really allocate on small models, with a budget that
// forces checkpointing and one that stores every message.
func TestEstimateMemoryTracksAllocation(t *testing.T) {
	cases := []struct {
		name   string
		m      *mrf.Model
		budget int64
	}{
		{"grid 12x12", gridModel(t, 12, 1, 3), DefaultMemory},
		{"grid 14x14 small budget", gridModel(t, 14, 1, 4), 1 << 18},
		{"complete 16", completeModel(16, 5), DefaultMemory},
		{"complete 18 small budget", completeModel(18, 6), 1 << 16},
	}
	for _, c := range cases {
		opt := DefaultOptions()
		opt.Memory = c.budget
		for _, sample := range []bool{false, true} {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var est int64
			if sample {
				_, _, err := Sample(c.m, 100, mrf.NewRand(1), opt)
				if err != nil {
					t.Fatal(err)
				}
				t2, p, _ := newTree(c.m, opt)
				_ = checkMemory(t2, p, opt, false, 100*int64(len(c.m.Cards)+1)*8)
				est = p.Memory
			} else {
				// Planning makes garbage of its own (trees, orders): count
				// the model's reduction and the run.
				nw, err := newNetwork(c.m)
				if err != nil {
					t.Fatal(err)
				}
				mid := runtime.MemStats{}
				runtime.ReadMemStats(&mid)
				p, plan, err := makePlan(nw, opt)
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC()
				var start runtime.MemStats
				runtime.ReadMemStats(&start)
				before.TotalAlloc += start.TotalAlloc - mid.TotalAlloc
				if _, _, err := run(context.Background(), p, plan, opt, nil); err != nil {
					t.Fatal(err)
				}
				est = plan.PeakMemory
			}
			runtime.ReadMemStats(&after)
			alloc := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("%s sample=%v: estimate %d bytes, allocated %d bytes (ratio %.2f)", c.name, sample, est, alloc, float64(alloc)/float64(est))
			// TotalAlloc counts every allocation, recomputed messages,
			// planning and garbage included, so it is at least the peak;
			// the estimate must be of the same order, not a loose bound.
			if est <= 0 || alloc < est/2 || alloc > 8*est {
				t.Errorf("%s sample=%v: estimate %d bytes against %d allocated", c.name, sample, est, alloc)
			}
		}
	}
}

func completeModel(n int, seed int64) *mrf.Model {
	return mrf.RandomIsing(n, mrf.CompleteEdges(n), 1, seed)
}

// TestMaxMemoryRefusesWideModels checks that a 27x27 grid, whose largest
// table passes --max-table, is refused by its total before allocating by
// Sample, and planned by Solve in slices that fit --max-memory (and then
// refused for the time it would take).
func TestMaxMemoryRefusesWideModels(t *testing.T) {
	m := gridModel(t, 27, 1, 1)
	opt := DefaultOptions()
	opt.MaxMemory = 8 << 30 // below the unsliced estimate on any machine
	opt.MaxPlannedSeconds = 1e9
	plan, err := Estimate(m, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Sliced) == 0 || plan.PeakMemory > opt.MaxMemory {
		t.Errorf("27x27 grid within 8 GiB: plan sliced over %v with peak %d", plan.Sliced, plan.PeakMemory)
	}
	t.Logf("27x27 grid within 8 GiB: %v", plan.Cost)
	// Bounded below the plan's estimate, Solve refuses before allocating.
	opt.MaxPlannedSeconds = plan.Seconds / 2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Solve(m, opt)
	runtime.ReadMemStats(&after)
	var slow *TooSlowError
	if !errors.As(err, &slow) || !strings.Contains(err.Error(), "--max-planned-seconds") {
		t.Fatalf("27x27 grid: got %v, want a TooSlowError", err)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
		t.Errorf("refusing allocated %d bytes", a)
	}
	var me *MemoryTooLargeError
	if _, _, err := Sample(m, 1, mrf.NewRand(1), opt); !errors.As(err, &me) {
		t.Errorf("Sample on 27x27 grid: got %v, want a MemoryTooLargeError", err)
	}
	// The default bound is half of the machine's memory; the measured run
	// needed 24 GB, so the estimate must exceed that on this grid.
	if me.Estimate < 16<<30 {
		t.Errorf("27x27 grid estimated at %d bytes, measured over 20 GB", me.Estimate)
	}
	opt.MaxMemory = 0
	if err := opt.Check(); err == nil || !strings.Contains(err.Error(), "max_memory") {
		t.Errorf("max_memory 0: %v", err)
	}
}
