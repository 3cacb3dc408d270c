package infer_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
)

// ticker is a clock that advances by step at every read.
type ticker struct {
	t     time.Time
	step  time.Duration
	reads int
}

func (c *ticker) now() time.Time {
	c.reads++
	c.t = c.t.Add(c.step)
	return c.t
}

func TestIterateStops(t *testing.T) {
	for _, tc := range []struct {
		name       string
		budget     infer.Budget
		changes    []float64 // what the sweeps return, the last repeated
		iterations int
		converged  bool
		timedOut   bool
	}{
		{"converges", infer.Budget{MaxIter: 10}, []float64{1, 0.5, 1e-12}, 3, true, false},
		{"iteration cap", infer.Budget{MaxIter: 4}, []float64{1}, 4, false, false},
		// The clock advances 1 s per read: the start reads it, then every
		// sweep after the first; at 2.5 s the third check stops the run.
		{"time budget", infer.Budget{MaxIter: 100, MaxSeconds: 2.5}, []float64{1}, 3, false, true},
		{"cap before time", infer.Budget{MaxIter: 2, MaxSeconds: 2.5}, []float64{1}, 2, false, false},
		{"converges in time", infer.Budget{MaxIter: 100, MaxSeconds: 2.5}, []float64{1, 1e-12}, 2, true, false},
		// A budget shorter than one sweep still runs the first.
		{"tiny budget", infer.Budget{MaxIter: 100, MaxSeconds: 1e-9}, []float64{1}, 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &ticker{step: time.Second}
			ctx := infer.WithClock(context.Background(), clock.now)
			res := &infer.Result{Diagnostics: map[string]float64{}}
			k := 0
			delta, err := tc.budget.Iterate(ctx, "test", 1e-9, res, func() float64 {
				d := tc.changes[min(k, len(tc.changes)-1)]
				k++
				return d
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Iterations != tc.iterations || k != tc.iterations || res.Converged != tc.converged {
				t.Errorf("%d iterations (%d sweeps), converged %v; want %d, %v", res.Iterations, k, res.Converged, tc.iterations, tc.converged)
			}
			if want := tc.changes[min(k, len(tc.changes))-1]; delta != want {
				t.Errorf("last change %v, want %v", delta, want)
			}
			_, noted := res.Diagnostics["time_limit"]
			if noted != tc.timedOut {
				t.Errorf("diagnostics %v, timed out %v", res.Diagnostics, tc.timedOut)
			}
			if tc.timedOut && (res.Diagnostics["time_limit"] != 1 || res.Diagnostics["max_seconds"] != tc.budget.MaxSeconds) {
				t.Errorf("diagnostics %v", res.Diagnostics)
			}
			if tc.budget.MaxSeconds == 0 && clock.reads != 0 {
				t.Errorf("clock read %d times without a time budget", clock.reads)
			}
		})
	}
}

func TestIterateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	res := &infer.Result{Diagnostics: map[string]float64{}}
	_, err := infer.Budget{MaxIter: 100, MaxSeconds: 10}.Iterate(ctx, "test", 1e-9, res, func() float64 {
		cancel()
		return 1
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "test: stopped after 1 sweeps") {
		t.Errorf("error %v", err)
	}
}

// StartAt counts from the given start, so work before the loop is in the
// budget.
func TestStartAt(t *testing.T) {
	clock := &ticker{step: time.Second}
	ctx := infer.WithClock(context.Background(), clock.now)
	began := infer.Now(ctx) // 1 s
	clock.now()             // 2 s: work before the loop
	clock.now()             // 3 s
	stop := infer.Budget{MaxIter: 100, MaxSeconds: 3.5}.StartAt(ctx, began)
	n := 0
	for {
		more, err := stop.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		n++
	}
	// The first sweep runs; the check before the second reads 4 s (3 s
	// elapsed), before the third 5 s (4 s elapsed).
	if n != 2 || !stop.TimedOut() {
		t.Errorf("%d sweeps, timed out %v", n, stop.TimedOut())
	}
}

func TestCheckMaxSeconds(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		ok      bool
	}{
		{0, true}, {1e-9, true}, {30, true}, {1e300, true},
		{-1, false}, {math.Copysign(0, -1), true}, {math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false},
	} {
		err := infer.CheckMaxSeconds("mf", tc.seconds)
		if (err == nil) != tc.ok {
			t.Errorf("%v: error %v, want ok %v", tc.seconds, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "mf: max_seconds") {
			t.Errorf("%v: error %q does not name the option", tc.seconds, err)
		}
	}
}

// A budget started under BeginCall counts from the call's beginning, the
// work before the loop included; an enclosing call's mark stands.
func TestBeginCall(t *testing.T) {
	clock := &ticker{step: time.Second}
	ctx := infer.WithClock(context.Background(), clock.now)
	ctx = infer.BeginCall(ctx) // 1 s
	if infer.BeginCall(ctx) != ctx || clock.reads != 1 {
		t.Fatalf("a nested BeginCall replaced the mark (%d clock reads)", clock.reads)
	}
	if got := infer.CallStart(ctx); !got.Equal(time.Time{}.Add(time.Second)) || clock.reads != 1 {
		t.Fatalf("call start %v (%d clock reads)", got, clock.reads)
	}
	clock.now() // 2 s: set-up
	clock.now() // 3 s
	stop := infer.Budget{MaxIter: 100, MaxSeconds: 3.5}.Start(ctx)
	n := countSweeps(t, stop)
	// The first sweep runs; the check before the second reads 4 s (3 s
	// elapsed), before the third 5 s (4 s elapsed).
	if n != 2 || !stop.TimedOut() {
		t.Errorf("%d sweeps, timed out %v", n, stop.TimedOut())
	}
}

// The one sweep a budget always allows is one per call: a second loop of
// the same call (a method's own loop after a warm start by another) runs
// none once the budget is spent, and one without a time budget is not
// held back.
func TestOneFreeSweepPerCall(t *testing.T) {
	clock := &ticker{step: time.Second}
	ctx := infer.BeginCall(infer.WithClock(context.Background(), clock.now)) // 1 s
	clock.t = clock.t.Add(10 * time.Second)
	warm := infer.Budget{MaxIter: 100, MaxSeconds: 5}.Start(ctx)
	if n := countSweeps(t, warm); n != 1 || !warm.TimedOut() {
		t.Errorf("warm start: %d sweeps, timed out %v", n, warm.TimedOut())
	}
	own := infer.Budget{MaxIter: 100, MaxSeconds: 5}.Start(ctx)
	if n := countSweeps(t, own); n != 0 || !own.TimedOut() {
		t.Errorf("second loop: %d sweeps, timed out %v", n, own.TimedOut())
	}
	free := infer.Budget{MaxIter: 3}.Start(ctx)
	if n := countSweeps(t, free); n != 3 || free.TimedOut() {
		t.Errorf("no time budget: %d sweeps, timed out %v", n, free.TimedOut())
	}
	// Without a mark every budget has its first sweep.
	plain := infer.WithClock(context.Background(), clock.now)
	for range 2 {
		if n := countSweeps(t, infer.Budget{MaxIter: 100, MaxSeconds: 1e-9}.Start(plain)); n != 1 {
			t.Errorf("unmarked: %d sweeps", n)
		}
	}
}

// Expired reads the time budget without counting a sweep or allowing a
// first one, and stays expired.
func TestExpired(t *testing.T) {
	clock := &ticker{step: time.Second}
	ctx := infer.WithClock(context.Background(), clock.now)
	stop := infer.Budget{MaxIter: 100, MaxSeconds: 2.5}.Start(ctx) // 1 s
	for k, want := range []bool{false, false, true} {              // 2, 3, 4 s
		if got := stop.Expired(); got != want {
			t.Errorf("check %d: expired %v, want %v", k, got, want)
		}
	}
	reads := clock.reads
	if !stop.Expired() || !stop.TimedOut() || clock.reads != reads {
		t.Errorf("expired %v, timed out %v, %d more clock reads", stop.Expired(), stop.TimedOut(), clock.reads-reads)
	}
	if more, _ := stop.Next(); !more {
		t.Error("the first sweep of an unmarked call did not run")
	}
	if more, _ := stop.Next(); more {
		t.Error("a second sweep ran after the budget expired")
	}
	if (infer.Budget{MaxIter: 1}).Start(ctx).Expired() {
		t.Error("a run without a time budget expired")
	}
}

func countSweeps(t *testing.T, stop *infer.Stop) int {
	t.Helper()
	n := 0
	for {
		more, err := stop.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			return n
		}
		n++
	}
}
