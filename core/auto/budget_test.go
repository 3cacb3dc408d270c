package auto

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(secs float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Duration(secs * float64(time.Second)))
}

// script says what each fake method does: how long it needs to converge
// (+Inf: never), and the answer it gives.
type script struct {
	need   float64
	p      float64 // p(x0 = 1) of its answer
	failed bool    // it returns an error
}

// sweep is the fake methods' overrun of their limit: they stop at the end
// of the sweep in which the limit passed.
const sweep = 0.01

// fakeRuns returns an Auto whose steps run the script on clock: a step
// runs for min(need, limit + sweep) seconds and converges if need fits its
// limit. It records every step with its limit and start.
type logged struct {
	name         string
	start, limit float64
}

func fakeAuto(t *testing.T, opts Options, clock *fakeClock, scripts map[string]script, exactEst float64) (*Auto, *[]logged) {
	t.Helper()
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log []logged
	t0 := clock.now()
	a.estimate = func(*mrf.Model) (exactPlan, error) {
		if math.IsInf(exactEst, 1) {
			return exactPlan{}, errors.New("too wide")
		}
		return exactPlan{seconds: exactEst}, nil
	}
	a.run = func(ctx context.Context, m *mrf.Model, s step, limit float64) candidate {
		mu.Lock()
		log = append(log, logged{s.name, clock.now().Sub(t0).Seconds(), limit})
		mu.Unlock()
		sc, ok := scripts[s.method]
		if !ok {
			sc = script{need: math.Inf(1), p: 0.5}
		}
		c := s.candidate(limit)
		took := math.Min(sc.need, limit+sweep)
		if s.kind == kindExact {
			took = sc.need // exact cannot be stopped
		}
		clock.advance(took)
		c.seconds = took
		if sc.failed {
			c.err = errors.New("boom")
			return c
		}
		c.res = &infer.Result{Marginals: answer(sc.p), LogZ: 1, Status: statusIf(sc.need <= limit), Diagnostics: map[string]float64{"rhat_max": 1}}
		if s.kind == kindMC {
			c.se = [][]float64{{0.01, 0.01}, {0, 0}}
		}
		return c
	}
	return a, &log
}

func sequential(budget float64) Options {
	o := DefaultOptions()
	o.MaxSeconds, o.Parallel = budget, false
	return o
}

// TestBudgetHolds runs budgets out on a fake clock: every run starts with
// a limit within the time left, the variational runs end within their
// share, and the call within its budget plus one sweep per run.
func TestBudgetHolds(t *testing.T) {
	never := math.Inf(1)
	for _, tc := range []struct {
		name     string
		budget   float64
		exactEst float64
		scripts  map[string]script
		chosen   string
		cert     string
	}{
		{"exact fits", 20, 5, map[string]script{"exact": {need: 5, p: 0.3}}, "exact", infer.CertExact},
		{"exact too slow, gbp converges", 20, 40, map[string]script{"gbp": {need: 1, p: 0.305}, "pt": {need: never, p: 0.3}, "mf": {need: 0.01, p: 0.2}}, "gbp@cycles", infer.CertConverged},
		{"exact fails, pt mixes", 20, 2, map[string]script{"exact": {need: 2, failed: true}, "mf": {need: 0.01, p: 0.2}, "pt": {need: 1, p: 0.3}, "gbp": {need: never, p: 0.45}}, "pt", infer.CertMonteCarlo},
		{"no plan, nothing converges: bounds", 300, never, map[string]script{"pt": {need: never, p: 0.3}}, "pt", infer.CertBounds},
		{"no plan, nothing converges, trw fails: none", 300, never, map[string]script{"pt": {need: never, p: 0.3}, "trw": {failed: true}}, "pt", infer.CertNone},
		{"a tiny budget still answers", 0.001, never, nil, "mf", infer.CertNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(100, 0)}
			a, log := fakeAuto(t, sequential(tc.budget), clock, tc.scripts, tc.exactEst)
			ctx := infer.WithClock(context.Background(), clock.now)
			start := clock.now()
			res, err := a.Infer(ctx, twoVars())
			if err != nil {
				t.Fatal(err)
			}
			elapsed := clock.now().Sub(start).Seconds()
			rec := res.Record.(*Record)
			ranExact := len(*log) > 0 && (*log)[0].name == "exact"
			if wantExact := exactSeconds(tc.exactEst, a.cores) <= tc.budget-reserve(tc.budget); ranExact != wantExact || rec.Exact.Ran != wantExact {
				t.Errorf("exact ran %v (recorded %v), want %v: %s", ranExact, rec.Exact.Ran, wantExact, rec.Exact.Why)
			}
			if tc.cert == infer.CertExact && len(*log) != 1 {
				t.Errorf("exact inference answered, yet %d runs", len(*log))
			}
			if rec.Chosen != tc.chosen || res.Certificate != tc.cert {
				t.Errorf("chose %s (%s), want %s (%s): %s", rec.Chosen, res.Certificate, tc.chosen, tc.cert, rec.Reason)
			}
			// The fake exact inference takes its estimate; the rest stop
			// one sweep after their limit, mean field after at least
			// minSlice.
			over := float64(len(*log))*sweep + minSlice
			if elapsed > tc.budget+over+1e-9 || elapsed > 1.1*tc.budget+1 {
				t.Errorf("%.4g s elapsed of a %.4g s budget (%d runs)", elapsed, tc.budget, len(*log))
			}
			// The variational runs share variationalShare of what is left
			// when they begin (after exact inference, if it ran).
			vStart := 0.0
			for _, l := range *log {
				if l.name == "mf" {
					vStart = l.start
				}
			}
			varEnd := vStart + variationalShare*(tc.budget-reserve(tc.budget)-vStart)
			for _, l := range *log {
				if l.name == "mf" {
					continue // always runs, for at least minSlice
				}
				if l.start+l.limit > tc.budget-reserve(tc.budget)+1e-9 {
					t.Errorf("%s: limit %.4g s from %.4g s, past the budget %.4g s", l.name, l.limit, l.start, tc.budget)
				}
				if l.name != "pt" && l.name != "exact" && l.start+l.limit > varEnd+float64(len(*log))*sweep+1e-9 {
					t.Errorf("%s: limit %.4g s from %.4g s, past the variational share's end %.4g s", l.name, l.limit, l.start, varEnd)
				}
			}
		})
	}
}

// TestSkippedWhenNoTime checks that a step with less than minSlice left is
// recorded as skipped, not run with a limit of 0 (no limit).
func TestSkippedWhenNoTime(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	a, log := fakeAuto(t, sequential(0.05), clock, map[string]script{"mf": {need: 0.01, p: 0.2}}, math.Inf(1))
	res, err := a.Infer(infer.WithClock(context.Background(), clock.now), twoVars())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range *log {
		if !(l.limit > 0) {
			t.Errorf("%s ran with limit %v", l.name, l.limit)
		}
	}
	skipped := 0
	for _, r := range res.Record.(*Record).Runs {
		if strings.HasPrefix(r.Error, "skipped") {
			skipped++
		}
	}
	if skipped == 0 {
		t.Errorf("a 0.05 s budget skipped nothing: %+v", res.Record.(*Record).Runs)
	}
}

// TestExactByCores: exact inference runs when its plan's one-core estimate,
// scaled to the cores it runs on (exactSeconds), fits the time left: a plan
// estimated at 30 s fits 20 s on two cores (0.6 of the estimate), not on
// one (1.25 of it).
func TestExactByCores(t *testing.T) {
	for _, tc := range []struct {
		est   float64
		cores int
		ran   bool
	}{
		{10, 1, true}, {16, 1, false}, {30, 1, false},
		{10, 2, true}, {30, 2, true}, {34, 2, false}, {30, 8, true},
	} {
		clock := &fakeClock{t: time.Unix(100, 0)}
		scripts := map[string]script{"exact": {need: 0.6 * tc.est, p: 0.3}, "pt": {need: 1, p: 0.3}}
		a, _ := fakeAuto(t, sequential(20), clock, scripts, tc.est)
		a.cores = tc.cores
		res, err := a.Infer(infer.WithClock(context.Background(), clock.now), twoVars())
		if err != nil {
			t.Fatal(err)
		}
		rec := res.Record.(*Record)
		if rec.Exact.Ran != tc.ran || (res.Certificate == infer.CertExact) != tc.ran {
			t.Errorf("estimate %g s, %d cores: exact ran %v, certificate %s; want ran %v (%s)", tc.est, tc.cores, rec.Exact.Ran, res.Certificate, tc.ran, rec.Exact.Why)
		}
	}
}
